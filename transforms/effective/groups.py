"""Group and client-metrics effective configs (docs/kafka-semantics.md §5.3, GroupConfig / GroupConfigManager).

Groups: every group with at least one GROUP ConfigRecord gets a row per group key of the broker's release. A key
set on the group is ``DYNAMIC_GROUP_CONFIG``. Otherwise a key with a broker synonym (``group_synonyms``, e.g.
``consumer.session.timeout.ms`` ← ``group.consumer.session.timeout.ms``) takes the broker's effective value of that
synonym, with the broker row's source and ``synonym`` = the broker key; a key without one takes GroupConfig's
default (``DEFAULT_CONFIG``; in 4.0–4.2 a group with overrides does so for every key outside the synonym table).
Any broker may coordinate a group, so the broker views of all registered brokers are compared: one row
(``node_id`` NULL) when they agree, else one row per broker.

Client-metrics subscriptions: the keys set (``DYNAMIC_CLIENT_METRICS_CONFIG``), and for every other key of the
cluster's release (``common.cluster_release``) ClientMetricsConfigs' default (``DEFAULT_CONFIG``; ``interval.ms``
300000, ``metrics`` and ``match`` empty lists: confluentinc/kafka 3.7–4.4
server/src/main/java/org/apache/kafka/server/metrics/ClientMetricsConfigs.java, ``fromProps`` puts the defaults
under the overrides).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import ConfigSource, ResourceType
from transforms.effective.common import cluster_release, collapse_cluster_views, latest_key_attributes, resolved
from transforms.effective.topics import to_effective_rows


def _group_node_views(
    nodes_df: DataFrame, broker_effective_df: DataFrame, config_keys_df: DataFrame, synonyms_df: DataFrame
) -> DataFrame:
    group_keys_df = config_keys_df.where((F.col("resource_type") == ResourceType.GROUP) & ~F.col("is_internal")).select(
        F.col("release").alias("catalog_release"),
        F.col("name").alias("config_name"),
        "config_type",
        "default_value",
        "is_sensitive",
    )
    group_synonyms_df = synonyms_df.where(F.col("resource_type") == ResourceType.GROUP).select(
        F.col("release").alias("catalog_release"), "config_name", F.col("synonym").alias("broker_key")
    )
    broker_df = broker_effective_df.select(
        "cluster_id",
        "node_id",
        F.col("config_name").alias("broker_key"),
        F.struct("value", "value_hash", "source", "source_offset", "source_timestamp", "value_set", "is_assumed").alias(
            "b"
        ),
    )
    inherits = F.col("b").isNotNull()
    r = resolved(
        value=F.when(inherits, F.col("b.value")).otherwise(F.col("default_value")),
        value_hash=F.col("b.value_hash"),
        source=F.when(inherits, F.col("b.source")).otherwise(F.lit(ConfigSource.DEFAULT_CONFIG)),
        synonym=F.when(inherits, F.col("broker_key")).otherwise(F.col("config_name")),
        source_offset=F.col("b.source_offset"),
        source_timestamp=F.col("b.source_timestamp"),
        config_type=F.col("config_type"),
        is_sensitive=F.col("is_sensitive"),
        kafka_release=F.col("catalog_release"),
        release_rank=F.col("release_rank"),
        # a group inherits the broker's value as the broker uses it (clamped, assumed) - GroupConfigManager's
        # defaults are the broker's KafkaConfig values
        value_set=F.col("b.value_set"),
        is_assumed=F.coalesce(F.col("b.is_assumed"), F.lit(False)),
    )
    return (
        nodes_df.join(group_keys_df, on="catalog_release", how="inner")
        .join(group_synonyms_df, on=["catalog_release", "config_name"], how="left")
        .join(broker_df, on=["cluster_id", "node_id", "broker_key"], how="left")
        .select("cluster_id", "node_id", "config_name", r.alias("r"))
    )


def _overrides(dynamic_df: DataFrame, config_keys_df: DataFrame, resource_type: str, source: str) -> DataFrame:
    """``(cluster_id, entity, node_id, config_name, r)`` of the keys set on resources of one type."""
    return (
        dynamic_df.where(F.col("resource_type") == resource_type)
        .join(latest_key_attributes(config_keys_df, resource_type), F.col("name") == F.col("config_name"), how="left")
        .select(
            "cluster_id",
            F.col("resource_name").alias("entity"),
            F.lit(None).cast("int").alias("node_id"),
            F.col("name").alias("config_name"),
            resolved(
                value=F.col("value"),
                value_hash=F.col("value_hash"),
                source=F.lit(source),
                synonym=F.col("name"),
                source_offset=F.col("source_offset"),
                source_timestamp=F.col("source_timestamp"),
                config_type=F.col("config_type"),
                is_sensitive=F.coalesce(F.col("is_sensitive"), F.lit(True)),
            ).alias("r"),
        )
    )


def to_group_views(
    nodes_df: DataFrame, broker_effective_df: DataFrame, config_keys_df: DataFrame, synonyms_df: DataFrame
) -> DataFrame:
    """``(cluster_id, node_id, config_name, r)``: what a group of each cluster gets for every group key it does not
    set, from the views of all the cluster's registered brokers (``collapse_cluster_views``: one row with ``node_id``
    NULL where they agree). The same for every group of a cluster."""
    return collapse_cluster_views(_group_node_views(nodes_df, broker_effective_df, config_keys_df, synonyms_df))


def to_group_effective(
    dynamic_df: DataFrame,
    group_views_df: DataFrame,
    config_keys_df: DataFrame,
    *,
    groups_df: DataFrame | None = None,
) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` rows of resource type GROUP: of every group with a GROUP record in ``dynamic_df``, or of
    the groups in ``groups_df`` (``cluster_id, entity``) when given (e.g. groups whose records were left out).
    ``group_views_df``: ``to_group_views``."""
    overrides_df = _overrides(dynamic_df, config_keys_df, ResourceType.GROUP, ConfigSource.DYNAMIC_GROUP_CONFIG)
    if groups_df is None:
        groups_df = overrides_df.select("cluster_id", "entity").distinct()
    else:
        groups_df = groups_df.select("cluster_id", "entity").distinct()
        overrides_df = overrides_df.join(groups_df, on=["cluster_id", "entity"], how="left_semi")
    inherited_df = (
        groups_df.join(group_views_df, on="cluster_id", how="inner")
        .join(
            overrides_df.select("cluster_id", "entity", "config_name"),
            on=["cluster_id", "entity", "config_name"],
            how="left_anti",
        )
        .select("cluster_id", "entity", "node_id", "config_name", "r")
    )
    return to_effective_rows(overrides_df.unionByName(inherited_df), resource_type=ResourceType.GROUP)


def to_client_metrics_effective(dynamic_df: DataFrame, nodes_df: DataFrame, config_keys_df: DataFrame) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` rows of resource type CLIENT_METRICS: the keys set and the defaults of the others."""
    overrides_df = _overrides(
        dynamic_df, config_keys_df, ResourceType.CLIENT_METRICS, ConfigSource.DYNAMIC_CLIENT_METRICS_CONFIG
    )
    keys_df = config_keys_df.where(
        (F.col("resource_type") == ResourceType.CLIENT_METRICS) & ~F.col("is_internal")
    ).select(
        F.col("release").alias("catalog_release"),
        F.col("name").alias("config_name"),
        "config_type",
        "default_value",
        "is_sensitive",
    )
    defaults_df = (
        overrides_df.select("cluster_id", "entity")
        .distinct()
        .join(cluster_release(nodes_df), on="cluster_id", how="inner")
        .join(keys_df, on="catalog_release", how="inner")
        .join(
            overrides_df.select("cluster_id", "entity", "config_name"),
            on=["cluster_id", "entity", "config_name"],
            how="left_anti",
        )
        .select(
            "cluster_id",
            "entity",
            F.lit(None).cast("int").alias("node_id"),
            "config_name",
            resolved(
                value=F.col("default_value"),
                source=F.lit(ConfigSource.DEFAULT_CONFIG),
                synonym=F.col("config_name"),
                config_type=F.col("config_type"),
                is_sensitive=F.col("is_sensitive"),
                kafka_release=F.col("catalog_release"),
                release_rank=F.col("release_rank"),
            ).alias("r"),
        )
    )
    return to_effective_rows(overrides_df.unionByName(defaults_df), resource_type=ResourceType.CLIENT_METRICS)
