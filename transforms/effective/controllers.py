"""Controllers' own configuration and the topic configs the active controller enforces (docs/contract.md §4.8).

Kafka semantics (confluentinc/kafka 4.2 and 4.4):

* **A controller's configuration is a broker's.** ``ControllerServer`` (core/src/main/scala/kafka/server/
  ControllerServer.scala) runs ``config.dynamicConfig.initialize`` and a ``DynamicConfigPublisher`` with a
  ``BrokerConfigHandler`` for ``ConfigType.BROKER``: the same ``DynamicBrokerConfig`` as a broker's
  (core/src/main/scala/kafka/server/DynamicBrokerConfig.scala), fed with the cluster default (BROKER ``""``) and
  the node's own BROKER ``"<node id>"`` records, with the same ``removeInvalidConfigs`` per key and the same
  ``updateCurrentConfig`` that keeps the previous ``KafkaConfig`` when a layer fails its checks. What a controller
  reconfigures live is smaller (``addReconfigurables(controller: ControllerServer)``: authorizer, metrics
  reporters, client-quota callback, ``ControllerDynamicThreadPool``, the socket server), but its ``KafkaConfig``
  and what ``DescribeConfigs`` on it returns (``ControllerApis.handleDescribeConfigsRequest`` → ``ConfigHelper``,
  ConfigResource BROKER with its node id) are resolved like a broker's. So a controller-only node with a
  ``--static-config`` file gets ``BROKER`` rows keyed by its node id, resolved by ``transforms.effective.brokers``
  and ``layer_validity`` exactly as a broker (its ``process.roles`` row says ``controller``); the findings of its
  dropped values and refused layers are a broker's. Its release is the oldest a registered broker of the
  cluster runs (``RegisterControllerRecord`` carries only the feature ranges silver ``CONTROLLERS`` keeps).
* **The topic configs the controller enforces use the controller's own view, unfiltered.**
  ``ConfigurationControlManager.getTopicConfig`` (metadata/src/main/java/org/apache/kafka/controller/
  ConfigurationControlManager.java) calls ``KafkaConfigSchema.resolveEffectiveTopicConfig(key, staticConfig,
  clusterConfig(), currentControllerConfig(), currentTopicConfig(topic))`` (metadata/src/main/java/org/apache/
  kafka/metadata/KafkaConfigSchema.java): the topic override, else the first topic synonym set on the controller's
  own node (BROKER ``"<its node id>"``), else at the cluster default, else in its ``server.properties``
  (``config.originals``, ControllerServer.scala ``setStaticConfig``), converted; else the topic ConfigDef default.
  ``configData`` holds every replayed ConfigRecord (only KAFKA-19851 skips unsupported TOPIC keys): no per-key drop
  and no refused layer apply here. ``ReplicationControlManager`` uses it for two keys:
  ``getTopicEffectiveMinIsr`` (``min(Integer.parseInt(min.insync.replicas), replicas of partition 0)``, the min ISR
  of ELR) and ``uncleanLeaderElectionEnabledForTopic`` (``Boolean.parseBoolean`` of
  ``unclean.leader.election.enable``; KRaft's unclean elections are the controller's decision; before 3.9 the
  controller never read it, before 3.7 it had no ELR min ISR: a key is kept for controllers of a release that
  reads it, ``ENFORCED_SINCE``). Those two keys are resolved per live topic as ``CONTROLLER_TOPIC`` rows:
  ``resource_name`` the topic, ``node_id`` the controller whose view it is, value / source / synonym as the
  controller's ``ConfigEntry``.
* **The active controller is not in the log.** Controllers are the registered controllers
  (``REGISTER_CONTROLLER_RECORD``) and the controller-only nodes with a file. When every controller resolves a key
  to the same value and each one's value is known (set by a dynamic layer, or from its ``server.properties``
  file), the value is known; otherwise the view of the lowest controller node id is used (as
  ``transforms.effective.upgrade_effects`` does) and one ``ASSUMED_CONTROLLER_CONFIG`` finding per cluster and key says
  why. A cluster with no controller known (none registered, no controller file) has no ``CONTROLLER_TOPIC`` rows.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.effective import LAYER_COLUMNS
from schemas.kafka_catalog import applied_rank, release_rank
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from schemas.per_cluster import KafkaVersions
from transforms.effective.brokers import to_broker_effective, to_broker_layers
from transforms.effective.catalog_frames import CatalogFrames
from transforms.effective.common import latest_key_attributes, resolved
from transforms.effective.topics import to_effective_rows, to_topic_node_views
from transforms.kit.finding_rows import finding_rows
from transforms.kit.per_cluster import per_cluster_column
from transforms.replay.state import ReplayResult

__all__ = [
    "ASSUMED_CONTROLLER_CONFIG",
    "ENFORCED_TOPIC_KEYS",
    "controller_nodes",
    "layered_controllers",
    "to_controller_findings",
    "to_controller_topic_effective",
]

# The topic keys ReplicationControlManager reads through ConfigurationControlManager.getTopicConfig
# (confluentinc/kafka 4.2, 4.4: getTopicEffectiveMinIsr, uncleanLeaderElectionEnabledForTopic), with the first
# release whose controller reads each: getTopicEffectiveMinIsr appears in 3.7; before 3.9
# uncleanLeaderElectionEnabledForTopic is `return false; // TODO` (3.3–3.8 ConfigurationControlManager.java).
ENFORCED_SINCE: Final = {"min.insync.replicas": "3.7", "unclean.leader.election.enable": "3.9"}
ENFORCED_TOPIC_KEYS: Final = tuple(ENFORCED_SINCE)
ASSUMED_CONTROLLER_CONFIG: Final = "ASSUMED_CONTROLLER_CONFIG"
_NODE: Final = ["cluster_id", "node_id"]


def controller_nodes(
    state: ReplayResult,
    nodes_df: DataFrame,
    *,
    release_ranks: Sequence[int] = (),
    kafka_version: KafkaVersions = None,
) -> DataFrame:
    """``(cluster_id, node_id, catalog_release, release_rank, is_broker, has_file)``: every controller.

    Controllers are the registered controllers (silver ``CONTROLLERS``) and the nodes with a static layer that are
    not registered brokers (the controller-only ``--static-config`` files replay keeps). A combined node (also a
    registered broker) keeps its broker's release; the others take the oldest release a registered broker of the
    cluster runs (``nodes_df`` of the brokers, ``with_catalog_release``). In a cluster without a registered broker
    they take the catalog release ``kafka_version`` applies (``--kafka-version``; ``release_ranks`` are the
    catalog's, ``schemas.kafka_catalog.applied_rank``), and have none without it. A node that never registered —
    Kafka 4.4.0 refused to start one whose server.properties failed KafkaConfig (oracle scenario
    ``group-assignment-interval-out-of-bounds-at-start``) — is judged on its file.
    ``has_file``: its static layer comes from a ``--static-config`` file.
    """
    registered_df = state.controllers.select("cluster_id", F.col("controller_id").alias("node_id"))
    static_df = state.broker_static_configs
    file_df = static_df.where(F.col("origin") == "FILE").select(*_NODE).distinct()
    brokers_df = nodes_df.select(*_NODE, "catalog_release", "release_rank")
    file_only_df = file_df.join(brokers_df.select(*_NODE), on=_NODE, how="left_anti")
    oldest_df = brokers_df.groupBy("cluster_id").agg(
        F.min_by(F.struct("catalog_release", "release_rank"), F.col("release_rank")).alias("oldest")
    )
    nodes = registered_df.unionByName(file_only_df).distinct()

    def applied(given: str | None) -> int | None:
        return applied_rank(release_ranks, release_rank(given)) if given and release_ranks else None

    given_rank = per_cluster_column(kafka_version, lambda given: F.lit(applied(given)).cast("int"))
    given_release = per_cluster_column(
        kafka_version,
        lambda given: F.lit(f"{rank // 1000}.{rank % 1000}" if (rank := applied(given)) else None).cast("string"),
    )
    return (
        nodes.join(brokers_df, on=_NODE, how="left")
        .join(oldest_df, on="cluster_id", how="left")
        .join(file_df.select(*_NODE, F.lit(True).alias("_file")), on=_NODE, how="left")
        .select(
            *_NODE,
            F.coalesce(F.col("catalog_release"), F.col("oldest.catalog_release"), given_release).alias(
                "catalog_release"
            ),
            F.coalesce(F.col("release_rank"), F.col("oldest.release_rank"), given_rank).alias("release_rank"),
            F.col("catalog_release").isNotNull().alias("is_broker"),
            F.coalesce(F.col("_file"), F.lit(False)).alias("has_file"),
        )
        .where(F.col("catalog_release").isNotNull())
    )


def _layers(state: ReplayResult, nodes_df: DataFrame, frames: CatalogFrames) -> DataFrame:
    return to_broker_layers(
        state.broker_static_configs,
        state.dynamic_configs,
        nodes_df.select(*_NODE, "catalog_release", "release_rank"),
        frames.config_keys_df,
        frames.key_checks_df,
    )


def layered_controllers(controllers_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id, catalog_release, release_rank)`` of the controller-only nodes with a file: the
    controllers whose layers are built, checked and resolved as a broker's (``to_broker_layers`` then
    ``without_rejected_layers``, in the same plan as the brokers': the resolution passes both node sets at once)."""
    return controllers_df.where(~F.col("is_broker") & F.col("has_file")).select(
        *_NODE, "catalog_release", "release_rank"
    )


def to_controller_broker_effective(layers_df: DataFrame, controllers_df: DataFrame, frames: CatalogFrames) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` BROKER rows of the controller-only nodes with a file, from ``layers_df`` (applied
    ``LAYER_COLUMNS`` that include theirs; other nodes' rows are not read)."""
    own_df = layered_controllers(controllers_df)
    return to_broker_effective(layers_df, own_df, frames.config_keys_df, frames.synonyms_df)


def _controller_views(state: ReplayResult, controllers_df: DataFrame, frames: CatalogFrames) -> DataFrame:
    """``(cluster_id, node_id, config_name, r, has_file)``: each controller's own value of the enforced keys, from
    every layer as stored (``configData`` is not filtered: no dropped value, no refused layer)."""
    nodes_df = controllers_df.select(*_NODE, "catalog_release", "release_rank")
    raw_df = _layers(state, nodes_df, frames).select(
        *LAYER_COLUMNS[:-2],
        F.lit(None).cast("string").alias("ignored_reason"),
        F.lit(None).cast("string").alias("ignored_kind"),
    )
    keys_df = frames.config_keys_df.where(F.col("name").isin(*ENFORCED_TOPIC_KEYS))
    enforced = functools.reduce(
        lambda a, b: a | b,
        [(F.col("config_name") == k) & (F.col("r.release_rank") >= release_rank(v)) for k, v in ENFORCED_SINCE.items()],
    )
    return (
        to_topic_node_views(raw_df, nodes_df, keys_df, frames.synonyms_df)
        .where(enforced)
        .join(controllers_df.select(*_NODE, "has_file"), on=_NODE, how="inner")
    )


def _per_cluster_key(views_df: DataFrame) -> DataFrame:
    """``(cluster_id, config_name, chosen, distinct_values, unknown, described)`` per cluster and enforced key:
    the view of the lowest controller node id, how many values the controllers resolve, the controllers whose value
    would come from a ``server.properties`` nobody gave, and every controller's value as text."""
    is_unknown = (F.col("r.source") == ConfigSource.DEFAULT_CONFIG) & ~F.col("has_file")
    text = F.concat(
        F.col("node_id").cast("string"),
        F.lit("="),
        F.coalesce(F.col("r.value"), F.lit("null")),
        F.lit(" ("),
        F.col("r.source"),
        F.lit(")"),
    )
    return views_df.groupBy("cluster_id", "config_name").agg(
        F.min_by(F.struct("node_id", "r"), F.col("node_id")).alias("chosen"),
        F.count_distinct(F.coalesce(F.col("r.value"), F.lit("\u0000null"))).alias("distinct_values"),
        F.array_sort(F.collect_list(F.when(is_unknown, F.col("node_id")))).alias("unknown"),
        F.transform(F.array_sort(F.collect_list(F.struct(F.col("node_id"), text.alias("t")))), lambda e: e["t"]).alias(
            "described"
        ),
    )


def _views_differ() -> Column:
    return F.col("distinct_values") > 1


def _has_unknown_controllers() -> Column:
    return F.size("unknown") > 0


def _is_assumed() -> Column:
    """Whether the chosen view is assumed (``_assumed_reasons`` says why)."""
    return _views_differ() | _has_unknown_controllers()


def _assumed_reasons() -> Column:
    """Why the chosen view is assumed ("" when it is known)."""
    return F.concat_ws(
        "; ",
        F.when(
            _views_differ(), F.lit("the controllers resolve it differently and the active controller is not in the log")
        ),
        F.when(
            _has_unknown_controllers(),
            F.concat(
                F.lit("controller(s) "),
                F.array_join(F.transform("unknown", lambda n: n.cast("string")), ", "),
                F.lit(" have no --static-config and would take it from their server.properties"),
            ),
        ),
    )


def _overrides(dynamic_df: DataFrame, topics_df: DataFrame) -> DataFrame:
    live_df = topics_df.select("cluster_id", F.col("topic_name").alias("entity"))
    return (
        dynamic_df.where((F.col("resource_type") == ResourceType.TOPIC) & F.col("name").isin(*ENFORCED_TOPIC_KEYS))
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


def to_controller_topic_effective(
    state: ReplayResult, dynamic_df: DataFrame, controllers_df: DataFrame, frames: CatalogFrames
) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` rows of resource type ``CONTROLLER_TOPIC``: per live topic and enforced key, the
    value the (assumed) active controller uses; ``node_id`` names that controller. A row without a topic override
    is ``is_assumed`` when its key has an ``ASSUMED_CONTROLLER_CONFIG`` finding (the controllers differ, or one of
    them would read a server.properties nobody gave).

    Args:
        state: the replayed state (topics, static and dynamic layers).
        dynamic_df: silver ``DYNAMIC_CONFIGS`` without the rows Kafka skips on replay (``without_unsupported``).
        controllers_df: ``controller_nodes``.
        frames: the catalog frames.
    """
    per_key_df = _per_cluster_key(_controller_views(state, controllers_df, frames))
    topics_df = state.topics.select("cluster_id", F.col("topic_name").alias("entity")).distinct()
    attrs_df = latest_key_attributes(frames.config_keys_df, ResourceType.TOPIC)
    override_r = resolved(
        value=F.col("o.value"),
        value_hash=F.col("o.value_hash"),
        source=F.lit(ConfigSource.DYNAMIC_TOPIC_CONFIG),
        synonym=F.col("config_name"),
        source_offset=F.col("o.source_offset"),
        source_timestamp=F.col("o.source_timestamp"),
        config_type=F.col("config_type"),
        is_sensitive=F.coalesce(F.col("is_sensitive"), F.lit(True)),
    )
    overrides_df = _overrides(dynamic_df, state.topics).select(
        "cluster_id",
        "entity",
        "config_name",
        F.struct("value", "value_hash", "source_offset", "source_timestamp").alias("o"),
    )
    rows_df = (
        topics_df.join(per_key_df, on="cluster_id", how="inner")
        .join(overrides_df, on=["cluster_id", "entity", "config_name"], how="left")
        .join(attrs_df, on="config_name", how="left")
        .select(
            "cluster_id",
            "entity",
            F.col("chosen.node_id").alias("node_id"),
            "config_name",
            # without an override the row is the chosen controller's view: assumed when the finding says so
            F.when(F.col("o").isNotNull(), override_r)
            .otherwise(F.col("chosen.r").withField("is_assumed", _is_assumed()))
            .alias("r"),
        )
    )
    return to_effective_rows(rows_df, resource_type=ResourceType.CONTROLLER_TOPIC)


def to_controller_findings(
    state: ReplayResult, dynamic_df: DataFrame, controllers_df: DataFrame, frames: CatalogFrames
) -> DataFrame:
    """``FINDING_ROWS``: one ``ASSUMED_CONTROLLER_CONFIG`` per cluster and enforced key whose controller view is
    assumed and that at least one live topic takes from it (no topic override)."""
    per_key_df = _per_cluster_key(_controller_views(state, controllers_df, frames))
    overridden_df = _overrides(dynamic_df, state.topics).select("cluster_id", "entity", "config_name")
    inheriting_df = (
        state.topics.select("cluster_id", F.col("topic_name").alias("entity"))
        .distinct()
        .join(per_key_df.select("cluster_id", "config_name"), on="cluster_id", how="inner")
        .join(overridden_df, on=["cluster_id", "entity", "config_name"], how="left_anti")
        .groupBy("cluster_id", "config_name")
        .agg(F.count(F.lit(1)).alias("topics"))
    )
    message = F.concat(
        F.lit("the "),
        F.col("config_name"),
        F.lit(" the active controller enforces for "),
        F.col("topics").cast("string"),
        F.lit(" topic(s) without a topic override is taken from controller "),
        F.col("chosen.node_id").cast("string"),
        F.lit("'s view ("),
        F.coalesce(F.col("chosen.r.value"), F.lit("null")),
        F.lit(" from "),
        F.col("chosen.r.source"),
        F.lit("), an assumption: "),
        _assumed_reasons(),
        F.lit(" (controllers: "),
        F.array_join("described", ", "),
        F.lit("); pass --static-config NODE=server.properties for each controller to know it"),
    )
    assumed_df = per_key_df.join(inheriting_df, on=["cluster_id", "config_name"], how="inner").where(_is_assumed())
    return finding_rows(
        assumed_df,
        kind=ASSUMED_CONTROLLER_CONFIG,
        message=message,
        offset=None,
        resource_type=ResourceType.CONTROLLER_TOPIC,
        resource_name=None,
        config_name=F.col("config_name"),
    )
