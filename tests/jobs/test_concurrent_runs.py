"""Three runs (``kraft-audit run``) at once on one fresh warehouse (issue 59), two of them of the same cluster: through
Delta's optimistic concurrency, runs of different clusters both land; runs of the same cluster land or stop with one
line and exit 2, and the tables never hold a record, a file or a run twice.

The two runs of the same cluster are CLI processes of their own (each its own Spark session and Delta log cache),
started together; the run of the other cluster runs in this worker's session, from the moment the first of them
writes to the warehouse (a writer in another JVM, as theirs are to each other). The input is the hand-written
JSON-lines cluster of tests/data/e2e (25 records), which passes the segment rule at 4.2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.cli import main as cli_main
from jobs.storage import open_store
from tests.short_jvm import FAST_JVM

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "e2e"
RECORDS = 25  # records of tests/data/e2e/cluster.jsonl


def _run_args(tmp: Path, cluster: str, index: int) -> list[str]:
    """``run`` arguments of a cluster's folder of cluster.jsonl (made here)."""
    folder = tmp / cluster
    folder.mkdir(exist_ok=True)
    shutil.copy(DATA / "cluster.jsonl", folder / "cluster.jsonl")
    args = ["run", "--input", str(folder), "--warehouse", str(tmp / "warehouse"), "--target-mv", "4.2", "--no-dq"]
    args += ["-q", "--no-default-constraints", "--constraints", str(DATA / "segment-rule.yaml")]
    return [*args, "--summary-json", str(tmp / f"summary-{index}.json")]


def _runs(
    tmp: Path, here: str, processes: list[str], capsys: pytest.CaptureFixture[str]
) -> list[subprocess.CompletedProcess[str]]:
    """A CLI process's ``run`` per entry of ``processes``, all started at once, and the run of ``here`` in this
    process beside them (entries: a cluster's folder of cluster.jsonl); the results, ``here``'s first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_GATEWAY", "PYSPARK_SUBMIT"))}
    env.update(SPARK_LOCAL_IP="127.0.0.1", TZ="UTC", JAVA_TOOL_OPTIONS=FAST_JVM, PYTHONPATH=str(REPO))
    started = [
        subprocess.Popen(
            [str(REPO / ".venv" / "bin" / "python"), "-m", "jobs.cli", *_run_args(tmp, cluster, index)],
            env=env,
            cwd=tmp,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index, cluster in enumerate(processes, start=1)
    ]
    try:
        # this process's run starts as the first of theirs writes to the warehouse, so it runs beside their writes
        # (started together, it would be done before their JVMs were)
        deadline = time.monotonic() + 300
        while not (tmp / "warehouse").exists() and time.monotonic() < deadline:
            assert all(process.poll() is None for process in started), "a run ended before writing anything"
            time.sleep(0.05)
        capsys.readouterr()
        code = cli_main(_run_args(tmp, here, 0))
        out, err = capsys.readouterr()
        done = [subprocess.CompletedProcess(["kraft-audit", "run"], code, out, err)]
        for process in started:
            out, err = process.communicate(timeout=900)
            done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
    return done


def test_three_runs_at_once_two_of_one_cluster_land_or_stop_in_one_line_and_hold_nothing_twice(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "west" alone; two runs of "east" ingest the same file under the same cluster id (two folders named alike under
    # two parents). All three race on one fresh warehouse: the run of the other cluster lands whatever the two of
    # the same cluster do, and at least one of those lands.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    west, *easts = _runs(tmp_path, "west", ["a/east", "b/east"], capsys)
    assert west.returncode == 0, west.stderr[-3000:]
    assert "Traceback" not in west.stderr
    for run in easts:
        assert run.returncode in (0, 2), run.stderr[-3000:]
        assert "Traceback" not in run.stderr
        if run.returncode == 2:
            errors = [line for line in run.stderr.splitlines() if line.startswith("kraft-audit: error")]
            assert len(errors) == 1, run.stderr
    assert 0 in [run.returncode for run in easts]
    store = open_store(spark, str(tmp_path / "warehouse"))
    records = store.read("metadata_records")
    # west: its records once; east: the same content under two paths may be ingested under each, never doubled per
    # file
    assert records.filter(F.col("cluster_id") == "west").select("offset").distinct().count() == RECORDS
    per_file = {
        (r["cluster_id"], r["source_file"]): r["count"]
        for r in records.groupBy("cluster_id", "source_file").count().collect()
    }
    assert set(per_file.values()) == {RECORDS}
    assert {c for c, _ in per_file} == {"east", "west"}
    assert sum(1 for c, _ in per_file if c == "west") == 1
    files = {r["cluster_id"]: r["count"] for r in store.read("ingested_files").groupBy("cluster_id").count().collect()}
    assert files["west"] == 1 and files["east"] in (1, 2)
    effective = store.read("effective_configs")
    keys = ["cluster_id", "resource_type", "resource_name", "node_id", "config_name"]
    assert effective.count() == effective.select(*keys).distinct().count()
    assert {r[0] for r in effective.select("cluster_id").distinct().collect()} == {"east", "west"}
    # a run's row is its last write: one per run that landed
    runs = store.read("audit_runs").count()
    assert runs == 1 + sum(1 for run in easts if run.returncode == 0)
