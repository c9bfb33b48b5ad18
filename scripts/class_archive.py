"""Write the driver's class-data archive: ``python scripts/class_archive.py ARCHIVE`` (``make setup`` runs it).

One small pipeline run (``run``: the ingest and the audit of a one-cluster synthetic fleet) in a local session whose
JVM is started with ``-XX:ArchiveClassesAtExit``: when that JVM exits, HotSpot writes every class it loaded from the
class path into ARCHIVE, and later sessions started by ``jobs.runtime.session.build_session`` map them from there
(``_class_archive_options``). The session is built by the same builder, so the class path is the one later sessions
have. The archive is written beside ARCHIVE and moved into place once the JVM has exited.

The run leaves out the data-quality stage and the report: the JVM classes they load are nearly all loaded by the
ingest and the audit already, and a cold ``kraft-audit gate`` with its data-quality stage starts as fast on this
archive as on one written with them, which takes a third longer to write (docs/performance-history.md).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path

from jobs import audit, ingest, synth
from jobs import run as run_job
from jobs.runtime.session import CLASS_ARCHIVE_QUIET, build_session
from synthetic.spec import FleetSpec


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: class_archive.py ARCHIVE", file=sys.stderr)
        return 2
    archive = Path(argv[0]).resolve()
    partial = archive.with_name(archive.name + ".partial")
    partial.unlink(missing_ok=True)
    os.environ["KRAFT_AUDIT_CLASS_ARCHIVE"] = ""  # the run loads every class from the jars, as none is archived yet
    logging.disable(logging.WARNING)
    # only the class path decides whether a later JVM can map the archive: the builder's other JVM options (its
    # collector, the UTC zone) are left out of this run's, which is thrown away
    dump = f"-XX:ArchiveClassesAtExit={partial} {CLASS_ARCHIVE_QUIET}"
    spark = build_session(app_name="kraft-audit-class-archive", extra_conf={"spark.driver.extraJavaOptions": dump})
    with tempfile.TemporaryDirectory() as scratch:
        fleet = FleetSpec(out=str(Path(scratch) / "fleet"), clusters=1, topics=3, overwrite=True, seed=7)
        synth.run(fleet)
        warehouse = str(Path(scratch) / "warehouse")
        settings = run_job.RunSettings(
            ingest=ingest.IngestSettings(inputs=(fleet.out,), warehouse=warehouse),
            audit=audit.AuditSettings(target_mv="4.4", warehouse=warehouse, dq=False),
            print_ingest_summary=False,
        )
        run_job.run(spark, settings)
    gateway = spark.sparkContext._gateway
    spark.stop()
    jvm = gateway.proc  # the JVM writes the archive as it exits, once its standard input closes
    jvm.stdin.close()
    jvm.wait(timeout=300)
    if not partial.is_file():
        print(f"class_archive: the JVM wrote no archive ({partial})", file=sys.stderr)
        return 1
    partial.replace(archive)
    print(f"class_archive: {archive} ({archive.stat().st_size // 2**20} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
