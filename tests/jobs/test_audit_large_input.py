"""An audit planned as for a large input (every held frame a local checkpoint, adaptive execution, generated code)
gives what the small-input plan gives (local relations, one partition, interpreted).

Every other end-to-end test reads a small input, whose frames are local relations (``jobs.runtime.holding``); the
benchmark's sizes S to L are the only other runs of the large-input plan. Here the e2e cluster
(tests/data/e2e/cluster.jsonl) is audited both ways at 4.4-IV1 with the hand-written catalogs of ``test_audit_e2e`` and
the data-quality stage on: GX counts a small run's frames from their plans and a large run's from the logs of the
tables they were written to (``jobs.quality.written_rows``), and finds the same counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs import audit
from jobs.audit_steps import extract
from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"
RUN_COLUMNS = {"run_id", "run_ts"}


def _settings(warehouse: Path, *, dq: bool) -> audit.AuditSettings:
    return audit.AuditSettings(
        target_mv="4.4-IV1",
        warehouse=str(warehouse),
        constraints=(str(DATA / "base-rules.yaml"), str(DATA / "segment-rule.yaml")),
        no_default_constraints=True,
        dq=dq,
    )


def _rows(spark: SparkSession, warehouse: Path, table: str, run_id: str | None = None) -> list[tuple[str, ...]]:
    df = open_store(spark, str(warehouse)).read(table)
    if run_id is not None:
        df = df.filter(F.col("run_id") == run_id)
    columns = [c for c in df.columns if c not in RUN_COLUMNS]
    return sorted(tuple(map(str, r)) for r in df.select(*columns).collect())


def _dq(spark: SparkSession, warehouse: Path, run_id: str) -> list[tuple[Any, ...]]:
    df = open_store(spark, str(warehouse)).read("dq_results").filter(F.col("run_id") == run_id)
    columns = ["stage", "table_name", "check_id", "success", "element_count", "unexpected_count"]
    return sorted(tuple(r) for r in df.select(*columns).collect())


@pytest.mark.slow
def test_the_large_input_plan_gives_the_small_input_results(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = tmp_path / "warehouse"
    ingest = ["ingest", "--input", str(DATA / "cluster.jsonl"), "--cluster-id", "e2e", "--warehouse", str(warehouse)]
    assert cli_main([*ingest, "-q"]) == 0

    small = audit.run(spark, _settings(warehouse, dq=True))
    small_effective = _rows(spark, warehouse, "effective_configs")  # replaced by the next audit
    monkeypatch.setattr(extract, "local_rows_for", lambda records: 0)  # every frame held as for a large input
    large = audit.run(spark, _settings(warehouse, dq=True))

    assert large.summary.dq is not None and large.summary.dq["failed_critical"] == 0
    assert _dq(spark, warehouse, large.run_id) == _dq(spark, warehouse, small.run_id)
    assert small_effective and _rows(spark, warehouse, "effective_configs") == small_effective
    for table in ("violations", "findings", "violations_by_level", "highest_safe_levels"):
        assert _rows(spark, warehouse, table, large.run_id) == _rows(spark, warehouse, table, small.run_id), table
    assert large.violations and len(large.violations) == len(small.violations)
    assert (large.summary.verdict, large.summary.highest_safe_mv, large.summary.findings_total) == (
        small.summary.verdict,
        small.summary.highest_safe_mv,
        small.summary.findings_total,
    )
