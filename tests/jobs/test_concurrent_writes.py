"""Writes a job runs beside its next steps (jobs.concurrent_writes): all of them land, none is left running behind
an error, and their Spark jobs carry the description of the stage that submitted them."""

from __future__ import annotations

import threading
import time

import pytest
from pyspark.sql import SparkSession

from benchmarks.jobcount import counting
from jobs.concurrent_writes import ConcurrentWrites
from jobs.progress import stage


def test_writes_run_side_by_side_and_all_have_ended_when_the_block_ends() -> None:
    both_started = threading.Barrier(2, timeout=10)  # each write waits for the other: they must run at once
    ended: list[str] = []

    def write(name: str) -> None:
        both_started.wait()
        time.sleep(0.05)
        ended.append(name)

    with ConcurrentWrites(workers=2) as writes:
        writes.submit(write, "a")
        writes.submit(write, name="b")
    assert sorted(ended) == ["a", "b"]


def test_wait_raises_a_write_error_after_every_write_has_ended() -> None:
    ended: list[str] = []

    def failing() -> None:
        raise ValueError("disk full")

    def slow() -> None:
        time.sleep(0.2)
        ended.append("slow")

    writes = ConcurrentWrites(workers=2)
    writes.submit(failing)
    writes.submit(slow)
    with pytest.raises(ValueError, match="disk full"):
        writes.wait()
    assert ended == ["slow"]
    writes.wait()  # nothing pending any more
    with pytest.raises(ValueError, match="disk full"), ConcurrentWrites() as block:
        block.submit(failing)


def test_the_blocks_own_error_wins_and_the_writes_still_end() -> None:
    ended: list[str] = []

    def slow() -> None:
        time.sleep(0.2)
        ended.append("slow")

    def failing() -> None:
        raise ValueError("a write's error")

    with pytest.raises(RuntimeError, match="the job's own"), ConcurrentWrites() as writes:
        writes.submit(slow)
        writes.submit(failing)
        raise RuntimeError("the job's own error")
    assert ended == ["slow"]


def test_a_write_runs_its_spark_jobs_under_the_submitting_stage(spark: SparkSession) -> None:
    seen: list[str | None] = []

    def write() -> None:
        seen.append(spark.sparkContext.getLocalProperty("spark.job.description"))
        spark.range(10).count()

    with counting(spark) as jobs, ConcurrentWrites() as writes:
        with stage(spark, "replaying 1 cluster(s)"):
            writes.submit(write)
        writes.wait()
    assert seen == ["replaying 1 cluster(s)"]
    assert jobs.total >= 1
    assert jobs.by_stage == {"replay": jobs.total}
