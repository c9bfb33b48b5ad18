"""Two ``kraft-audit run`` processes at once on one fresh warehouse (issue 59): through Delta's optimistic concurrency,
runs of different clusters both land; runs of the same cluster land or stop with one line and exit 2, and the tables
never hold a record, a file or a run twice.

Each run is a CLI process of its own (its own Spark session and Delta log cache), started together; the input is the
hand-written JSON-lines cluster of tests/data/e2e (25 records), which passes the segment rule at 4.2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.storage import open_store
from tests.short_jvm import FAST_JVM

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "e2e"
RECORDS = 25  # records of tests/data/e2e/cluster.jsonl


def _runs(tmp: Path, clusters: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """One ``run`` per entry of ``clusters`` (a cluster's folder of cluster.jsonl), all started at once."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_GATEWAY", "PYSPARK_SUBMIT"))}
    env.update(SPARK_LOCAL_IP="127.0.0.1", TZ="UTC", JAVA_TOOL_OPTIONS=FAST_JVM, PYTHONPATH=str(REPO))
    processes = []
    for index, cluster in enumerate(clusters):
        folder = tmp / cluster
        folder.mkdir(exist_ok=True)
        shutil.copy(DATA / "cluster.jsonl", folder / "cluster.jsonl")
        args = [str(REPO / ".venv" / "bin" / "python"), "-m", "jobs.cli", "run", "--input", str(folder)]
        args += ["--warehouse", str(tmp / "warehouse"), "--target-mv", "4.2", "--no-dq", "-q"]
        args += ["--no-default-constraints", "--constraints", str(DATA / "segment-rule.yaml")]
        args += ["--summary-json", str(tmp / f"summary-{index}.json")]
        processes.append(
            subprocess.Popen(args, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        )
    done = []
    for process in processes:
        out, err = process.communicate(timeout=900)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def _no_twice(spark: SparkSession, warehouse: Path, clusters: set[str]) -> None:
    store = open_store(spark, str(warehouse))
    records = store.read("metadata_records")
    per_cluster = {r["cluster_id"]: r["count"] for r in records.groupBy("cluster_id").count().collect()}
    assert per_cluster == dict.fromkeys(clusters, RECORDS)
    assert records.select("cluster_id", "offset").distinct().count() == RECORDS * len(clusters)
    files = store.read("ingested_files").groupBy("cluster_id").count().collect()
    assert {r["cluster_id"]: r["count"] for r in files} == dict.fromkeys(clusters, 1)
    effective = store.read("effective_configs")
    keys = ["cluster_id", "resource_type", "resource_name", "node_id", "config_name"]
    assert effective.count() == effective.select(*keys).distinct().count()
    assert {r[0] for r in effective.select("cluster_id").distinct().collect()} == clusters


def test_runs_of_two_clusters_at_once_both_land(spark: SparkSession, tmp_path: Path) -> None:
    first, second = _runs(tmp_path, ["east", "west"])
    for run in (first, second):
        assert run.returncode == 0, run.stderr[-3000:]
    _no_twice(spark, tmp_path / "warehouse", {"east", "west"})
    runs = open_store(spark, str(tmp_path / "warehouse")).read("audit_runs")
    assert runs.count() == 2


def test_runs_of_one_cluster_at_once_land_or_stop_in_one_line_and_hold_nothing_twice(
    spark: SparkSession, tmp_path: Path
) -> None:
    # both runs ingest the same file under the same cluster id (two folders named alike under two parents)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _runs(tmp_path, ["a/same", "b/same"])
    for run in (first, second):
        assert run.returncode in (0, 2), run.stderr[-3000:]
        assert "Traceback" not in run.stderr
        if run.returncode == 2:
            errors = [line for line in run.stderr.splitlines() if line.startswith("kraft-audit: error")]
            assert len(errors) == 1, run.stderr
    assert 0 in (first.returncode, second.returncode)
    store = open_store(spark, str(tmp_path / "warehouse"))
    # the same content twice (two paths): the records may be ingested under each path, never doubled per file
    records = store.read("metadata_records").filter(F.col("cluster_id") == "same")
    per_file = {r["source_file"]: r["count"] for r in records.groupBy("source_file").count().collect()}
    assert set(per_file.values()) == {RECORDS}
    effective = store.read("effective_configs")
    keys = ["cluster_id", "resource_type", "resource_name", "node_id", "config_name"]
    assert effective.count() == effective.select(*keys).distinct().count()
