"""Dynamic broker layers a broker refuses as a whole (``without_rejected_layers``).

Kafka (confluentinc/kafka 3.3–4.4, core/src/main/scala/kafka/server/DynamicBrokerConfig.scala):
``updateDefaultConfig`` / ``updateBrokerConfig`` store the layer's surviving keys, then ``updateCurrentConfig``
builds a new ``KafkaConfig`` from static + cluster default + per-broker props; when its constructor's cross-field
``require``s fail (``KafkaConfig.validateValues``, e.g. ``log.retention.ms`` = 0, which no ConfigDef validator
catches) the exception is logged ("... configs could not be applied") and the broker keeps its previous
configuration. The stored cluster-default props stay stored, so a per-broker update is built on top of them too.

Modelled per broker, with the checks of the release it runs (``CatalogFrames.layer_checks``, the broker
``cross_field_checks`` of ``conf/kafka`` that Kafka enforces) evaluated on the broker's effective values:

* static + cluster default + per-broker passes → every layer applies;
* the static layer alone fails → nothing is blamed (such a broker does not start; the constraint rules report it);
* static + cluster default passes but adding the per-broker layer fails → the per-broker layer is not applied;
* static + cluster default fails → the cluster-default layer is not applied, and neither is the per-broker
  layer (Kafka builds it on top of the stored cluster default, which still fails).

Every row of a refused layer gets ``ignored_kind`` ``REJECTED_CONFIG_LAYER`` and a reason naming the failed
checks; resolution then takes the layers below. A check that cannot be evaluated (a key it reads is missing or
does not parse) counts as passing. 4.3+ clamps the ``group.*.assignment.interval.ms`` keys before the checks
(``GroupCoordinatorConfig.clampDynamicConfigs``), and so do the checks here, on the map of values they judge
(``clamps.with_broker_clamps_in_map``) — except in the static view: at startup nothing is clamped.

The checks of the three views are one plan (``failed_by_view``); the caller may hold it, and decide the layers
from it twice: for the brokers as they are (``without_rejected_layers``) and for the same brokers with their
per-broker layer deleted (``without_node_layer``, the input of a DELETE remediation's fallback). Without the
per-broker layer a broker's full view is its cluster-default view, so the same checks decide both.
"""

from __future__ import annotations

from functools import reduce
from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.effective import LAYER_COLUMNS
from transforms.configdef.expressions import ansi_disabled, cfg_keys_read
from transforms.configdef.sql_text import sql_string
from transforms.effective.brokers import to_broker_effective
from transforms.effective.catalog_frames import CatalogFrames, LayerCheck
from transforms.effective.clamps import clamp_keys, with_broker_clamps_in_map
from transforms.effective.common import DEFAULT_LAYER, NODE_LAYER, STATIC_LAYER
from transforms.effective.reconfigurables import reconfigurable_keys, refused_by_reconfigurables
from transforms.kit.audit_scope import set_by_a_layer
from transforms.kit.releases import release_rank_column

REJECTED_CONFIG_LAYER = "REJECTED_CONFIG_LAYER"
_NODE = ["cluster_id", "node_id"]


def _failed_checks(cfg_df: DataFrame, checks: tuple[LayerCheck, ...]) -> DataFrame:
    """``(cluster_id, node_id, failed, cfg)``: ``failed`` the sorted ``id (rule)`` texts of the checks that are false.

    The checks are one SQL expression (one parse, not a Column per check and operator: there are ~60)."""
    if not checks:
        return cfg_df.select(*_NODE, F.array().cast("array<string>").alias("failed"), "cfg")
    cases = ", ".join(
        f"CASE WHEN catalog_release IN ({', '.join(map(sql_string, check.releases))})"
        f" AND NOT coalesce(({check.expr_sql}), true)"
        f" THEN {sql_string(f'{check.check_id} ({check.rule})')} END"
        for check in checks
    )
    with ansi_disabled(cfg_df.sparkSession):
        failed = F.expr(f"array_sort(filter(array({cases}), failed_check -> failed_check IS NOT NULL))")
        return cfg_df.select(*_NODE, failed.alias("failed"), "cfg")


def _read_keys(frames: CatalogFrames, layers_df: DataFrame) -> DataFrame | None:
    """``(name)``: the broker keys the checks read, the keys the dynamic layers of ``layers_df`` set (``layer_order``
    compares the views' values of those), and the members of their synonym groups; None when a check reads ``cfg``
    in a way that cannot be listed (then every key is resolved)."""
    keys: set[str] = set()
    for check in frames.layer_checks:
        read = cfg_keys_read(check.expr_sql)
        if read is None:
            return None
        keys |= read
    keys |= clamp_keys()  # a clamped key is read with its bounds
    keys |= reconfigurable_keys()
    broker_synonyms_df = frames.synonyms_df.where(F.col("resource_type") == "BROKER")
    dynamic_df = layers_df.where(F.col("layer") >= DEFAULT_LAYER).select("name")
    groups_df = (
        broker_synonyms_df.join(dynamic_df, broker_synonyms_df["synonym"] == dynamic_df["name"], "left_semi")
        .select("config_name")
        .unionByName(broker_synonyms_df.where(F.col("config_name").isin(*keys)).select("config_name"))
    )
    members_df = broker_synonyms_df.join(groups_df, on="config_name", how="left_semi").select(
        F.col("synonym").alias("name")
    )
    listed_df = frames.config_keys_df.where(F.col("name").isin(*keys)).select("name")
    return (
        listed_df.unionByName(dynamic_df)
        .unionByName(groups_df.select(F.col("config_name").alias("name")))
        .unionByName(members_df)
        .distinct()
    )


def _cfg(layers_df: DataFrame, nodes_df: DataFrame, frames: CatalogFrames, applied_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id, catalog_release, cfg)``: the effective broker values (of the keys the checks read and
    the dynamic layers of ``applied_df`` set) from ``layers_df``."""
    wanted_df = _read_keys(frames, applied_df)
    keys_df = frames.config_keys_df
    if wanted_df is not None:
        keys_df = keys_df.join(F.broadcast(wanted_df), on="name", how="left_semi")
        layers_df = layers_df.join(F.broadcast(wanted_df), on="name", how="left_semi")
    effective_df = to_broker_effective(layers_df, nodes_df, keys_df, frames.synonyms_df)
    maps_df = effective_df.groupBy(*_NODE).agg(
        F.map_from_entries(F.collect_list(F.struct("config_name", "value"))).alias("cfg"),
        # collect_list skips the NULLs: only the keys a layer sets
        F.collect_list(F.when(set_by_a_layer(F.col("source")), F.col("config_name"))).alias("set_keys"),
        F.min("kafka_release").alias("catalog_release"),
    )
    # 4.3+ caps the assignment intervals into their bounds before it builds the KafkaConfig (``clamps``); in the map,
    # so the rows are resolved once (clamping the rows reads them again for the bounds)
    rank = release_rank_column(F.col("catalog_release"))
    clamped = with_broker_clamps_in_map(F.col("cfg"), F.col("set_keys"), rank)
    # the static view is what the broker starts with: KafkaConfig.fromProps, unclamped
    is_static_view = F.col("cluster_id").endswith(_SEPARATOR + "base")
    return maps_df.select(
        *_NODE, F.when(is_static_view, F.col("cfg")).otherwise(clamped).alias("cfg"), "catalog_release"
    )


# The views a broker's checks are judged on: every applied layer, without the per-broker layer, the static layer
# alone, and without the cluster-default layer (the per-broker layer applied first: ``layer_order``); layer numbers
# from transforms.effective.common.
_VIEWS: Final = (
    ("full", lambda layer: layer <= NODE_LAYER),
    ("lower", lambda layer: layer <= DEFAULT_LAYER),
    ("base", lambda layer: layer <= STATIC_LAYER),
    ("alone", lambda layer: (layer <= STATIC_LAYER) | (layer == NODE_LAYER)),
)
_SEPARATOR = "\u001f"


def _in_view(df: DataFrame, view: str) -> DataFrame:
    """``df`` with ``cluster_id`` tagged by ``view``, so one resolution judges every view (column order kept)."""
    tag = F.concat(F.col("cluster_id"), F.lit(_SEPARATOR + view))
    return df.select(*[tag.alias(c) if c == "cluster_id" else F.col(c) for c in df.columns])


def failed_by_view(
    layers_df: DataFrame, nodes_df: DataFrame, frames: CatalogFrames, snapshots_df: DataFrame
) -> DataFrame:
    """``(cluster_id, node_id, full, lower, base, order)``: the failed checks (as ``_failed_checks``) of each node's
    three views of its applied layers (``layers_df``: ``LAYER_COLUMNS`` from ``to_broker_layers``), and
    ``layer_order``'s column, resolved and checked in one plan (one broker resolution, not four). Without
    ``frames.layer_checks`` nothing fails; callers then skip this plan and pass None below.

    ``snapshots_df`` (``cluster_id, snapshot_end_offset``: the snapshot each cluster's replay started from) marks
    the layers a 4.1+ broker reads from its latest snapshot before any reconfigurable exists (``_preloaded``): the
    reconfigurables do not judge those."""
    applied_df = layers_df.where(F.col("ignored_reason").isNull())
    views_layers_df = reduce(
        DataFrame.unionByName, [_in_view(applied_df.where(in_view(F.col("layer"))), v) for v, in_view in _VIEWS]
    )
    views_nodes_df = reduce(DataFrame.unionByName, [_in_view(nodes_df, v) for v, _ in _VIEWS])
    failed_df = _failed_checks(_cfg(views_layers_df, views_nodes_df, frames, applied_df), frames.layer_checks)
    pivoted_df = (
        failed_df.select(
            # only the view's own tag comes off: a what-if scenario tags the cluster id with the same separator
            # before (transforms.whatif.scenarios), and each scenario is judged apart
            F.regexp_replace("cluster_id", _SEPARATOR + "[^" + _SEPARATOR + "]*$", "").alias("cluster_id"),
            "node_id",
            F.substring_index("cluster_id", _SEPARATOR, -1).alias("view"),
            "failed",
            "cfg",
        )
        .groupBy(*_NODE)
        .pivot("view", [v for v, _ in _VIEWS])
        .agg(F.first("failed").alias("failed"), F.first("cfg").alias("cfg"))
    )
    pivoted_df = pivoted_df.join(_preloaded(applied_df, snapshots_df), on=_NODE, how="left")
    default_preloaded = F.coalesce(F.col("default_preloaded"), F.lit(False))
    node_preloaded = F.coalesce(F.col("node_preloaded"), F.lit(False))

    def judged(failed: str, current: Column, new: Column, preloaded: Column) -> Column:
        """The view's failed checks and, unless the layer it adds was preloaded, the reconfigurables' refusals of
        the change from ``current`` (what the broker runs when the layer arrives: ``reconfigurables``)."""
        refused = F.when(preloaded, F.array().cast("array<string>")).otherwise(refused_by_reconfigurables(current, new))
        return F.array_sort(F.array_union(F.coalesce(F.col(failed), F.array().cast("array<string>")), refused))

    lower = judged("lower_failed", F.col("base_cfg"), F.col("lower_cfg"), default_preloaded)
    lower_ok = F.size(F.col("lower")) == 0
    before_node = F.when(lower_ok, F.col("lower_cfg")).otherwise(F.col("base_cfg"))
    full = judged("full_failed", before_node, F.col("full_cfg"), node_preloaded & (lower_ok | default_preloaded))
    # the same layers applied the other way round (per-broker first): Kafka's order at a restart (``layer_order``)
    alone = judged("alone_failed", F.col("base_cfg"), F.col("alone_cfg"), node_preloaded)
    alone_ok = F.size(F.col("alone")) == 0
    before_default = F.when(alone_ok, F.col("alone_cfg")).otherwise(F.col("base_cfg"))
    full_after_node = judged(
        "full_failed", before_default, F.col("full_cfg"), default_preloaded & (alone_ok | node_preloaded)
    )
    views = ["base_cfg", "lower_cfg", "full_cfg", "alone_cfg", "full_failed", "base_failed"]
    views += ["default_preloaded", "node_preloaded"]
    cfgs = ("base_cfg", "lower_cfg", "full_cfg", "alone_cfg")
    return (
        pivoted_df.select(*_NODE, lower.alias("lower"), alone.alias("alone"), *views)
        .select(*_NODE, full.alias("full"), "lower", "base_failed", "alone", full_after_node.alias("after"), *cfgs)
        .select(
            *_NODE,
            "full",
            "lower",
            F.col("base_failed").alias("base"),
            layer_order(F.col("alone"), F.col("after")).alias("order"),
        )
    )


# KAFKA-17431: from 4.1 a broker reads the dynamic configs of its latest local snapshot before it registers any
# reconfigurable (``DynamicBrokerConfig.readDynamicBrokerConfigsFromSnapshot``, called from ``BrokerServer`` right
# after ``initialize``; confluentinc/kafka 4.2, 4.4).
_PRELOAD_FROM: Final = "4.1"


def _preloaded(applied_df: DataFrame, snapshots_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id, default_preloaded, node_preloaded)``: whether each dynamic layer of a 4.1+ broker is
    whole in the snapshot its cluster's replay started from (every row's offset below the snapshot's end; a row set
    by a snapshot record carries ``snapshot end - 1``). Such a layer is applied at startup, before any
    reconfigurable exists: only KafkaConfig's own checks judge it, and the later failing update keeps it (measured
    with Kafka's brokers: oracle scenario ``refused-layer-in-a-snapshot-at-restart``). No snapshot: nothing is."""
    snapshot = F.col("snapshot_end_offset")

    def whole(layer: int) -> Column:
        in_layer = F.col("layer") == layer
        # a row with no snapshot below it (or a bootstrap row, offset NULL) is not preloaded; an empty layer is
        in_snapshot = F.coalesce(F.col("source_offset") < snapshot, F.lit(False))
        return F.coalesce(F.bool_and(F.when(in_layer, in_snapshot)), F.lit(True))

    since = release_rank_column(F.lit(_PRELOAD_FROM))
    return (
        applied_df.join(F.broadcast(snapshots_df.select("cluster_id", snapshot)), on="cluster_id", how="inner")
        .groupBy(*_NODE)
        .agg(
            (F.min("release_rank") >= since).alias("preloads"),
            whole(DEFAULT_LAYER).alias("default_whole"),
            whole(NODE_LAYER).alias("node_whole"),
        )
        .select(
            *_NODE,
            (F.col("preloads") & F.col("default_whole")).alias("default_preloaded"),
            (F.col("preloads") & F.col("node_whole")).alias("node_preloaded"),
        )
    )


# What each order of the two dynamic layers leaves applied (``layer_order``).
_BOTH, _DEFAULT_ONLY, _NODE_ONLY, _NEITHER = (
    "both layers",
    "the cluster-default layer only",
    "the per-broker layer only",
    "neither layer",
)


def layer_order(alone: Column, full_after_node: Column) -> Column:
    """NULL, or ``struct(default_first, node_first, keys, reasons)`` when what a broker runs depends on the order
    of its two dynamic layers (``alone``, ``full_after_node``: the failed checks of the per-broker-first order's two
    updates; the pivoted views' columns otherwise).

    At a (re)start a KRaft broker applies its stored cluster-default and per-broker layers as
    ``DynamicConfigPublisher.onMetadataUpdate`` iterates ``ConfigurationsDelta.changes()``, a ``HashMap`` keyed by
    ``ConfigResource`` (whose hash mixes the enum's identity hash): in either order, from one JVM run to the next
    (confluentinc/kafka 3.9, 4.2, 4.4: core/.../metadata/DynamicConfigPublisher.scala,
    metadata/.../image/ConfigurationsDelta.java). Each update validates static + stored default + stored per-broker
    against what the broker runs; a refused update keeps the previous config but its layer stays stored, so the
    next update carries it. kraft-audit resolves the cluster-default-first outcome (``rejected_layers``); this
    column names both when they leave different values (``keys``: the keys whose values differ)."""
    default_first = (
        F.when(F.size("full") == 0, F.lit(_BOTH))
        .when(F.size("lower") > 0, F.lit(_NEITHER))
        .otherwise(F.lit(_DEFAULT_ONLY))
    )
    node_first = (
        F.when(F.size(full_after_node) == 0, F.lit(_BOTH))
        .when(F.size(alone) == 0, F.lit(_NODE_ONLY))
        .otherwise(F.lit(_NEITHER))
    )

    def runs(outcome: Column) -> Column:
        return (
            F.when(outcome == _BOTH, F.col("full_cfg"))
            .when(outcome == _DEFAULT_ONLY, F.col("lower_cfg"))
            .when(outcome == _NODE_ONLY, F.col("alone_cfg"))
            .otherwise(F.col("base_cfg"))
        )

    first, other = runs(default_first), runs(node_first)
    keys = F.array_sort(
        F.filter(
            F.array_distinct(F.concat(F.map_keys(first), F.map_keys(other))), lambda k: ~first[k].eqNullSafe(other[k])
        )
    )
    reasons = F.array_sort(F.array_distinct(F.concat(F.col("lower"), F.col("full"), alone, full_after_node)))
    return F.when(
        (default_first != node_first) & (F.size(keys) > 0),
        F.struct(
            default_first.alias("default_first"),
            node_first.alias("node_first"),
            keys.alias("keys"),
            reasons.alias("reasons"),
        ),
    )


def rejected_layers(failed_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id, layer, rejected)``: the dynamic layers a broker refuses, with the reason, from its
    views' failed checks (``failed_by_view``)."""
    decided_df = failed_df.where(F.size(F.coalesce(F.col("full"), F.array())) > 0).where(
        F.size(F.coalesce(F.col("base"), F.array())) == 0
    )
    default_fails = F.size(F.coalesce(F.col("lower"), F.array())) > 0

    def text(col: str) -> Column:
        return F.array_join(F.col(col), "; ")

    node_reason = F.when(
        default_fails,
        F.concat(
            F.lit("belongs to the per-broker layer, which brokers build on the stored cluster-default layer that "),
            F.lit("fails KafkaConfig's checks: "),
            text("full"),
        ),
    ).otherwise(F.concat(F.lit("belongs to a per-broker layer that fails KafkaConfig's checks: "), text("full")))
    default_reason = F.concat(
        F.lit("belongs to the cluster-default layer, which fails KafkaConfig's checks: "), text("lower")
    )
    return decided_df.select(
        *_NODE,
        F.explode(
            F.when(
                default_fails,
                F.array(
                    F.struct(F.lit(DEFAULT_LAYER).alias("layer"), default_reason.alias("rejected")),
                    F.struct(F.lit(NODE_LAYER).alias("layer"), node_reason.alias("rejected")),
                ),
            ).otherwise(F.array(F.struct(F.lit(NODE_LAYER).alias("layer"), node_reason.alias("rejected"))))
        ).alias("r"),
    ).select(
        *_NODE, "r.layer", F.concat(F.col("r.rejected"), F.lit("; the broker keeps the layers below")).alias("rejected")
    )


def without_rejected_layers(layers_df: DataFrame, failed_df: DataFrame | None) -> DataFrame:
    """``layers_df`` (``LAYER_COLUMNS``, from ``to_broker_layers``) with the rows of refused layers marked ignored
    (``ignored_kind`` ``REJECTED_CONFIG_LAYER``), decided from ``failed_by_view`` of the same layers. None (no
    layer checks): nothing changes."""
    if failed_df is None:
        return layers_df
    refused_df = rejected_layers(failed_df)
    is_refused = F.col("ignored_reason").isNull() & F.col("rejected").isNotNull()
    return layers_df.join(refused_df, on=[*_NODE, "layer"], how="left").select(
        *LAYER_COLUMNS[:-2],
        F.when(is_refused, F.col("rejected")).otherwise(F.col("ignored_reason")).alias("ignored_reason"),
        F.when(is_refused, F.lit(REJECTED_CONFIG_LAYER)).otherwise(F.col("ignored_kind")).alias("ignored_kind"),
    )


def without_node_layer(layers_df: DataFrame, failed_df: DataFrame | None) -> DataFrame:
    """``layers_df`` as it would be with every per-broker layer deleted: its rows without that layer, the others
    judged as ``without_rejected_layers`` judges a broker with no per-broker layer.

    ``failed_df`` is ``failed_by_view`` of ``layers_df`` itself: a layer's rows are judged one by one
    (``to_broker_layers``), so deleting the per-broker layer changes no other row, and leaves the static and
    cluster-default views as they were. The full view becomes the cluster-default view: the cluster-default
    layer is then refused when that view fails and the static one passes (with the per-broker layer it may have
    been applied: Kafka checks the layers together, and a per-broker value can mend the default's)."""
    remaining_df = layers_df.where(F.col("layer") != NODE_LAYER)
    if failed_df is None:
        return remaining_df
    alone_df = failed_df.select(*_NODE, F.col("lower").alias("full"), "lower", "base")
    return without_rejected_layers(remaining_df, alone_df)
