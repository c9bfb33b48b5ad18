"""The one place a SparkSession is built."""

from __future__ import annotations

import logging
import os
import re
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

from jobs.runtime.jvm_handles import cache_jvm_lookups, pack_java_lists

log = logging.getLogger(__name__)

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
# Delta Lake for Spark 4.2 / Scala 2.13: the jar of the pinned pip package delta-spark (pyproject.toml,
# scripts/delta-jars/pom.xml); what spark-submit users pass as --packages.
DELTA_PACKAGE = "io.delta:delta-spark_4.2_2.13:4.4.0"
# Dependencies of it that Spark ships itself, left out of --packages (--exclude-packages): Ivy's resolution otherwise
# fails where ~/.m2 holds their POMs without their jars ("download failed: org.slf4j#slf4j-api;2.0.13").
DELTA_EXCLUDED = "org.slf4j:slf4j-api,org.xerial.snappy:snappy-java"


def build_session(
    *,
    master: str | None = None,
    app_name: str = "kraft-audit",
    shuffle_partitions: int | None = None,
    extra_conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Build (or reuse) the SparkSession every job runs on.

    Local default ``local[*]``. Under ``spark-submit`` (or any launcher that started the JVM, or
    ``PYSPARK_SUBMIT_ARGS``) the master and every setting given there win — ``--master``, ``--conf``, ``--name``,
    ``spark-defaults.conf`` — and this only fills in the defaults they leave unset; an explicit ``master`` (the
    CLI's ``--master``) or ``extra_conf`` still applies (driver JVM options given there take the collector's place;
    the class archive and the UTC zone are kept). Whatever launched it, sessions run in UTC and write
    TIMESTAMP_MICROS parquet (INT96 files carry no statistics), which the tables' semantics depend on; JVM options
    get ``-Duser.timezone=UTC`` added unless they set a zone. Defaults: workers start the running interpreter,
    logs stay quiet, few shuffle partitions and the parallel collector (``_driver_collector``) in local mode, no
    per-call Python stack capture (PySpark's DataFrame query context). Delta Lake's extension and catalog are always
    set; its jars come from the launcher (``spark-submit --packages``) or, for a JVM this builder starts, from
    ``_delta_jars``. A local JVM this builder starts also writes ``file:`` paths through ``_local_file_system``.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    submitted = _submitted_conf()
    launched = _launched_by_spark()
    effective_master = master or submitted.get("spark.master") or _master_from_submit_args() or "local[*]"
    local = effective_master.startswith("local")

    defaults = _defaults(app_name, submitted, local=local, launched=launched)
    conf = {key: value for key, value in defaults.items() if key not in submitted}
    conf.update(
        {
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
            "spark.sql.sources.partitionOverwriteMode": "dynamic",
        }
    )
    for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
        # JVMs in UTC too; a launcher's own options are kept, with the time zone added unless they set one
        given = submitted.get(key, "")
        if "-Duser.timezone=" not in given:
            conf[key] = f"{given} -Duser.timezone=UTC".strip()
    collector = _driver_collector() if local and not launched else ""
    if collector:  # a JVM this builder starts (a launcher's JVM is running already: its collector is chosen)
        conf["spark.driver.extraJavaOptions"] = f"{collector} {conf['spark.driver.extraJavaOptions']}"
    archive = _class_archive_options() if local and not launched else ""
    if archive:
        conf["spark.driver.extraJavaOptions"] = f"{archive} {conf['spark.driver.extraJavaOptions']}"
    if master:
        conf["spark.master"] = master
    if shuffle_partitions is not None:
        conf["spark.sql.shuffle.partitions"] = str(shuffle_partitions)
    extra = dict(extra_conf or {})
    if (options := extra.pop("spark.driver.extraJavaOptions", None)) is not None:
        # the caller's driver options replace the builder's collector; the class archive and the zone stay
        zone = "" if "-Duser.timezone=" in options else "-Duser.timezone=UTC"
        conf["spark.driver.extraJavaOptions"] = " ".join(part for part in (archive, options, zone) if part)
    conf.update(extra)
    builder = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    cache_jvm_lookups(spark)
    pack_java_lists()
    spark.sparkContext.setLogLevel(os.environ.get("KRAFT_AUDIT_SPARK_LOG_LEVEL", "ERROR"))
    log.debug("Spark master %s", spark.sparkContext.master)
    return spark


def _defaults(app_name: str, submitted: Mapping[str, str], *, local: bool, launched: bool) -> dict[str, str]:
    """The settings a session gets unless its launcher gave them (see ``build_session``)."""
    defaults: dict[str, str] = {
        "spark.app.name": app_name,
        "spark.master": "local[*]",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.adaptive.enabled": "true",
        "spark.executorEnv.PYSPARK_PYTHON": os.environ["PYSPARK_PYTHON"],
        # PySpark's DataFrame query context: with it on, every Column and DataFrame call captures the Python stack
        # and sends it to the JVM before and after (a small gate made 230,000 py4j calls, 98,000 of them for this).
        # Our expressions are checked when the catalog loads, so errors are reported without it; --conf turns it on.
        "spark.python.sql.dataFrameDebugging.enabled": "false",
        # Constraint propagation derives every predicate a plan implies, at every operator, on every optimizer
        # pass; over the resolution's wide, many-join plans it was a third of the optimizer's time (a gate's
        # analyser + optimizer rules: 67 s -> 44 s in the same run, RuleExecutor's metrics). It only adds inferred
        # filters (IsNotNull before joins and the like): results are the same. --conf turns it back on.
        "spark.sql.constraintPropagation.enabled": "false",
    }
    if local and not launched:
        # In local mode the driver is the executor too; 1 GiB is tight for plans over many tables. (Once a launcher
        # has started the JVM its memory is fixed: spark-submit --driver-memory decides.)
        defaults["spark.driver.memory"] = os.environ.get("KRAFT_AUDIT_DRIVER_MEMORY", "3g")
    if local:
        # Metadata audits shuffle little data: 200 partitions per shuffle would be mostly scheduling overhead.
        defaults["spark.sql.shuffle.partitions"] = os.environ.get("KRAFT_AUDIT_SHUFFLE_PARTITIONS", "8")
        # Tungsten's page size defaults to execution memory / cores / 16 rounded up to a power of two, at most
        # 64 MiB: with a 3 GiB driver every broadcast hash join of a small table (an audit plans dozens) holds a
        # 64 MiB page in the block manager until the context cleaner frees it. Measured: after the replay tests
        # the block manager held 738 MB (22 broadcasts) with the default and 27 MB with 2 MiB pages; a small gate
        # in one 3 GiB session ran back-to-back full GCs (687 in 306 s, 223 s of them collecting) with the
        # default and none with 2 MiB pages. Bigger inputs simply take more pages.
        defaults["spark.buffer.pageSize"] = "2m"
        # Delta Lake computes a table's snapshot (the log replay) in 50 partitions by default, sized for clusters:
        # every first read or write of a table in a local session ran a 50-task stage over a log of a few files.
        defaults["spark.databricks.delta.snapshotPartitions"] = os.environ.get(
            "KRAFT_AUDIT_DELTA_SNAPSHOT_PARTITIONS", "2"
        )
    # Delta Lake 4.4 keeps a small table's file list in each commit's checksum (allFilesInCrc, under 50 files) and
    # builds it after every commit with a Spark job of its own; readers never use it (a scan still rebuilds the
    # snapshot's state: Snapshot.allFiles, delta-io/delta v4.4.0). Off, a gate runs 91 Spark jobs instead of 112,
    # every table and checksum file otherwise the same.
    defaults["spark.databricks.delta.allFilesInCrc.enabled"] = "false"
    defaults["spark.sql.extensions"] = DELTA_EXTENSION
    defaults["spark.sql.catalog.spark_catalog"] = DELTA_CATALOG
    if not launched and not _names_delta(submitted):
        defaults.update(_delta_jars())
    if local and not launched:
        defaults.update(_local_file_system(submitted))
    if launched or _master_from_submit_args():
        defaults.pop("spark.master")

    return defaults


def delta_jars_dir() -> Path:
    """Where ``make setup`` put Delta Lake's jars (``KRAFT_AUDIT_DELTA_JARS`` to point elsewhere)."""
    return Path(os.environ.get("KRAFT_AUDIT_DELTA_JARS") or Path(sys.prefix) / "delta-jars")


def _delta_jars() -> dict[str, str]:
    """How a JVM this builder starts gets Delta Lake: the jars ``make setup`` fetched once (no resolution per
    session, no network), else Spark's own resolution of ``DELTA_PACKAGE`` through Ivy, as
    ``configure_spark_with_delta_pip`` does (Maven Central must then be reachable)."""
    jars = sorted(delta_jars_dir().glob("*.jar"))
    if any(jar.name.startswith("delta-spark_") for jar in jars):
        return {"spark.jars": ",".join(str(jar) for jar in jars)}
    return {"spark.jars.packages": DELTA_PACKAGE, "spark.jars.excludes": DELTA_EXCLUDED}


def local_fs_jar() -> Path:
    """Where ``make setup`` built ``jobs/runtime/java`` (``KRAFT_AUDIT_LOCAL_FS`` to point elsewhere)."""
    return Path(os.environ.get("KRAFT_AUDIT_LOCAL_FS") or Path(sys.prefix) / "kraft-audit-local-fs.jar")


def _local_file_system(submitted: Mapping[str, str]) -> dict[str, str]:
    """``file:`` paths through ``kraftaudit.hadoop.LocalFileSystem`` (``jobs/runtime/java``): without Hadoop's
    native library, Hadoop's own runs a ``chmod`` process for every file it writes and ``readlink`` processes for
    every Delta commit (about 600 in a small audit, ~3 s of a warm audit's 26 s measured on the oracle's
    fixtures); this one makes the same calls in Java. Only for a JVM this builder starts, when ``make setup``
    built it and the launcher did not choose the driver's class path itself."""
    jar = local_fs_jar()
    if "spark.driver.extraClassPath" in submitted or not jar.is_file():
        return {}
    return {
        "spark.driver.extraClassPath": str(jar),
        "spark.hadoop.fs.file.impl": "kraftaudit.hadoop.LocalFileSystem",
        "spark.hadoop.fs.AbstractFileSystem.file.impl": "kraftaudit.hadoop.LocalFs",
    }


def class_archive() -> Path | None:
    """Where ``make setup`` wrote the driver's class-data archive (``KRAFT_AUDIT_CLASS_ARCHIVE`` to point
    elsewhere; empty: none)."""
    given = os.environ.get("KRAFT_AUDIT_CLASS_ARCHIVE")
    if given is None:
        return Path(sys.prefix) / "spark-classes.jsa"
    return Path(given) if given else None


# HotSpot's messages about class-data sharing (an archive that does not match the JVM or its class path, classes it
# cannot archive) stay out of the run's output.
CLASS_ARCHIVE_QUIET: Final = "-Xlog:cds=off -Xlog:cds+dynamic=off"


def _class_archive_options() -> str:
    """The JVM options that map the classes a run loads from ``class_archive`` (HotSpot's application class-data
    sharing, JDK 17's dynamic archive, written by ``scripts/class_archive.py`` at set-up) instead of reading,
    verifying and linking them from Spark's jars again: a local session starts in about 4 s instead of 6-7 and
    a small gate runs ~7 % faster (``docs/performance-history.md``). The JVM checks the archive against its own
    build and class path and ignores one that does not match (say, after pyspark was reinstalled: ``make
    setup`` writes it again); its messages about that are silenced, a run behaves the same with or without it."""
    archive = class_archive()
    if archive is None or not archive.is_file():
        return ""
    return f"-XX:SharedArchiveFile={archive} -Xshare:auto {CLASS_ARCHIVE_QUIET}"


def _names_delta(submitted: Mapping[str, str]) -> bool:
    """Whether a launcher's settings bring Delta Lake themselves (``--packages`` or ``--jars``)."""
    return any("delta-spark" in submitted.get(key, "") for key in ("spark.jars.packages", "spark.jars"))


# Options every JVM also reads from the environment: a second collector chosen there stops the JVM ("Multiple
# garbage collectors selected"), so none is added then.
_JVM_OPTION_VARIABLES: Final = ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")
_CHOOSES_COLLECTOR: Final = re.compile(r"-XX:\+Use\w*GC\b")


def _driver_collector() -> str:
    """The garbage collector option a local driver JVM this builder starts gets (empty: the JVM's own choice).

    The parallel collector by default. In local mode the driver JVM runs every task, on few cores: G1's concurrent
    work competes with the tasks for them, and the throughput collector's pauses cost less. Measured at L (the
    benchmark's 100 clusters, one audit per process, alternating): 109.6 / 103.1 s against 122.3 / 120.2 s with G1
    (README, Performance). ``KRAFT_AUDIT_DRIVER_GC`` replaces the option (empty: none); none is added when one of the
    JVM's option variables already chooses a collector.
    """
    option = os.environ.get("KRAFT_AUDIT_DRIVER_GC", "-XX:+UseParallelGC").strip()
    chosen = (os.environ.get(name, "") for name in _JVM_OPTION_VARIABLES)
    if not option or any(_CHOOSES_COLLECTOR.search(text) for text in chosen):
        return ""
    return option


def _launched_by_spark() -> bool:
    """Whether a launcher (``spark-submit``'s PythonRunner, a notebook kernel) started the JVM this driver uses."""
    return bool(os.environ.get("PYSPARK_GATEWAY_PORT"))


def _submitted_conf() -> dict[str, str]:
    """The Spark settings a launcher gave the JVM (``--master``, ``--conf``, ``spark-defaults.conf``); else empty.

    spark-submit hands them to the driver JVM as system properties, which a ``SparkConf`` created against that
    JVM loads; ``_ensure_initialized`` connects to it (what ``getOrCreate`` would do a moment later anyway).
    """
    if not _launched_by_spark():
        return {}
    SparkContext._ensure_initialized()
    return dict(SparkConf().getAll())


def _master_from_submit_args() -> str | None:
    """The ``--master`` of ``PYSPARK_SUBMIT_ARGS`` (the settings pyspark passes when it launches the JVM itself)."""
    args = shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    for index, arg in enumerate(args):
        if arg == "--master" and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith("--master="):
            return arg.split("=", 1)[1]
    return None
