"""What an override falls back to when it is deleted: the input of DELETE remediations.

Public API::

    FALLBACK_SOURCES: tuple[str, ...]          # the value sources a DELETE can remove
    FallbackResolver = Callable[[DataFrame], DataFrame]        # needed_df -> fallback rows
    resolve_fallbacks(state: ReplayResult, frames: CatalogFrames, needed_df: DataFrame, *,
                      kafka_version: str | None = None) -> DataFrame          # FALLBACK_COLUMNS rows

The audit passes ``functools.partial(resolve_fallbacks, state, frames, kafka_version=...)`` to
``evaluate_constraints(fallback_resolver=...)``, which calls it with the violations that come from an override.

A remediation may delete the offending override instead of overriding it again, when the value below it passes
(``evaluate.evaluate_constraints(fallback_df=...)``). What is below is found the same way ``simulate`` finds it:
the state is changed and resolved again with ``resolve_effective_configs``, so every precedence and synonym rule
applies. Three variants of the state are resolved in one call (``scenarios``), each one removing a whole layer —
the layers resolve independently per broker and synonym group, so removing a layer gives, for every value that
came from it, exactly what deleting that one key gives:

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
from collections.abc import Callable
from typing import Final

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from transforms.constraints.scenarios import SCENARIO_SEPARATOR, union_scenarios
from transforms.effective import resolve_effective_configs
from transforms.effective.catalog_frames import CatalogFrames
from transforms.replay.state import ReplayResult

FALLBACK_SOURCES: Final = (
    "DYNAMIC_BROKER_CONFIG",
    "DYNAMIC_DEFAULT_BROKER_CONFIG",
    "DYNAMIC_TOPIC_CONFIG",
    "DYNAMIC_GROUP_CONFIG",
)
FALLBACK_COLUMNS: Final = (
    "cluster_id",
    "resource_type",
    "resource_name",
    "node_id",
    "config_name",
    "deleted_source",
    "value",
    "value_hash",
    "is_sensitive",
    "config_type",
    "source",
    "synonym",
)
FallbackResolver = Callable[[DataFrame], DataFrame]
# A key no catalog defines: keeps a group alive in the variant without its overrides; dropped from the output.
GROUP_PLACEHOLDER_KEY: Final = "\u0000kraft-audit.group-placeholder"
_NODE, _DEFAULT, _ENTITY = "no-node-layer", "no-default-layer", "no-entity-overrides"


def _variants(state: ReplayResult, needed_df: DataFrame) -> dict[str, ReplayResult]:
    dynamic_df = state.dynamic_configs
    broker_rows = F.col("resource_type") == "BROKER"
    is_default = broker_rows & (F.col("resource_name") == "")
    is_node = broker_rows & (F.col("resource_name") != "")
    no_topics = state.topics.where(F.lit(False))
    no_clients = state.client_entity_configs.where(F.lit(False))

    def needed(resource_type: str, source: str) -> DataFrame:
        wanted = (F.col("resource_type") == resource_type) & (F.col("value_source") == source)
        return needed_df.where(wanted).select("cluster_id", "resource_name").distinct()

    def needed_nodes(source: str) -> DataFrame:
        return needed("BROKER", source).select("cluster_id", F.col("resource_name").try_cast("int").alias("node_id"))

    node_variant = dataclasses.replace(
        state,
        brokers=state.brokers.join(
            needed_nodes("DYNAMIC_BROKER_CONFIG"), on=["cluster_id", "node_id"], how="left_semi"
        ),
        dynamic_configs=dynamic_df.where(is_default),
        topics=no_topics,
        client_entity_configs=no_clients,
    )
    default_variant = dataclasses.replace(
        state,
        brokers=state.brokers.join(
            needed_nodes("DYNAMIC_DEFAULT_BROKER_CONFIG"), on=["cluster_id", "node_id"], how="left_semi"
        ),
        dynamic_configs=dynamic_df.where(is_node),
        topics=no_topics,
        client_entity_configs=no_clients,
    )
    topics_df = needed("TOPIC", "DYNAMIC_TOPIC_CONFIG").select("cluster_id", F.col("resource_name").alias("topic_name"))
    groups_df = needed("GROUP", "DYNAMIC_GROUP_CONFIG")
    placeholders_df = groups_df.select(
        "cluster_id",
        F.lit("GROUP").alias("resource_type"),
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
    entity_variant = dataclasses.replace(
        state,
        brokers=state.brokers.join(clusters_df, on="cluster_id", how="left_semi"),
        topics=state.topics.join(topics_df, on=["cluster_id", "topic_name"], how="left_semi"),
        dynamic_configs=dynamic_df.where(broker_rows).unionByName(placeholders_df.select(*dynamic_df.columns)),
        client_entity_configs=no_clients,
    )
    return {_NODE: node_variant, _DEFAULT: default_variant, _ENTITY: entity_variant}


def resolve_fallbacks(
    state: ReplayResult, frames: CatalogFrames, needed_df: DataFrame, *, kafka_version: str | None = None
) -> DataFrame:
    """What the keys of the entities in ``needed_df`` resolve to once their override is deleted (module
    docstring).

    Args:
        state: the state that was resolved for the audit (brokers already at the target release).
        frames: ``to_catalog_frames(spark, catalog)``.
        needed_df: ``(cluster_id, resource_type, resource_name, value_source)`` of the values to replace, e.g.
            the violations coming from an override; only these entities (and the brokers their views need) are
            resolved again, so the work is proportional to what is fixed, not to the fleet.
        kafka_version: as for ``resolve_effective_configs``.
    """
    variants = _variants(state, needed_df)
    resolved_df = resolve_effective_configs(union_scenarios(variants), frames, kafka_version=kafka_version)
    tag = F.substring_index(F.col("cluster_id"), SCENARIO_SEPARATOR, -1)
    rtype = F.col("resource_type")
    deleted_source = (
        F.when((tag == _NODE) & (rtype == "BROKER"), F.lit("DYNAMIC_BROKER_CONFIG"))
        .when((tag == _DEFAULT) & (rtype == "BROKER"), F.lit("DYNAMIC_DEFAULT_BROKER_CONFIG"))
        .when((tag == _ENTITY) & (rtype == "TOPIC"), F.lit("DYNAMIC_TOPIC_CONFIG"))
        .when((tag == _ENTITY) & (rtype == "GROUP"), F.lit("DYNAMIC_GROUP_CONFIG"))
    )
    original = F.substring_index(F.col("cluster_id"), SCENARIO_SEPARATOR, 1)
    return (
        resolved_df.select("*", deleted_source.alias("deleted_source"))
        .where(F.col("deleted_source").isNotNull() & (F.col("config_name") != GROUP_PLACEHOLDER_KEY))
        .select(*[original.alias(c) if c == "cluster_id" else F.col(c) for c in FALLBACK_COLUMNS])
    )
