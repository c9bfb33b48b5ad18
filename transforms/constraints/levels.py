"""The violations counted at every metadata.version level, and each cluster's highest level without an error."""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.constraints import CompiledCatalog
from schemas.evaluation import MV_LEVELS_DDL
from schemas.metadata_version import MetadataVersionTable
from schemas.violations import HIGHEST_SAFE_LEVELS, VIOLATIONS_BY_LEVEL
from transforms.configdef.rule_table import rule_tables
from transforms.constraints.failures import applies, cluster_releases, conform, failures
from transforms.kit.local_frames import local_frame


def violations_by_level(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    *,
    mv_table: MetadataVersionTable,
    failures_df: DataFrame | None = None,
    clusters: Sequence[str] | None = None,
) -> DataFrame:
    """Errors and warnings per cluster at every level of ``mv_table`` (VIOLATIONS_BY_LEVEL), in one pass.

    A cluster without violations has zeros everywhere. ``failures_df``: as for ``evaluate_constraints``.
    ``clusters``: the clusters to report (an audit's scope, whose state and effective rows are those clusters');
    None: the clusters of CLUSTER_STATE and EFFECTIVE_CONFIGS, which scans the effective rows for their cluster ids
    (at the benchmark's L, 5.7 M rows).
    """
    spark = effective_df.sparkSession
    tables = rule_tables(spark, rules)
    if failures_df is None:
        failures_df = failures(effective_df, topics_df, cluster_df, rules, tables, None)
    failures_df = failures_df.join(
        F.broadcast(tables.rule_info_df.select("rule_idx", "severity")), on="rule_idx", how="inner"
    ).join(F.broadcast(cluster_releases(cluster_df).select("cluster_id", "_running_rank")), on="cluster_id", how="left")
    levels_df = spark.createDataFrame([(v.level, v.name) for v in mv_table.levels], MV_LEVELS_DDL)
    is_error = (F.col("severity") == "error").cast("long")
    applies_at_level = applies(F.col("level"), F.col("_running_rank"), rules.level_release_ranks)
    counts_df = (
        failures_df.join(F.broadcast(levels_df.select("level")), on=applies_at_level, how="inner")
        .groupBy("cluster_id", "level")
        .agg(F.sum(is_error).alias("errors"), F.sum(1 - is_error).alias("warnings"))
    )
    if clusters is None:
        clusters_df = cluster_df.select("cluster_id").unionByName(effective_df.select("cluster_id")).distinct()
    else:
        clusters_df = local_frame(spark, [(c,) for c in sorted(set(clusters))], "cluster_id string")
    grid_df = clusters_df.join(F.broadcast(levels_df), how="cross")
    errors = F.coalesce(F.col("errors"), F.lit(0)).cast("long")
    return (
        grid_df.join(counts_df, on=["cluster_id", "level"], how="left")
        .select(
            "cluster_id",
            "level",
            "mv",
            errors.alias("errors"),
            F.coalesce(F.col("warnings"), F.lit(0)).cast("long").alias("warnings"),
            (errors == 0).alias("is_safe"),
        )
        .transform(conform, VIOLATIONS_BY_LEVEL)
    )


def highest_safe_levels(by_level_df: DataFrame, cluster_df: DataFrame) -> DataFrame:
    """Per cluster, the highest MV level without an error violation (HIGHEST_SAFE_LEVELS)."""
    safest = F.max(F.when(F.col("is_safe"), F.struct("level", "mv")))
    best_df = by_level_df.groupBy("cluster_id").agg(safest.alias("best"))
    return (
        best_df.join(cluster_df.select("cluster_id", "current_level"), on="cluster_id", how="left")
        .select(
            "cluster_id",
            F.col("current_level").cast("int").alias("current_level"),
            F.col("best.level").alias("highest_safe_level"),
            F.col("best.mv").alias("highest_safe_mv"),
        )
        .transform(conform, HIGHEST_SAFE_LEVELS)
    )
