"""Smoke test of the benchmark harness end to end on the XS size (keeps ``make bench`` from rotting)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from benchmarks.report import markdown
from benchmarks.run import run_size


@pytest.mark.system
@pytest.mark.interpreted  # the harness, not code generation, is under test here (tests/conftest.py)
def test_run_size_measures_every_step_on_the_same_records(spark: SparkSession, tmp_path: Path) -> None:
    result = run_size(spark, "XS", tmp_path / "work")

    steps = result["steps"]
    for name in (
        "spark_json_reader",
        "ingest_binary",
        "ingest_text",
        "ingest_json",
        "audit",
        "floor",
        "bronze_floor",
        "evaluate_default",
        "evaluate_checks",
        "python_udf",
        "great_expectations",
        "cuallee",
        "dqx",
        "verdicts_product",
        "verdicts_udf",
    ):
        assert steps[name]["seconds"] > 0, name
    # Every format carries the same records, and each ingest committed all of them.
    records = {
        name: steps[name]["records"] for name in ("ingest_binary", "ingest_text", "ingest_json", "spark_json_reader")
    }
    assert len(set(records.values())) == 1 and records["ingest_binary"] == steps["export_text_json"]["records"]
    assert all(steps[n]["quarantined"] == 0 for n in ("ingest_binary", "ingest_text", "ingest_json"))
    # The row-at-a-time peer writes exactly the product's table of the single-key rules: equal work.
    assert steps["python_udf"]["violations"] == steps["evaluate_checks"]["violations"] > 0
    assert steps["python_udf"]["differs_from_product"] == 0
    # the verdicts alone: the same failing pairs both ways
    assert steps["verdicts_udf"]["failing_pairs"] == steps["verdicts_product"]["failing_pairs"] > 0
    assert steps["verdicts_udf"]["differs_from_product"] == 0
    assert steps["evaluate_checks"]["expressions"] == 0 < steps["evaluate_default"]["expressions"]
    assert steps["great_expectations"]["rules_run"] == 2 < steps["great_expectations"]["rules_total"]
    # The field's engines ran every single-key rule at the target over the same rows and found failures; each
    # step counted its Spark jobs
    assert steps["cuallee"]["rules"] == steps["dqx"]["rules"] == steps["great_expectations"]["rules_total"]
    assert steps["cuallee"]["violations"] > 0 and steps["dqx"]["violations"] > 0
    # the two engines judge the same predicates: DQX's failing pairs are cuallee's counts
    assert steps["dqx"]["violations"] == steps["cuallee"]["violations"]
    assert all(steps[n]["spark_jobs"] > 0 for n in ("evaluate_checks", "python_udf", "cuallee", "dqx"))
    assert result["data"]["judged_pairs"] > 0
    assert set(result["catalog_scaling"]["steps"]) == {"100", "300"}
    assert result["data"]["effective_rows"] >= result["data"]["auditable_rows"] >= result["data"]["judged_rows"] > 0
    assert result["pipeline"]["peak_memory"]["jvm_peak_heap_mib"] > 0
    # The audit's Spark jobs are counted per stage (each stage starts at least one job).
    jobs = result["pipeline"]["audit_jobs"]
    assert {"replay", "effective", "evaluation"} <= set(jobs["by_stage"])
    assert jobs["total"] == sum(jobs["by_stage"].values()) > 0
    assert [t["name"] for t in result["targets"]] == [
        "eval_vs_floor",
        "gx_vs_eval",
        "udf_vs_eval",
        "udf_verdicts_vs_product",
        "cuallee_vs_eval",
        "dqx_vs_eval",
        "catalog_300_vs_100",
        "binary_vs_spark_json",
        "replay_vs_bronze_floor",
        "effective_vs_bronze_floor",
    ]
    assert all(t["measured"] is not None for t in result["targets"])
    assert "## Targets, XS" in markdown([result])
