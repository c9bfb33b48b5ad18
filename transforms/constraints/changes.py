"""What-if: apply a ``ChangeSet`` (schemas/changes.py) to the effective configuration.

Public API::

    apply_changes(
        effective_df: DataFrame,                       # EFFECTIVE_CONFIGS
        changes: ChangeSet,
        *,
        topic_synonyms: Mapping[str, str] | None = None,   # topic key -> primary broker key
        group_synonyms: Mapping[str, str] | None = None,   # group key -> broker key (GroupConfig synonyms)
    ) -> DataFrame                                     # EFFECTIVE_CONFIGS: configs_after

Semantics, on the effective table (one value per key, with the layer it came from):

* A change targets a layer: topic / group / client-metrics / client overrides, or a BROKER layer — per-node
  dynamic (``resource_name`` = node id), cluster-wide dynamic default (``""``, every node of the cluster), or
  ``layer: static`` (server.properties). Broker precedence is DEFAULT < STATIC < DYNAMIC_DEFAULT < DYNAMIC_BROKER;
  entity overrides beat every broker layer.
* SET / APPEND / SUBTRACT take effect when their layer is at or above the layer the value comes from (a lower
  layer stays shadowed); the new value's source is the changed layer. A missing key is inserted for every
  targeted entity that exists (BROKER ``""``: every broker node of the cluster).
* APPEND / SUBTRACT work like Kafka's ConfigurationControlManager: the base is the value set *at that layer*
  (else the ConfigDef default when the effective value is the default, else empty); it is split on ``,`` with
  empty parts dropped; APPEND adds the values not present yet, SUBTRACT removes them; the result is joined
  with ``,``. (Kafka removes only the first occurrence of a duplicated element on SUBTRACT; here all go.)
* DELETE takes effect when the value comes from exactly that layer. The value then falls back to a lower layer:
  to another SET of this change set at a lower layer if there is one; for TOPIC / GROUP keys to the brokers'
  (changed) value of the synonym given in ``topic_synonyms`` / ``group_synonyms`` (one row when all brokers
  agree, else one row per broker node); CLIENT_METRICS keys have no default and disappear. Otherwise the lower
  layers are not in the effective table: the row keeps value NULL and source ``UNRESOLVED`` (re-resolve the
  layers for an exact answer).
* Legacy ``replace`` is SET for every listed key plus DELETE for every other key set at that layer.
* Topic rows inheriting a changed broker key (source a broker layer or DEFAULT_CONFIG; ``synonym`` equal to the
  key or ``topic_synonyms`` mapping to it) follow the broker change: cluster-wide changes update every such row,
  per-node changes the rows of that node's view (rows with ``node_id``). A per-node change does not split a
  topic row that all brokers shared (limitation, noted in the output by nothing: re-resolve for exactness).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.changes import ChangeSet, ResourceChange
from schemas.gold import EFFECTIVE_CONFIGS

UNRESOLVED: Final = "UNRESOLVED"
LAYER_SOURCES: Final[dict[str, str]] = {
    "TOPIC": "DYNAMIC_TOPIC_CONFIG",
    "GROUP": "DYNAMIC_GROUP_CONFIG",
    "CLIENT_METRICS": "DYNAMIC_CLIENT_METRICS_CONFIG",
    "CLIENT": "DYNAMIC_CLIENT_CONFIG",
}
SOURCE_RANKS: Final[dict[str, int]] = {
    "DEFAULT_CONFIG": 0,
    "STATIC_BROKER_CONFIG": 1,
    "DYNAMIC_DEFAULT_BROKER_CONFIG": 2,
    "DYNAMIC_BROKER_CONFIG": 3,
    **dict.fromkeys(LAYER_SOURCES.values(), 4),
}
INHERITED_SOURCES: Final = (
    "DEFAULT_CONFIG",
    "STATIC_BROKER_CONFIG",
    "DYNAMIC_DEFAULT_BROKER_CONFIG",
    "DYNAMIC_BROKER_CONFIG",
)
OPS_DDL: Final = (
    "cluster_id string, resource_type string, resource_name string, all_nodes boolean, layer_source string, "
    "layer_rank int, op string, key string, value string"
)
REPLACE_DDL: Final = (
    "cluster_id string, resource_type string, resource_name string, all_nodes boolean, layer_source string, "
    "layer_rank int, keep_keys array<string>"
)
IDENTITY: Final = ("cluster_id", "resource_type", "resource_name", "node_id", "config_name")


def _layer(change: ResourceChange) -> tuple[str, bool]:
    """(source name of the changed layer, whether it targets every broker node)."""
    if change.resource_type != "BROKER":
        return LAYER_SOURCES[change.resource_type], False
    all_nodes = change.resource_name == ""
    if change.layer == "static":
        return "STATIC_BROKER_CONFIG", all_nodes
    return ("DYNAMIC_DEFAULT_BROKER_CONFIG" if all_nodes else "DYNAMIC_BROKER_CONFIG"), all_nodes


def _op_rows(changes: ChangeSet) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    ops: list[tuple[Any, ...]] = []
    replaces: list[tuple[Any, ...]] = []
    for change in changes.changes:
        source, all_nodes = _layer(change)
        head = (change.cluster_id, change.resource_type, change.resource_name, all_nodes, source, SOURCE_RANKS[source])
        if change.ops is not None:
            ops.extend((*head, o.op, o.key, o.value) for o in change.ops)
        else:
            assert change.replace is not None
            ops.extend((*head, "SET", k, v) for k, v in change.replace.items())
            replaces.append((*head, sorted(change.replace)))
    return ops, replaces


def _source_rank(source: Column) -> Column:
    rank = F.lit(0)
    for name, value in SOURCE_RANKS.items():
        rank = F.when(source == name, F.lit(value)).otherwise(rank)
    return rank


def _map_literal(mapping: Mapping[str, str] | None) -> Column:
    if not mapping:
        return F.create_map().cast("map<string,string>")
    return F.create_map(*[F.lit(x) for kv in sorted(mapping.items()) for x in kv])


def _parts(value: Column) -> Column:
    """Kafka's getParts: split on ',' and drop empty parts; NULL -> []."""
    return F.array_remove(F.split(F.coalesce(value, F.lit("")), ","), "")


def _apply_op(op: Column, value: Column, base: Column) -> Column:
    append = F.concat(_parts(base), F.array_except(_parts(value), _parts(base)))
    subtract = F.array_except(_parts(base), _parts(value))
    return (
        F.when(op == "SET", value)
        .when(op == "APPEND", F.array_join(append, ","))
        .when(op == "SUBTRACT", F.array_join(subtract, ","))
    )


def _derived_deletes(effective_df: DataFrame, replace_df: DataFrame) -> DataFrame:
    """DELETE ops for keys set at a replaced layer but missing from the replacement."""
    e, r = effective_df.alias("e"), replace_df.alias("r")
    cluster_ok = F.col("r.cluster_id").isNull() | (F.col("r.cluster_id") == F.col("e.cluster_id"))
    same_resource = (F.col("e.resource_type") == F.col("r.resource_type")) & (
        F.col("r.all_nodes") | (F.col("e.resource_name") == F.col("r.resource_name"))
    )
    at_layer = F.col("e.source") == F.col("r.layer_source")
    dropped = ~F.array_contains(F.col("r.keep_keys"), F.col("e.config_name"))
    return (
        e.join(F.broadcast(r), cluster_ok & same_resource & at_layer & dropped, how="inner")
        .select(
            F.col("e.cluster_id").alias("cluster_id"),
            F.col("e.resource_type").alias("resource_type"),
            F.col("e.resource_name").alias("resource_name"),
            F.lit(False).alias("all_nodes"),
            F.col("r.layer_source").alias("layer_source"),
            F.col("r.layer_rank").alias("layer_rank"),
            F.lit("DELETE").alias("op"),
            F.col("e.config_name").alias("key"),
            F.lit(None).cast("string").alias("value"),
        )
        .dropDuplicates(["cluster_id", "resource_type", "resource_name", "layer_source", "key"])
    )


def _match_condition(mapped_broker_key: Column) -> Column:
    cluster_ok = F.col("o.cluster_id").isNull() | (F.col("o.cluster_id") == F.col("e.cluster_id"))
    on_node = F.col("o.all_nodes") | (F.col("e.resource_name") == F.col("o.resource_name"))
    direct = (
        (F.col("e.resource_type") == F.col("o.resource_type")) & (F.col("e.config_name") == F.col("o.key")) & on_node
    )
    inherits_key = (F.col("e.synonym") == F.col("o.key")) | (mapped_broker_key == F.col("o.key"))
    in_view = F.col("o.all_nodes") | (F.col("e.node_id").cast("string") == F.col("o.resource_name"))
    cascade = (
        (F.col("o.resource_type") == "BROKER")
        & (F.col("e.resource_type") == "TOPIC")
        & F.col("e.source").isin(*INHERITED_SOURCES)
        & F.coalesce(inherits_key, F.lit(False))
        & in_view
    )
    return cluster_ok & (direct | cascade)


def _changed_rows(effective_df: DataFrame, ops_df: DataFrame, topic_map: Column) -> DataFrame:
    """EFFECTIVE_CONFIGS rows after the ops; UNRESOLVED rows still need their fallback."""
    e, o = effective_df.alias("e"), ops_df.alias("o")
    mapped = F.when(F.col("e.resource_type") == "TOPIC", F.element_at(topic_map, F.col("e.config_name")))
    joined_df = e.join(F.broadcast(o), _match_condition(mapped), how="left").select(
        "e.*",
        F.col("o.op").alias("_op"),
        F.col("o.value").alias("_op_value"),
        F.col("o.layer_source").alias("_layer_source"),
        F.col("o.layer_rank").alias("_layer_rank"),
        F.col("o.key").alias("_op_key"),
        F.col("o.resource_type").alias("_op_type"),
    )
    current_rank = _source_rank(F.col("source"))
    is_setter = F.col("_op").isNotNull() & (F.col("_op") != "DELETE")
    takes_effect = (is_setter & (F.col("_layer_rank") >= current_rank)) | (
        (F.col("_op") == "DELETE") & (F.col("_layer_rank") == current_rank)
    )
    op_struct = F.struct("_op", "_op_value", "_layer_source", "_layer_rank", "_op_key", "_op_type")
    per_row = Window.partitionBy(*IDENTITY)
    top = F.max_by(op_struct, F.when(takes_effect, F.col("_layer_rank"))).over(per_row)
    lower_setter = F.max_by(
        op_struct, F.when(is_setter & (F.col("_layer_rank") < current_rank), F.col("_layer_rank"))
    ).over(per_row)
    first = F.row_number().over(per_row.orderBy(F.col("_layer_rank").desc_nulls_last()))
    ranked_df = joined_df.select("*", top.alias("_top"), lower_setter.alias("_lower"), first.alias("_first")).filter(
        F.col("_first") == 1
    )

    at_layer = F.col("source") == F.col("_top._layer_source")
    base = F.when(at_layer | (F.col("source") == "DEFAULT_CONFIG"), F.col("value"))
    top_value = _apply_op(F.col("_top._op"), F.col("_top._op_value"), base)
    lower_value = _apply_op(F.col("_lower._op"), F.col("_lower._op_value"), F.lit(None))
    no_change = F.col("_top").isNull()
    deleted = F.col("_top._op") == "DELETE"
    has_lower = F.col("_lower").isNotNull()
    value = F.when(no_change, F.col("value")).when(~deleted, top_value).when(has_lower, lower_value)
    source = (
        F.when(no_change, F.col("source"))
        .when(~deleted, F.col("_top._layer_source"))
        .when(has_lower, F.col("_lower._layer_source"))
        .otherwise(F.lit(UNRESOLVED))
    )
    winning_key = F.when(~deleted, F.col("_top._op_key")).when(has_lower, F.col("_lower._op_key"))
    is_entity_change = ~no_change & (F.col("_top._op_type") != "BROKER") & (F.col("resource_type") != "BROKER")
    changed = ~no_change
    return ranked_df.select(
        "cluster_id",
        "resource_type",
        "resource_name",
        # an entity override applies to every broker view: the per-view rows collapse into one
        F.when(is_entity_change, F.lit(None)).otherwise(F.col("node_id")).cast("int").alias("node_id"),
        "config_name",
        value.alias("value"),
        F.when(changed, F.lit(None)).otherwise(F.col("value_hash")).alias("value_hash"),
        "is_sensitive",
        "config_type",
        source.alias("source"),
        F.when(changed, winning_key).otherwise(F.col("synonym")).alias("synonym"),
        F.when(changed, F.lit(None)).otherwise(F.col("source_offset")).cast("long").alias("source_offset"),
        F.when(changed, F.lit(None)).otherwise(F.col("source_timestamp")).cast("timestamp").alias("source_timestamp"),
        "kafka_release",
    ).dropDuplicates(list(IDENTITY))


def _inserted_rows(effective_df: DataFrame, ops_df: DataFrame) -> DataFrame:
    """New rows for SET/APPEND/SUBTRACT ops on keys an existing entity does not have yet."""
    entities_df = effective_df.select("cluster_id", "resource_type", "resource_name").distinct()
    types_df = effective_df.groupBy("cluster_id", "resource_type", "config_name").agg(
        F.first("config_type", ignorenulls=True).alias("config_type"),
        F.first("kafka_release", ignorenulls=True).alias("kafka_release"),
    )
    e, o = entities_df.alias("e"), ops_df.filter(F.col("op") != "DELETE").alias("o")
    cluster_ok = F.col("o.cluster_id").isNull() | (F.col("o.cluster_id") == F.col("e.cluster_id"))
    targets = (F.col("e.resource_type") == F.col("o.resource_type")) & (
        F.col("o.all_nodes") | (F.col("e.resource_name") == F.col("o.resource_name"))
    )
    candidates_df = e.join(F.broadcast(o), cluster_ok & targets, how="inner").select(
        "e.cluster_id",
        "e.resource_type",
        "e.resource_name",
        F.col("o.key").alias("config_name"),
        F.struct("o.layer_rank", "o.op", "o.value", "o.layer_source").alias("_op"),
    )
    best_df = candidates_df.groupBy("cluster_id", "resource_type", "resource_name", "config_name").agg(
        F.max("_op").alias("_op")
    )
    existing_df = effective_df.select("cluster_id", "resource_type", "resource_name", "config_name")
    return (
        best_df.join(existing_df, on=["cluster_id", "resource_type", "resource_name", "config_name"], how="left_anti")
        .join(types_df, on=["cluster_id", "resource_type", "config_name"], how="left")
        .select(
            "cluster_id",
            "resource_type",
            "resource_name",
            F.lit(None).cast("int").alias("node_id"),
            "config_name",
            _apply_op(F.col("_op.op"), F.col("_op.value"), F.lit(None)).alias("value"),
            F.lit(None).cast("string").alias("value_hash"),
            F.lit(False).alias("is_sensitive"),
            "config_type",
            F.col("_op.layer_source").alias("source"),
            F.col("config_name").alias("synonym"),
            F.lit(None).cast("long").alias("source_offset"),
            F.lit(None).cast("timestamp").alias("source_timestamp"),
            "kafka_release",
        )
    )


def _with_fallbacks(after_df: DataFrame, topic_map: Column, group_map: Column) -> DataFrame:
    """Resolve UNRESOLVED TOPIC/GROUP rows to the brokers' value of their synonym; drop CLIENT_METRICS ones."""
    rtype = F.col("resource_type")
    unresolved = F.col("source") == UNRESOLVED
    broker_key = F.when(rtype == "TOPIC", F.element_at(topic_map, F.col("config_name"))).when(
        rtype == "GROUP", F.element_at(group_map, F.col("config_name"))
    )
    can_fall_back = unresolved & rtype.isin("TOPIC", "GROUP") & broker_key.isNotNull()
    pending_df = after_df.filter(can_fall_back).select("*", broker_key.alias("_broker_key"))
    brokers_df = after_df.filter((rtype == "BROKER") & (F.col("source") != UNRESOLVED)).select(
        "cluster_id",
        F.col("resource_name").try_cast("int").alias("_node"),
        F.col("config_name").alias("_broker_key"),
        F.col("value").alias("_b_value"),
        F.col("source").alias("_b_source"),
        F.col("synonym").alias("_b_synonym"),
    )
    per_entity = Window.partitionBy("cluster_id", "resource_type", "resource_name", "config_name")
    distinct_values = F.size(F.collect_set(F.coalesce(F.col("_b_value"), F.lit("\u0000null"))).over(per_entity))
    first_node = F.min("_node").over(per_entity)
    views_differ = distinct_values > 1
    resolved_df = (
        pending_df.drop("node_id", "value", "source", "synonym")
        .join(brokers_df, on=["cluster_id", "_broker_key"], how="inner")
        .select("*", views_differ.alias("_differ"), first_node.alias("_first_node"))
        .filter(F.col("_differ") | (F.col("_node") == F.col("_first_node")))
        .select(
            *[
                F.when(F.col("_differ"), F.col("_node")).cast("int").alias("node_id")
                if f.name == "node_id"
                else F.col("_b_value").alias("value")
                if f.name == "value"
                else F.col("_b_source").alias("source")
                if f.name == "source"
                else F.coalesce(F.col("_b_synonym"), F.col("_broker_key")).alias("synonym")
                if f.name == "synonym"
                else F.col(f.name)
                for f in EFFECTIVE_CONFIGS.fields
            ]
        )
    )
    fell_back_df = resolved_df.select("cluster_id", "resource_type", "resource_name", "config_name").distinct()
    drop_client_metrics = unresolved & (rtype == "CLIENT_METRICS")
    kept_df = after_df.filter(~drop_client_metrics).join(
        fell_back_df.select("*", F.lit(True).alias("_fell_back")),
        on=["cluster_id", "resource_type", "resource_name", "config_name"],
        how="left",
    )
    kept_df = kept_df.filter(~(F.coalesce(F.col("_fell_back"), F.lit(False)) & unresolved)).drop("_fell_back")
    return kept_df.select(*EFFECTIVE_CONFIGS.fieldNames()).unionByName(
        resolved_df.select(*EFFECTIVE_CONFIGS.fieldNames())
    )


def apply_changes(
    effective_df: DataFrame,
    changes: ChangeSet,
    *,
    topic_synonyms: Mapping[str, str] | None = None,
    group_synonyms: Mapping[str, str] | None = None,
) -> DataFrame:
    """configs_after: EFFECTIVE_CONFIGS with the change set applied (semantics in the module docstring).

    Changed rows lose their value hash, offset and timestamp (no record set them yet); ``synonym`` becomes the
    changed key. NULL values stay NULL unless an operation sets them.
    """
    spark = effective_df.sparkSession
    op_rows, replace_rows = _op_rows(changes)
    ops_df = spark.createDataFrame(op_rows, OPS_DDL)
    if replace_rows:
        ops_df = ops_df.unionByName(_derived_deletes(effective_df, spark.createDataFrame(replace_rows, REPLACE_DDL)))
    topic_map, group_map = _map_literal(topic_synonyms), _map_literal(group_synonyms)
    after_df = _changed_rows(effective_df, ops_df, topic_map)
    # The op list is known on the driver: skip the stages a change set cannot need.
    if any(op[6] != "DELETE" for op in op_rows):
        after_df = after_df.unionByName(_inserted_rows(effective_df, ops_df))
    deletes_inheritable = any(op[1] in ("TOPIC", "GROUP") and op[6] == "DELETE" for op in op_rows) or any(
        r[1] in ("TOPIC", "GROUP") for r in replace_rows
    )
    if deletes_inheritable:
        after_df = _with_fallbacks(after_df, topic_map, group_map)
    else:
        no_default = (F.col("source") == UNRESOLVED) & (F.col("resource_type") == "CLIENT_METRICS")
        after_df = after_df.filter(~no_default)
    return after_df.select(*[F.col(f.name).cast(f.dataType).alias(f.name) for f in EFFECTIVE_CONFIGS.fields])
