"""Kafka 4.3+ clamps of dynamic group-coordinator values into the broker's bounds (``CLAMPED_DYNAMIC_CONFIG``).

* Broker (confluentinc/kafka 4.3, 4.4: core/src/main/scala/kafka/server/DynamicBrokerConfig.scala
  ``updateCurrentConfig`` → ``KafkaConfig.clampDynamicConfigs`` → group-coordinator/src/main/java/org/apache/kafka/
  coordinator/group/GroupCoordinatorConfig.java ``clampDynamicConfigs``): before the new ``KafkaConfig`` is built
  from static + cluster-default + per-broker props, ``group.{consumer,share,streams}.assignment.interval.ms`` is
  capped into ``[group.<type>.min.assignment.interval.ms, group.<type>.max.assignment.interval.ms]`` (the bounds as
  the same props resolve them). A key no layer sets is left alone ("no-op when the key is absent"). The
  cross-field checks then see the clamped value, so such a layer is no longer refused (``layer_validity``).
  That is the dynamic path only: at startup the broker builds its ``KafkaConfig`` from server.properties alone,
  unclamped, and ``GroupCoordinatorConfig``'s ``require`` refuses a value outside its bounds — the node does not
  start (Kafka 4.4.0 refuses even ``kafka-storage format``; oracle scenario
  ``group-assignment-interval-out-of-bounds``). So a broker whose static view fails a key's bound check
  (``layer_validity.failed_by_view``, ``base``) keeps the key unclamped, and the cross-field rule reports it.
* Group (the same branches: .../GroupConfigManager.java ``updateGroupConfig`` → GroupConfig.java ``evaluate``):
  every key a group sets is capped into the bounds of the broker coordinating it (``BROKER`` effective values of
  the bound keys); 4.4 adds ``streams.task.offset.interval.ms`` (at least the minimum) and
  ``streams.num.warmup.replicas`` (at most the maximum). Inherited group values come from the broker's own
  (already valid) config and are not clamped.

A clamped row keeps its key and source; ``value`` is the bound, ``value_set`` the value as set. Values and bounds
are read as Java ints (``try_cast``); a value or bound that does not parse (NULL) clamps nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import ConfigSource, ResourceType
from transforms.kit.audit_scope import set_by_a_layer
from transforms.kit.finding_rows import finding_rows
from transforms.kit.releases import release_rank_column

CLAMPED_DYNAMIC_CONFIG: Final = "CLAMPED_DYNAMIC_CONFIG"


class Clamp(NamedTuple):
    """A key Kafka caps into broker bounds, from a release on (``from_rank``: major * 1000 + minor)."""

    from_rank: int
    key: str
    min_key: str | None  # None: no lower bound (clampToMax)
    max_key: str | None  # None: no upper bound (clampToMin)


def _range(from_rank: int, key: str, bound_stem: str) -> Clamp:
    """``key`` capped into ``[<stem>.min.<rest>, <stem>.max.<rest>]``: ``group.consumer`` + ``session.timeout.ms``
    → ``group.consumer.min.session.timeout.ms`` / ``group.consumer.max.session.timeout.ms``."""
    stem, rest = bound_stem.rsplit("|", 1)
    return Clamp(from_rank, key, f"{stem}.min.{rest}", f"{stem}.max.{rest}")


# GroupCoordinatorConfig.clampDynamicConfigs (4.3, 4.4).
BROKER_CLAMPS: Final[tuple[Clamp, ...]] = tuple(
    _range(4003, f"group.{t}.assignment.interval.ms", f"group.{t}|assignment.interval.ms")
    for t in ("consumer", "share", "streams")
)

# GroupConfig.evaluateValues (4.3; the two 4.4 additions from 4004).
GROUP_CLAMPS: Final[tuple[Clamp, ...]] = (
    _range(4003, "consumer.session.timeout.ms", "group.consumer|session.timeout.ms"),
    _range(4003, "consumer.heartbeat.interval.ms", "group.consumer|heartbeat.interval.ms"),
    _range(4003, "consumer.assignment.interval.ms", "group.consumer|assignment.interval.ms"),
    _range(4003, "share.session.timeout.ms", "group.share|session.timeout.ms"),
    _range(4003, "share.heartbeat.interval.ms", "group.share|heartbeat.interval.ms"),
    _range(4003, "share.record.lock.duration.ms", "group.share|record.lock.duration.ms"),
    _range(4003, "share.delivery.count.limit", "group.share|delivery.count.limit"),
    _range(4003, "share.partition.max.record.locks", "group.share|partition.max.record.locks"),
    _range(4003, "share.assignment.interval.ms", "group.share|assignment.interval.ms"),
    _range(4003, "streams.session.timeout.ms", "group.streams|session.timeout.ms"),
    _range(4003, "streams.heartbeat.interval.ms", "group.streams|heartbeat.interval.ms"),
    Clamp(4003, "streams.num.standby.replicas", None, "group.streams.max.standby.replicas"),
    _range(4003, "streams.assignment.interval.ms", "group.streams|assignment.interval.ms"),
    Clamp(4004, "streams.task.offset.interval.ms", "group.streams.min.task.offset.interval.ms", None),
    Clamp(4004, "streams.num.warmup.replicas", None, "group.streams.max.warmup.replicas"),
)

_NODE: Final = ["cluster_id", "node_id"]


def _bound_keys(clamps: Sequence[Clamp]) -> list[str]:
    return sorted({k for c in clamps for k in (c.min_key, c.max_key) if k is not None})


def clamp_keys() -> set[str]:
    """The broker keys ``with_broker_clamps`` and ``with_broker_clamps_in_map`` read: the clamped keys and their
    bounds."""
    return {c.key for c in BROKER_CLAMPS} | set(_bound_keys(BROKER_CLAMPS))


def _spec(name: Column, rank: Column, clamps: Sequence[Clamp]) -> Column:
    """``struct(min_key, max_key)`` of the clamp of key ``name`` at release ``rank``; NULL when none applies."""
    spec = F.lit(None).cast("struct<min_key:string,max_key:string>")
    for c in clamps:
        bounds = F.struct(
            F.lit(c.min_key).cast("string").alias("min_key"), F.lit(c.max_key).cast("string").alias("max_key")
        )
        spec = F.when((name == c.key) & F.coalesce(rank >= c.from_rank, F.lit(False)), bounds).otherwise(spec)
    return spec


def _node_bounds(broker_df: DataFrame, clamps: Sequence[Clamp]) -> DataFrame:
    """``(cluster_id, node_id, bounds)``: each broker's effective values of the bound keys as a map."""
    return (
        broker_df.where(F.col("config_name").isin(*_bound_keys(clamps)))
        .groupBy(*_NODE)
        .agg(F.map_from_entries(F.collect_list(F.struct("config_name", "value"))).alias("bounds"))
    )


def _clamped(value: Column, spec: Column, bounds: Column) -> Column:
    """The bound ``value`` is capped to (as a string), NULL when it is within them (or anything is NULL)."""
    as_int = value.try_cast("int")
    low = F.try_element_at(bounds, spec["min_key"]).try_cast("int")
    high = F.try_element_at(bounds, spec["max_key"]).try_cast("int")
    return F.when(as_int < low, low).when(as_int > high, high).otherwise(F.lit(None).cast("int")).cast("string")


def with_broker_clamps(broker_df: DataFrame, failed_df: DataFrame | None = None) -> DataFrame:
    """BROKER ``EFFECTIVE_CONFIGS`` rows (or any frame of its columns) with ``BROKER_CLAMPS`` applied.

    ``failed_df`` (``cluster_id, node_id, base``: ``layer_validity.failed_by_view``) names the brokers whose static
    view fails checks: a key one of whose own bound checks (``broker-<key>-...``) is among them is not capped (such
    a broker does not start)."""
    columns = broker_df.columns
    spec = _spec(F.col("config_name"), release_rank_column(F.col("kafka_release")), BROKER_CLAMPS)
    is_target = spec.isNotNull() & set_by_a_layer(F.col("source"))
    targets_df = broker_df.where(is_target).join(_node_bounds(broker_df, BROKER_CLAMPS), on=_NODE, how="left")
    starts = F.lit(True)
    if failed_df is not None:
        targets_df = targets_df.join(failed_df.select(*_NODE, "base"), on=_NODE, how="left")
        own_check = F.concat(F.lit("broker-"), F.col("config_name"), F.lit("-"))
        starts = ~F.coalesce(F.exists(F.col("base"), lambda failed: failed.startswith(own_check)), F.lit(False))
    capped = F.when(starts, _clamped(F.col("value"), spec, F.col("bounds")))
    changed = {
        "value": F.coalesce(capped, F.col("value")),
        "value_set": F.when(capped.isNotNull(), F.col("value")).otherwise(F.col("value_set")),
    }
    return broker_df.where(~is_target).unionByName(
        targets_df.select(*[changed[c].alias(c) if c in changed else F.col(c) for c in columns])
    )


def with_broker_clamps_in_map(cfg: Column, set_keys: Column, rank: Column) -> Column:
    """A broker's effective values by key (``cfg``) with ``BROKER_CLAMPS`` applied, as ``with_broker_clamps``
    applies them to the broker's rows: a key some layer sets (in ``set_keys``: ``audit_scope.set_by_a_layer``) is
    capped into the bounds ``cfg`` holds, at release ``rank``. For a plan that needs only the map: the rows are
    read once, not once more for the bounds."""

    def entry(key: Column, value: Column) -> Column:
        spec = _spec(key, rank, BROKER_CLAMPS)
        is_target = spec.isNotNull() & F.coalesce(F.array_contains(set_keys, key), F.lit(False))
        return F.when(is_target, F.coalesce(_clamped(value, spec, cfg), value)).otherwise(value)

    return F.transform_values(cfg, entry)


def with_group_clamps(group_df: DataFrame, broker_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    """GROUP ``EFFECTIVE_CONFIGS`` rows with ``GROUP_CLAMPS`` applied to the keys groups set.

    Each registered broker may coordinate a group, so the clamp is worked out per broker (its release, its bounds):
    when every broker gives the same value the row stays one row (``node_id`` NULL), else it becomes one row per
    broker, as ``collapse_node_views`` does for inherited values.
    """
    columns = group_df.columns
    keys = sorted({c.key for c in GROUP_CLAMPS})
    is_target = (
        (F.col("resource_type") == ResourceType.GROUP)
        & (F.col("source") == ConfigSource.DYNAMIC_GROUP_CONFIG)
        & F.col("config_name").isin(*keys)
    )
    is_target = F.coalesce(is_target, F.lit(False))
    per_node_df = (
        group_df.where(is_target)
        .drop("node_id")
        .join(nodes_df.select(*_NODE, "release_rank"), on="cluster_id", how="inner")
        .join(_node_bounds(broker_df, GROUP_CLAMPS), on=_NODE, how="left")
    )
    capped = _clamped(F.col("value"), _spec(F.col("config_name"), F.col("release_rank"), GROUP_CLAMPS), F.col("bounds"))
    changed = {
        "value": F.coalesce(capped, F.col("value")),
        "value_set": F.when(capped.isNotNull(), F.col("value")).otherwise(F.col("value_set")),
    }
    node_rows_df = per_node_df.select(*[changed[c].alias(c) if c in changed else F.col(c) for c in columns])
    # one window per group key: its outcomes over the brokers, and one of its rows to stand for them when they agree
    # (the brokers' rows differ only in value and value_set: they are one group row joined to every broker)
    entity = Window.partitionBy("cluster_id", "resource_name", "config_name")
    outcomes = F.size(F.collect_set(F.struct("value", "value_set")).over(entity))
    marked_df = node_rows_df.select(*columns, outcomes.alias("outcomes"), F.min("node_id").over(entity).alias("first"))
    # brokers that differ keep a row each; brokers that agree, one row (the first broker's) with node_id NULL
    differ = F.col("outcomes") > 1
    clamped_df = marked_df.where(differ | (F.col("node_id") == F.col("first"))).select(
        *[F.when(differ, F.col(c)).alias(c) if c == "node_id" else F.col(c) for c in columns]
    )
    return group_df.where(~is_target).unionByName(clamped_df)


def to_clamped_findings(effective_df: DataFrame) -> DataFrame:
    """``CLAMPED_DYNAMIC_CONFIG`` findings from clamped BROKER and GROUP ``EFFECTIVE_CONFIGS`` rows: one per
    (resource, key, broker view), naming the value set, the bound and the value Kafka uses."""
    rank = release_rank_column(F.col("kafka_release"))
    broker_spec = _spec(F.col("config_name"), rank, BROKER_CLAMPS)
    group_spec = _spec(F.col("config_name"), F.lit(99_999), GROUP_CLAMPS)
    is_broker = F.col("resource_type") == ResourceType.BROKER
    spec = F.when(is_broker, broker_spec).otherwise(group_spec)
    # a group value inherited from a clamped broker value is reported once, on the broker
    is_own = F.when(is_broker, F.col("source") != F.lit(ConfigSource.DEFAULT_CONFIG)).otherwise(
        F.col("source") == F.lit(ConfigSource.DYNAMIC_GROUP_CONFIG)
    )
    clamped_df = effective_df.where(
        F.col("resource_type").isin(ResourceType.BROKER, ResourceType.GROUP) & F.col("value_set").isNotNull() & is_own
    ).select("*", spec.alias("spec"))
    below = F.col("value_set").try_cast("long") < F.col("value").try_cast("long")
    bound_key = F.when(below, F.col("spec.min_key")).otherwise(F.col("spec.max_key"))
    where = F.when(
        is_broker,
        F.concat(F.lit("broker "), F.col("resource_name")),
    ).otherwise(
        F.concat(
            F.lit("group "),
            F.col("resource_name"),
            F.when(
                F.col("node_id").isNotNull(), F.concat(F.lit(" on broker "), F.col("node_id").cast("string"))
            ).otherwise(F.lit("")),
        )
    )
    how = F.when(is_broker, F.lit("GroupCoordinatorConfig.clampDynamicConfigs")).otherwise(
        F.lit("GroupConfig.evaluate, GroupConfigManager.updateGroupConfig")
    )
    message = F.concat(
        F.lit("config "),
        F.col("config_name"),
        F.lit("="),
        F.col("value_set"),
        F.lit(" of "),
        where,
        F.when(below, F.lit(" is below ")).otherwise(F.lit(" is above ")),
        bound_key,
        F.lit(" = "),
        F.col("value"),
        F.when(is_broker, F.concat(F.lit(": Kafka "), F.col("kafka_release"))).otherwise(F.lit(": Kafka 4.3+")),
        F.lit(" caps it and uses "),
        F.col("value"),
        F.lit(" ("),
        how,
        F.lit(")"),
    )
    return finding_rows(
        clamped_df.where(F.col("spec").isNotNull()),
        kind=CLAMPED_DYNAMIC_CONFIG,
        message=message,
        offset=F.col("source_offset"),
        resource_type=F.col("resource_type"),
        resource_name=F.col("resource_name"),
        config_name=F.col("config_name"),
    )
