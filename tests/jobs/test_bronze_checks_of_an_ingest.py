"""The bronze checks of ``run`` on the rows its ingest holds (#59): a first ingest into a warehouse has nothing
pending, and the rows it wrote, held in the driver, are checked instead of the tables read back. The outcome must be
the check of the tables as stored (the path every later ingest with earlier unchecked ingests takes), with fewer
Spark jobs.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from benchmarks.jobcount import counting
from jobs import ingest, quality
from jobs.runtime.holding import local_rows_for
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"


def _inputs(tmp: Path) -> tuple[str, ...]:
    """The e2e cluster, and a second cluster whose last line is cut (a quarantined row)."""
    warned = tmp / "warned"
    if not warned.exists():
        lines = (DATA / "cluster.jsonl").read_text().splitlines()
        warned.mkdir()
        cut = '{"offset": 25, "type": "CONFIG_RECORD", "data": '
        (warned / "cluster.jsonl").write_text("\n".join([*lines, cut]) + "\n")
    return (str(DATA / "cluster.jsonl"), str(warned))


def _ingest(spark: SparkSession, tmp: Path, *static: str) -> ingest.IngestResult:
    settings = ingest.IngestSettings(
        inputs=_inputs(tmp), warehouse=str(tmp / "warehouse"), static_configs=static, cluster_per_input=True
    )
    return ingest.run(spark, settings)


def _held(spark: SparkSession, warehouse: Path, result: ingest.IngestResult) -> quality.IngestTables:
    """The ingest's rows of each bronze table, as ``run`` hands them to the checks."""
    assert result.written is not None
    return quality.IngestTables(open_store(spark, str(warehouse)), result.written, local_rows_for(result.records))


def _checked(spark: SparkSession, warehouse: Path, result: ingest.IngestResult, **how: Any) -> list[tuple[Any, ...]]:
    """The bronze checks' rows (without the run's id and time), and nothing written."""
    store = open_store(spark, str(warehouse))
    ledger = quality.Ledger(store, run_id="r", run_ts=datetime.now(UTC), command="run")
    quality.check_bronze(
        spark,
        store,
        ingest_id=result.ingest_id,
        clusters=result.clusters,
        run_id="r",
        command="run",
        ledger=ledger,
        local_rows=local_rows_for(result.records),
        **how,
    )
    return sorted(row[3:] for row in ledger._rows)


@pytest.mark.parametrize("static_file", [False, True], ids=["log-only", "with-a-static-file"])
def test_a_first_ingest_checks_the_rows_it_holds_as_the_tables_hold_them(
    spark: SparkSession, tmp_path: Path, static_file: bool
) -> None:
    warehouse = tmp_path / "warehouse"
    static = ()
    if static_file:
        props = tmp_path / "server.properties"
        # the third line's escape is malformed (Java's Properties.load refuses it): a quarantine row of its own
        props.write_text("node.id=1\nlog.segment.bytes=1048576\nlog.dirs=\\u12G4\n")
        static = (f"e2e/1={props}",)
    result = _ingest(spark, tmp_path, *static)
    assert result.first_ingest and result.written is not None
    assert result.quarantined == 1 + static_file  # the cut line, and the malformed escape
    with counting(spark) as held:
        on_held = _checked(spark, warehouse, result, first_ingest=True, written=_held(spark, warehouse, result))
    with counting(spark) as read_back:
        on_tables = _checked(spark, warehouse, result)
    assert on_held == on_tables
    failed = {(row[1], row[2]) for row in on_held if not row[6]}
    assert ("quarantine", "quarantine_empty") in failed  # the quarantined rows are among those checked
    scope = {json.loads(row[-1])["ingest_ids"][0] for row in on_held}
    assert scope == {result.ingest_id}
    assert held.total < read_back.total

    # the next ingest into the warehouse is no first one; files it skips as unchanged keep nothing to check
    again = _ingest(spark, tmp_path, *static)
    assert not again.first_ingest
    assert _checked(spark, warehouse, again, written=_held(spark, warehouse, again)) == _checked(
        spark, warehouse, again
    )


def test_the_summary_json_of_an_ingest_keeps_its_fields(tmp_path: Path) -> None:
    result = ingest.IngestResult(ingest_id="i", clusters=["c"], records=3, first_ingest=True, written={"t": []})
    out = tmp_path / "summary.json"
    ingest.write_ingest_summary(str(out), result)
    summary = json.loads(out.read_text())
    assert summary["records"] == 3 and summary["clusters"] == ["c"]
    assert "written" not in summary and "first_ingest" not in summary
