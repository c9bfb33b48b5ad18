"""One row per cluster (silver ``CLUSTER_STATE``).

* ``current_level``: the finalized ``metadata.version`` (NULL before 3.3, when the log has no FeatureLevelRecord);
* ``broker_count`` / ``rack_count``: live brokers (registered and not fenced) and their distinct non-NULL racks;
* ``snapshot_end_offset``: the snapshot replay started from (0 for a bootstrap snapshot, NULL for none);
* ``last_offset`` / ``last_timestamp``: the newest applied log record; when no log record applied, the snapshot's
  last contained offset (end - 1) and its ``lastContainedLogTimestamp``;
* ``records_applied``: applied data records (snapshot and log), transaction markers not counted.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.silver import CLUSTER_STATE


def to_cluster_state(
    bounds_df: DataFrame,
    stream_df: DataFrame,
    *,
    brokers_df: DataFrame,
    topics_df: DataFrame,
    features_df: DataFrame,
) -> DataFrame:
    """Silver ``CLUSTER_STATE`` from REPLAY_BOUNDS, REPLAY_STREAM and the silver tables."""
    applied_df = stream_df.where(F.col("is_applied"))
    log_df = applied_df.where(~F.col("from_snapshot"))
    applied_stats_df = applied_df.groupBy("cluster_id").agg(F.count(F.lit(1)).alias("records_applied"))
    last_df = log_df.groupBy("cluster_id").agg(F.max_by(F.struct("offset", "timestamp"), F.col("seq")).alias("last"))
    live_df = (
        brokers_df.where(~F.col("fenced"))
        .groupBy("cluster_id")
        .agg(
            F.count(F.lit(1)).cast("int").alias("broker_count"),
            F.count_distinct("rack").cast("int").alias("rack_count"),
        )
    )
    topic_count_df = topics_df.groupBy("cluster_id").agg(F.count(F.lit(1)).cast("int").alias("topic_count"))
    level_df = features_df.where(F.col("feature") == "metadata.version").select(
        "cluster_id", F.col("level").alias("current_level")
    )
    snapshot_last = F.when(F.col("snapshot_kind") == "SNAPSHOT", F.col("snapshot_end_offset") - 1)
    return (
        bounds_df.join(applied_stats_df, on="cluster_id", how="left")
        .join(last_df, on="cluster_id", how="left")
        .join(live_df, on="cluster_id", how="left")
        .join(topic_count_df, on="cluster_id", how="left")
        .join(level_df, on="cluster_id", how="left")
        .select(
            F.col("cluster_id"),
            F.col("current_level"),
            F.coalesce(F.col("broker_count"), F.lit(0)).alias("broker_count"),
            F.coalesce(F.col("rack_count"), F.lit(0)).alias("rack_count"),
            F.coalesce(F.col("topic_count"), F.lit(0)).alias("topic_count"),
            F.col("snapshot_end_offset"),
            F.coalesce(F.col("last.offset"), snapshot_last).alias("last_offset"),
            F.when(F.col("last").isNotNull(), F.col("last.timestamp"))
            .otherwise(F.col("snapshot_timestamp"))
            .alias("last_timestamp"),
            F.coalesce(F.col("records_applied"), F.lit(0).cast("long")).alias("records_applied"),
        )
        .select(*CLUSTER_STATE.fieldNames())
    )
