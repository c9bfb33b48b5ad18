"""One side of the storage race (tests/jobs/test_storage.py): three writes to a warehouse, each started at the same
moment as the other side's (a barrier of files) and slowed by a second and a half of computing, so that both read the
table before either commits.

The other side is another process; this side runs in the test's worker session (``race_writes``, in a thread) or as a
process of its own (``python -m tests.jobs.race_writer WAREHOUSE ME OTHER GATE JVM_OPTIONS``: a session of its own,
then the writes; prints ``OUTCOME`` and the outcomes as JSON).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.storage import ConcurrentCommitError, open_store

T0 = dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.UTC)


def race_rows(writer: str, cluster: str) -> list[tuple[Any, ...]]:
    """The two rows ``writer`` ("one" or "two") writes to ``cluster``'s partition (the table's five columns)."""
    first = 10 if writer == "one" else 20
    return [(cluster, o, f"{writer}{o}", o % 7, T0 + dt.timedelta(seconds=o)) for o in range(first, first + 2)]


class _LostRaces(logging.Handler):
    """Counts the store's "lost a commit race" messages (each one a retry)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "lost a commit race" in record.getMessage():
            self.count += 1


def race_writes(spark: SparkSession, warehouse: str, me: str, other: str, gate: str) -> dict[str, dict[str, Any]]:
    """Per write (``same``: one partition both sides replace; ``different``: each side's own partition; ``create``:
    two first appends to a new table) its outcome: the version committed or the conflict or error, and the retries."""
    store = open_store(spark, warehouse)
    schema = store.schema("t")

    def frame(cluster: str) -> DataFrame:
        slow = F.expr("java_method('java.lang.Thread', 'sleep', 750L)") == F.lit("null")
        return spark.createDataFrame(race_rows(me, cluster), schema).filter(slow)

    def barrier(step: str) -> None:
        Path(gate, f"{step}-{me}").touch()
        deadline = time.monotonic() + 300
        while not Path(gate, f"{step}-{other}").exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{other} never reached {step}")
            time.sleep(0.005)

    logger = logging.getLogger("kraft_audit")
    lost, level = _LostRaces(), logger.level
    logger.addHandler(lost)
    logger.setLevel(logging.INFO)
    try:
        outcome: dict[str, dict[str, Any]] = {}
        store.read("t").filter(F.col("cluster_id") == "none").collect()  # Delta's classes loaded before the races
        for step, table, cluster in (("same", "t", "shared"), ("different", "t", me), ("create", "fresh", me)):
            df = frame(cluster)
            if table == "fresh":
                store.ensure("fresh", schema, ["cluster_id"])
            barrier(step)
            before = lost.count
            try:
                if table == "fresh":
                    version = store.append("fresh", df)
                else:
                    version = store.replace_partitions(table, df, {"cluster_id": [cluster]})
                outcome[step] = {"version": version, "retries": lost.count - before}
            except ConcurrentCommitError as error:
                outcome[step] = {"conflict": str(error), "retries": lost.count - before}
            except Exception as error:  # reported, and the next step still runs
                outcome[step] = {"error": f"{type(error).__name__}: {error}"[:600], "retries": lost.count - before}
        return outcome
    finally:
        logger.removeHandler(lost)
        logger.setLevel(level)


def main(argv: list[str]) -> int:
    from jobs.runtime.session import build_session

    warehouse, me, other, gate, jvm = argv
    spark = build_session(
        master="local[1]",
        app_name=f"race-{me}",
        extra_conf={"spark.ui.enabled": "false", "spark.driver.memory": "1g", "spark.driver.extraJavaOptions": jvm},
    )
    print("OUTCOME " + json.dumps(race_writes(spark, warehouse, me, other, gate)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
