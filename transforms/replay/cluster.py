"""One row per cluster (silver ``CLUSTER_STATE``).

* ``current_level``: the finalized ``metadata.version`` (NULL before 3.3, when the log has no FeatureLevelRecord);
* ``kafka_release``: the oldest release a registered broker runs (``BROKERS.kafka_release``): the binaries that
  decide the base validators before an upgrade (NULL when no broker's release is known);
* ``broker_count`` / ``rack_count``: live brokers (registered and not fenced) and their distinct non-NULL racks;
* ``snapshot_end_offset``: the snapshot replay started from (0 for a bootstrap snapshot, NULL for none);
* ``last_offset`` / ``last_timestamp``: the newest applied log record; when no log record applied, the snapshot's
  last contained offset (end - 1) and its ``lastContainedLogTimestamp``;
* ``records_applied``: applied data records (snapshot and log), transaction markers not counted.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.kafka_catalog import normalize_release
from schemas.silver import CLUSTER_STATE
from transforms.releases import release_rank_column


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
    release_df = (
        brokers_df.where(F.col("kafka_release").isNotNull())
        .groupBy("cluster_id")
        .agg(F.min_by("kafka_release", release_rank_column(F.col("kafka_release"))).alias("kafka_release"))
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
        .join(release_df, on="cluster_id", how="left")
        .select(
            F.col("cluster_id"),
            F.col("current_level"),
            F.col("kafka_release"),
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


def with_kafka_version(cluster_df: DataFrame, kafka_version: str | None) -> DataFrame:
    """``CLUSTER_STATE`` with ``kafka_release`` replaced by ``--kafka-version`` (``"4.2"`` or ``"4.2.1"`` → ``"4.2"``)
    when given: the user knows the release the brokers run better than their registrations tell.

    Raises:
        ConfigError: when ``kafka_version`` is not a release.
    """
    if not kafka_version:
        return cluster_df
    release = F.lit(normalize_release(kafka_version))
    return cluster_df.select(*[release.alias(c) if c == "kafka_release" else F.col(c) for c in cluster_df.columns])
