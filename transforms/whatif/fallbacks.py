"""What an override falls back to when it is deleted: the input of DELETE remediations.

``resolve_fallbacks`` gives the ``FALLBACK_COLUMNS`` rows (``schemas.whatif``) of the overrides in ``needed_df``;
``override_sources`` names the layers (``schemas.whatif.FALLBACK_SOURCES``) it has to plan.

The audit collects ``override_sources(failures_df)`` (a handful of rows) and passes
``functools.partial(resolve_fallbacks, state, frames, layers=..., kafka_version=...)`` to
``evaluate_constraints(fallback_resolver=...)``, which calls it with the violations that come from an override.

A remediation may delete the offending override instead of overriding it again, when the value below it passes
(``transforms.constraints.evaluate``). What is below is found the same way ``simulate`` finds it: the state is
changed and resolved again with ``resolve_effective_configs``, so every precedence and synonym rule applies. The
variants of the state for the ``layers`` the caller names are resolved in one call (``scenarios``), for those
layers' resource types only (nothing at all when no layer is named), each one removing a whole layer — the layers
resolve independently per broker and synonym group, so removing a layer gives, for every value that came from it,
exactly what deleting that one key gives:

==========================  =====================================================  ===========================
deleted layer               variant                                                rows kept
==========================  =====================================================  ===========================
DYNAMIC_BROKER_CONFIG       the needed brokers without the per-broker layer        BROKER rows
DYNAMIC_DEFAULT_BROKER_…    the needed brokers without the cluster-default layer   BROKER rows
DYNAMIC_TOPIC_CONFIG        the needed topics without overrides (their clusters'   TOPIC rows (broker views)
                            brokers)
DYNAMIC_GROUP_CONFIG        the needed groups without overrides (a placeholder     GROUP rows
                            key keeps each group, as a group exists only while it
                            has a config)
==========================  =====================================================  ===========================

Client-metrics subscriptions have no defaults (deleting a key removes it), and a client entity's key falls back
to other entities' entries that another variant would have to keep; both keep SET remediations.

Rows: ``cluster_id, resource_type, resource_name, node_id, config_name`` (a topic or group key may resolve per
broker view: several rows with ``node_id``), ``deleted_source`` (the layer removed), and the re-resolved
``value``, ``value_hash``, ``is_sensitive``, ``config_type``, ``source``, ``synonym``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import Final

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from schemas.gold import EFFECTIVE_CONFIGS
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from schemas.whatif import FALLBACK_COLUMNS, FALLBACK_SOURCES
from transforms.checkpoints import Keep, as_planned
from transforms.effective import resolve_effective_configs
from transforms.effective.catalog_frames import CatalogFrames
from transforms.replay.state import ReplayResult
from transforms.whatif.scenarios import SCENARIO_SEPARATOR, union_scenarios

__all__ = ["override_sources", "resolve_fallbacks"]

# A key no catalog defines: keeps a group alive in the variant without its overrides; dropped from the output.
GROUP_PLACEHOLDER_KEY: Final = "\u0000kraft-audit.group-placeholder"
_NODE, _DEFAULT, _ENTITY = "no-node-layer", "no-default-layer", "no-entity-overrides"


# deleted layer -> (the variant removing it, the resource type its values belong to)
_VARIANT_OF: Final[dict[str, tuple[str, ResourceType]]] = {
    ConfigSource.DYNAMIC_BROKER_CONFIG: (_NODE, ResourceType.BROKER),
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG: (_DEFAULT, ResourceType.BROKER),
    ConfigSource.DYNAMIC_TOPIC_CONFIG: (_ENTITY, ResourceType.TOPIC),
    ConfigSource.DYNAMIC_GROUP_CONFIG: (_ENTITY, ResourceType.GROUP),
}


def _variants(state: ReplayResult, needed_df: DataFrame, wanted: set[str]) -> dict[str, ReplayResult]:
    """The variants named in ``wanted`` (``_NODE``, ``_DEFAULT``, ``_ENTITY``)."""
    dynamic_df = state.dynamic_configs
    broker_rows = F.col("resource_type") == ResourceType.BROKER
    is_default = broker_rows & (F.col("resource_name") == "")
    is_node = broker_rows & (F.col("resource_name") != "")
    no_topics = state.topics.where(F.lit(False))
    no_clients = state.client_entity_configs.where(F.lit(False))

    def needed(resource_type: str, source: str) -> DataFrame:
        wanted = (F.col("resource_type") == resource_type) & (F.col("value_source") == source)
        return needed_df.where(wanted).select("cluster_id", "resource_name").distinct()

    def needed_nodes(source: str) -> DataFrame:
        return needed(ResourceType.BROKER, source).select(
            "cluster_id", F.col("resource_name").try_cast("int").alias("node_id")
        )

    variants: dict[str, ReplayResult] = {}
    # a broker variant: the brokers whose values come from the removed layer, with only the other dynamic layer
    for tag, removed, kept in (
        (_NODE, ConfigSource.DYNAMIC_BROKER_CONFIG, is_default),
        (_DEFAULT, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, is_node),
    ):
        if tag in wanted:
            variants[tag] = dataclasses.replace(
                state,
                brokers=state.brokers.join(needed_nodes(removed), on=["cluster_id", "node_id"], how="left_semi"),
                dynamic_configs=dynamic_df.where(kept),
                topics=no_topics,
                client_entity_configs=no_clients,
            )
    if _ENTITY in wanted:
        variants[_ENTITY] = _entity_variant(state, needed)
    return variants


def _entity_variant(state: ReplayResult, needed: Callable[[str, str], DataFrame]) -> ReplayResult:
    dynamic_df = state.dynamic_configs
    topics_df = needed(ResourceType.TOPIC, ConfigSource.DYNAMIC_TOPIC_CONFIG).select(
        "cluster_id", F.col("resource_name").alias("topic_name")
    )
    groups_df = needed(ResourceType.GROUP, ConfigSource.DYNAMIC_GROUP_CONFIG)
    placeholders_df = groups_df.select(
        "cluster_id",
        F.lit(ResourceType.GROUP).alias("resource_type"),
        "resource_name",
        F.lit(GROUP_PLACEHOLDER_KEY).alias("name"),
        F.lit("").alias("value"),
        F.lit(None).cast("string").alias("value_hash"),
        F.lit(None).cast("long").alias("source_offset"),
        F.lit(None).cast("timestamp").alias("source_timestamp"),
        F.lit(False).alias("from_snapshot"),
    )
    # topic views need the hosting brokers, group views every broker of the cluster
    clusters_df = topics_df.select("cluster_id").unionByName(groups_df.select("cluster_id")).distinct()
    return dataclasses.replace(
        state,
        brokers=state.brokers.join(clusters_df, on="cluster_id", how="left_semi"),
        topics=state.topics.join(topics_df, on=["cluster_id", "topic_name"], how="left_semi"),
        dynamic_configs=dynamic_df.where(F.col("resource_type") == ResourceType.BROKER).unionByName(
            placeholders_df.select(*dynamic_df.columns)
        ),
        client_entity_configs=state.client_entity_configs.where(F.lit(False)),
    )


def _empty(needed_df: DataFrame) -> DataFrame:
    fields = {field.name: field for field in EFFECTIVE_CONFIGS.fields}
    fields["deleted_source"] = StructField("deleted_source", StringType())
    return needed_df.sparkSession.createDataFrame([], StructType([fields[c] for c in FALLBACK_COLUMNS]))


def override_sources(failures_df: DataFrame) -> DataFrame:
    """``(value_source)``: the distinct override layers (``FALLBACK_SOURCES``) that failing values come from, the
    ``layers`` to give ``resolve_fallbacks``. Read from ``evaluate.constraint_failures`` (every level), it may name a
    layer no violation at the target needs: that layer is resolved for nothing, never missed."""
    return failures_df.filter(F.col("value_source").isin(*FALLBACK_SOURCES)).select("value_source").distinct()


def resolve_fallbacks(
    state: ReplayResult,
    frames: CatalogFrames,
    needed_df: DataFrame,
    *,
    layers: Collection[str],
    kafka_version: str | None = None,
    keep: Keep = as_planned,
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
        kafka_version: as for ``resolve_effective_configs``.
        keep: as for ``resolve_effective_configs`` (the variants' shared resolution intermediates).
    """
    unknown = set(layers) - set(_VARIANT_OF)
    if unknown:
        known = tuple(str(s) for s in FALLBACK_SOURCES)  # plain strings: the message shows values, not enum reprs
        raise ValueError(f"layers must be among {known}, got {sorted(unknown)}")
    if not layers:
        return _empty(needed_df)
    wanted = {_VARIANT_OF[layer][0] for layer in layers}
    resource_types = {_VARIANT_OF[layer][1] for layer in layers}
    variants = _variants(state, needed_df, wanted)
    resolved_df = resolve_effective_configs(
        union_scenarios(variants), frames, kafka_version=kafka_version, resource_types=resource_types, keep=keep
    )
    tag = F.substring_index(F.col("cluster_id"), SCENARIO_SEPARATOR, -1)
    rtype = F.col("resource_type")
    deleted_source = (
        F.when((tag == _NODE) & (rtype == ResourceType.BROKER), F.lit(ConfigSource.DYNAMIC_BROKER_CONFIG))
        .when((tag == _DEFAULT) & (rtype == ResourceType.BROKER), F.lit(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG))
        .when((tag == _ENTITY) & (rtype == ResourceType.TOPIC), F.lit(ConfigSource.DYNAMIC_TOPIC_CONFIG))
        .when((tag == _ENTITY) & (rtype == ResourceType.GROUP), F.lit(ConfigSource.DYNAMIC_GROUP_CONFIG))
    )
    original = F.substring_index(F.col("cluster_id"), SCENARIO_SEPARATOR, 1)
    return (
        resolved_df.select("*", deleted_source.alias("deleted_source"))
        .where(F.col("deleted_source").isNotNull() & (F.col("config_name") != GROUP_PLACEHOLDER_KEY))
        .select(*[original.alias(c) if c == "cluster_id" else F.col(c) for c in FALLBACK_COLUMNS])
    )
