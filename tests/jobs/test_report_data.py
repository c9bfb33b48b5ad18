"""The report's data transforms: counts by dimension, readiness matrix markers, run selection, trend, quarantine."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual, assertSchemaEqual

from jobs.reporting import data as rd
from schemas import report

T0 = dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.UTC)
VIOLATIONS_DDL = "run_id string, cluster_id string, constraint_id string, severity string, value_source string"
BY_LEVEL_DDL = "cluster_id string, level int, mv string, errors long, warnings long, is_safe boolean"
SAFE_DDL = "cluster_id string, current_level int, highest_safe_level int, highest_safe_mv string"


def test_violation_counts_split_severities_and_label_null_keys(spark: SparkSession) -> None:
    violations_df = spark.createDataFrame(
        [
            ("r1", "a", "c1", "error", "DYNAMIC_TOPIC_CONFIG"),
            ("r1", "a", "c1", "ERROR", None),
            ("r1", "b", "c2", "warning", None),
            ("r2", "b", "c3", "error", "STATIC_BROKER_CONFIG"),
        ],
        VIOLATIONS_DDL,
    ).transform(rd.filter_run, run_id="r1")
    by_source_df = violations_df.transform(rd.to_violation_counts, by="value_source")
    assertSchemaEqual(by_source_df.schema, report.VIOLATION_COUNTS)
    assertDataFrameEqual(
        by_source_df,
        [("(none)", 1, 1, 2), ("DYNAMIC_TOPIC_CONFIG", 1, 0, 1)],
        checkRowOrder=True,
    )
    assertDataFrameEqual(
        violations_df.transform(rd.to_violation_counts, by="constraint_id"),
        [("c1", 2, 0, 2), ("c2", 0, 1, 1)],
        checkRowOrder=True,
    )


def test_violation_counts_refuse_an_unknown_dimension(spark: SparkSession) -> None:
    violations_df = spark.createDataFrame([], VIOLATIONS_DDL)
    with pytest.raises(ValueError, match="cannot count violations by 'message'"):
        rd.to_violation_counts(violations_df, by="message")


def test_readiness_matrix_marks_highest_safe_and_current_level(spark: SparkSession) -> None:
    by_level_df = spark.createDataFrame(
        [
            ("a", 20, "3.8-IV0", 0, 0, True),
            ("a", 21, "3.9-IV0", 1, 0, False),
            ("b", 20, "3.8-IV0", 2, 0, False),
            ("b", 21, "3.9-IV0", 2, 1, False),
            ("c", 20, "3.8-IV0", 0, 0, True),  # no highest_safe_levels row: no markers
        ],
        BY_LEVEL_DDL,
    )
    safe_df = spark.createDataFrame([("a", 20, 20, "3.8-IV0"), ("b", None, None, None)], SAFE_DDL)
    matrix_df = rd.to_readiness_matrix(by_level_df, safe_df)
    assertSchemaEqual(matrix_df.schema, report.READINESS_MATRIX, ignoreNullable=True)
    assertDataFrameEqual(
        matrix_df,
        [
            ("a", 20, "3.8-IV0", 0, 0, True, True, True),
            ("a", 21, "3.9-IV0", 1, 0, False, False, False),
            ("b", 20, "3.8-IV0", 2, 0, False, False, False),
            ("b", 21, "3.9-IV0", 2, 1, False, False, False),
            ("c", 20, "3.8-IV0", 0, 0, True, False, False),
        ],
        checkRowOrder=True,
    )


def test_latest_run_and_trend(spark: SparkSession) -> None:
    runs_df = spark.createDataFrame(
        [(f"r{i}", T0 + dt.timedelta(hours=i), "audit", "4.2-IV0", 24, ["a"], i, 1, 0, "fail") for i in range(4)],
        "run_id string, run_ts timestamp, command string, target_mv string, target_level int, "
        "clusters array<string>, violations_error long, violations_warning long, findings long, verdict string",
    )
    assert [r["run_id"] for r in runs_df.transform(rd.to_latest_run).collect()] == ["r3"]
    trend_df = runs_df.transform(rd.to_run_trend, last=2)
    assert trend_df.schema.names == report.RUN_TREND.names
    assert [(r["run_id"], r["errors"], r["clusters"]) for r in trend_df.collect()] == [("r2", 2, 1), ("r3", 3, 1)]


def test_quarantine_counts_locate_by_byte_then_line(spark: SparkSession) -> None:
    quarantine_df = spark.createDataFrame(
        [
            ("a", "f2.log", 900, None, "bad CRC", "x"),
            ("a", "f1.log", 100, None, "bad CRC", "y"),
            ("a", "dump.txt", None, 7, "unparsable line", "z"),
            ("b", "odd.bin", None, None, "unknown file", None),
        ],
        "cluster_id string, source_file string, position long, line_number long, reason string, excerpt string",
    )
    counts_df = quarantine_df.transform(rd.to_quarantine_counts)
    assert counts_df.schema.names == report.QUARANTINE_COUNTS.names
    assertDataFrameEqual(
        counts_df,
        [
            ("a", "bad CRC", 2, 2, "f1.log", "byte 100", "y"),
            ("a", "unparsable line", 1, 1, "dump.txt", "line 7", "z"),
            ("b", "unknown file", 1, 1, "odd.bin", None, None),
        ],
        checkRowOrder=True,
    )


def test_finding_counts_put_blocking_kinds_first(spark: SparkSession) -> None:
    findings_df = spark.createDataFrame(
        [("COVERAGE_GAP", False, "a"), ("COVERAGE_GAP", False, "b"), ("REPLICA_CONFLICT", True, "a")],
        "kind string, is_blocking boolean, cluster_id string",
    )
    assertDataFrameEqual(
        findings_df.transform(rd.to_finding_counts),
        [("REPLICA_CONFLICT", 1, 1, 1), ("COVERAGE_GAP", 2, 0, 2)],
        checkRowOrder=True,
    )
