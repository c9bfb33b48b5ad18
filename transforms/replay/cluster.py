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
from schemas.per_cluster import KafkaVersions, per_cluster
from schemas.silver import CLUSTER_STATE
from transforms.kit.per_cluster import per_cluster_column
from transforms.kit.releases import release_rank_column
from transforms.replay.cluster_pass import output, timestamp


def to_cluster_state(pass_df: DataFrame, *, brokers_df: DataFrame) -> DataFrame:
    """Silver ``CLUSTER_STATE`` from the replay pass (``transforms.replay.cluster_pass``) and silver ``BROKERS``
    (the release of the oldest broker)."""
    release_df = (
        brokers_df.where(F.col("kafka_release").isNotNull())
        .groupBy("cluster_id")
        .agg(F.min_by("kafka_release", release_rank_column(F.col("kafka_release"))).alias("kafka_release"))
    )
    return (
        output(pass_df, "cluster")
        .join(release_df, on="cluster_id", how="left")
        .select(
            *[
                timestamp("last_timestamp_us").alias(name) if name == "last_timestamp" else F.col(name)
                for name in CLUSTER_STATE.fieldNames()
            ]
        )
    )


def with_kafka_version(cluster_df: DataFrame, kafka_version: KafkaVersions) -> DataFrame:
    """``CLUSTER_STATE`` with ``kafka_release`` replaced by ``--kafka-version`` (``"4.2"`` or ``"4.2.1"`` → ``"4.2"``)
    when given (for the cluster): the user knows the release the brokers run better than their registrations tell.

    Raises:
        ConfigError: when ``kafka_version`` is not a release.
    """
    if not any(per_cluster(kafka_version).values()):
        return cluster_df
    release = per_cluster_column(
        kafka_version, lambda given: F.lit(normalize_release(given)) if given else F.col("kafka_release")
    )
    return cluster_df.select(*[release.alias(c) if c == "kafka_release" else F.col(c) for c in cluster_df.columns])
