"""Kafka's own decoder of a fixture's metadata log: ``kafka-dump-log --cluster-metadata-decoder`` of the release that
wrote it, kept beside the fixture so that the suite compares kraft-audit's binary decoder and its dump-log text parser
with what Kafka prints for the same bytes (``tests/oracle/test_dump_log_agrees.py``).

The tool is ``kafka.tools.DumpLogSegments`` (core) up to 4.2 and ``org.apache.kafka.tools.DumpLogSegments``
(kafka-tools) from 4.3 (the jars of 4.2.0 and 4.3.1). It runs in the metadata directory on every ``*.log`` and
``*.checkpoint`` file, named relative to it, so the text holds no path of the machine that made it.

``python -m oracle.dumplog FIXTURES`` writes ``dump-log.txt.gz`` for every fixture with a metadata log that has
none (``--force``: every one); ``make kafka-fixtures`` runs it after ``oracle.fixtures``.
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
from pathlib import Path

from oracle.fixtures import METADATA_DIR, fixtures, log_files
from oracle.runtime import Release, RuntimeMissing, release

DUMP = "dump-log.txt.gz"
_JVM = ("-Xms64m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true")
_TIMEOUT_S = 120


def main_class(kafka: Release) -> str:
    """The class behind ``kafka-dump-log.sh`` in this release."""
    if (kafka.major, kafka.minor) >= (4, 3):
        return "org.apache.kafka.tools.DumpLogSegments"
    return "kafka.tools.DumpLogSegments"


def dump_text(kafka: Release, metadata_dir: Path) -> str:
    """What ``kafka-dump-log --cluster-metadata-decoder`` prints for every metadata file of ``metadata_dir`` (stdout
    only: 3.x's log4j warnings go to stderr)."""
    names = [path.name for path in log_files(metadata_dir)]
    command = kafka.java(main_class(kafka), "--cluster-metadata-decoder", "--files", ",".join(names), jvm=_JVM)
    done = subprocess.run(command, cwd=metadata_dir, capture_output=True, text=True, timeout=_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class(kafka)} of Kafka {kafka.version} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def write_dump(fixture: Path, kafka: Release) -> Path:
    """``<fixture>/dump-log.txt.gz`` from the fixture's metadata directory (the same text gives the same bytes)."""
    dest = fixture / DUMP
    with gzip.GzipFile(dest, "wb", mtime=0) as out:
        out.write(dump_text(kafka, fixture / METADATA_DIR).encode("utf-8"))
    return dest


def read_dump(fixture: Path) -> list[str] | None:
    """The lines of a fixture's dump, or None when it has none."""
    path = fixture / DUMP
    if not path.is_file():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


def fixture_release(fixture: Path) -> str:
    """``<scenario>@<release>`` → the release."""
    return fixture.name.rpartition("@")[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracle.dumplog", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="fixture root (tests/data/kafka-oracle/scenarios)")
    parser.add_argument("--force", action="store_true", help="rewrite the dumps that exist")
    args = parser.parse_args(argv)
    written = 0
    for fixture in fixtures(args.root):
        if not (fixture / METADATA_DIR).is_dir() or ((fixture / DUMP).is_file() and not args.force):
            continue
        try:
            write_dump(fixture, release(fixture_release(fixture)))
        except RuntimeMissing as missing:
            print(f"kafka-dump-log: {fixture.name}: {missing}", file=sys.stderr)
            return 2
        written += 1
    print(f"kafka-dump-log: {written} dump(s) written under {args.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
