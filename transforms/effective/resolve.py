"""Entry points: ``resolve_effective_configs``, ``resolve_without_overrides`` (topics and groups as they resolve
without their own overrides, on the same intermediates) and ``effective_findings`` (docs/contract.md §4).

Usage (the audit job)::

    frames = to_catalog_frames(spark, catalog)                 # transforms.effective.catalog_frames
    effective_df = resolve_effective_configs(state, frames, kafka_version=None)   # gold EFFECTIVE_CONFIGS
    findings_df = effective_findings(state, frames)            # FINDING_ROWS: coverage gaps, ignored keys

Rows per resource type (see the module of each for Kafka's rules):

* BROKER (``transforms.effective.brokers``): one row per registered broker and key of its release's catalog, plus
  keys set but unknown to the catalog; ``node_id`` = the broker.
* TOPIC (``transforms.effective.topics``): per live topic and topic key; ``node_id`` set only where hosting
  brokers resolve an inherited key differently.
* GROUP, CLIENT_METRICS (``transforms.effective.groups``), CLIENT (``transforms.effective.clients``).
* Controllers (``transforms.effective.controllers``): BROKER rows of controller-only nodes with a
  ``--static-config`` file, resolved as a broker's; CONTROLLER_TOPIC rows, the topic keys the active controller
  enforces, resolved with its own view.

A pure plan. The shared intermediates (``nodes``: brokers with their catalog release, ``controller_nodes``,
``node_layers`` and ``applied_layers``: the brokers' and the layered controllers' layers, checked in one plan,
``supported_dynamic``, the rows the clamps re-read, ``topic_views``, ``group_views``) and each resource type's rows
(``*_rows``) pass through the caller's ``keep`` (``transforms.kit.checkpoints``), so a job can compute each once and the
result is a union of small plans (the audit job checkpoints them: ``jobs.runtime.holding``; one plan over every type
re-planned the groups three times and ran 387 adaptive stages).

``kafka_version`` (``"4.2"`` / ``"4.2.1"``) replaces every broker's inferred release; otherwise each broker uses
its registered metadata.version's release (``BROKERS.kafka_release``), mapped to the newest catalog release not
newer than it. ``kafka_release`` in the output names the catalog release applied (NULL for rows without
defaults: overrides, client entities). A caller that knows every broker runs at least some release (the audit: the
target's, ``audit_scope.with_release_at_least``) passes it as ``oldest_release``, and the 3.6-3.9 timestamp fallbacks
are not planned when no broker can apply them (``timestamps.fallback_planned``).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache, reduce
from typing import NamedTuple

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.gold import EFFECTIVE_CONFIGS, FINDING_ROWS
from schemas.kafka_vocabulary import RESOURCE_TYPES, ResourceType
from schemas.per_cluster import KafkaVersions
from transforms.effective.brokers import to_broker_effective, to_broker_layers
from transforms.effective.catalog_frames import CatalogFrames
from transforms.effective.clamps import to_clamped_findings, with_broker_clamps, with_group_clamps
from transforms.effective.clients import to_client_effective
from transforms.effective.common import (
    STATIC_LAYER,
    partial_static_nodes,
    unsupported_overrides,
    with_catalog_release,
    without_unsupported,
)
from transforms.effective.controllers import (
    controller_nodes,
    layered_controllers,
    to_controller_broker_effective,
    to_controller_findings,
    to_controller_topic_effective,
)
from transforms.effective.findings import (
    to_coverage_findings,
    to_ignored_dynamic_findings,
    to_layer_order_findings,
    to_partial_static_findings,
    to_rejected_layer_findings,
    to_skipped_config_findings,
)
from transforms.effective.groups import to_client_metrics_effective, to_group_effective, to_group_views
from transforms.effective.layer_validity import failed_by_view, without_node_layer, without_rejected_layers
from transforms.effective.list_values import with_deduplicated_lists
from transforms.effective.timestamps import (
    fallback_planned,
    with_broker_timestamp_fallback,
    with_topic_timestamp_fallback,
    with_view_timestamp_fallback,
)
from transforms.effective.topics import to_topic_effective, to_topic_node_views
from transforms.kit.checkpoints import Keep, as_planned
from transforms.replay.state import ReplayResult


class _Layers(NamedTuple):
    nodes: DataFrame  # the brokers with their catalog release
    controllers: DataFrame  # every controller (``controller_nodes``)
    broker_layers: DataFrame  # the brokers' layers (applied or marked ignored)
    node_layers: DataFrame  # the brokers' and the layered controllers' (``layered_controllers``)
    stored_layers: DataFrame  # ``node_layers`` before whole layers are refused (``to_broker_layers``)
    failed_checks: DataFrame | None  # ``failed_by_view`` of ``stored_layers`` (None: no layer checks)
    timestamp_fallback: bool  # some broker may apply 3.6-3.9's timestamp fallback (``timestamps.fallback_planned``)


def _snapshots(state: ReplayResult) -> DataFrame:
    """``(cluster_id, snapshot_end_offset)``: the snapshot each cluster's replay started from (NULL: none)."""
    return state.cluster_state.select("cluster_id", "snapshot_end_offset")


def _nodes_and_layers(
    state: ReplayResult, frames: CatalogFrames, kafka_version: KafkaVersions, oldest_release: str | None, keep: Keep
) -> _Layers:
    """The brokers' and the layered controllers' layers, built and checked in one plan (a layer-validity plan is
    the largest of a resolution; the nodes are judged independently, so one plan over both gives each its own).

    Each kept frame is handed to ``keep`` as a function: a keep that holds it already (the resolution's, reused by
    the findings and the fallbacks) returns it without these plans being built again."""
    nodes_df = keep(
        "nodes", lambda: with_catalog_release(state.brokers, frames.releases_df, kafka_version=kafka_version)
    )
    controllers_df = keep(
        "controller_nodes",
        lambda: controller_nodes(state, nodes_df, release_ranks=frames.release_ranks, kafka_version=kafka_version),
    )

    @cache  # built once, by whichever kept frame needs it first
    def layered_df() -> DataFrame:
        return nodes_df.unionByName(layered_controllers(controllers_df))

    layers_df = keep(
        "node_layers",
        lambda: to_broker_layers(
            state.broker_static_configs,
            state.dynamic_configs,
            layered_df(),
            frames.config_keys_df,
            frames.key_checks_df,
        ),
    )
    failed_df = (
        keep("layer_checks", lambda: failed_by_view(layers_df, layered_df(), frames, _snapshots(state)))
        if frames.layer_checks
        else None
    )
    all_df = keep("applied_layers", lambda: without_rejected_layers(layers_df, failed_df))
    brokers_df = all_df.join(nodes_df.select("cluster_id", "node_id"), on=["cluster_id", "node_id"], how="left_semi")
    return _Layers(
        nodes=nodes_df,
        controllers=controllers_df,
        broker_layers=brokers_df,
        node_layers=all_df,
        stored_layers=layers_df,
        failed_checks=failed_df,
        timestamp_fallback=fallback_planned(
            frames.release_ranks, kafka_version=kafka_version, oldest_release=oldest_release
        ),
    )


def _supported_dynamic(
    state: ReplayResult, nodes_df: DataFrame, keys_df: DataFrame, kafka_version: KafkaVersions, keep: Keep
) -> DataFrame:
    """The dynamic records the nodes' releases hold in their image (KAFKA-19851), read by every resource type."""
    return keep(
        "supported_dynamic",
        lambda: without_unsupported(state.dynamic_configs, nodes_df, keys_df, kafka_version=kafka_version),
    )


def _partial_static(state: ReplayResult, nodes_df: DataFrame, keep: Keep) -> DataFrame:
    """``partial_static_nodes`` (the brokers without a full server.properties), held once under that name."""
    return keep("partial_static_nodes", lambda: partial_static_nodes(state.broker_static_configs, nodes_df))


def _broker_rows(
    layers: _Layers, frames: CatalogFrames, partial_df: DataFrame, keep: Keep, *, prefix: str = ""
) -> DataFrame:
    """The brokers' rows, clamped (4.3+); groups inherit from them. Kept as ``<prefix>unclamped_broker_rows`` and
    ``<prefix>broker_rows``."""

    def unclamped_df() -> DataFrame:
        rows_df = to_broker_effective(
            layers.broker_layers, layers.nodes, frames.config_keys_df, frames.synonyms_df, partial_static_df=partial_df
        )
        return with_broker_timestamp_fallback(rows_df) if layers.timestamp_fallback else rows_df  # 3.6-3.9

    # the clamps read these rows twice
    return keep(
        f"{prefix}broker_rows",
        lambda: with_broker_clamps(keep(f"{prefix}unclamped_broker_rows", unclamped_df), layers.failed_checks),
    )


def _topic_views(layers: _Layers, frames: CatalogFrames, partial_df: DataFrame, keep: Keep) -> DataFrame:
    """What each broker gives topics as their defaults (``to_topic_node_views``)."""

    def views_df() -> DataFrame:
        node_views_df = to_topic_node_views(
            layers.broker_layers, layers.nodes, frames.config_keys_df, frames.synonyms_df, partial_static_df=partial_df
        )
        return with_view_timestamp_fallback(node_views_df) if layers.timestamp_fallback else node_views_df

    return keep("topic_views", views_df)


def _topic_fallback(topic_df: DataFrame, layers: _Layers) -> DataFrame:
    """TOPIC rows with the topic-level timestamp fallback, when some broker may apply it."""
    return with_topic_timestamp_fallback(topic_df, layers.nodes) if layers.timestamp_fallback else topic_df


def _group_views(
    layers: _Layers, frames: CatalogFrames, broker_df: DataFrame, dynamic_df: DataFrame, keep: Keep
) -> DataFrame:
    """What the brokers of each cluster with a group give its groups (``to_group_views``; ``dynamic_df``: the
    supported dynamic records). Clusters without one get no views, so a fleet without groups plans no work."""

    def views_df() -> DataFrame:
        clusters_df = dynamic_df.where(F.col("resource_type") == ResourceType.GROUP).select("cluster_id").distinct()
        nodes_df = layers.nodes.join(clusters_df, on="cluster_id", how="left_semi")
        return to_group_views(nodes_df, broker_df, frames.config_keys_df, frames.synonyms_df)

    return keep("group_views", views_df)


def _controller_parts(
    state: ReplayResult,
    layers: _Layers,
    catalog_frames: CatalogFrames,
    dynamic_df: DataFrame,
    wanted: set[str],
    keep: Keep,
) -> list[DataFrame]:
    """The rows the controllers resolve: their own BROKER rows and the CONTROLLER_TOPIC view, as ``wanted``."""
    parts: list[DataFrame] = []
    if ResourceType.BROKER in wanted:
        controller_brokers_df = to_controller_broker_effective(layers.node_layers, layers.controllers, catalog_frames)
        parts.append(_of_type(ResourceType.BROKER, keep("controller_broker_rows", controller_brokers_df)))
    if ResourceType.CONTROLLER_TOPIC in wanted:
        controller_topics_df = to_controller_topic_effective(state, dynamic_df, layers.controllers, catalog_frames)
        parts.append(_of_type(ResourceType.CONTROLLER_TOPIC, keep("controller_topic_rows", controller_topics_df)))
    return parts


def _group_part(
    layers: _Layers, catalog_frames: CatalogFrames, broker_df: DataFrame, dynamic_df: DataFrame, keep: Keep
) -> DataFrame:
    """The GROUP rows, clamped to the brokers' bounds."""
    # the clamps read the unclamped rows three times: kept, so their plan is not repeated
    group_views_df = _group_views(layers, catalog_frames, broker_df, dynamic_df, keep)
    unclamped_df = keep(
        "unclamped_group_rows", to_group_effective(dynamic_df, group_views_df, catalog_frames.config_keys_df)
    )
    groups_df = unclamped_df.transform(with_group_clamps, broker_df, layers.nodes)
    return _of_type(ResourceType.GROUP, keep("group_rows", groups_df))


def resolve_effective_configs(
    state: ReplayResult,
    catalog_frames: CatalogFrames,
    *,
    kafka_version: KafkaVersions = None,
    oldest_release: str | None = None,
    resource_types: Collection[str] = RESOURCE_TYPES,
    keep: Keep = as_planned,
) -> DataFrame:
    """Gold ``EFFECTIVE_CONFIGS`` of every cluster in ``state``.

    Args:
        state: the ``replay_state`` result.
        catalog_frames: ``to_catalog_frames(spark, catalog)``.
        kafka_version: the Kafka release all brokers run (overrides the inferred one), e.g. ``"4.2"``; a
            ``PerCluster`` gives some clusters their own (``schemas.per_cluster``).
        oldest_release: a release every broker of ``state`` runs at least (an audit's target release, with
            ``audit_scope.with_release_at_least``), when the caller knows one; the rules of older releases that no
            broker can then apply are not planned (``timestamps.fallback_planned``). None: every rule is planned.
        resource_types: the resource types to resolve (default all); the others are not planned at all, e.g. the
            remediation fallbacks resolve only the types whose overrides they delete.
        keep: how the caller holds each shared intermediate (default: the plan as it is).

    Raises:
        ConfigError: when ``kafka_version`` or ``oldest_release`` is not a release.
        ValueError: an unknown or empty ``resource_types``.
    """
    wanted = set(resource_types)
    if not wanted or wanted - set(RESOURCE_TYPES):
        known = tuple(str(t) for t in RESOURCE_TYPES)  # plain strings: the message shows values, not enum reprs
        raise ValueError(f"resource_types must be a non-empty subset of {known}, got {sorted(wanted)}")
    layers = _nodes_and_layers(state, catalog_frames, kafka_version, oldest_release, keep)
    nodes_df = layers.nodes
    keys_df = catalog_frames.config_keys_df
    dynamic_df = _supported_dynamic(state, nodes_df, keys_df, kafka_version, keep)
    partial_df = _partial_static(state, nodes_df, keep)
    broker_df = (
        _broker_rows(layers, catalog_frames, partial_df, keep)
        if wanted & {ResourceType.BROKER, ResourceType.GROUP}
        else None
    )
    parts: list[DataFrame] = []
    if broker_df is not None and ResourceType.BROKER in wanted:
        parts.append(_of_type(ResourceType.BROKER, broker_df))
    parts += _controller_parts(state, layers, catalog_frames, dynamic_df, wanted, keep)
    if ResourceType.TOPIC in wanted:
        topic_views_df = _topic_views(layers, catalog_frames, partial_df, keep)
        topics_df = _topic_fallback(
            to_topic_effective(state.topics, dynamic_df, nodes_df, topic_views_df, keys_df), layers
        )
        parts.append(_of_type(ResourceType.TOPIC, keep("topic_rows", topics_df)))
    if broker_df is not None and ResourceType.GROUP in wanted:
        parts.append(_group_part(layers, catalog_frames, broker_df, dynamic_df, keep))
    if ResourceType.CLIENT_METRICS in wanted:
        client_metrics_df = to_client_metrics_effective(dynamic_df, nodes_df, keys_df)
        parts.append(_of_type(ResourceType.CLIENT_METRICS, keep("client_metrics_rows", client_metrics_df)))
    if ResourceType.CLIENT in wanted:
        clients_df = to_client_effective(state.client_entity_configs)
        parts.append(_of_type(ResourceType.CLIENT, keep("client_rows", clients_df)))
    return with_deduplicated_lists(reduce(DataFrame.unionByName, parts), catalog_frames.deduplicated_lists)


def _of_type(resource_type: str, part_df: DataFrame) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` columns of a held part whose rows are all of ``resource_type``, the type as a literal.

    Read from a held part, the type column is known only row by row, so a plan filtering the union on the type
    scanned every held part (the clamp findings at L: 2.0-2.1 s, 5.75 M rows to find 0.3 M); with the literal, the
    planner drops the parts of other types."""
    return part_df.select(
        *[F.lit(resource_type).alias(c) if c == "resource_type" else F.col(c) for c in EFFECTIVE_CONFIGS.fieldNames()]
    )


def resolve_without_overrides(
    state: ReplayResult,
    catalog_frames: CatalogFrames,
    *,
    topics_df: DataFrame | None = None,
    groups_df: DataFrame | None = None,
    kafka_version: KafkaVersions = None,
    oldest_release: str | None = None,
    keep: Keep = as_planned,
) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` TOPIC rows of the topics in ``topics_df`` and GROUP rows of the groups in
    ``groups_df``, resolved as if none of their own overrides were set: what each key falls back to once the
    entity's overrides are deleted (the remediation fallbacks, ``transforms.whatif.fallbacks``).

    Only the entity's own layer is left out: everything below it (the broker views a topic inherits, the broker
    values a group inherits) is the state's resolution itself, read through ``keep`` under the names
    ``resolve_effective_configs`` uses. Pass the ``keep`` that held that resolution and these rows are planned on
    its kept frames instead of resolving the brokers again.

    Args:
        state: as for ``resolve_effective_configs``.
        catalog_frames: ``to_catalog_frames(spark, catalog)``.
        topics_df: ``(cluster_id, topic_name)`` of live topics (others have no rows); None = no TOPIC rows (not
            planned).
        groups_df: ``(cluster_id, resource_name)`` of groups; a group exists only while it has a config, so each
            one named here gets its rows; None = no GROUP rows (not planned).
        kafka_version, oldest_release: as for ``resolve_effective_configs``.
        keep: as for ``resolve_effective_configs``; the rows of this function pass through it as
            ``fallback_topic_rows`` and ``fallback_group_rows``.
    """
    layers = _nodes_and_layers(state, catalog_frames, kafka_version, oldest_release, keep)
    nodes_df, keys_df = layers.nodes, catalog_frames.config_keys_df
    partial_df = _partial_static(state, nodes_df, keep)
    dynamic_df = _supported_dynamic(state, nodes_df, keys_df, kafka_version, keep)
    no_overrides_df = dynamic_df.where(~F.col("resource_type").isin(ResourceType.TOPIC, ResourceType.GROUP))
    columns = EFFECTIVE_CONFIGS.fieldNames()
    parts: list[DataFrame] = []
    if topics_df is not None:
        live_df = state.topics.join(topics_df, on=["cluster_id", "topic_name"], how="left_semi")
        topic_views_df = _topic_views(layers, catalog_frames, partial_df, keep)
        topic_rows_df = _topic_fallback(
            to_topic_effective(live_df, no_overrides_df, nodes_df, topic_views_df, keys_df), layers
        )
        parts.append(keep("fallback_topic_rows", topic_rows_df).select(*columns))
    if groups_df is not None:
        # GROUP_CLAMPS judge only the values a group sets (DYNAMIC_GROUP_CONFIG): without overrides there is none
        group_rows_df = to_group_effective(
            no_overrides_df,
            _group_views(
                layers, catalog_frames, _broker_rows(layers, catalog_frames, partial_df, keep), dynamic_df, keep
            ),
            keys_df,
            groups_df=groups_df.select("cluster_id", F.col("resource_name").alias("entity")),
        )
        parts.append(keep("fallback_group_rows", group_rows_df).select(*columns))
    if not parts:
        raise ValueError("resolve_without_overrides needs topics_df, groups_df or both")
    return with_deduplicated_lists(reduce(DataFrame.unionByName, parts), catalog_frames.deduplicated_lists)


def resolve_without_node_layer(
    state: ReplayResult,
    catalog_frames: CatalogFrames,
    nodes_df: DataFrame,
    *,
    kafka_version: KafkaVersions = None,
    oldest_release: str | None = None,
    keep: Keep = as_planned,
) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` BROKER rows of the nodes in ``nodes_df`` (``cluster_id, node_id``: brokers, or
    controllers whose layers resolve as a broker's), resolved as if their per-broker layer
    (``DYNAMIC_BROKER_CONFIG``) were deleted: what each key falls back to (``transforms.whatif.fallbacks``).

    Deleting that layer changes only the node's own layers: every other row of them is judged one by one, and the
    whole-layer checks of the remaining layers are the views the state's resolution checked already
    (``layer_validity.without_node_layer``). So these rows are planned on that resolution's kept frames, read
    through ``keep`` under the names ``resolve_effective_configs`` uses; other nodes are not resolved again.

    Args:
        state: as for ``resolve_effective_configs``.
        catalog_frames: ``to_catalog_frames(spark, catalog)``.
        nodes_df: ``(cluster_id, node_id)`` of the nodes whose per-broker layer is deleted; other nodes get no rows.
        kafka_version, oldest_release: as for ``resolve_effective_configs``.
        keep: as for ``resolve_effective_configs``; the rows of this function pass through it as
            ``fallback_unclamped_broker_rows`` and ``fallback_broker_rows``.
    """
    layers = _nodes_and_layers(state, catalog_frames, kafka_version, oldest_release, keep)
    node_key = ["cluster_id", "node_id"]
    wanted_df = nodes_df.select(*node_key)

    def own(df: DataFrame) -> DataFrame:
        return df.join(wanted_df, on=node_key, how="left_semi")

    partial_df = _partial_static(state, layers.nodes, keep)
    failed_df = None if layers.failed_checks is None else own(layers.failed_checks)
    applied_df = without_node_layer(own(layers.stored_layers), failed_df)
    brokers_df = own(layers.nodes)
    # the brokers' rows as ``resolve_effective_configs`` builds them, from these layers
    broker_layers_df = applied_df.join(brokers_df.select(*node_key), on=node_key, how="left_semi")
    variant = layers._replace(nodes=brokers_df, broker_layers=broker_layers_df)
    broker_rows_df = _broker_rows(variant, catalog_frames, partial_df, keep, prefix="fallback_")
    controller_rows_df = to_controller_broker_effective(applied_df, own(layers.controllers), catalog_frames)
    columns = EFFECTIVE_CONFIGS.fieldNames()
    rows_df = broker_rows_df.select(*columns).unionByName(controller_rows_df.select(*columns))
    return with_deduplicated_lists(rows_df, catalog_frames.deduplicated_lists)


def unapplied_layer_rows(
    state: ReplayResult,
    catalog_frames: CatalogFrames,
    *,
    kafka_version: KafkaVersions = None,
    oldest_release: str | None = None,
    keep: Keep = as_planned,
) -> DataFrame:
    """The dynamic layer rows the brokers (and layered controllers) do not apply: ``cluster_id``, ``node_id``,
    ``layer`` (``common.DEFAULT_LAYER`` / ``NODE_LAYER``), ``name``, ``ignored_kind`` (``IGNORED_DYNAMIC_CONFIG``,
    ``INVALID_DYNAMIC_CONFIG``, ``REJECTED_CONFIG_LAYER``) and ``ignored_reason`` — what the findings of
    ``effective_findings`` report, as rows (same arguments as ``resolve_effective_configs``; a ``keep`` that held a
    resolution of the same state shares its frames)."""
    layers = _nodes_and_layers(state, catalog_frames, kafka_version, oldest_release, keep)
    return layers.node_layers.where(F.col("ignored_kind").isNotNull() & (F.col("layer") != STATIC_LAYER)).select(
        "cluster_id", "node_id", "layer", "name", "ignored_kind", "ignored_reason"
    )


def effective_findings(
    state: ReplayResult,
    catalog_frames: CatalogFrames,
    *,
    kafka_version: KafkaVersions = None,
    oldest_release: str | None = None,
    keep: Keep = as_planned,
    effective_df: DataFrame | None = None,
) -> DataFrame:
    """``FINDING_ROWS`` of resolution: ``IGNORED_DYNAMIC_CONFIG``, ``INVALID_DYNAMIC_CONFIG``,
    ``REJECTED_CONFIG_LAYER`` (brokers' and controllers'), ``SKIPPED_ON_REPLAY``, ``ASSUMED_CONTROLLER_CONFIG``,
    ``CLAMPED_DYNAMIC_CONFIG``, ``LAYER_ORDER_DEPENDENT`` and ``COVERAGE_GAP`` (same arguments as
    ``resolve_effective_configs``; a ``keep`` that returns the frames it kept before shares them). The clamp
    findings read the resolved BROKER and GROUP rows: pass ``effective_df`` (what ``resolve_effective_configs``
    returned for the same state) when the caller has it, otherwise those two types are resolved here."""
    layers = _nodes_and_layers(state, catalog_frames, kafka_version, oldest_release, keep)
    nodes_df, controllers_df = layers.nodes, layers.controllers
    layers_df, all_layers_df = layers.broker_layers, layers.node_layers
    dynamic_df = _supported_dynamic(state, nodes_df, catalog_frames.config_keys_df, kafka_version, keep)
    if effective_df is None:
        effective_df = resolve_effective_configs(
            state,
            catalog_frames,
            kafka_version=kafka_version,
            oldest_release=oldest_release,
            resource_types=(ResourceType.BROKER, ResourceType.GROUP),
            keep=keep,
        )
    clamped_df = to_clamped_findings(effective_df)
    findings_df = (
        to_ignored_dynamic_findings(all_layers_df)
        .unionByName(to_rejected_layer_findings(all_layers_df))
        .unionByName(to_controller_findings(state, dynamic_df, controllers_df, catalog_frames))
        .unionByName(
            to_partial_static_findings(
                state.broker_static_configs,
                layers_df,
                nodes_df,
                catalog_frames.config_keys_df,
                catalog_frames.synonyms_df,
            )
        )
        .unionByName(
            to_skipped_config_findings(
                unsupported_overrides(state.dynamic_configs, nodes_df, catalog_frames.config_keys_df)
            )
        )
        .unionByName(to_coverage_findings(state.brokers, nodes_df, catalog_frames.config_keys_df))
        .unionByName(clamped_df)
        .select(*FINDING_ROWS.fieldNames())
    )
    if layers.failed_checks is None:
        return findings_df
    return findings_df.unionByName(to_layer_order_findings(layers.failed_checks).select(*FINDING_ROWS.fieldNames()))
