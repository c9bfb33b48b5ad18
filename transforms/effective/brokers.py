"""Broker layers and broker effective configs (docs/kafka-semantics.md §5.1, DynamicBrokerConfig).

Per registered broker the layers are, lowest first: static (silver ``BROKER_STATIC_CONFIGS``, NULL values count
as unset), cluster-default dynamic (BROKER ``""``), per-broker dynamic (BROKER ``"<node id>"``).

A dynamic record does not take effect (``ignored_reason`` set, reported as ``IGNORED_DYNAMIC_CONFIG``) when the
broker's release defines the key as ``read-only``, when the key needs a listener prefix
(``listener_prefix_required``), or, at the cluster-default level, when the key is ``per-broker`` or is a
``listener.name.<l>.<config>`` key other than the cluster-level listener configs. Keys unknown to the catalog are
kept (Kafka only drops *known* non-dynamic keys).

A dynamic record whose value the broker's ConfigDef parse rejects does not take effect either (``ignored_kind``
``INVALID_DYNAMIC_CONFIG``): ``DynamicBrokerConfig.fromPersistentProps`` → ``removeInvalidConfigs`` parses the
layer with ``DynamicConfig.Broker``'s ConfigDef (the dynamic keys and broker quotas of the release, a
``listener.name.<l>.`` key under its base name) and drops every key that fails on its own (confluentinc/kafka
3.3–4.2: core/src/main/scala/kafka/server/DynamicBrokerConfig.scala and DynamicConfig.scala; 4.3, 4.4: the same
with ``JDynamicBrokerConfig.validateConfigTypes``). The checks are the release's single-key rules of the default
constraint catalog (``CATALOG_KEY_CHECKS``), evaluated with ``transforms.configdef.checks``. A dropped value is
neither a broker's effective value nor inherited by topics or groups: the layers below apply.

Resolution per broker and key: within a synonym group (``log.retention.ms`` / ``.minutes`` / ``.hours``, ...) only
the highest layer setting any member survives; every member then takes its own surviving value, else its
default. The group's primary key takes the group's value: the surviving member of highest priority (ms over
minutes over hours) or, when none is set, the first member with a non-NULL default, converted to the primary's
unit (``negative → -1`` for retention), with ``synonym`` naming the member it came from. Keys outside groups are
groups of one. Internal keys appear only when set.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.effective import LAYER_COLUMNS
from schemas.gold import EFFECTIVE_CONFIGS
from schemas.kafka_catalog import CLUSTER_LEVEL_LISTENER_CONFIGS, LISTENER_CONFIG_PATTERN
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from transforms.configdef.checks import check_violation, with_parsed_value
from transforms.configdef.messages import violation_message
from transforms.effective.common import (
    DEFAULT_LAYER,
    NODE_LAYER,
    STATIC_LAYER,
    converted,
    partial_node_flags,
    top_layer_only,
)

IGNORED_DYNAMIC_CONFIG = "IGNORED_DYNAMIC_CONFIG"
INVALID_DYNAMIC_CONFIG = "INVALID_DYNAMIC_CONFIG"
_ROW_KEY = ["cluster_id", "node_id", "layer", "name"]
_ID_SYNONYMS = ("node.id", "broker.id")


def _with_id_synonyms(static_df: DataFrame) -> DataFrame:
    """``KafkaConfig.populateSynonyms``: a node's static ``node.id`` without ``broker.id`` gives ``broker.id`` the
    same value, and the other way round; brokers describe the copy as a static config (confluentinc/kafka 3.9:
    core/src/main/scala/kafka/server/KafkaConfig.scala; 4.4: server/.../config/AbstractKafkaConfig.java; oracle
    scenario ``broker-id-mirrors-node-id``)."""
    ids_df = static_df.where(F.col("value").isNotNull() & F.col("name").isin(*_ID_SYNONYMS))
    alone_df = ids_df.groupBy("cluster_id", "node_id").agg(F.count("*").alias("_ids")).where(F.col("_ids") == 1)
    copies_df = ids_df.join(alone_df.drop("_ids"), on=["cluster_id", "node_id"], how="left_semi").withColumn(
        "name", F.when(F.col("name") == "node.id", F.lit("broker.id")).otherwise(F.lit("node.id"))
    )
    return static_df.unionByName(copies_df)


def _static_layer(static_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    return (
        _with_id_synonyms(static_df.where(F.col("value").isNotNull()))
        .join(nodes_df, on=["cluster_id", "node_id"], how="inner")
        .select(
            "cluster_id",
            "node_id",
            "catalog_release",
            "release_rank",
            F.col("node_id").cast("string").alias("resource_name"),
            "name",
            "value",
            "value_hash",
            F.lit(STATIC_LAYER).alias("layer"),
            F.lit(ConfigSource.STATIC_BROKER_CONFIG).alias("source"),
            F.lit(None).cast("long").alias("source_offset"),
            F.lit(None).cast("timestamp").alias("source_timestamp"),
        )
    )


def _dynamic_layers(dynamic_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    broker_df = dynamic_df.where(F.col("resource_type") == ResourceType.BROKER)
    nodes_named_df = nodes_df.select("*", F.col("node_id").cast("string").alias("resource_name"))
    default_df = broker_df.where(F.col("resource_name") == "").join(
        nodes_named_df.drop("resource_name"), on="cluster_id", how="inner"
    )
    node_df = broker_df.join(nodes_named_df, on=["cluster_id", "resource_name"], how="inner")
    columns = [
        "cluster_id",
        "node_id",
        "catalog_release",
        "release_rank",
        "resource_name",
        "name",
        "value",
        "value_hash",
    ]
    return default_df.select(
        *columns,
        F.lit(DEFAULT_LAYER).alias("layer"),
        F.lit(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG).alias("source"),
        "source_offset",
        "source_timestamp",
    ).unionByName(
        node_df.select(
            *columns,
            F.lit(NODE_LAYER).alias("layer"),
            F.lit(ConfigSource.DYNAMIC_BROKER_CONFIG).alias("source"),
            "source_offset",
            "source_timestamp",
        )
    )


def _ignored_reason() -> Column:
    """Why brokers drop a dynamic record (NULL when they apply it); reads the joined catalog columns."""
    scope = F.col("dynamic_scope")
    is_default = F.col("layer") == DEFAULT_LAYER
    listener_base = F.regexp_extract(F.col("name"), LISTENER_CONFIG_PATTERN, 1)
    is_per_broker_listener_key = (listener_base != "") & ~listener_base.isin(*sorted(CLUSTER_LEVEL_LISTENER_CONFIGS))
    return (
        F.when(F.col("layer") == STATIC_LAYER, F.lit(None).cast("string"))
        .when(scope == "read-only", F.lit("is read-only: brokers take it only from server.properties"))
        .when(
            F.coalesce(F.col("listener_prefix_required"), F.lit(False)),
            F.concat(
                F.lit("can be set dynamically only with a listener prefix (listener.name.<listener>."),
                F.col("name"),
                F.lit(")"),
            ),
        )
        .when(is_default & (scope == "per-broker"), F.lit("is per-broker only: not applied at the cluster default"))
        .when(
            is_default & is_per_broker_listener_key,
            F.lit("is a per-broker listener config: not applied at the cluster default"),
        )
    )


def _rejected_values(rows_df: DataFrame, config_keys_df: DataFrame, key_checks_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id, layer, name, rejected)``: dynamic rows the release's ConfigDef parse rejects, with
    the sentence of the first failed check (a type failure first, as ConfigDef parses before it validates)."""
    base = F.regexp_extract(F.col("name"), LISTENER_CONFIG_PATTERN, 1)
    attrs_df = config_keys_df.where(
        (F.col("resource_type") == ResourceType.BROKER) & (F.col("dynamic_scope") != "read-only")
    ).select(F.col("release").alias("catalog_release"), F.col("name").alias("base_name"), "config_type", "is_sensitive")
    checks_df = key_checks_df.where(F.col("resource_type") == ResourceType.BROKER).select(
        F.col("release").alias("catalog_release"),
        F.col("config_name").alias("base_name"),
        *[c for c in key_checks_df.columns if c.startswith("rule_")],
    )
    failed_df = (
        rows_df.where((F.col("layer") != STATIC_LAYER) & F.col("ignored_reason").isNull())
        .select(
            *_ROW_KEY, "catalog_release", "value", F.when(base != "", base).otherwise(F.col("name")).alias("base_name")
        )
        .join(F.broadcast(attrs_df), on=["catalog_release", "base_name"], how="inner")
        .join(F.broadcast(checks_df), on=["catalog_release", "base_name"], how="inner")
        .transform(with_parsed_value)
        .select("*", check_violation().alias("failure"))
        .where(F.col("failure").isNotNull())
        .select(
            *_ROW_KEY,
            "catalog_release",
            "rule_id",
            F.col("rule_id").alias("constraint_id"),
            F.col("name").alias("config_name"),
            "value",
            F.col("failure.code").alias("code"),
            F.col("failure.detail").alias("detail"),
            F.col("rule_kind").alias("constraint_kind"),
            "rule_bound_a",
            "rule_bound_b",
            "rule_values_text",
            "rule_pattern_text",
            "rule_type_text",
            *[F.lit(None).cast("string").alias(c) for c in ("expr_text", "description", "constraint_mv", "reference")],
            F.lit(ResourceType.BROKER).alias("resource_type"),
        )
    )
    sentence = _check_sentence()
    return (
        failed_df.groupBy(*_ROW_KEY)
        .agg(
            F.min_by(
                F.struct(sentence.alias("text"), F.col("catalog_release")),
                F.struct(F.col("constraint_kind") != "type", F.col("rule_id")),
            ).alias("r")
        )
        .select(
            *_ROW_KEY,
            F.concat(
                F.lit("is rejected by the Kafka "),
                F.col("r.catalog_release"),
                F.lit(" broker ConfigDef ("),
                F.col("r.text"),
                F.lit("): DynamicBrokerConfig.removeInvalidConfigs drops it, the layers below apply"),
            ).alias("rejected"),
        )
    )


def to_broker_layers(
    static_df: DataFrame,
    dynamic_df: DataFrame,
    nodes_df: DataFrame,
    config_keys_df: DataFrame,
    key_checks_df: DataFrame,
) -> DataFrame:
    """All layer rows of every registered broker (``LAYER_COLUMNS``), with ``ignored_reason`` / ``ignored_kind``
    for dropped ones.

    Args:
        static_df: silver ``BROKER_STATIC_CONFIGS``.
        dynamic_df: silver ``DYNAMIC_CONFIGS``.
        nodes_df: ``(cluster_id, node_id, catalog_release, release_rank)`` (``with_catalog_release``).
        config_keys_df: ``CATALOG_CONFIG_KEYS``.
        key_checks_df: ``CATALOG_KEY_CHECKS``.
    """
    keys_df = config_keys_df.where(F.col("resource_type") == ResourceType.BROKER).select(
        F.col("release").alias("catalog_release"), "name", "dynamic_scope", "listener_prefix_required"
    )
    rows_df = (
        _static_layer(static_df, nodes_df)
        .unionByName(_dynamic_layers(dynamic_df, nodes_df))
        .join(keys_df, on=["catalog_release", "name"], how="left")
        .select(*LAYER_COLUMNS[:-2], _ignored_reason().alias("ignored_reason"))
    )
    rejected_df = _rejected_values(rows_df, config_keys_df, key_checks_df)
    reason = F.coalesce(F.col("ignored_reason"), F.col("rejected"))
    kind = (
        F.when(F.col("ignored_reason").isNotNull(), F.lit(IGNORED_DYNAMIC_CONFIG))
        .when(F.col("rejected").isNotNull(), F.lit(INVALID_DYNAMIC_CONFIG))
        .otherwise(F.lit(None).cast("string"))
    )
    return rows_df.join(rejected_df, on=_ROW_KEY, how="left").select(
        *LAYER_COLUMNS[:-2], reason.alias("ignored_reason"), kind.alias("ignored_kind")
    )


def _check_sentence() -> Column:
    """``violation_message`` of a failed ``CATALOG_KEY_CHECKS`` row: the key as set, no MV and no reference."""
    return violation_message()


def _group_members(synonyms_df: DataFrame, resource_type: str) -> DataFrame:
    return synonyms_df.where(F.col("resource_type") == resource_type).select(
        F.col("release").alias("catalog_release"),
        F.col("synonym").alias("name"),
        F.col("config_name").alias("group"),
        "priority",
        "converter",
        "negative_means_unlimited",
    )


def _surviving_values(layers_df: DataFrame, members_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id, name, set)``: the applied values of each broker's highest layer setting any member of a
    synonym group (a key outside groups is a group of one), as Kafka drops the lower layers' synonyms."""
    return (
        layers_df.where(F.col("ignored_reason").isNull())
        .join(members_df.select("catalog_release", "name", "group"), on=["catalog_release", "name"], how="left")
        .select("*", F.coalesce(F.col("group"), F.col("name")).alias("group_key"))
        .transform(top_layer_only, group_col="group_key")
        .select(
            "cluster_id",
            "node_id",
            "name",
            F.struct("value", "value_hash", "source", "source_offset", "source_timestamp").alias("set"),
        )
    )


def _group_candidates() -> tuple[Column, Column]:
    """``(best_set, best_default)``: the highest-priority member of the row's synonym group that is set / has a
    default, with what the primary key needs to take its value (window over broker and group)."""
    group = Window.partitionBy("cluster_id", "node_id", "group_key")
    candidate = F.struct(
        F.col("set").alias("set"),
        F.col("name").alias("member"),
        F.col("converter").alias("converter"),
        F.col("negative_means_unlimited").alias("unlimited"),
        F.col("default_value").alias("default_value"),
    )
    best_set = F.min_by(candidate, F.when(F.col("set").isNotNull(), F.col("rank"))).over(group)
    best_default = F.min_by(candidate, F.when(F.col("default_value").isNotNull(), F.col("rank"))).over(group)
    return best_set, best_default


def to_broker_effective(
    layers_df: DataFrame,
    nodes_df: DataFrame,
    config_keys_df: DataFrame,
    synonyms_df: DataFrame,
    *,
    partial_static_df: DataFrame | None = None,
) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` rows of resource type BROKER (one per broker and key).

    ``partial_static_df`` (``cluster_id, node_id``, see ``common.partial_static_nodes``) names the brokers whose
    server.properties is not known in full: on them a key whose synonym group no applied layer sets resolves to
    the release default by assumption (``is_assumed``). Without it no row is assumed. ``value_set`` is NULL here
    (``timestamps`` and ``clamps`` set it).
    """
    members_df = _group_members(synonyms_df, ResourceType.BROKER)
    broker_keys_df = config_keys_df.where(F.col("resource_type") == ResourceType.BROKER).select(
        F.col("release").alias("catalog_release"), "name", "config_type", "default_value", "is_sensitive", "is_internal"
    )
    catalog_keys_df = nodes_df.join(broker_keys_df, on="catalog_release", how="inner")
    keys_df = (
        catalog_keys_df.join(_surviving_values(layers_df, members_df), on=["cluster_id", "node_id", "name"], how="full")
        .drop("catalog_release", "release_rank")
        .join(nodes_df, on=["cluster_id", "node_id"], how="inner")
        .join(partial_node_flags(nodes_df, partial_static_df), on=["cluster_id", "node_id"], how="left")
        .where(~F.coalesce(F.col("is_internal"), F.lit(False)) | F.col("set").isNotNull())
        .join(members_df, on=["catalog_release", "name"], how="left")
        .select(
            "*",
            F.coalesce(F.col("group"), F.col("name")).alias("group_key"),
            F.coalesce(F.col("priority"), F.lit(0)).alias("rank"),
        )
    )
    best_set, best_default = _group_candidates()
    # partitioned by broker, not by group: the rows' later windows and aggregates per broker (the timestamp
    # fallback, the layer checks' maps) then need no shuffle of their own
    return (
        keys_df.repartition("cluster_id", "node_id")
        .select("*", best_set.alias("best_set"), best_default.alias("best_default"))
        .select(
            "*",
            (F.col("group").isNotNull() & (F.col("name") == F.col("group"))).alias("is_primary"),
        )
        .select(
            F.col("cluster_id"),
            F.lit(ResourceType.BROKER).alias("resource_type"),
            F.col("node_id").cast("string").alias("resource_name"),
            F.col("node_id"),
            F.col("name").alias("config_name"),
            *_broker_value_columns(),
        )
        .select(*EFFECTIVE_CONFIGS.fieldNames())
    )


def _broker_value_columns() -> list[Column]:
    """value … kafka_release of a broker row, from ``set``, ``best_set``, ``best_default`` and ``is_primary``."""
    primary_set = F.col("is_primary") & F.col("best_set").isNotNull()
    primary_default = F.col("is_primary") & F.col("best_set").isNull()
    own_set = ~F.col("is_primary") & F.col("set").isNotNull()

    def pick(from_best_set: Column, from_best_default: Column, from_set: Column, otherwise: Column) -> Column:
        return (
            F.when(primary_set, from_best_set)
            .when(primary_default, from_best_default)
            .when(own_set, from_set)
            .otherwise(otherwise)
        )

    bs, bd = F.col("best_set"), F.col("best_default")
    value = pick(
        converted(bs["set"]["value"], bs["converter"], bs["unlimited"]),
        converted(bd["default_value"], bd["converter"], bd["unlimited"]),
        F.col("set.value"),
        F.col("default_value"),
    )
    null_str, null_long, null_ts = F.lit(None).cast("string"), F.lit(None).cast("long"), F.lit(None).cast("timestamp")
    return [
        value.alias("value"),
        pick(bs["set"]["value_hash"], null_str, F.col("set.value_hash"), null_str).alias("value_hash"),
        F.coalesce(F.col("is_sensitive"), F.lit(True)).alias("is_sensitive"),
        F.col("config_type"),
        pick(
            bs["set"]["source"],
            F.lit(ConfigSource.DEFAULT_CONFIG),
            F.col("set.source"),
            F.lit(ConfigSource.DEFAULT_CONFIG),
        ).alias("source"),
        pick(bs["member"], F.coalesce(bd["member"], F.col("name")), F.col("name"), F.col("name")).alias("synonym"),
        pick(bs["set"]["source_offset"], null_long, F.col("set.source_offset"), null_long).alias("source_offset"),
        pick(bs["set"]["source_timestamp"], null_ts, F.col("set.source_timestamp"), null_ts).alias("source_timestamp"),
        F.col("catalog_release").alias("kafka_release"),
        F.lit(None).cast("string").alias("value_set"),
        # no applied layer sets any key of the group: the release default stands in for an unknown static value
        (F.coalesce(F.col("static_partial"), F.lit(False)) & F.col("best_set").isNull()).alias("is_assumed"),
    ]
