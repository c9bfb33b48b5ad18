"""The one place a SparkSession is built."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping

from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"


def build_session(
    *,
    master: str | None = None,
    app_name: str = "kraft-audit",
    shuffle_partitions: int | None = None,
    extra_conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Build (or reuse) the SparkSession every job runs on.

    Local default ``local[*]``; under ``spark-submit`` the master given there wins unless ``master`` is passed.
    Sessions run in UTC, write TIMESTAMP_MICROS parquet (INT96 files carry no statistics), start workers with the
    running interpreter, and keep the logs quiet. The Delta extension and catalog are set only when
    ``DELTA_BACKEND=native`` asks for the JVM Delta Lake (its jars must then be on the classpath).
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    elif "spark.master" not in _submitted_conf():
        builder = builder.master("local[*]")
    conf: dict[str, str] = {
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        "spark.driver.extraJavaOptions": "-Duser.timezone=UTC",
        "spark.executor.extraJavaOptions": "-Duser.timezone=UTC",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.executorEnv.PYSPARK_PYTHON": sys.executable,
    }
    if master is None or master.startswith("local"):
        # In local mode the driver is the executor too; 1 GiB is tight for plans over many tables.
        conf["spark.driver.memory"] = os.environ.get("KRAFT_AUDIT_DRIVER_MEMORY", "3g")
    if shuffle_partitions is None and (master is None or master.startswith("local")):
        # Metadata audits shuffle little data: 200 partitions per shuffle would be mostly scheduling overhead.
        shuffle_partitions = int(os.environ.get("KRAFT_AUDIT_SHUFFLE_PARTITIONS", "8"))
    if shuffle_partitions is not None:
        conf["spark.sql.shuffle.partitions"] = str(shuffle_partitions)
    if os.environ.get("DELTA_BACKEND", "").lower() == "native":
        conf["spark.sql.extensions"] = DELTA_EXTENSION
        conf["spark.sql.catalog.spark_catalog"] = DELTA_CATALOG
    conf.update(extra_conf or {})
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("KRAFT_AUDIT_SPARK_LOG_LEVEL", "ERROR"))
    return spark


def _submitted_conf() -> dict[str, str]:
    """Spark settings handed over by ``spark-submit`` (through PYSPARK_SUBMIT_ARGS or the launcher env)."""
    args = os.environ.get("PYSPARK_SUBMIT_ARGS", "")
    found: dict[str, str] = {}
    if "--master" in args:
        found["spark.master"] = "submitted"
    if os.environ.get("SPARK_ENV_LOADED") or os.environ.get("PYSPARK_GATEWAY_PORT"):
        found["spark.master"] = "submitted"
    return found
