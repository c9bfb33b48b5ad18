"""Topic effective configs (docs/kafka-semantics.md §5.2, KafkaConfigSchema.resolveEffectiveTopicConfig / LogConfig).

Per topic and key: the topic override (``DYNAMIC_TOPIC_CONFIG``, one row, ``node_id`` NULL) or else the view of the
brokers hosting the topic: the first synonym (``topic_synonyms`` order) set at the per-node dynamic layer, else at
the cluster-default layer, else in the node's static configs, converted to the topic key's unit (hours / minutes →
ms, negative retention → -1); else the topic ConfigDef default of the broker's release (``DEFAULT_CONFIG``).
Dynamic records brokers ignore (see ``transforms.effective.brokers``) do not count.

Hosting brokers are the registered brokers in the topic's ``replica_nodes``; a topic without a registered replica
is resolved on every registered broker of its cluster. Broker views are compared per key: a key every hosting
broker resolves alike gets one row with ``node_id`` NULL, otherwise one row per hosting broker
(``collapse_node_views``). Topic keys with no server default and internal keys appear only when overridden.
Overrides of keys the catalog does not know are kept (``config_type`` NULL, ``is_sensitive`` true).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.gold import EFFECTIVE_CONFIGS
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from transforms.effective.common import (
    collapse_node_views,
    converted,
    latest_key_attributes,
    partial_node_flags,
    resolved,
)


def _topic_synonyms(synonyms_df: DataFrame) -> DataFrame:
    """The broker synonyms of each topic key (``name`` the broker key, ``config_name`` the topic key), per release."""
    return synonyms_df.where(F.col("resource_type") == ResourceType.TOPIC).select(
        F.col("release").alias("catalog_release"),
        F.col("synonym").alias("name"),
        "config_name",
        "priority",
        "converter",
        "negative_means_unlimited",
    )


def _picked_synonyms(layers_df: DataFrame, topic_synonyms_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id, config_name, p)``: the applied broker value a topic key inherits on each broker, from
    the highest layer, then the first synonym in ``topic_synonyms`` order (LogConfig's precedence)."""
    precedence = F.struct(F.col("layer"), (-F.col("priority")).alias("priority"))
    return (
        layers_df.where(F.col("ignored_reason").isNull())
        .join(topic_synonyms_df, on=["catalog_release", "name"], how="inner")
        .groupBy("cluster_id", "node_id", "config_name")
        .agg(
            F.max_by(
                F.struct(
                    "name",
                    "value",
                    "value_hash",
                    "source",
                    "source_offset",
                    "source_timestamp",
                    "converter",
                    "negative_means_unlimited",
                ),
                precedence,
            ).alias("p")
        )
    )


def to_topic_node_views(
    layers_df: DataFrame,
    nodes_df: DataFrame,
    config_keys_df: DataFrame,
    synonyms_df: DataFrame,
    *,
    partial_static_df: DataFrame | None = None,
) -> DataFrame:
    """``(cluster_id, node_id, config_name, r)``: every topic key as each broker resolves it without override.

    A key with a broker synonym that no layer sets takes LogConfig's default, which is the broker default's
    (``KafkaConfig.extractLogConfigMap`` copies the broker values into every topic's defaults); on a broker of
    ``partial_static_df`` that default is assumed (``is_assumed``), as the broker row is: server.properties may set
    the synonym. A key without a broker synonym takes LogConfig's own default, which no server.properties changes.
    """
    topic_synonyms_df = _topic_synonyms(synonyms_df)
    topic_keys_df = config_keys_df.where((F.col("resource_type") == ResourceType.TOPIC) & ~F.col("is_internal")).select(
        F.col("release").alias("catalog_release"),
        F.col("name").alias("config_name"),
        "config_type",
        "default_value",
        "is_sensitive",
    )
    inheriting_df = topic_synonyms_df.select("catalog_release", "config_name", F.lit(True).alias("inherits")).distinct()
    is_picked = F.col("p").isNotNull()
    is_assumed = (
        ~is_picked & F.coalesce(F.col("inherits"), F.lit(False)) & F.coalesce(F.col("static_partial"), F.lit(False))
    )
    r = resolved(
        value=F.when(
            is_picked, converted(F.col("p.value"), F.col("p.converter"), F.col("p.negative_means_unlimited"))
        ).otherwise(F.col("default_value")),
        value_hash=F.when(is_picked & (F.col("p.converter") == "NONE"), F.col("p.value_hash")),
        source=F.when(is_picked, F.col("p.source")).otherwise(F.lit(ConfigSource.DEFAULT_CONFIG)),
        synonym=F.when(is_picked, F.col("p.name")).otherwise(F.col("config_name")),
        source_offset=F.col("p.source_offset"),
        source_timestamp=F.col("p.source_timestamp"),
        config_type=F.col("config_type"),
        is_sensitive=F.col("is_sensitive"),
        kafka_release=F.col("catalog_release"),
        release_rank=F.col("release_rank"),
        is_assumed=is_assumed,
    )
    return (
        nodes_df.join(topic_keys_df, on="catalog_release", how="inner")
        .join(_picked_synonyms(layers_df, topic_synonyms_df), on=["cluster_id", "node_id", "config_name"], how="left")
        .join(F.broadcast(inheriting_df), on=["catalog_release", "config_name"], how="left")
        .join(partial_node_flags(nodes_df, partial_static_df), on=["cluster_id", "node_id"], how="left")
        .select("cluster_id", "node_id", "config_name", r.alias("r"))
    )


def _hosting_nodes(topics_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    """``(cluster_id, entity, node_id)``: registered replica brokers, else every registered broker."""
    registered_df = nodes_df.select("cluster_id", "node_id")
    replicas_df = topics_df.select(
        "cluster_id", F.col("topic_name").alias("entity"), F.explode("replica_nodes").alias("node_id")
    ).join(registered_df, on=["cluster_id", "node_id"], how="inner")
    orphans_df = (
        topics_df.select("cluster_id", F.col("topic_name").alias("entity"))
        .join(replicas_df.select("cluster_id", "entity").distinct(), on=["cluster_id", "entity"], how="left_anti")
        .join(registered_df, on="cluster_id", how="inner")
    )
    return replicas_df.unionByName(orphans_df.select("cluster_id", "entity", "node_id"))


def to_topic_effective(
    topics_df: DataFrame,
    dynamic_df: DataFrame,
    nodes_df: DataFrame,
    topic_views_df: DataFrame,
    config_keys_df: DataFrame,
) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` rows of resource type TOPIC.

    Args:
        topics_df: silver ``TOPICS``.
        dynamic_df: silver ``DYNAMIC_CONFIGS``.
        nodes_df: ``(cluster_id, node_id, catalog_release, release_rank)``.
        topic_views_df: ``to_topic_node_views`` output.
        config_keys_df: ``CATALOG_CONFIG_KEYS``.
    """
    live_df = topics_df.select("cluster_id", F.col("topic_name").alias("entity"))
    overrides_df = (
        dynamic_df.where(F.col("resource_type") == ResourceType.TOPIC)
        .select(
            "cluster_id",
            F.col("resource_name").alias("entity"),
            F.col("name").alias("config_name"),
            "value",
            "value_hash",
            "source_offset",
            "source_timestamp",
        )
        .join(live_df, on=["cluster_id", "entity"], how="inner")
    )
    attrs_df = latest_key_attributes(config_keys_df, ResourceType.TOPIC)
    override_rows_df = overrides_df.join(attrs_df, on="config_name", how="left").select(
        "cluster_id",
        "entity",
        F.lit(None).cast("int").alias("node_id"),
        "config_name",
        resolved(
            value=F.col("value"),
            value_hash=F.col("value_hash"),
            source=F.lit(ConfigSource.DYNAMIC_TOPIC_CONFIG),
            synonym=F.col("config_name"),
            source_offset=F.col("source_offset"),
            source_timestamp=F.col("source_timestamp"),
            config_type=F.col("config_type"),
            is_sensitive=F.coalesce(F.col("is_sensitive"), F.lit(True)),
        ).alias("r"),
    )
    inherited_df = collapse_node_views(
        _hosting_nodes(topics_df, nodes_df),
        topic_views_df,
        own_keys_df=overrides_df.select("cluster_id", "entity", "config_name"),
    )
    return to_effective_rows(override_rows_df.unionByName(inherited_df), resource_type=ResourceType.TOPIC)


def to_effective_rows(rows_df: DataFrame, *, resource_type: str) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` from ``(cluster_id, entity, node_id, config_name, r)`` rows."""
    return rows_df.select(
        F.col("cluster_id"),
        F.lit(resource_type).alias("resource_type"),
        F.col("entity").alias("resource_name"),
        F.col("node_id").cast("int").alias("node_id"),
        F.col("config_name"),
        F.col("r.value").cast("string").alias("value"),
        F.col("r.value_hash").cast("string").alias("value_hash"),
        F.coalesce(F.col("r.is_sensitive").cast("boolean"), F.lit(True)).alias("is_sensitive"),
        F.col("r.config_type").cast("string").alias("config_type"),
        F.col("r.source").cast("string").alias("source"),
        F.col("r.synonym").cast("string").alias("synonym"),
        F.col("r.source_offset").cast("long").alias("source_offset"),
        F.col("r.source_timestamp").cast("timestamp").alias("source_timestamp"),
        F.col("r.kafka_release").cast("string").alias("kafka_release"),
        F.col("r.value_set").cast("string").alias("value_set"),
        F.coalesce(F.col("r.is_assumed").cast("boolean"), F.lit(False)).alias("is_assumed"),
    ).select(*EFFECTIVE_CONFIGS.fieldNames())
