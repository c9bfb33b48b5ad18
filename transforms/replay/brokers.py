"""Registered brokers, their static configs, and registered controllers (silver ``BROKERS``,
``BROKER_STATIC_CONFIGS``, ``CONTROLLERS``).

Kafka semantics (``ClusterDelta``):

* the newest ``REGISTER_BROKER_RECORD`` of a broker id replaces older ones; an ``UNREGISTER_BROKER_RECORD`` after
  it drops the broker (the broker image does not check the epoch on unregistration);
* ``FENCE_BROKER_RECORD`` / ``UNFENCE_BROKER_RECORD`` and ``BROKER_REGISTRATION_CHANGE_RECORD`` (``fenced``: 1
  fence, -1 unfence, 0 no change; ``inControlledShutdown``: 1 sets it) change the current registration only when
  their epoch equals its ``brokerEpoch`` (Kafka raises on a mismatch; replay skips such records); nothing but a
  new registration clears ``inControlledShutdown``;
* ``min/max_supported_mv`` come from the registration's ``metadata.version`` feature range (NULL before 3.3);
* ``kafka_release`` is the release the broker runs, read from the maxima of **every** feature range it registered
  (metadata.version, kraft.version, group.version, transaction.version, eligible.leader.replicas.version,
  share.version, streams.version, ...) against each release's own table (``MetadataVersionTable.releases``: what a
  broker of that release registers; e.g. 4.3 and 4.4 register share.version 1 and 2, metadata.version up to
  4.3-IV0 and 4.4-IV2). ``release_candidates`` lists every release whose table agrees with each registered maximum
  (a feature a release does not register counts as 0); the oldest is taken, and more than one is a finding
  (``ambiguous_release_findings``; ``--kafka-version`` settles it). When none agrees (unstable feature versions
  enabled, a build of its own), the release of ``max_supported_mv`` in the metadata.version table is taken (the
  newest release for a level above the table, NULL when unknown) and ``release_candidates`` is empty.

Static configs: a registration's v5 ``staticConfigs`` (origin ``REGISTRATION``, last entry wins for a repeated
name), over the ``--static-config`` rows of the node (origin ``FILE``; with several files for one node the
lexicographically first ``source_file`` is used as a whole) for the keys the registration does not carry: v5
``StaticConfigs`` is a partial layer (KIP-1294: the keys that need validation), the file the whole
server.properties. ``has_static_configs`` is true when either exists and is non-empty. The ``--static-config`` file
of a controller-only node (not a registered broker; ``process.roles`` lists ``controller`` or is absent) is kept in
the same table (origin ``FILE``): a controller's configuration is a ``KafkaConfig`` too, resolved as a broker's
(``transforms.effective.controllers``).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.kafka_catalog import release_rank
from schemas.kafka_vocabulary import ResourceType
from schemas.metadata_version import MetadataVersionTable
from schemas.per_cluster import KafkaVersions, per_cluster
from schemas.silver import BROKER_STATIC_CONFIGS, BROKERS, CONTROLLERS
from transforms.kit.finding_rows import finding_rows
from transforms.kit.per_cluster import per_cluster_column
from transforms.replay.cluster_pass import output


def release_of_level(level: Column, mv_table: MetadataVersionTable) -> Column:
    """Kafka release of a metadata.version level (``MetadataVersionTable.release_of`` as a Column)."""
    pairs = [F.lit(x) for v in mv_table.levels for x in (v.level, v.release)]
    newest = mv_table.levels[-1]
    return F.when(level > newest.level, F.lit(newest.release)).otherwise(F.try_element_at(F.create_map(*pairs), level))


def release_candidates(features: Column, mv_table: MetadataVersionTable) -> Column:
    """The releases (oldest first) whose registered feature maxima (``MetadataVersionTable.releases``) equal every
    ``maxSupportedVersion`` of a registration's feature array; an empty array when none does, NULL when the
    registration has no ``metadata.version`` range (no features at all, or a broker before 3.3)."""
    ordered = sorted(mv_table.releases, key=lambda r: release_rank(r.release))
    table = F.array(
        *[
            F.struct(
                F.lit(r.release).alias("release"),
                F.create_map(*[F.lit(x) for name, top in sorted(r.features.items()) for x in (name, top)]).alias(
                    "tops"
                ),
            )
            for r in ordered
        ]
    )
    agrees = lambda r: F.forall(  # noqa: E731
        features,
        lambda f: F.coalesce(F.try_element_at(r["tops"], f["name"]), F.lit(0)) == f["maxSupportedVersion"],
    )
    if not ordered:
        return F.when(features.isNotNull(), F.array_remove(F.array(F.lit("")), ""))  # array<string not null>
    matching = F.filter(table, agrees)
    # a registration without a metadata.version range (before 3.3, or no features at all) tells nothing
    says_something = F.exists(features, lambda f: f["name"] == F.lit("metadata.version"))
    return F.when(says_something, F.transform(matching, lambda r: r["release"]))


def _file_static_configs(static_configs_df: DataFrame) -> DataFrame:
    """``--static-config`` rows of the first file per node: ``(cluster_id, node_id, name, value, value_hash)``."""
    first_file_df = static_configs_df.groupBy("cluster_id", "node_id").agg(F.min("source_file").alias("source_file"))
    return static_configs_df.join(first_file_df, on=["cluster_id", "node_id", "source_file"], how="inner").select(
        "cluster_id", "node_id", "name", "value", "value_hash"
    )


def _registered(pass_df: DataFrame) -> DataFrame:
    """The current registration of every registered broker (the pass's ``broker`` output)."""
    return output(pass_df, "broker")


def to_brokers(pass_df: DataFrame, static_configs_df: DataFrame, *, mv_table: MetadataVersionTable) -> DataFrame:
    """Silver ``BROKERS`` from the replay pass (``transforms.replay.cluster_pass``) and bronze ``STATIC_CONFIGS``."""
    file_nodes_df = (
        static_configs_df.select("cluster_id", "node_id").distinct().select("*", F.lit(True).alias("has_file"))
    )
    candidates = release_candidates(F.col("features"), mv_table)
    by_mv = release_of_level(F.col("max_supported_mv"), mv_table)
    inferred = F.coalesce(F.try_element_at(candidates, F.lit(1)), by_mv)
    return (
        _registered(pass_df)
        .join(file_nodes_df, on=["cluster_id", "node_id"], how="left")
        .select(
            "*",
            inferred.alias("kafka_release"),
            candidates.alias("release_candidates"),
            (F.col("has_registration_configs") | F.coalesce(F.col("has_file"), F.lit(False))).alias(
                "has_static_configs"
            ),
        )
        .select(*BROKERS.fieldNames())
    )


def to_broker_static_configs(pass_df: DataFrame, static_configs_df: DataFrame) -> DataFrame:
    """Silver ``BROKER_STATIC_CONFIGS`` of the registered brokers and of controller-only nodes with a file."""
    regs_df = _registered(pass_df)
    from_registration_df = regs_df.select(
        "cluster_id", "node_id", "registration_offset", F.explode("static_configs").alias("c")
    ).select(
        "cluster_id",
        "node_id",
        F.col("c.name").alias("name"),
        F.col("c.value").alias("value"),
        F.col("c.valueHash").alias("value_hash"),
        F.lit("REGISTRATION").alias("origin"),
        F.col("registration_offset").alias("source_offset"),
    )
    from_file_df = (
        _file_static_configs(static_configs_df)
        .join(regs_df.select("cluster_id", "node_id"), on=["cluster_id", "node_id"], how="inner")
        .join(
            from_registration_df.select("cluster_id", "node_id", "name"),
            on=["cluster_id", "node_id", "name"],
            how="left_anti",
        )
        .select(
            "cluster_id",
            "node_id",
            "name",
            "value",
            "value_hash",
            F.lit("FILE").alias("origin"),
            F.lit(None).cast("long").alias("source_offset"),
        )
    )
    from_controller_file_df = (
        _file_static_configs(static_configs_df)
        .join(_controller_file_nodes(static_configs_df, regs_df), on=["cluster_id", "node_id"], how="inner")
        .select(
            "cluster_id",
            "node_id",
            "name",
            "value",
            "value_hash",
            F.lit("FILE").alias("origin"),
            F.lit(None).cast("long").alias("source_offset"),
        )
    )
    return (
        from_registration_df.unionByName(from_file_df)
        .unionByName(from_controller_file_df)
        .select(*BROKER_STATIC_CONFIGS.fieldNames())
    )


def _controller_file_nodes(static_configs_df: DataFrame, regs_df: DataFrame) -> DataFrame:
    """``(cluster_id, node_id)`` of the ``--static-config`` files of controller-only nodes: not a registered broker,
    and the (first) file's ``process.roles`` lists ``controller`` or is absent (as
    ``transforms.effective.upgrade_effects`` decides; Kafka 4.x refuses to start a node without ``process.roles``, so a
    file without it is taken as the controller's)."""
    file_df = _file_static_configs(static_configs_df)
    roles = F.transform(F.split(F.col("value"), ","), lambda role: F.trim(role))
    broker_role_only_df = file_df.where(
        (F.col("name") == "process.roles") & ~F.array_contains(roles, "controller")
    ).select("cluster_id", "node_id")
    return (
        file_df.select("cluster_id", "node_id")
        .distinct()
        .join(regs_df.select("cluster_id", "node_id"), on=["cluster_id", "node_id"], how="left_anti")
        .join(broker_role_only_df, on=["cluster_id", "node_id"], how="left_anti")
    )


def to_controllers(pass_df: DataFrame) -> DataFrame:
    """Silver ``CONTROLLERS``: newest ``REGISTER_CONTROLLER_RECORD`` per id, minus later unregistrations (the replay
    pass's ``controller`` output)."""
    return output(pass_df, "controller").select(*CONTROLLERS.fieldNames())


def ambiguous_release_findings(brokers_df: DataFrame, *, kafka_version: KafkaVersions) -> DataFrame:
    """``FINDING_ROWS``: one ``AMBIGUOUS_KAFKA_RELEASE`` per broker whose registered feature ranges fit several
    releases (the oldest was taken); none when ``--kafka-version`` names the release."""
    ambiguous_df = brokers_df.where(F.coalesce(F.size("release_candidates") > 1, F.lit(False)))
    if any(per_cluster(kafka_version).values()):
        ambiguous_df = ambiguous_df.where(per_cluster_column(kafka_version, lambda given: F.lit(not given)))
    message = F.concat(
        F.lit("the feature ranges broker "),
        F.col("node_id").cast("string"),
        F.lit(" registered fit Kafka "),
        F.array_join("release_candidates", ", "),
        F.lit("; the oldest ("),
        F.col("kafka_release"),
        F.lit(") decides its base validators and defaults: pass --kafka-version to settle it"),
    )
    return finding_rows(
        ambiguous_df,
        kind="AMBIGUOUS_KAFKA_RELEASE",
        message=message,
        offset=F.col("registration_offset"),
        resource_type=ResourceType.BROKER,
        resource_name=F.col("node_id").cast("string"),
    )
