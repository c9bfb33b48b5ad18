"""Building blocks of effective-config resolution: sources, converters, per-node releases, view collapsing."""

from __future__ import annotations

from functools import reduce
from typing import Final

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.effective import COMPARED_FIELDS, RESOLVED_FIELDS, RESOLVED_TYPES
from schemas.kafka_catalog import normalize_release, release_rank
from schemas.per_cluster import KafkaVersions
from transforms.kit.per_cluster import per_cluster_column
from transforms.kit.releases import release_rank_column

# Broker layers, lowest first (DynamicBrokerConfig.updateCurrentConfig order).
STATIC_LAYER: Final = 1
DEFAULT_LAYER: Final = 2
NODE_LAYER: Final = 3

_MS_PER_HOUR: Final = 3_600_000
_MS_PER_MINUTE: Final = 60_000


def converted(value: Column, converter: Column, negative_means_unlimited: Column) -> Column:
    """A synonym's value in its target's unit (ConfigSynonym, AbstractKafkaConfig.logRetentionTimeMillis).

    ``HOURS_TO_MS`` / ``MINUTES_TO_MS`` parse the trimmed value as an int, taking 0 for blank or unparseable input
    (as Kafka's converters do), and multiply; ``NONE`` (or NULL) keeps the value. With
    ``negative_means_unlimited`` a result below 0 becomes ``-1``. NULL value stays NULL.
    """
    as_int = F.coalesce(F.trim(value).try_cast("int"), F.lit(0)).cast("long")
    unit = F.when(converter == "HOURS_TO_MS", F.lit(_MS_PER_HOUR)).when(
        converter == "MINUTES_TO_MS", F.lit(_MS_PER_MINUTE)
    )
    in_unit = (
        F.when(value.isNull(), F.lit(None).cast("string"))
        .when(unit.isNull(), value)
        .otherwise((as_int * unit).cast("string"))
    )
    is_negative = F.coalesce(negative_means_unlimited, F.lit(False)) & (F.trim(in_unit).try_cast("double") < 0)
    return F.when(is_negative, F.lit("-1")).otherwise(in_unit)


def with_catalog_release(brokers_df: DataFrame, releases_df: DataFrame, *, kafka_version: KafkaVersions) -> DataFrame:
    """``(cluster_id, node_id, catalog_release, release_rank)`` for every broker in silver ``BROKERS``.

    The wanted release is ``kafka_version`` (e.g. ``"4.2"`` or ``"4.2.1"``; per cluster when it is a
    ``PerCluster``) when given, else the broker's ``kafka_release``. The catalog release used is the newest one not
    newer than the wanted release; the oldest catalog release when the wanted one is older than all of them or
    unknown (a broker without a metadata.version range predates 3.3).

    Raises:
        ConfigError: when ``kafka_version`` is not a release.
    """
    wanted = per_cluster_column(
        kafka_version,
        lambda given: (
            F.lit(release_rank(normalize_release(given))) if given else release_rank_column(F.col("kafka_release"))
        ),
    )
    not_newer = F.when(F.col("release_rank") <= F.col("wanted_rank"), F.col("release_rank"))
    return (
        brokers_df.select("cluster_id", "node_id", wanted.alias("wanted_rank"))
        .join(F.broadcast(releases_df), how="cross")
        .groupBy("cluster_id", "node_id")
        .agg(
            F.coalesce(F.max_by("release", not_newer), F.min_by("release", "release_rank")).alias("catalog_release"),
        )
        .select(
            "cluster_id",
            "node_id",
            "catalog_release",
            release_rank_column(F.col("catalog_release")).alias("release_rank"),
        )
    )


def resolved(**fields: Column) -> Column:
    """A struct of ``RESOLVED_FIELDS`` (typed as ``RESOLVED_TYPES``) from keyword Columns (missing ones NULL)."""
    missing = set(fields) - set(RESOLVED_FIELDS)
    if missing:
        raise ValueError(f"unknown resolved fields {sorted(missing)}")
    return F.struct(*[fields.get(name, F.lit(None)).cast(kind).alias(name) for name, kind in RESOLVED_TYPES.items()])


def _compared(r: Column) -> Column:
    return F.struct(*[r[name].alias(name) for name in COMPARED_FIELDS])


def _per_key(views_df: DataFrame, by: list[str], *, views: Column) -> DataFrame:
    """``(*by, config_name, r, agreed)`` from node views (``r`` a ``resolved`` struct) grouped by ``by`` and key:
    ``r`` from the view of the oldest release, ``agreed`` when ``views`` views have the key and resolve it to the
    same ``COMPARED_FIELDS``. ``views`` may read only ``by``'s columns."""
    return (
        views_df.groupBy(*by, "config_name")
        .agg(
            F.count(F.lit(1)).alias("views_with_key"),
            F.size(F.collect_set(_compared(F.col("r")))).alias("distinct_values"),
            F.min_by(F.col("r"), F.col("r.release_rank")).alias("r"),
        )
        .select(
            *by,
            "config_name",
            "r",
            ((F.col("distinct_values") == 1) & (F.col("views_with_key") == views)).alias("agreed"),
        )
    )


def collapse_node_views(
    entity_nodes_df: DataFrame, node_views_df: DataFrame, *, own_keys_df: DataFrame | None = None
) -> DataFrame:
    """Rows per entity and key from the views of the brokers hosting it, without multiplying by broker count.

    Args:
        entity_nodes_df: ``(cluster_id, entity, node_id)``, the hosting brokers of each entity.
        node_views_df: ``(cluster_id, node_id, config_name, r)`` with ``r`` a ``resolved`` struct; one row per
            (node, key).
        own_keys_df: ``(cluster_id, entity, config_name)``, the keys each entity sets itself (its overrides), which
            get no row here. They are left out per entity (a set of names joined to the entity's view set) before
            the rows are made, so the rows, one per entity and key, are not shuffled again to take them out.

    Returns:
        ``(cluster_id, entity, node_id, config_name, r)``: one row with ``node_id`` NULL when every hosting broker
        resolves the key to the same ``COMPARED_FIELDS`` (``r`` from the view of the oldest release among them),
        else one row per hosting broker whose view has the key. Brokers are grouped into distinct views first
        (a hash of the whole view), so entities hosted by agreeing brokers cost one row per key.
    """
    node_key = ["cluster_id", "node_id"]
    sig_df = node_views_df.groupBy(*node_key).agg(
        F.sha2(
            F.to_json(F.array_sort(F.collect_list(F.struct("config_name", _compared(F.col("r")).alias("c"))))), 256
        ).alias("sig")
    )
    entity_sets_df = (
        entity_nodes_df.join(sig_df, on=node_key, how="inner")
        .groupBy("cluster_id", "entity")
        .agg(F.array_sort(F.collect_set("sig")).alias("view_set"))
    )
    if own_keys_df is None:
        inherits = F.lit(True)
        entity_keys_df = entity_sets_df
    else:
        own_df = own_keys_df.groupBy("cluster_id", "entity").agg(F.collect_set("config_name").alias("own"))
        entity_keys_df = entity_sets_df.join(own_df, on=["cluster_id", "entity"], how="left")
        inherits = ~F.coalesce(F.array_contains(F.col("own"), F.col("config_name")), F.lit(False))
    representative_df = sig_df.groupBy("cluster_id", "sig").agg(F.min("node_id").alias("node_id"))
    set_keys_df = _per_key(
        entity_sets_df.select("cluster_id", "view_set")
        .distinct()
        .select("cluster_id", "view_set", F.explode("view_set").alias("sig"))
        .join(representative_df, on=["cluster_id", "sig"], how="inner")
        .join(node_views_df, on=node_key, how="inner"),
        ["cluster_id", "view_set"],
        views=F.size("view_set"),
    )
    shared_df = (
        entity_keys_df.join(set_keys_df.where(F.col("agreed")), on=["cluster_id", "view_set"], how="inner")
        .where(inherits)
        .select("cluster_id", "entity", F.lit(None).cast("int").alias("node_id"), "config_name", "r")
    )
    divergent_df = set_keys_df.where(~F.col("agreed")).select("cluster_id", "view_set", "config_name")
    per_node_df = (
        entity_keys_df.join(divergent_df, on=["cluster_id", "view_set"], how="inner")
        .where(inherits)
        .join(entity_nodes_df, on=["cluster_id", "entity"], how="inner")
        .join(node_views_df, on=["cluster_id", "node_id", "config_name"], how="inner")
        .select("cluster_id", "entity", "node_id", "config_name", "r")
    )
    return shared_df.unionByName(per_node_df)


def collapse_cluster_views(node_views_df: DataFrame) -> DataFrame:
    """``collapse_node_views`` of an entity every broker of its cluster hosts (a group: any broker may coordinate
    it), with the same rows, in one aggregate per key instead of the distinct views of each entity.

    Args:
        node_views_df: ``(cluster_id, node_id, config_name, r)`` as for ``collapse_node_views``: one row per (node,
            key); the nodes with a row are the hosting brokers.

    Returns:
        ``(cluster_id, node_id, config_name, r)``: one row with ``node_id`` NULL for a key every such node has and
        resolves to the same ``COMPARED_FIELDS`` (``r`` from a view of the oldest release: views that agree and
        share a release have the same ``r``), else the key's row of each node that has it.
    """
    views = F.size(F.collect_set("node_id").over(Window.partitionBy("cluster_id")))
    # a cluster's count of views is constant within it: grouped by, it is at hand for each key
    per_key_df = _per_key(
        node_views_df.select("*", views.alias("views")), ["cluster_id", "views"], views=F.col("views")
    )
    shared_df = per_key_df.where(F.col("agreed")).select(
        "cluster_id", F.lit(None).cast("int").alias("node_id"), "config_name", "r"
    )
    per_node_df = node_views_df.join(
        per_key_df.where(~F.col("agreed")).select("cluster_id", "config_name"),
        on=["cluster_id", "config_name"],
        how="left_semi",
    ).select("cluster_id", "node_id", "config_name", "r")
    return shared_df.unionByName(per_node_df)


def latest_key_attributes(config_keys_df: DataFrame, resource_type: str) -> DataFrame:
    """``(config_name, config_type, is_sensitive)`` of every key of a resource type, from the newest release
    defining it."""
    return (
        config_keys_df.where(F.col("resource_type") == resource_type)
        .groupBy(F.col("name").alias("config_name"))
        .agg(F.max_by(F.struct("config_type", "is_sensitive"), release_rank_column(F.col("release"))).alias("k"))
        .select(
            "config_name", F.col("k.config_type").alias("config_type"), F.col("k.is_sensitive").alias("is_sensitive")
        )
    )


def top_layer_only(df: DataFrame, *, group_col: str) -> DataFrame:
    """Rows of the highest ``layer`` per (cluster_id, node_id, ``group_col``): a higher layer setting any member
    of a synonym group removes the whole group from lower layers."""
    group = Window.partitionBy("cluster_id", "node_id", group_col)
    return df.select("*", F.max("layer").over(group).alias("top_layer")).where(F.col("layer") == F.col("top_layer"))


# KAFKA-19851 (confluentinc/kafka 4.0–4.3: metadata/src/main/java/org/apache/kafka/image/ConfigurationDelta.java
# replay + server/src/main/java/org/apache/kafka/server/config/DefaultSupportedConfigChecker.java): from 4.0,
# ConfigRecords of TOPIC / GROUP / CLIENT_METRICS keys the release's LogConfig / GroupConfig /
# ClientMetricsConfigs do not define are skipped on replay; BROKER keys are never filtered.
SKIPS_UNSUPPORTED_FROM_RANK: Final = 4000
SKIPPABLE_RESOURCE_TYPES: Final = ("TOPIC", "GROUP", "CLIENT_METRICS")
# The released patch levels that skip such keys on replay, read from each release's jars (``SupportedConfigChecker``
# in kafka-metadata / kafka-server): absent from 4.0.2, 4.1.2 and 4.2.0, present from 4.2.1, 4.3.0 and 4.4.0. The
# others keep the key in their image, and refuse the resource's next config change (measured on Kafka's brokers:
# oracle scenario binary-upgrade-keeps-a-removed-topic-config). A line named without its patch (a release inferred
# from a registration) is taken at its newest patch.
PATCHED_FROM: Final = {"4.2": "4.2.1"}
UNPATCHED_LINES: Final = ("4.0", "4.1")
_DYNAMIC_KEY: Final = ("cluster_id", "resource_type", "resource_name", "name")


def cluster_release(nodes_df: DataFrame) -> DataFrame:
    """``(cluster_id, catalog_release, release_rank)``: the newest catalog release a registered broker of the
    cluster runs (what cluster-wide entities, topic overrides, groups and subscriptions are resolved with)."""
    return nodes_df.groupBy("cluster_id").agg(
        F.max_by("catalog_release", "release_rank").alias("catalog_release"),
        F.max("release_rank").alias("release_rank"),
    )


def keeping_lines(kafka_version: str | None) -> tuple[str, ...]:
    """The catalog release lines (4.0+) whose brokers keep an unsupported key in their image rather than skip it:
    4.0 and 4.1, and a line whose first patched release is newer than ``kafka_version`` (``--kafka-version 4.2.0``)."""
    lines = list(UNPATCHED_LINES)
    if kafka_version:
        parts = kafka_version.split(".")
        line = ".".join(parts[:2])
        if line in PATCHED_FROM and len(parts) > 2 and parts[2].isdigit():
            first = int(PATCHED_FROM[line].split(".")[2])
            if int(parts[2]) < first:
                lines.append(line)
    return tuple(lines)


def _kept_by_release(kafka_version: KafkaVersions) -> Column:
    """The row's ``catalog_release`` is a line whose brokers keep an unsupported key (``keeping_lines`` of the
    release its cluster runs)."""
    return per_cluster_column(kafka_version, lambda given: F.col("catalog_release").isin(*keeping_lines(given)))


def _with_skip(dynamic_df: DataFrame, nodes_df: DataFrame, config_keys_df: DataFrame) -> DataFrame:
    """``dynamic_df`` with ``catalog_release`` (the cluster's release when it is 4.0 or newer, else NULL) and
    ``skipped``: a TOPIC, GROUP or CLIENT_METRICS key that release's catalog does not define for the resource type
    (KAFKA-19851). Whether a row is skipped depends on its own cluster, type and key only, so each row is judged
    where it is, against the clusters' releases and the catalog's keys (both broadcast): the rows are not shuffled."""
    releases_df = (
        cluster_release(nodes_df)
        .where(F.col("release_rank") >= SKIPS_UNSUPPORTED_FROM_RANK)
        .select("cluster_id", "catalog_release")
    )
    known_df = config_keys_df.select(
        F.col("release").alias("catalog_release"), "resource_type", "name", F.lit(True).alias("_known")
    ).distinct()
    skipped = (
        F.col("resource_type").isin(*SKIPPABLE_RESOURCE_TYPES)
        & F.col("catalog_release").isNotNull()
        & F.col("_known").isNull()
    )
    return (
        dynamic_df.join(F.broadcast(releases_df), on="cluster_id", how="left")
        .join(F.broadcast(known_df), on=["catalog_release", "resource_type", "name"], how="left")
        .select(*dynamic_df.columns, "catalog_release", F.coalesce(skipped, F.lit(False)).alias("skipped"))
    )


def unsupported_overrides(dynamic_df: DataFrame, nodes_df: DataFrame, config_keys_df: DataFrame) -> DataFrame:
    """Silver ``DYNAMIC_CONFIGS`` rows Kafka skips on replay (KAFKA-19851), with ``catalog_release`` (the cluster's
    release, 4.0 or newer) and ``last_release`` (the newest catalog release defining the key, NULL if none).

    A TOPIC, GROUP or CLIENT_METRICS key is skipped when the cluster's release (``cluster_release``) is 4.0 or newer
    and its catalog does not define the key for that resource type.
    """
    last_df = config_keys_df.groupBy("resource_type", "name").agg(
        F.max_by("release", release_rank_column(F.col("release"))).alias("last_release")
    )
    return (
        _with_skip(dynamic_df, nodes_df, config_keys_df)
        .where(F.col("skipped"))
        .drop("skipped")
        .join(F.broadcast(last_df), on=["resource_type", "name"], how="left")
    )


def without_unsupported(
    dynamic_df: DataFrame, nodes_df: DataFrame, config_keys_df: DataFrame, *, kafka_version: KafkaVersions = None
) -> DataFrame:
    """``dynamic_df`` without the rows ``unsupported_overrides`` names that the cluster's release skips (what Kafka's
    image holds: a release of ``keeping_lines`` keeps them). A row with a NULL key column is kept."""
    is_keyed = reduce(Column.__and__, [F.col(c).isNotNull() for c in _DYNAMIC_KEY])
    skips = ~_kept_by_release(kafka_version)
    return (
        _with_skip(dynamic_df, nodes_df, config_keys_df)
        .where(~(F.col("skipped") & skips & is_keyed))
        .select(*dynamic_df.columns)
    )


def kept_unsupported(
    dynamic_df: DataFrame, nodes_df: DataFrame, config_keys_df: DataFrame, *, kafka_version: KafkaVersions = None
) -> DataFrame:
    """The rows of ``unsupported_overrides`` the cluster's release keeps in its image (``keeping_lines``): such a
    broker refuses the resource's next config change ("Unknown topic config name")."""
    return (
        _with_skip(dynamic_df, nodes_df, config_keys_df)
        .where(F.col("skipped") & _kept_by_release(kafka_version))
        .select(*dynamic_df.columns, "catalog_release")
    )


def partial_node_flags(nodes_df: DataFrame, partial_static_df: DataFrame | None) -> DataFrame:
    """``(cluster_id, node_id, static_partial)`` of the brokers without a full server.properties; an empty frame
    of the same shape without ``partial_static_df``, so the plan keeps its join either way."""
    if partial_static_df is not None:
        return partial_static_df.select("cluster_id", "node_id", F.lit(True).alias("static_partial"))
    return nodes_df.select("cluster_id", "node_id", F.lit(False).alias("static_partial")).where(F.lit(False))


def partial_static_nodes(static_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id)`` of the brokers whose server.properties is not known in full: no ``--static-config``
    file (silver ``BROKER_STATIC_CONFIGS`` ``origin`` FILE) was given for them.

    Their static layer is a RegisterBrokerRecord v5 ``StaticConfigs`` list, which carries only the keys that need
    validation (the KIP-1294 / KIP-1326 proposal, docs/kafka-semantics.md §7), or nothing at all (an older
    registration), so a key no layer sets may still be set in server.properties.
    """
    files_df = static_df.where(F.col("origin") == "FILE").select("cluster_id", "node_id").distinct()
    return nodes_df.select("cluster_id", "node_id").join(files_df, on=["cluster_id", "node_id"], how="left_anti")
