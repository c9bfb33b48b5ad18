"""What an override falls back to when it is deleted: the input of DELETE remediations.

``resolve_fallbacks`` gives the ``FALLBACK_COLUMNS`` rows (``schemas.whatif``) of the overrides in ``needed_df``;
``override_sources`` names the layers (``schemas.whatif.FALLBACK_SOURCES``) it has to plan.

The audit collects ``override_sources(failures_df)`` (a handful of rows) and passes
``functools.partial(resolve_fallbacks, state, frames, layers=..., kafka_version=..., resolution_keep=...)`` to
``evaluate_constraints(fallback_resolver=...)``, which calls it with the violations that come from an override.

A remediation may delete the offending override instead of overriding it again, when the value below it passes
(``transforms.constraints.evaluate``). What is below is found by resolving the entity again without the layer the
value came from, with the code that resolved the audited state, so every precedence and synonym rule applies. Each
variant removes a whole layer: the layers resolve independently per broker and synonym group, so removing a layer
gives, for every value that came from it, exactly what deleting that one key gives. Only the ``layers`` the caller
names are planned (nothing at all when none is):

==========================  =====================================================  ===========================
deleted layer               resolved again                                         rows kept
==========================  =====================================================  ===========================
DYNAMIC_BROKER_CONFIG       the needed brokers without the per-broker layer, on    BROKER rows
                            the state's own layers and layer checks
DYNAMIC_DEFAULT_BROKER_…    the needed brokers without the cluster-default layer   BROKER rows
DYNAMIC_TOPIC_CONFIG        the needed topics without their overrides, on the      TOPIC rows (broker views)
                            state's own broker views
DYNAMIC_GROUP_CONFIG        the needed groups without their overrides, on the      GROUP rows
                            state's own broker rows
==========================  =====================================================  ===========================

Deleting the cluster-default layer changes the layers every broker of the cluster resolves, and which of them
its checks refuse, so that variant resolves the needed brokers again (``resolve_effective_configs``). Deleting
a per-broker layer leaves the broker's other layers and the checks of its static and cluster-default views as the
audit resolved them, so those rows are planned on that resolution's kept frames
(``resolve_without_node_layer``). Topics and groups sit above the brokers: without their own overrides they
inherit from the state's brokers as resolved for the audit, so their rows are planned on the same kept frames
(``resolve_without_overrides``) instead of resolving every broker again.

Client-metrics subscriptions have no defaults (deleting a key removes it), and a client entity's key falls back
to other entities' entries that another variant would have to keep; both keep SET remediations.

Rows: ``cluster_id, resource_type, resource_name, node_id, config_name`` (a topic or group key may resolve per
broker view: several rows with ``node_id``), ``deleted_source`` (the layer removed), and the re-resolved
``value``, ``value_hash``, ``is_sensitive``, ``config_type``, ``source``, ``synonym``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from functools import reduce
from typing import Final, TypedDict

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from schemas.gold import EFFECTIVE_CONFIGS
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from schemas.per_cluster import KafkaVersions
from schemas.whatif import FALLBACK_COLUMNS, FALLBACK_SOURCES
from transforms.effective import resolve_effective_configs, resolve_without_node_layer, resolve_without_overrides
from transforms.effective.catalog_frames import CatalogFrames
from transforms.kit.checkpoints import Keep, Plan, as_planned
from transforms.replay.state import ReplayResult

__all__ = ["override_sources", "resolve_fallbacks"]

_NODE, _DEFAULT = "no-node-layer", "no-default-layer"
# the rows resolve_without_overrides and resolve_without_node_layer keep for the entities of one call (not shared
# with the state's resolution)
_OWN_ROWS: Final = frozenset(
    {"fallback_topic_rows", "fallback_group_rows", "fallback_broker_rows", "fallback_unclamped_broker_rows"}
)


class _Releases(TypedDict):
    """The release arguments of the resolution's entry points, passed on as they were given."""

    kafka_version: KafkaVersions
    oldest_release: str | None


# deleted broker layer -> the broker variant that removes it
_BROKER_VARIANT_OF: Final[dict[str, str]] = {
    ConfigSource.DYNAMIC_BROKER_CONFIG: _NODE,
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG: _DEFAULT,
}
# deleted entity layer -> the resource type resolved without its own overrides
_ENTITY_TYPE_OF: Final[dict[str, ResourceType]] = {
    ConfigSource.DYNAMIC_TOPIC_CONFIG: ResourceType.TOPIC,
    ConfigSource.DYNAMIC_GROUP_CONFIG: ResourceType.GROUP,
}


def _default_variant(state: ReplayResult, needed_df: DataFrame) -> ReplayResult:
    """The brokers whose values come from the cluster-default layer, with only their per-broker layer."""
    nodes_df = _needed_nodes(needed_df, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    is_node = (F.col("resource_type") == ResourceType.BROKER) & (F.col("resource_name") != "")
    return dataclasses.replace(
        state,
        brokers=state.brokers.join(nodes_df, on=["cluster_id", "node_id"], how="left_semi"),
        dynamic_configs=state.dynamic_configs.where(is_node),
        topics=state.topics.where(F.lit(False)),
        client_entity_configs=state.client_entity_configs.where(F.lit(False)),
    )


def _needed(needed_df: DataFrame, resource_type: str, source: str) -> DataFrame:
    """``(cluster_id, resource_name)`` of the entities of one type whose values come from ``source``."""
    wanted = (F.col("resource_type") == resource_type) & (F.col("value_source") == source)
    return needed_df.where(wanted).select("cluster_id", "resource_name").distinct()


def _needed_nodes(needed_df: DataFrame, source: str) -> DataFrame:
    """``(cluster_id, node_id)`` of the brokers whose values come from the broker layer ``source``."""
    return _needed(needed_df, ResourceType.BROKER, source).select(
        "cluster_id", F.col("resource_name").try_cast("int").alias("node_id")
    )


def _broker_fallbacks(
    state: ReplayResult,
    frames: CatalogFrames,
    needed_df: DataFrame,
    wanted: set[str],
    releases: _Releases,
    keep: Keep,
    entity_keep: Keep,
) -> DataFrame:
    """The BROKER fallback rows: without the per-broker layer on the state's resolution (``entity_keep``), without
    the cluster-default layer resolved again (``keep``)."""
    parts: list[DataFrame] = []
    if _NODE in wanted:
        nodes_df = _needed_nodes(needed_df, ConfigSource.DYNAMIC_BROKER_CONFIG)
        node_df = resolve_without_node_layer(state, frames, nodes_df, **releases, keep=entity_keep)
        parts.append(node_df.select("*", F.lit(ConfigSource.DYNAMIC_BROKER_CONFIG).alias("deleted_source")))
    if _DEFAULT in wanted:
        resolved_df = resolve_effective_configs(
            _default_variant(state, needed_df),
            frames,
            **releases,
            resource_types=(ResourceType.BROKER,),
            keep=keep,
        )
        parts.append(
            resolved_df.where(F.col("resource_type") == ResourceType.BROKER).select(
                "*", F.lit(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG).alias("deleted_source")
            )
        )
    return reduce(DataFrame.unionByName, [part.select(*FALLBACK_COLUMNS) for part in parts])


def _entity_fallbacks(
    state: ReplayResult,
    frames: CatalogFrames,
    needed_df: DataFrame,
    resource_types: Collection[str],
    releases: _Releases,
    keep: Keep,
) -> DataFrame:
    """The TOPIC and GROUP fallback rows of ``resource_types``: the needed entities resolved without their
    overrides, on the state's own resolution (``resolve_without_overrides``)."""
    topics_df = _needed(needed_df, ResourceType.TOPIC, ConfigSource.DYNAMIC_TOPIC_CONFIG)
    resolved_df = resolve_without_overrides(
        state,
        frames,
        topics_df=(
            topics_df.withColumnRenamed("resource_name", "topic_name") if ResourceType.TOPIC in resource_types else None
        ),
        groups_df=(
            _needed(needed_df, ResourceType.GROUP, ConfigSource.DYNAMIC_GROUP_CONFIG)
            if ResourceType.GROUP in resource_types
            else None
        ),
        **releases,
        keep=keep,
    )
    deleted_source = F.when(
        F.col("resource_type") == ResourceType.TOPIC, F.lit(ConfigSource.DYNAMIC_TOPIC_CONFIG)
    ).otherwise(F.lit(ConfigSource.DYNAMIC_GROUP_CONFIG))
    return resolved_df.select("*", deleted_source.alias("deleted_source")).select(*FALLBACK_COLUMNS)


def _empty(needed_df: DataFrame) -> DataFrame:
    fields = {field.name: field for field in EFFECTIVE_CONFIGS.fields}
    fields["deleted_source"] = StructField("deleted_source", StringType())
    return needed_df.sparkSession.createDataFrame([], StructType([fields[c] for c in FALLBACK_COLUMNS]))


def override_sources(failures_df: DataFrame) -> DataFrame:
    """``(value_source)``: the distinct override layers (``FALLBACK_SOURCES``) that failing values come from, the
    ``layers`` to give ``resolve_fallbacks``. Read from ``failures.constraint_failures`` (every level), it may name a
    layer no violation at the target needs: that layer is resolved for nothing, never missed."""
    return failures_df.filter(F.col("value_source").isin(*FALLBACK_SOURCES)).select("value_source").distinct()


def resolve_fallbacks(
    state: ReplayResult,
    frames: CatalogFrames,
    needed_df: DataFrame,
    *,
    layers: Collection[str],
    kafka_version: KafkaVersions = None,
    oldest_release: str | None = None,
    keep: Keep = as_planned,
    resolution_keep: Keep | None = None,
) -> DataFrame:
    """What the keys of the entities in ``needed_df`` resolve to once their override is deleted (module
    docstring).

    Args:
        state: the state that was resolved for the audit (brokers already at the target release).
        frames: ``to_catalog_frames(spark, catalog)``.
        needed_df: ``(cluster_id, resource_type, resource_name, value_source)`` of the values to replace, e.g.
            the violations coming from an override; only these entities (and the brokers their views need) are
            resolved again, so the work is proportional to what is fixed, not to the fleet. Read several times:
            pass it kept (computed once).
        layers: the ``FALLBACK_SOURCES`` to plan variants for (e.g. ``override_sources`` collected by the job);
            rows of ``needed_df`` from other layers get no fallback, and none is planned when it is empty.
        kafka_version, oldest_release: as for ``resolve_effective_configs``.
        keep: as for ``resolve_effective_configs``: the intermediates of the brokers resolved without their
            cluster-default layer pass through it named ``broker_variants.<name>``, and this call's own rows under
            their names.
        resolution_keep: the ``keep`` that held the resolution of ``state`` itself: the per-broker, topic and group
            fallbacks are planned on its kept frames (the layers and brokers below them are those of the state);
            None = ``keep``, which then holds the state's broker intermediates as well.
    """
    unknown = set(layers) - set(FALLBACK_SOURCES)
    if unknown:
        known = tuple(str(s) for s in FALLBACK_SOURCES)  # plain strings: the message shows values, not enum reprs
        raise ValueError(f"layers must be among {known}, got {sorted(unknown)}")
    parts: list[DataFrame] = []
    shared = keep if resolution_keep is None else resolution_keep
    releases = _Releases(kafka_version=kafka_version, oldest_release=oldest_release)

    # the state's intermediates from the resolution's keep, this call's own rows from ``keep``: a keep returns what
    # it kept under a name, so a later call for other entities must not find these rows in a shared one
    def entity_keep(name: str, plan: Plan, /) -> DataFrame:
        return (keep if name in _OWN_ROWS else shared)(name, plan)

    brokers = {_BROKER_VARIANT_OF[layer] for layer in layers if layer in _BROKER_VARIANT_OF}
    if brokers:
        # their own names: the cluster-default variant's intermediates are not the state's (``shared`` may be
        # ``keep``)
        def variants_keep(name: str, plan: Plan, /) -> DataFrame:
            return keep(f"broker_variants.{name}", plan)

        parts.append(_broker_fallbacks(state, frames, needed_df, brokers, releases, variants_keep, entity_keep))
    entities = {_ENTITY_TYPE_OF[layer] for layer in layers if layer in _ENTITY_TYPE_OF}
    if entities:
        parts.append(_entity_fallbacks(state, frames, needed_df, entities, releases, entity_keep))
    return reduce(DataFrame.unionByName, parts) if parts else _empty(needed_df)
