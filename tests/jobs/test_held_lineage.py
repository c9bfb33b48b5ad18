"""A frame a job holds (``jobs.runtime.holding.truncated``) keeps no lineage for a running query to report metrics
against.

Spark logs "Failed to update accumulator ... attempted to access non-existent accumulator" when a task's metrics
reach the driver after it has garbage collected their accumulators. A lazily checkpointed frame causes it: its
lineage is dropped when the first job reading it ends (``RDD.doCheckpoint``), while a query started before may still
run tasks that carry the frame's plan. The race is made certain here: a slow reader starts first, a quick reader ends
first, the driver collects garbage, then the slow reader's task reports (each step waits for the one before, not for a
clock). The lazy checkpoint shows the errors (so the check can see them), the held frame none. Each in a process of
its own: the errors are in the JVM's log, on its standard error, and a race timed by sleeps showed them only in a
fresh session.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parents[2]
ERROR = "Failed to update accumulator"
RACE = """
import os, sys, threading, time
from pyspark import StorageLevel
from pyspark.sql import functions as F
from jobs.runtime.session import build_session
from jobs.runtime.holding import truncated

spark = build_session(master="local[2]")
spark.conf.set("spark.sql.adaptive.enabled", "false")
tracker = spark.sparkContext.statusTracker()
done_flag = os.path.abspath("reported-" + sys.argv[1])  # the slow reader's task ends once this file exists

def wait_for(condition):
    deadline = time.monotonic() + 120
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)

def slow(batches):
    yield from batches
    wait_for(lambda: os.path.exists(done_flag))

def race(hold):
    frame = hold(spark.range(0, 1000, numPartitions=1).where("id % 3 <> 1").withColumn("v", F.col("id") * 2))
    reader = threading.Thread(target=lambda: frame.mapInArrow(slow, frame.schema).count())
    reader.start()  # its task carries the frame's plan unless the frame is checkpointed already
    wait_for(lambda: len(tracker.getActiveJobsIds()) > 0)
    time.sleep(0.5)  # the job's tasks are serialized when it is submitted, before it shows as active
    frame.count()  # ends first: a lazy checkpoint drops its lineage here
    del frame
    for _ in range(3):
        spark.sparkContext._jvm.System.gc()
        time.sleep(0.2)
    open(done_flag, "w").close()
    reader.join()

if sys.argv[1] == "lazy":
    race(lambda df: df.localCheckpoint(eager=False, storageLevel=StorageLevel.MEMORY_AND_DISK))
else:
    race(lambda df: truncated(df, local_rows=0))
spark.stop()
"""


def _race_log(hold: str, tmp_path: Path) -> str:
    """The standard error of the race over a frame held ``lazy`` or by ``truncated``."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run(
        [sys.executable, "-c", RACE, hold], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


def test_a_query_running_while_a_held_frame_is_read_reports_no_lost_metrics(tmp_path: Path) -> None:
    assert ERROR in _race_log("lazy", tmp_path), "the lazy checkpoint no longer shows the race: the check cannot see it"
    held = _race_log("held", tmp_path)
    assert ERROR not in held, held[-3000:]
