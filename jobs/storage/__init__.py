"""Delta table I/O behind one small interface, with two backends.

``deltars`` (the embedded default): parquet files written with pyarrow by the frame's own Spark tasks
(``task_files``; by the driver for rows it holds, by Spark's parquet writer for a table partitioned by a column
that is not a string) into a staging folder inside the table, then one atomic delta-rs commit; reads list the
snapshot's files and partition values through delta-rs and scan them with Spark's native parquet reader.
``native``: Spark's own ``format("delta")`` when the Delta Lake jars are on the classpath (a cluster,
``--packages``).
``DELTA_BACKEND=native|deltars`` chooses; unset means auto-detect.
"""

from __future__ import annotations

import os

from pyspark.sql import SparkSession

from jobs.storage.base import ConcurrentCommitError, DeltaStore, PartitionPredicate
from jobs.storage.deltars import DeltaRsStore
from jobs.storage.native import NativeDeltaStore, native_delta_available
from schemas.errors import UsageError

BACKENDS = ("native", "deltars")


def open_store(spark: SparkSession, warehouse: str, backend: str | None = None) -> DeltaStore:
    """The table store for a warehouse, on the backend asked for (argument, then ``DELTA_BACKEND``, then auto)."""
    chosen = (backend or os.environ.get("DELTA_BACKEND") or "auto").strip().lower()
    if chosen == "auto":
        chosen = "native" if native_delta_available(spark) else "deltars"
    if chosen == "native":
        if not native_delta_available(spark):
            raise UsageError(
                "DELTA_BACKEND=native but the Delta Lake jars are not on the classpath "
                "(add --packages io.delta:delta-spark_4.2_2.13:4.4.1, or use DELTA_BACKEND=deltars)"
            )
        return NativeDeltaStore(spark, warehouse)
    if chosen == "deltars":
        return DeltaRsStore(spark, warehouse)
    raise UsageError(f"unknown DELTA_BACKEND {chosen!r}; use one of {', '.join(BACKENDS)}")


__all__ = [
    "BACKENDS",
    "ConcurrentCommitError",
    "DeltaRsStore",
    "DeltaStore",
    "NativeDeltaStore",
    "PartitionPredicate",
    "open_store",
]
