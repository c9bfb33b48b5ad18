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

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.effective import LAYER_COLUMNS
from transforms.audit_scope import set_by_a_layer
from transforms.constraints.expressions import ansi_disabled, cfg_keys_read
from transforms.constraints.sql_text import sql_string
from transforms.effective.brokers import to_broker_effective
from transforms.effective.catalog_frames import CatalogFrames, LayerCheck
from transforms.effective.clamps import clamp_keys, with_broker_clamps_in_map
from transforms.effective.common import DEFAULT_LAYER, NODE_LAYER, STATIC_LAYER
from transforms.effective.reconfigurables import reconfigurable_keys, refused_by_reconfigurables
from transforms.releases import release_rank_column

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


def _read_keys(frames: CatalogFrames) -> DataFrame | None:
    """``(name)``: the broker keys the checks read and the members of their synonym groups; None when a check
    reads ``cfg`` in a way that cannot be listed (then every key is resolved)."""
    keys: set[str] = set()
    for check in frames.layer_checks:
        read = cfg_keys_read(check.expr_sql)
        if read is None:
            return None
        keys |= read
    keys |= clamp_keys()  # a clamped key is read with its bounds
    keys |= reconfigurable_keys()
    synonyms_df = frames.synonyms_df.where((F.col("resource_type") == "BROKER") & F.col("config_name").isin(*keys))
    listed_df = frames.config_keys_df.where(F.col("name").isin(*keys)).select("name")
    return listed_df.unionByName(synonyms_df.select(F.col("synonym").alias("name"))).distinct()


def _cfg(layers_df: DataFrame, nodes_df: DataFrame, frames: CatalogFrames) -> DataFrame:
    """``(cluster_id, node_id, catalog_release, cfg)``: the effective broker values (of the keys the checks read)
    from ``layers_df``."""
    wanted_df = _read_keys(frames)
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


# The three views a broker's checks are judged on: every applied layer, without the per-broker layer, the static
# layer alone (layer numbers: transforms.effective.common).
_VIEWS = (("full", NODE_LAYER), ("lower", DEFAULT_LAYER), ("base", STATIC_LAYER))
_SEPARATOR = "\u001f"


def _in_view(df: DataFrame, view: str) -> DataFrame:
    """``df`` with ``cluster_id`` tagged by ``view``, so one resolution judges every view (column order kept)."""
    tag = F.concat(F.col("cluster_id"), F.lit(_SEPARATOR + view))
    return df.select(*[tag.alias(c) if c == "cluster_id" else F.col(c) for c in df.columns])


def failed_by_view(layers_df: DataFrame, nodes_df: DataFrame, frames: CatalogFrames) -> DataFrame:
    """``(cluster_id, node_id, full, lower, base)``: the failed checks (as ``_failed_checks``) of each node's three
    views of its applied layers (``layers_df``: ``LAYER_COLUMNS`` from ``to_broker_layers``), resolved and checked
    in one plan (one broker resolution, not three). Without ``frames.layer_checks`` nothing fails; callers then
    skip this plan and pass None below."""
    applied_df = layers_df.where(F.col("ignored_reason").isNull())
    views_layers_df = reduce(
        DataFrame.unionByName, [_in_view(applied_df.where(F.col("layer") <= top), v) for v, top in _VIEWS]
    )
    views_nodes_df = reduce(DataFrame.unionByName, [_in_view(nodes_df, v) for v, _ in _VIEWS])
    failed_df = _failed_checks(_cfg(views_layers_df, views_nodes_df, frames), frames.layer_checks)
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
    # the reconfigurables judge each layer against what the broker runs when it arrives (``reconfigurables``)
    lower = F.array_sort(
        F.array_union(
            F.coalesce(F.col("lower_failed"), F.array().cast("array<string>")),
            refused_by_reconfigurables(F.col("base_cfg"), F.col("lower_cfg")),
        )
    )
    before_node = F.when(F.size(F.col("lower")) == 0, F.col("lower_cfg")).otherwise(F.col("base_cfg"))
    full = F.array_sort(
        F.array_union(
            F.coalesce(F.col("full_failed"), F.array().cast("array<string>")),
            refused_by_reconfigurables(before_node, F.col("full_cfg")),
        )
    )
    views = ("base_cfg", "lower_cfg", "full_cfg", "full_failed", "base_failed")
    return pivoted_df.select(*_NODE, lower.alias("lower"), *views).select(
        *_NODE, full.alias("full"), "lower", F.col("base_failed").alias("base")
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
