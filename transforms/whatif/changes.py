"""What-if: apply a ``ChangeSet`` (schemas/changes.py) to the *layered* configuration state.

``apply_changes(state, changes, defaults_df=..., redact=...)`` returns the ``ConfigLayers`` after the changes: the
three silver layer frames, behind local checkpoints. ``redact`` (a ``Redactor``) maps ``(resource_type, key,
value)`` to the stored ``(value, value_hash)``.

The changes are written into the layers Kafka stores, then the caller re-runs the effective resolution
(``transforms.effective.resolve_effective_configs``) on the changed state, so every precedence, synonym and
fallback rule of docs/contract.md §4 applies to the result exactly as it does to the audited state: deleting a
per-broker override falls back to the cluster default, then server.properties, then the ConfigDef default; deleting a
topic override falls back to the hosting brokers' views; a SET below a higher layer stays shadowed.

Where each change lands:

* ``BROKER`` dynamic: DYNAMIC_CONFIGS rows of resource ``"<node id>"`` (per-broker) or ``""`` (cluster default);
  ``BROKER`` ``layer: static``: BROKER_STATIC_CONFIGS of that node (``""``: of every registered node) — what a
  changed server.properties gives after the restart; ``TOPIC`` / ``GROUP`` / ``CLIENT_METRICS``: DYNAMIC_CONFIGS;
  ``CLIENT``: CLIENT_ENTITY_CONFIGS of the entity named like ``user=alice,client-id=app`` (``<default>`` for the
  default entity), kind QUOTA for Kafka's quota keys (values stored as doubles, e.g. ``100.0``), else
  CLIENT_CONFIG (an existing entry keeps its kind).
* ``cluster_id`` omitted: every cluster of ``state`` that has the resource (a live topic, a registered node or any
  broker for ``""``, a group / subscription / client entity with configs); when none has it (a new group,
  subscription or entity), every cluster. An entry naming the cluster wins over one that does not for the same key.

Operations (ConfigurationControlManager, IncrementalAlterConfigs): ``SET`` writes the value; ``DELETE`` removes
the key from that layer; ``APPEND`` / ``SUBTRACT`` (LIST keys) start from the value stored at that layer, else the
ConfigDef default of the key (``defaults_df``; none for CLIENT entities), split on ``,`` with empty parts dropped;
APPEND adds the values not present yet, SUBTRACT removes them (every occurrence; Kafka removes the first), joined
with ``,``. Legacy ``replace`` (AlterConfigs) is SET for every listed key plus DELETE for every other key stored at
that layer of the resource (the implicit deletes).

Secrets: ``redact`` is applied to every value of a change before it reaches a DataFrame (the job passes the
ingest redaction), so a sensitive value is ``[redacted]`` with its keyed hash; APPEND / SUBTRACT on a sensitive key
store ``[redacted]`` with the hash of the operand. Changed rows have NULL offsets and timestamps (no record set
them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.changes import ChangeSet
from schemas.kafka_vocabulary import CONFIG_RESOURCE_TYPES, AlterConfigOpType, ResourceType
from schemas.silver import BROKER_STATIC_CONFIGS, CLIENT_ENTITY_CONFIGS, DYNAMIC_CONFIGS
from schemas.whatif import OPS_DDL, REPLACE_DDL
from transforms.effective.clients import client_entity_name
from transforms.kit.checkpoints import Keep, as_planned
from transforms.replay.state import ReplayResult

__all__ = ["ConfigLayers", "Redactor", "apply_changes"]

Redactor = Callable[[str, str, str | None], tuple[str | None, str | None]]

# Kafka's client quota keys (QuotaConfig): CLIENT_QUOTA_RECORDs, every other client key is a client config.
QUOTA_KEYS: Final = frozenset(
    {
        "producer_byte_rate",
        "consumer_byte_rate",
        "request_percentage",
        "controller_mutation_rate",
        "connection_creation_rate",
    }
)
CHANGED_ORIGIN: Final = "CHANGE"  # BROKER_STATIC_CONFIGS.origin of a simulated server.properties value


@dataclass(frozen=True)
class ConfigLayers:
    """The stored configuration layers of the silver state (what a change edits)."""

    dynamic_configs: DataFrame  # DYNAMIC_CONFIGS
    broker_static_configs: DataFrame  # BROKER_STATIC_CONFIGS
    client_entity_configs: DataFrame  # CLIENT_ENTITY_CONFIGS


def _redacted(redact: Redactor | None, resource_type: str, key: str, value: str | None) -> tuple[Any, Any]:
    return redact(resource_type, key, value) if redact is not None and value is not None else (value, None)


def _rows(changes: ChangeSet, redact: Redactor | None) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    ops: list[tuple[Any, ...]] = []
    replaces: list[tuple[Any, ...]] = []
    for seq, change in enumerate(changes.changes):
        head = (
            seq,
            change.cluster_id is not None,
            change.cluster_id,
            change.resource_type,
            change.resource_name,
            change.layer,
        )
        pairs = [(o.op, o.key, o.value) for o in change.ops or ()]
        if change.replace is not None:
            pairs = [(AlterConfigOpType.SET, k, v) for k, v in change.replace.items()]
            replaces.append((*head, sorted(change.replace)))
        for op, key, value in pairs:
            shown, digest = _redacted(redact, change.resource_type, key, value)
            ops.append((*head, op, key, shown, digest))
    return ops, replaces


def _entity_part(name: Column, part: str) -> Column:
    has = name.rlike(rf"(^|,){part}=")
    return F.when(has, F.regexp_extract(name, rf"(?:^|,){part}=([^,]*)", 1))


def _existing_resources(state: ReplayResult) -> DataFrame:
    """``(cluster_id, resource_type, resource_name)`` of every resource a change may name."""
    brokers_df = state.brokers.select("cluster_id", F.lit(ResourceType.BROKER).alias("resource_type"))
    nodes_df = state.brokers.select(
        "cluster_id",
        F.lit(ResourceType.BROKER).alias("resource_type"),
        F.col("node_id").cast("string").alias("resource_name"),
    )
    defaults_df = brokers_df.select("*", F.lit("").alias("resource_name"))
    topics_df = state.topics.select(
        "cluster_id", F.lit(ResourceType.TOPIC).alias("resource_type"), F.col("topic_name").alias("resource_name")
    )
    entities_df = state.dynamic_configs.where(
        F.col("resource_type").isin(ResourceType.GROUP, ResourceType.CLIENT_METRICS)
    ).select("cluster_id", "resource_type", "resource_name")
    clients_df = state.client_entity_configs.select(
        "cluster_id",
        F.lit(ResourceType.CLIENT).alias("resource_type"),
        client_entity_name(F.col("entity_user"), F.col("entity_client_id"), F.col("entity_ip")).alias("resource_name"),
    )
    return nodes_df.unionByName(defaults_df).unionByName(topics_df).unionByName(entities_df).unionByName(clients_df)


def _in_clusters(targets_df: DataFrame, state: ReplayResult) -> DataFrame:
    """Rows with ``cluster_id`` set: explicit ones as they are, the others expanded (module docstring)."""
    existing_df = _existing_resources(state).distinct()
    clusters_df = existing_df.select("cluster_id").distinct()
    explicit_df = targets_df.where(F.col("explicit"))
    open_df = targets_df.where(~F.col("explicit")).drop("cluster_id")
    resource = ["resource_type", "resource_name"]
    found_df = open_df.join(existing_df, on=resource, how="inner")
    nowhere_df = open_df.join(existing_df.select(*resource).distinct(), on=resource, how="left_anti").join(
        clusters_df, how="cross"
    )
    return explicit_df.unionByName(found_df).unionByName(nowhere_df)


def _winning(ops_df: DataFrame, keys: list[str]) -> DataFrame:
    """One op per key: an entry naming its cluster beats one that does not; then the later entry."""
    order = Window.partitionBy(*keys).orderBy(F.col("explicit").desc(), F.col("seq").desc())
    return ops_df.select("*", F.row_number().over(order).alias("_n")).where(F.col("_n") == 1).drop("_n")


def _parts(value: Column) -> Column:
    """Kafka's getParts: split on ',' and drop empty parts; NULL -> []."""
    return F.array_remove(F.split(F.coalesce(value, F.lit("")), ","), "")


def _applied(op: Column, value: Column, base: Column) -> Column:
    """The stored value after one op (NULL for DELETE)."""
    append = F.concat(_parts(base), F.array_except(_parts(value), _parts(base)))
    subtract = F.filter(_parts(base), lambda part: ~F.array_contains(_parts(value), part))
    return (
        F.when(op == AlterConfigOpType.SET, value)
        .when(op == AlterConfigOpType.APPEND, F.array_join(append, ","))
        .when(op == AlterConfigOpType.SUBTRACT, F.array_join(subtract, ","))
    )


def _changed(ops_df: DataFrame, current_df: DataFrame, keys: list[str], base_default: Column) -> DataFrame:
    """``keys`` + op, new value and hash for every op (DELETE rows have a NULL value)."""
    joined_df = ops_df.join(current_df, on=keys, how="left")
    base = F.coalesce(F.col("_cur_value"), base_default)
    is_list_op = F.col("op").isin(AlterConfigOpType.APPEND, AlterConfigOpType.SUBTRACT)
    secret = F.col("value_hash").isNotNull() | (is_list_op & F.col("_cur_hash").isNotNull())
    value = F.when(F.col("op") == AlterConfigOpType.DELETE, F.lit(None).cast("string")).when(
        secret & is_list_op, F.lit("[redacted]")
    )
    value = value.otherwise(_applied(F.col("op"), F.col("value"), base))
    value_hash = F.when(
        F.col("op") != AlterConfigOpType.DELETE, F.coalesce(F.col("value_hash"), F.when(is_list_op, F.col("_cur_hash")))
    )
    return joined_df.select(*keys, "op", value.alias("_new_value"), value_hash.alias("_new_hash"))


def _apply_dynamic(state: ReplayResult, ops_df: DataFrame, replace_df: DataFrame, defaults_df: DataFrame) -> DataFrame:
    keys = ["cluster_id", "resource_type", "resource_name", "name"]
    is_dynamic = (F.col("layer") == "dynamic") & F.col("resource_type").isin(*CONFIG_RESOURCE_TYPES)
    dyn_ops_df = _winning(ops_df.where(is_dynamic).select("*", F.col("key").alias("name")), keys)
    current_df = state.dynamic_configs.select(
        *keys, F.col("value").alias("_cur_value"), F.col("value_hash").alias("_cur_hash")
    )
    base_default = F.col("default_value")
    changed_df = _changed(
        dyn_ops_df.join(F.broadcast(defaults_df), on=_default_key(defaults_df, "resource_type", "name"), how="left"),
        current_df,
        keys,
        base_default,
    )
    resource = ["cluster_id", "resource_type", "resource_name"]
    replaced_df = replace_df.where((F.col("layer") == "dynamic") & F.col("resource_type").isin(*CONFIG_RESOURCE_TYPES))
    implicit_df = (
        state.dynamic_configs.join(replaced_df.select(*resource, "keep_keys"), on=resource, how="inner")
        .where(~F.array_contains(F.col("keep_keys"), F.col("name")))
        .select(*keys)
    )
    touched_df = changed_df.select(*keys).unionByName(implicit_df)
    kept_df = state.dynamic_configs.join(touched_df, on=keys, how="left_anti")
    new_df = changed_df.where(F.col("op") != AlterConfigOpType.DELETE).select(
        *keys,
        F.col("_new_value").alias("value"),
        F.col("_new_hash").alias("value_hash"),
        F.lit(None).cast("long").alias("source_offset"),
        F.lit(None).cast("timestamp").alias("source_timestamp"),
        F.lit(False).alias("from_snapshot"),
    )
    return kept_df.select(*DYNAMIC_CONFIGS.fieldNames()).unionByName(new_df.select(*DYNAMIC_CONFIGS.fieldNames()))


def _default_key(defaults_df: DataFrame, *key: str) -> list[str]:
    """The join key of the defaults: per cluster when they are given per cluster."""
    return ["cluster_id", *key] if "cluster_id" in defaults_df.columns else list(key)


def _on_nodes(df: DataFrame, state: ReplayResult) -> DataFrame:
    """BROKER static targets with ``node_id``: ``""`` = every registered node of the cluster."""
    nodes_df = state.brokers.select("cluster_id", "node_id")
    every_df = df.where(F.col("resource_name") == "").join(nodes_df, on="cluster_id", how="inner")
    one_df = df.where(F.col("resource_name") != "").select("*", F.col("resource_name").try_cast("int").alias("node_id"))
    return every_df.unionByName(one_df.where(F.col("node_id").isNotNull()))


def _apply_static(state: ReplayResult, ops_df: DataFrame, replace_df: DataFrame, defaults_df: DataFrame) -> DataFrame:
    keys = ["cluster_id", "node_id", "name"]
    is_static = (F.col("layer") == "static") & (F.col("resource_type") == ResourceType.BROKER)
    static_ops_df = _winning(_on_nodes(ops_df.where(is_static), state).select("*", F.col("key").alias("name")), keys)
    current_df = state.broker_static_configs.where(F.col("value").isNotNull()).select(
        *keys, F.col("value").alias("_cur_value"), F.col("value_hash").alias("_cur_hash")
    )
    broker_defaults_df = defaults_df.where(F.col("resource_type") == ResourceType.BROKER).drop("resource_type")
    changed_df = _changed(
        static_ops_df.join(F.broadcast(broker_defaults_df), on=_default_key(broker_defaults_df, "name"), how="left"),
        current_df,
        keys,
        F.col("default_value"),
    )
    replaced_df = _on_nodes(replace_df.where(is_static), state).select("cluster_id", "node_id", "keep_keys")
    implicit_df = (
        state.broker_static_configs.join(replaced_df, on=["cluster_id", "node_id"], how="inner")
        .where(~F.array_contains(F.col("keep_keys"), F.col("name")))
        .select(*keys)
    )
    touched_df = changed_df.select(*keys).unionByName(implicit_df)
    kept_df = state.broker_static_configs.join(touched_df, on=keys, how="left_anti")
    new_df = changed_df.where(F.col("op") != AlterConfigOpType.DELETE).select(
        *keys,
        F.col("_new_value").alias("value"),
        F.col("_new_hash").alias("value_hash"),
        F.lit(CHANGED_ORIGIN).alias("origin"),
        F.lit(None).cast("long").alias("source_offset"),
    )
    fields = BROKER_STATIC_CONFIGS.fieldNames()
    return kept_df.select(*fields).unionByName(new_df.select(*fields))


def _apply_client(state: ReplayResult, ops_df: DataFrame, replace_df: DataFrame) -> DataFrame:
    entries_df = state.client_entity_configs.select(
        "*",
        client_entity_name(F.col("entity_user"), F.col("entity_client_id"), F.col("entity_ip")).alias("_entity"),
    )
    keys = ["cluster_id", "_entity", "name"]
    client_ops_df = _winning(
        ops_df.where(F.col("resource_type") == ResourceType.CLIENT).select(
            "*", F.col("resource_name").alias("_entity"), F.col("key").alias("name")
        ),
        keys,
    )
    current_df = entries_df.select(
        *keys, F.col("value").alias("_cur_value"), F.col("value_hash").alias("_cur_hash"), F.col("kind").alias("_kind")
    )
    changed_df = _changed(client_ops_df, current_df.drop("_kind"), keys, F.lit(None).cast("string")).join(
        current_df.select(*keys, "_kind"), on=keys, how="left"
    )
    replaced_df = replace_df.where(F.col("resource_type") == ResourceType.CLIENT).select(
        "cluster_id", F.col("resource_name").alias("_entity"), "keep_keys"
    )
    implicit_df = (
        entries_df.join(replaced_df, on=["cluster_id", "_entity"], how="inner")
        .where(~F.array_contains(F.col("keep_keys"), F.col("name")))
        .select(*keys)
    )
    touched_df = changed_df.select(*keys).unionByName(implicit_df)
    kept_df = entries_df.join(touched_df, on=keys, how="left_anti")
    kind = F.coalesce(
        F.col("_kind"), F.when(F.col("name").isin(*sorted(QUOTA_KEYS)), F.lit("QUOTA")).otherwise("CLIENT_CONFIG")
    )
    # quota values are doubles; Kafka rejects a value that does not parse, the what-if keeps it as written
    as_double = F.col("_new_value").try_cast("double").cast("string")
    value = F.when(kind == "QUOTA", F.coalesce(as_double, F.col("_new_value"))).otherwise(F.col("_new_value"))
    entity = F.col("_entity")
    new_df = changed_df.where(F.col("op") != AlterConfigOpType.DELETE).select(
        "cluster_id",
        _entity_part(entity, "user").alias("entity_user"),
        _entity_part(entity, "client-id").alias("entity_client_id"),
        _entity_part(entity, "ip").alias("entity_ip"),
        kind.alias("kind"),
        "name",
        value.alias("value"),
        F.col("_new_hash").alias("value_hash"),
        F.lit(None).cast("long").alias("source_offset"),
        F.lit(None).cast("timestamp").alias("source_timestamp"),
    )
    fields = CLIENT_ENTITY_CONFIGS.fieldNames()
    return kept_df.select(*fields).unionByName(new_df.select(*fields))


def apply_changes(
    state: ReplayResult,
    changes: ChangeSet,
    *,
    defaults_df: DataFrame,
    redact: Redactor | None = None,
    keep: Keep = as_planned,
) -> ConfigLayers:
    """The configuration layers of ``state`` after ``changes`` (semantics in the module docstring).

    Args:
        state: the silver state (``brokers``, ``topics`` and the three layer frames are read).
        changes: the validated change set.
        defaults_df: ``(resource_type, name, default_value)``, one row per key: the ConfigDef defaults APPEND and
            SUBTRACT start from when the layer does not store the key (e.g. the target release's catalog); with
            ``cluster_id``, one row per cluster and key (clusters audited at releases of their own).
        redact: maps ``(resource_type, key, value)`` to ``(stored value, value hash)`` (ingest redaction).
        keep: how the caller holds each changed layer (the resolution reads every layer in many places).

    NULL behaviour: a layer value that is NULL counts as unset (static layer) and as the empty list for APPEND /
    SUBTRACT; a NULL default is the empty list.
    """
    spark = state.dynamic_configs.sparkSession
    op_rows, replace_rows = _rows(changes, redact)
    ops_df = _in_clusters(spark.createDataFrame(op_rows, OPS_DDL), state)
    replace_df = _in_clusters(spark.createDataFrame(replace_rows, REPLACE_DDL), state)
    per_cluster = ["cluster_id"] if "cluster_id" in defaults_df.columns else []
    key = [*per_cluster, "resource_type", "name"]
    defaults = defaults_df.select(*key, "default_value").dropDuplicates(key)
    # kept by the caller: the resolution reads every layer in many places of its plan
    return ConfigLayers(
        dynamic_configs=keep("dynamic_configs", _apply_dynamic(state, ops_df, replace_df, defaults)),
        broker_static_configs=keep("broker_static_configs", _apply_static(state, ops_df, replace_df, defaults)),
        client_entity_configs=keep("client_entity_configs", _apply_client(state, ops_df, replace_df)),
    )
