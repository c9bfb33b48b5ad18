"""``kill -9`` of a ``kraft-audit run`` during its bronze, silver and gold writes (issue 59): after each kill every
table of the warehouse is readable (by Spark and by delta-rs), and the run that finally ends leaves the same tables as
one clean run on a fresh warehouse.

One warehouse takes the three kills in turn, each run resuming what the one before left: killed after its first
bronze commit (``metadata_records`` written, the file not yet in ``ingested_files``), then after its first silver
commit (``brokers``), then after its first gold commit (``violations``); a fourth run ends. "The same tables": bronze
and state tables row for row, and the run tables' rows of the last finished run, without the columns that name a run,
an ingest or a time. Rows of the killed runs stay in the run tables under run ids that ``audit_runs`` does not list
(docs/contract.md: a run's ``audit_runs`` row is its last write); they are checked to be exactly those. The killed runs
are processes of their own (the kill reaches their JVM); the clean run and the one that ends run in this process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from jobs.cli import main as cli_main
from jobs.storage import open_store
from tests.short_jvm import FAST_JVM

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "e2e"

# Columns that differ between two runs of the same input: which run, which ingest, when.
VOLATILE = {
    "run_id",
    "run_ts",
    "ingest_id",
    "ingested_at",
    "duration_ms",
    "first_seen_run_id",
    "first_seen_ts",
    "last_seen_run_id",
    "last_seen_ts",
    "resolved_run_id",
    "resolved_ts",
    "applied_run_id",
    "applied_run_ts",
}


def _args(warehouse: Path) -> list[str]:
    args = ["run", "--input", str(DATA / "cluster.jsonl"), "--cluster-id", "killed", "--warehouse", str(warehouse)]
    return [
        *args,
        "--target-mv",
        "4.4",
        "-q",
        "--no-default-constraints",
        "--constraints",
        str(DATA / "segment-rule.yaml"),
    ]


def _start(warehouse: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_GATEWAY", "PYSPARK_SUBMIT"))}
    env.update(SPARK_LOCAL_IP="127.0.0.1", TZ="UTC", JAVA_TOOL_OPTIONS=FAST_JVM, PYTHONPATH=str(REPO))
    args = [str(REPO / ".venv" / "bin" / "python"), "-m", "jobs.cli", *_args(warehouse)]
    # a session of its own: the kill reaches the Spark JVM too, as the OOM killer's or an operator's would
    return subprocess.Popen(
        args,
        env=env,
        cwd=warehouse.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _commits(warehouse: Path, table: str) -> set[str]:
    return {p.name for p in (warehouse / table / "_delta_log").glob("*.json")}


def _run_killed_at(warehouse: Path, table: str) -> None:
    """Start a run and kill -9 its process group as soon as ``table`` has a commit the run made."""
    before = _commits(warehouse, table)
    process = _start(warehouse)
    deadline = time.monotonic() + 600
    while _commits(warehouse, table) == before:
        assert process.poll() is None, f"the run ended before writing {table}: {process.stderr.read()[-2000:]}"
        assert time.monotonic() < deadline, f"no commit to {table} in 600 s"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL


def _run_to_end(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run that ends, in this process (the killed runs are processes of their own: only they need to be)."""
    assert cli_main(_args(warehouse)) == 1  # the segment rule fails at 4.4: "do not upgrade"
    assert "Traceback" not in capsys.readouterr().err


def _tables(warehouse: Path) -> list[str]:
    """The warehouse's tables: folders whose Delta log holds a commit (or a checkpoint). A kill while a table is
    being created can leave its log folder without one: that is no table yet, for Delta and for kraft-audit (the
    next run creates it)."""
    return sorted(
        log.parent.name
        for log in warehouse.glob("*/_delta_log")
        if any(log.glob("[0-9]*.json")) or any(log.glob("[0-9]*.checkpoint*.parquet"))
    )


def _all_readable(spark: SparkSession, warehouse: Path) -> None:
    store = open_store(spark, str(warehouse))
    for table in _tables(warehouse):
        spark_rows = store.read(table).count()
        assert DeltaTable(str(warehouse / table)).to_pyarrow_table().num_rows == spark_rows, table


def _content(warehouse: Path) -> dict[str, Counter[str]]:
    """Per table, its rows without VOLATILE columns; run tables only with the last finished run's rows (read with
    delta-rs: both warehouses by the same engine; Spark's reading of every table is checked by ``_all_readable``)."""
    runs = sorted(_rows(warehouse, "audit_runs"), key=lambda r: r["run_ts"], reverse=True)
    content = {}
    for table in _tables(warehouse):
        rows = _rows(warehouse, table)
        if rows and "run_id" in rows[0]:
            rows = [r for r in rows if r["run_id"] == runs[0]["run_id"]]
        kept = [{k: v for k, v in r.items() if k not in VOLATILE} for r in rows]
        content[table] = Counter(json.dumps(_without_ingest_ids(r), sort_keys=True, default=str) for r in kept)
    return content


def _rows(warehouse: Path, table: str) -> list[dict[str, object]]:
    return [_maps_as_dicts(row) for row in DeltaTable(str(warehouse / table)).to_pyarrow_table().to_pylist()]


def _maps_as_dicts(value: Any) -> Any:
    """Arrow gives a map as a list of (key, value) pairs in the order written: as a dict, compared in any order."""
    if isinstance(value, dict):
        return {k: _maps_as_dicts(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return {k: _maps_as_dicts(v) for k, v in value}
    if isinstance(value, list):
        return [_maps_as_dicts(v) for v in value]
    return value


def _without_ingest_ids(row: dict[str, object]) -> dict[str, object]:
    """A ``dq_results`` row's details name the ingests its bronze checks covered: which ones differs per run."""
    if isinstance(row.get("details"), str) and "ingest_ids" in str(row["details"]):
        details = json.loads(str(row["details"]))
        details.pop("ingest_ids")
        row["details"] = json.dumps(details, sort_keys=True)
    return row


def _orphans(warehouse: Path) -> set[str]:
    """Run ids found in the run tables that ``audit_runs`` does not list."""
    finished = {r["run_id"] for r in _rows(warehouse, "audit_runs")}
    seen = {r.get("run_id") for table in _tables(warehouse) if table != "audit_runs" for r in _rows(warehouse, table)}
    return {run_id for run_id in seen if run_id is not None} - finished


def test_a_run_killed_in_bronze_silver_and_gold_leaves_readable_tables_and_a_rerun_converges(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "clean").mkdir()
    (tmp_path / "killed").mkdir()
    clean, killed = tmp_path / "clean" / "warehouse", tmp_path / "killed" / "warehouse"
    _run_to_end(clean, capsys)

    for table in ("metadata_records", "brokers", "violations"):
        _run_killed_at(killed, table)
        _all_readable(spark, killed)
    _run_to_end(killed, capsys)
    _all_readable(spark, killed)

    expected, got = _content(clean), _content(killed)
    assert sorted(got) == sorted(expected)
    for table, rows in expected.items():
        assert got[table] == rows, table
    store = open_store(spark, str(killed))
    assert store.read("audit_runs").count() == 1
    # the run killed in gold left rows under its own run id, which no finished run lists
    assert len(_orphans(killed)) == 1
