"""The data of the HTML report: small aggregates over the run tables, shaped for charts and tables.

Pure DataFrame transforms (no driver actions); ``jobs.report`` collects their (small) results. Each output ends
with a ``select`` equal to one of the shapes in ``schemas.report``, the report's data contract. Inputs are the
tables of docs/contract.md §6 (``violations``, ``violations_by_level``, ``highest_safe_levels``, ``audit_runs``,
``findings``, ``quarantine``) as written by ``jobs.audit``.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.report import FINDING_COUNTS, FINDING_ROWS, SAFE_LEVELS, VIOLATION_COUNTS, VIOLATION_ROWS

# Label used for a NULL grouping key (e.g. a violation whose value_source is unknown).
NO_LABEL: Final = "(none)"

# The dimensions violations can be counted by (``to_violation_counts``).
COUNT_DIMENSIONS: Final = ("constraint_id", "severity", "cluster_id", "value_source")


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
