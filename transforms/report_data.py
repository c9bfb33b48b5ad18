"""The data of the HTML report: small aggregates over the run tables, shaped for charts and tables.

Pure DataFrame transforms (no driver actions); ``jobs.report`` collects their (small) results. Each output ends
with a ``select`` equal to one of the constants below, which are the report's data contract. Inputs are the
tables of CONTRACT §6 (``violations``, ``violations_by_level``, ``highest_safe_levels``, ``audit_runs``,
``findings``, ``quarantine``) as written by ``jobs.audit``.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

# Label used for a NULL grouping key (e.g. a violation whose value_source is unknown).
NO_LABEL: Final = "(none)"

# Violations counted by one dimension (constraint, severity, cluster, value source), largest first.
VIOLATION_COUNTS: Final = StructType(
    [
        StructField("label", StringType(), False),
        StructField("errors", LongType(), False),
        StructField("warnings", LongType(), False),
        StructField("violations", LongType(), False),  # errors + warnings (+ any other severity)
    ]
)
COUNT_DIMENSIONS: Final = ("constraint_id", "severity", "cluster_id", "value_source")

# Cluster x metadata.version level: is the level safe, and where the cluster stands.
READINESS_MATRIX: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("level", IntegerType(), False),
        StructField("mv", StringType(), False),
        StructField("errors", LongType(), False),
        StructField("warnings", LongType(), False),
        StructField("is_safe", BooleanType(), False),
        StructField("is_highest_safe", BooleanType(), False),  # the cluster's highest safe level
        StructField("is_current", BooleanType(), False),  # the cluster's metadata.version at the audited offset
    ]
)

# Per cluster of a run: current level and the highest safe MV (null when no level is safe).
SAFE_LEVELS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("current_level", IntegerType(), True),
        StructField("highest_safe_level", IntegerType(), True),
        StructField("highest_safe_mv", StringType(), True),
    ]
)

# One point per audit run, oldest first.
RUN_TREND: Final = StructType(
    [
        StructField("run_id", StringType(), False),
        StructField("run_ts", TimestampType(), False),
        StructField("command", StringType(), False),
        StructField("target_mv", StringType(), False),
        StructField("target_level", IntegerType(), False),
        StructField("clusters", IntegerType(), False),
        StructField("errors", LongType(), False),
        StructField("warnings", LongType(), False),
        StructField("findings", LongType(), False),
        StructField("verdict", StringType(), False),
    ]
)

# The violation table of the report: errors first, then by cluster, constraint and resource.
VIOLATION_ROWS: Final = StructType(
    [
        StructField("severity", StringType(), False),
        StructField("cluster_id", StringType(), False),
        StructField("constraint_id", StringType(), False),
        StructField("constraint_mv", StringType(), True),
        StructField("resource_type", StringType(), False),
        StructField("resource_name", StringType(), False),
        StructField("node_id", IntegerType(), True),
        StructField("config_name", StringType(), False),
        StructField("value", StringType(), True),  # "[redacted]" stays "[redacted]"
        StructField("value_source", StringType(), True),
        StructField("new_at_target", BooleanType(), True),
        StructField("affected_topics", IntegerType(), True),
        StructField("message", StringType(), False),
        StructField("remediation", StringType(), False),
    ]
)

# Findings by kind, blocking kinds first.
FINDING_COUNTS: Final = StructType(
    [
        StructField("kind", StringType(), False),
        StructField("findings", LongType(), False),
        StructField("blocking", LongType(), False),
        StructField("clusters", LongType(), False),
    ]
)

FINDING_ROWS: Final = StructType(
    [
        StructField("kind", StringType(), False),
        StructField("is_blocking", BooleanType(), False),
        StructField("cluster_id", StringType(), False),
        StructField("resource_type", StringType(), True),
        StructField("resource_name", StringType(), True),
        StructField("config_name", StringType(), True),
        StructField("offset", LongType(), True),
        StructField("message", StringType(), False),
    ]
)

# Quarantined input rows grouped by cluster and reason, with one example location.
QUARANTINE_COUNTS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("reason", StringType(), False),
        StructField("rows", LongType(), False),
        StructField("files", LongType(), False),
        StructField("example_file", StringType(), True),
        StructField("example_location", StringType(), True),  # "byte N", "line N" or null
        StructField("example_excerpt", StringType(), True),  # redacted at ingest
    ]
)


def filter_run(df: DataFrame, *, run_id: str) -> DataFrame:
    """Rows of one audit run (any table with a ``run_id`` column)."""
    return df.filter(F.col("run_id") == F.lit(run_id))


def filter_clusters(df: DataFrame, *, clusters: list[str]) -> DataFrame:
    """Rows of the given clusters (an empty list keeps none)."""
    return df.filter(F.col("cluster_id").isin(clusters))


def to_latest_run(audit_runs_df: DataFrame) -> DataFrame:
    """The newest ``audit_runs`` row (latest ``run_ts``; ties broken by the larger ``run_id``)."""
    return audit_runs_df.orderBy(F.col("run_ts").desc(), F.col("run_id").desc()).limit(1)


def _severity_count(severity: str) -> Column:
    return F.count_if(F.lower(F.col("severity")) == F.lit(severity)).cast("long")


def to_violation_counts(violations_df: DataFrame, *, by: str) -> DataFrame:
    """Violations counted by ``by`` (one of ``COUNT_DIMENSIONS``), largest first, then by label.

    A NULL key (``value_source`` may be null) is counted under ``NO_LABEL``; severity is compared
    case-insensitively.
    """
    if by not in COUNT_DIMENSIONS:
        raise ValueError(f"cannot count violations by {by!r}; use one of {', '.join(COUNT_DIMENSIONS)}")
    label = F.coalesce(F.col(by).cast("string"), F.lit(NO_LABEL)).alias("label")
    counts_df = violations_df.groupBy(label).agg(
        _severity_count("error").alias("errors"),
        _severity_count("warning").alias("warnings"),
        F.count(F.lit(1)).cast("long").alias("violations"),
    )
    return counts_df.orderBy(F.col("violations").desc(), F.col("label")).select(*VIOLATION_COUNTS.names)


def to_readiness_matrix(by_level_df: DataFrame, safe_levels_df: DataFrame) -> DataFrame:
    """Cluster x MV level cells from ``violations_by_level``, marked with the cluster's highest safe and current level.

    Both inputs must hold one run (``filter_run``); ``safe_levels_df`` has one row per cluster. A cluster missing
    from ``safe_levels_df``, or with a NULL highest safe / current level, gets ``False`` markers.
    """
    safe_df = safe_levels_df.select("cluster_id", "current_level", "highest_safe_level")
    joined_df = by_level_df.join(safe_df, on="cluster_id", how="left")
    is_highest_safe = F.coalesce(F.col("level") == F.col("highest_safe_level"), F.lit(False))
    is_current = F.coalesce(F.col("level") == F.col("current_level"), F.lit(False))
    return joined_df.orderBy("cluster_id", "level").select(
        "cluster_id",
        "level",
        "mv",
        "errors",
        "warnings",
        "is_safe",
        is_highest_safe.alias("is_highest_safe"),
        is_current.alias("is_current"),
    )


def to_safe_levels(safe_levels_df: DataFrame) -> DataFrame:
    """``highest_safe_levels`` of one run, by cluster."""
    return safe_levels_df.orderBy("cluster_id").select(*SAFE_LEVELS.names)


def to_run_trend(audit_runs_df: DataFrame, *, last: int) -> DataFrame:
    """The ``last`` newest audit runs as trend points, oldest first."""
    newest_df = audit_runs_df.orderBy(F.col("run_ts").desc(), F.col("run_id").desc()).limit(last)
    return newest_df.orderBy("run_ts", "run_id").select(
        "run_id",
        "run_ts",
        "command",
        "target_mv",
        "target_level",
        F.size("clusters").alias("clusters"),
        F.col("violations_error").alias("errors"),
        F.col("violations_warning").alias("warnings"),
        "findings",
        "verdict",
    )


def to_violation_rows(violations_df: DataFrame) -> DataFrame:
    """The violations to list: errors first, then cluster, constraint, resource and key."""
    severity_rank = F.when(F.lower(F.col("severity")) == F.lit("error"), F.lit(0)).otherwise(F.lit(1))
    return violations_df.orderBy(
        severity_rank, "cluster_id", "constraint_id", "resource_type", "resource_name", "config_name", "node_id"
    ).select(*VIOLATION_ROWS.names)


def to_finding_counts(findings_df: DataFrame) -> DataFrame:
    """Findings by kind: how many, how many block the upgrade, in how many clusters; blocking kinds first."""
    counts_df = findings_df.groupBy("kind").agg(
        F.count(F.lit(1)).cast("long").alias("findings"),
        F.count_if(F.col("is_blocking")).cast("long").alias("blocking"),
        F.count_distinct("cluster_id").cast("long").alias("clusters"),
    )
    return counts_df.orderBy(F.col("blocking").desc(), F.col("findings").desc(), "kind").select(*FINDING_COUNTS.names)


def to_finding_rows(findings_df: DataFrame) -> DataFrame:
    """The findings to list: blocking first, then kind, cluster and resource."""
    return findings_df.orderBy(
        F.col("is_blocking").desc(), "kind", "cluster_id", "resource_type", "resource_name", "config_name"
    ).select(*FINDING_ROWS.names)


def to_quarantine_counts(quarantine_df: DataFrame) -> DataFrame:
    """Quarantined rows per cluster and reason, with the first one (by file and position) as the example.

    ``example_location`` is ``byte N`` when the position is known, else ``line N``, else NULL.
    """
    location = F.coalesce(
        F.concat(F.lit("byte "), F.col("position").cast("string")),
        F.concat(F.lit("line "), F.col("line_number").cast("string")),
    )
    example = F.struct(
        F.col("source_file").alias("file"),
        F.coalesce(F.col("position"), F.col("line_number")).alias("at"),
        location.alias("location"),
        F.col("excerpt").alias("excerpt"),
    )
    counts_df = quarantine_df.groupBy("cluster_id", "reason").agg(
        F.count(F.lit(1)).cast("long").alias("rows"),
        F.count_distinct("source_file").cast("long").alias("files"),
        F.min(example).alias("example"),
    )
    return counts_df.orderBy(F.col("rows").desc(), "cluster_id", "reason").select(
        "cluster_id",
        "reason",
        "rows",
        "files",
        F.col("example.file").alias("example_file"),
        F.col("example.location").alias("example_location"),
        F.col("example.excerpt").alias("example_excerpt"),
    )
