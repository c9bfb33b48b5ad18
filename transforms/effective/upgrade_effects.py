"""The upgrade's own side effects: configs the feature update writes (``UPGRADE_EFFECTS``, docs/contract.md §5.7).

Kafka semantics (docs/kafka-semantics.md §4.1; confluentinc/kafka 4.1–4.4 and master):

* ``kafka-features.sh upgrade --release-version X`` (tools/src/main/java/org/apache/kafka/tools/FeatureCommand.java,
  ``handleUpgradeOrDowngrade``) sends ``metadata.version`` = X and, for every production feature, its
  ``Feature.defaultLevel(X)`` when that level is > 0 — whatever the level the cluster already has. ``--metadata X``
  sends ``metadata.version`` only.
* ``eligible.leader.replicas.version`` level 1 has bootstrap metadata.version ``IBP_4_1_IV0``
  (server-common/src/main/java/org/apache/kafka/server/common/EligibleLeaderReplicasVersion.java), so its default
  level is 1 from 4.1-IV0 on (``Feature.defaultVersion``) and the request carries it.
* ``ConfigurationControlManager.updateFeatures`` (metadata/src/main/java/org/apache/kafka/controller/
  ConfigurationControlManager.java) calls ``maybeGenerateElrSafetyRecords`` when the update succeeds, is not
  validate-only and carries ``eligible.leader.replicas.version`` > 0. That writes, in the same atomic batch, a
  cluster-level (BROKER ``""``) ``min.insync.replicas`` when none exists — the value
  ``KafkaConfigSchema.getStaticallyConfiguredMinInsyncReplicas(staticConfig)``: the active controller's
  ``server.properties`` value (its ``config.originals``, ControllerServer.scala) parsed as an INT, else the ConfigDef
  default (1) — and a delete of ``min.insync.replicas`` for every broker id that has it set per broker.
* A cluster already at ELR ≥ 1 has a cluster-level value (written by the bootstrap, ActivationRecordsGenerator, or
  by the update that enabled ELR) and no per-broker one (``validateAlterConfig`` rejects both changes while ELR is
  enabled), so the same computation yields nothing there; it is not special-cased.
* A downgrade (target below the current level) uses ``kafka-features.sh downgrade``; no effect is predicted.

Which node is a controller: a ``--static-config`` file (the first by path per node, as for brokers) whose
``process.roles`` lists ``controller``; without ``process.roles``, a node registered as a controller
(``REGISTER_CONTROLLER_RECORD``) or not registered as a broker. The active controller at upgrade time is not in the
log, so the value is known only when every controller's file agrees, parses, and every registered controller has a
file; otherwise the value of the lowest controller node id (or the default, when no controller file exists) is
used and the row is ``is_assumed`` (an ``ASSUMED_UPGRADE_EFFECT`` finding says why).
"""

from __future__ import annotations

import shlex
from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.evaluation import ELR_LEVEL
from schemas.kafka_vocabulary import AlterConfigOpType, ConfigSource, ResourceType
from schemas.metadata_version import MetadataVersion
from schemas.per_cluster import PerCluster, Targets
from schemas.silver import DYNAMIC_CONFIGS
from schemas.upgrade_effects import UPGRADE_EFFECTS, UpgradeWith
from transforms.kit.finding_rows import finding_rows
from transforms.kit.per_cluster import per_cluster_column, target_level_column, target_name_column

__all__ = [
    "ELR_ENABLING_MV",
    "ELR_FEATURE",
    "apply_upgrade_effects",
    "to_upgrade_effect_findings",
    "to_upgrade_effects",
    "with_elr_after_upgrade",
]

ELR_FEATURE: Final = "eligible.leader.replicas.version"
# EligibleLeaderReplicasVersion.ELRV_1's bootstrapMetadataVersion on confluentinc/kafka 4.0 ... master.
ELR_ENABLING_MV: Final = "4.1-IV0"
MIN_ISR: Final = "min.insync.replicas"
ASSUMED_KIND: Final = "ASSUMED_UPGRADE_EFFECT"
MECHANISM: Final = (
    "ConfigurationControlManager.updateFeatures -> maybeGenerateElrSafetyRecords "
    "(the request carries eligible.leader.replicas.version=1)"
)
REFERENCE: Final = (
    "confluentinc/kafka 4.1: metadata/src/main/java/org/apache/kafka/controller/ConfigurationControlManager.java; "
    "server-common/src/main/java/org/apache/kafka/server/common/EligibleLeaderReplicasVersion.java; "
    "tools/src/main/java/org/apache/kafka/tools/FeatureCommand.java"
)
_KEYS: Final = ["cluster_id", "resource_type", "resource_name", "name"]


def to_upgrade_effects(
    *,
    dynamic_configs_df: DataFrame,
    features_df: DataFrame,
    cluster_state_df: DataFrame,
    brokers_df: DataFrame,
    controllers_df: DataFrame,
    static_configs_df: DataFrame,
    target_keys_df: DataFrame,
    target: Targets,
    elr_level: int,
    upgrade_with: UpgradeWith | PerCluster[UpgradeWith],
    target_release: Column | None = None,
) -> DataFrame:
    """``UPGRADE_EFFECTS`` rows (without run columns) of upgrading every cluster to ``target``.

    Args:
        dynamic_configs_df: silver ``DYNAMIC_CONFIGS`` (the state before the upgrade).
        features_df: silver ``FEATURES``.
        cluster_state_df: silver ``CLUSTER_STATE`` (one row per cluster; ``current_level``).
        brokers_df: silver ``BROKERS``; controllers_df: silver ``CONTROLLERS``.
        static_configs_df: bronze ``STATIC_CONFIGS`` (``--static-config`` files, controllers' included).
        target_keys_df: ``CATALOG_CONFIG_KEYS`` rows of the target's catalog release (gives the default); of the
            targets' releases when ``target_release`` names each cluster's.
        target: the target metadata.version (per cluster: a ``PerCluster``).
        elr_level: the feature level of ``ELR_ENABLING_MV``.
        upgrade_with: the command form (per cluster: a ``PerCluster``).
        target_release: the catalog release of the cluster's target, when ``target_keys_df`` holds several.

    NULL behaviour: a cluster with NULL ``current_level`` is treated as upgrading; a controller's
    ``min.insync.replicas`` that is not an integer ≥ 1 makes the value assumed.
    """
    level = target_level_column(target)
    predicts = per_cluster_column(upgrade_with, lambda form: F.lit(form == UpgradeWith.RELEASE_VERSION)) & (
        level >= F.lit(elr_level)
    )
    is_upgrade = F.col("current_level").isNull() | (F.col("current_level") <= level)
    release = F.lit(None).cast("string") if target_release is None else target_release
    clusters_df = (
        cluster_state_df.where(predicts & is_upgrade)
        .join(
            features_df.where(F.col("feature") == ELR_FEATURE).select("cluster_id", F.col("level").alias("elr_level")),
            on="cluster_id",
            how="left",
        )
        .select(
            "cluster_id",
            F.coalesce(F.col("elr_level"), F.lit(0)).alias("feature_level_before"),
            release.alias("_release"),
        )
    )
    default_df = target_keys_df.where(
        (F.col("resource_type") == ResourceType.BROKER) & (F.col("name") == MIN_ISR)
    ).select(
        (F.lit(None).cast("string") if target_release is None else F.col("release")).alias("_default_release"),
        F.col("default_value").alias("default_value"),
    )
    min_isr_df = dynamic_configs_df.where((F.col("resource_type") == ResourceType.BROKER) & (F.col("name") == MIN_ISR))
    generated_df = _generated_cluster_value(
        clusters_df.join(default_df, on=F.col("_release").eqNullSafe(F.col("_default_release")), how="inner").drop(
            "_default_release"
        ),
        min_isr_df.where(F.col("resource_name") == ""),
        _controller_values(static_configs_df, brokers_df, controllers_df),
        controllers_df,
        target,
    )
    deleted_df = _deleted_broker_values(clusters_df, min_isr_df.where(F.col("resource_name") != ""), target)
    return generated_df.unionByName(deleted_df).select(*UPGRADE_EFFECTS.fieldNames())


def with_elr_after_upgrade(
    cluster_df: DataFrame, features_df: DataFrame, upgrade_with: UpgradeWith | PerCluster[UpgradeWith]
) -> DataFrame:
    """``cluster_df`` with ``elr_level`` (``schemas.evaluation.ELR_LEVEL``): ``eligible.leader.replicas.version``
    once the upgrade command reached a level at or above ``ELR_ENABLING_MV`` — at least 1 with ``--release-version``
    (its default level there), the current level with ``--metadata`` (only ``metadata.version`` moves).

    The catalog's per-broker ``min.insync.replicas`` rule reads it as ``cluster.elr_level``: the controller refuses
    that value only while ELR is enabled (``FeatureControlManager.isElrFeatureEnabled``), and measured with Kafka's
    brokers (oracle scenario ``elr-metadata-only-upgrade``, 4.2.0 and 4.4.0) a ``--metadata`` upgrade leaves the
    feature at 0 and the per-broker value accepted and applied.
    """
    current_df = features_df.where(F.col("feature") == ELR_FEATURE).select(
        "cluster_id", F.col("level").alias("_elr_now")
    )
    now = F.coalesce(F.col("_elr_now"), F.lit(0))
    after = per_cluster_column(
        upgrade_with, lambda form: F.greatest(now, F.lit(1)) if form == UpgradeWith.RELEASE_VERSION else now
    )
    return (
        cluster_df.join(current_df, on="cluster_id", how="left")
        .withColumn(ELR_LEVEL, after.cast("int"))
        .drop("_elr_now")
    )


def apply_upgrade_effects(dynamic_configs_df: DataFrame, effects_df: DataFrame) -> DataFrame:
    """``DYNAMIC_CONFIGS`` after the effects: DELETE rows removed, SET rows written (NULL offsets and timestamps,
    as no record has set them yet)."""
    touched_df = effects_df.select(
        "cluster_id", "resource_type", "resource_name", F.col("config_name").alias("name"), "operation", "value_after"
    )
    kept_df = dynamic_configs_df.join(touched_df.select(*_KEYS), on=_KEYS, how="left_anti")
    written_df = touched_df.where(F.col("operation") == AlterConfigOpType.SET).select(
        *_KEYS,
        F.col("value_after").alias("value"),
        F.lit(None).cast("string").alias("value_hash"),
        F.lit(None).cast("long").alias("source_offset"),
        F.lit(None).cast("timestamp").alias("source_timestamp"),
        F.lit(False).alias("from_snapshot"),
    )
    names = DYNAMIC_CONFIGS.fieldNames()
    return kept_df.select(*names).unionByName(written_df.select(*names))


def to_upgrade_effect_findings(effects_df: DataFrame) -> DataFrame:
    """``FINDING_ROWS``: one ``ASSUMED_UPGRADE_EFFECT`` per effect whose value is assumed."""
    return finding_rows(
        effects_df.where(F.col("is_assumed")),
        kind=ASSUMED_KIND,
        message=F.col("message"),
        offset=None,
        resource_type=F.col("resource_type"),
        resource_name=F.col("resource_name"),
        config_name=F.col("config_name"),
    )


def _controller_values(static_configs_df: DataFrame, brokers_df: DataFrame, controllers_df: DataFrame) -> DataFrame:
    """Per controller node with a ``--static-config`` file: ``(cluster_id, node_id, is_set, static_value,
    parsed)`` — the file's ``min.insync.replicas`` and its INT value (NULL when set but not an integer ≥ 1)."""
    first_df = static_configs_df.groupBy("cluster_id", "node_id").agg(F.min("source_file").alias("source_file"))
    file_df = static_configs_df.join(first_df, on=["cluster_id", "node_id", "source_file"], how="inner")
    roles = F.transform(F.split(F.col("value"), ","), lambda role: F.trim(role))
    roles_df = file_df.where(F.col("name") == "process.roles").select(
        "cluster_id", "node_id", F.array_contains(roles, "controller").alias("has_controller_role")
    )
    registered_df = controllers_df.select(
        "cluster_id", F.col("controller_id").alias("node_id"), F.lit(True).alias("is_registered_controller")
    )
    broker_ids_df = brokers_df.select("cluster_id", "node_id", F.lit(True).alias("is_broker"))
    is_controller = F.coalesce(
        F.col("has_controller_role"),
        F.col("is_registered_controller"),
        F.col("is_broker").isNull(),
    )
    static = F.trim(F.col("value"))
    # ConfigDef.parseType(INT): Integer.parseInt of the trimmed text; KafkaConfig then requires at least 1.
    parsed = F.when(static.rlike(r"^[+-]?[0-9]{1,10}$"), static.try_cast("long"))
    valid = F.when((parsed >= 1) & (parsed <= F.lit(2**31 - 1)), parsed.cast("int"))
    values_df = file_df.where(F.col("name") == MIN_ISR).select(
        "cluster_id", "node_id", F.col("value").alias("static_value"), valid.alias("parsed")
    )
    return (
        first_df.join(roles_df, on=["cluster_id", "node_id"], how="left")
        .join(registered_df, on=["cluster_id", "node_id"], how="left")
        .join(broker_ids_df, on=["cluster_id", "node_id"], how="left")
        .where(is_controller)
        .join(values_df, on=["cluster_id", "node_id"], how="left")
        .select(
            "cluster_id",
            "node_id",
            F.col("static_value").isNotNull().alias("is_set"),
            "static_value",
            "parsed",
        )
    )


def _generated_cluster_value(
    clusters_df: DataFrame,
    cluster_min_isr_df: DataFrame,
    controller_values_df: DataFrame,
    controllers_df: DataFrame,
    target: Targets,
) -> DataFrame:
    """The SET of the cluster-level value, for clusters that have none (``maybeGenerateElrSafetyRecords``)."""
    controllers_agg_df = _controller_views(controller_values_df, clusters_df)
    missing_df = _controllers_without_file(controllers_df, controller_values_df)
    no_file = F.col("first").isNull()
    first_valid = F.col("first.resolved").isNotNull()
    value_after = F.when(no_file | ~first_valid, F.col("default_value")).otherwise(F.col("first.resolved"))
    from_static = ~no_file & first_valid & F.col("first.is_set")
    reasons = F.concat_ws(
        "; ",
        F.when(no_file, F.lit("no --static-config of a controller node was given")),
        F.when(F.col("invalid_values") > 0, F.lit("a controller's min.insync.replicas is not an integer ≥ 1")),
        F.when(
            F.col("distinct_values") > 1,
            F.lit("the controllers' server.properties disagree and the active controller is not known"),
        ),
        F.when(
            F.col("missing").isNotNull(),
            F.concat(F.lit("registered controller(s) "), F.col("missing"), F.lit(" have no --static-config")),
        ),
    )
    is_assumed = reasons != ""
    source, assumed_note = _value_origin_text(value_after, no_file=no_file, from_static=from_static, reasons=reasons)
    message = F.concat(
        _intro(target),
        F.lit(f"the controller writes the cluster-level {MIN_ISR}="),
        value_after,
        F.lit(" (none is set) from "),
        source,
        F.when(is_assumed, assumed_note).otherwise(F.lit("")),
    )
    return (
        clusters_df.join(cluster_min_isr_df.select("cluster_id"), on="cluster_id", how="left_anti")
        .join(controllers_agg_df, on="cluster_id", how="left")
        .join(missing_df, on="cluster_id", how="left")
        .select(
            *_common(target),
            F.lit("").alias("resource_name"),
            F.lit(AlterConfigOpType.SET).alias("operation"),
            F.lit(None).cast("string").alias("value_before"),
            value_after.alias("value_after"),
            F.lit(None).cast("long").alias("source_offset_before"),
            F.when(from_static, F.lit(ConfigSource.STATIC_BROKER_CONFIG))
            .otherwise(F.lit(ConfigSource.DEFAULT_CONFIG))
            .alias("value_origin"),
            F.when(~no_file, F.col("first.node_id")).cast("int").alias("controller_node_id"),
            is_assumed.alias("is_assumed"),
            message.alias("message"),
        )
    )


def _controller_views(controller_values_df: DataFrame, clusters_df: DataFrame) -> DataFrame:
    """Per cluster, what its controllers' files say: the lowest node id's entry (``first``), how many distinct and
    invalid values they hold, and each node's value described."""
    resolved = F.when(F.col("is_set"), F.col("parsed").cast("string")).otherwise(F.col("default_value"))
    per_node_df = controller_values_df.join(
        clusters_df.select("cluster_id", "default_value"), on="cluster_id", how="inner"
    ).select("cluster_id", "node_id", "is_set", "static_value", resolved.alias("resolved"))
    entry = F.struct(F.col("node_id"), F.col("resolved"), F.col("is_set"), F.col("static_value"))
    described = F.concat(
        F.col("node_id").cast("string"),
        F.lit("="),
        F.coalesce(F.col("static_value"), F.concat(F.lit("unset (default "), F.col("resolved"), F.lit(")"))),
    )
    controllers_agg_df = per_node_df.groupBy("cluster_id").agg(
        F.min(entry).alias("first"),  # the lowest node id
        F.count_distinct(F.col("resolved")).alias("distinct_values"),
        F.count(F.when(F.col("resolved").isNull(), 1)).alias("invalid_values"),
        F.array_join(F.array_sort(F.collect_list(described)), ", ").alias("described"),
    )
    return controllers_agg_df


def _controllers_without_file(controllers_df: DataFrame, controller_values_df: DataFrame) -> DataFrame:
    """Per cluster, the registered controllers no ``--static-config`` was given for (``missing``, comma-separated)."""
    return (
        controllers_df.select("cluster_id", F.col("controller_id").alias("node_id"))
        .join(controller_values_df.select("cluster_id", "node_id"), on=["cluster_id", "node_id"], how="left_anti")
        .groupBy("cluster_id")
        .agg(F.array_join(F.array_sort(F.collect_list(F.col("node_id").cast("string"))), ", ").alias("missing"))
    )


def _value_origin_text(
    value_after: Column, *, no_file: Column, from_static: Column, reasons: Column
) -> tuple[Column, Column]:
    """Where the written value comes from, and the note saying why it is assumed (when ``reasons`` is not empty)."""
    first_node = F.col("first.node_id").cast("string")
    source = (
        F.when(no_file, F.concat(F.lit("Kafka's default "), value_after))
        .when(from_static, F.concat(F.lit("controller "), first_node, F.lit("'s server.properties")))
        .when(
            F.col("first.is_set"),
            F.concat(
                F.lit("Kafka's default "), value_after, F.lit(" (controller "), first_node, F.lit("'s is invalid)")
            ),
        )
        .otherwise(
            F.concat(
                F.lit("Kafka's default "),
                value_after,
                F.lit(" (controller "),
                first_node,
                F.lit("'s server.properties does not set it)"),
            )
        )
    )
    assumed_note = F.concat(
        F.lit(" — assumed: "),
        reasons,
        F.when(~no_file, F.concat(F.lit(" (controllers: "), F.col("described"), F.lit(")"))).otherwise(F.lit("")),
        F.lit("; pass --static-config NODE=controller.properties for each controller to know the value"),
    )
    return source, assumed_note


def _deleted_broker_values(clusters_df: DataFrame, broker_min_isr_df: DataFrame, target: Targets) -> DataFrame:
    """The DELETE of every per-broker ``min.insync.replicas`` (any broker id with the key, registered or not)."""
    message = F.concat(
        _intro(target),
        F.lit("the controller deletes broker "),
        F.col("resource_name"),
        F.lit(f"'s per-broker {MIN_ISR}="),
        F.col("value"),
        F.lit("; the cluster-level value applies to it from then on"),
    )
    return clusters_df.join(broker_min_isr_df, on="cluster_id", how="inner").select(
        *_common(target),
        F.col("resource_name"),
        F.lit(AlterConfigOpType.DELETE).alias("operation"),
        F.col("value").alias("value_before"),
        F.lit(None).cast("string").alias("value_after"),
        F.col("source_offset").alias("source_offset_before"),
        F.lit(None).cast("string").alias("value_origin"),
        F.lit(None).cast("int").alias("controller_node_id"),
        F.lit(False).alias("is_assumed"),
        message.alias("message"),
    )


def _command(target: Targets) -> Column:
    # quoted as remediation.shell_quoted quotes (shlex.quote's rules): a shell never reads `<bootstrap>` as a redirect
    def words(mv: MetadataVersion) -> str:
        return shlex.join(
            ["kafka-features.sh", "--bootstrap-server", "<bootstrap>", "upgrade", "--release-version", mv.name]
        )

    return per_cluster_column(target, lambda mv: F.lit(words(mv)))


def _intro(target: Targets) -> Column:
    return F.concat(
        F.lit("`"),
        _command(target),
        F.lit(f"` raises {ELR_FEATURE} from "),
        F.col("feature_level_before").cast("string"),
        F.lit(" to 1, and "),
    )


def _common(target: Targets) -> list[Column]:
    """The columns every effect row of one cluster shares, up to ``resource_type``."""
    return [
        F.col("cluster_id"),
        target_name_column(target).alias("target_mv"),
        target_level_column(target).alias("target_level"),
        F.lit(UpgradeWith.RELEASE_VERSION).alias("upgrade_with"),
        _command(target).alias("command"),
        F.lit(ELR_FEATURE).alias("feature"),
        F.col("feature_level_before").cast("int").alias("feature_level_before"),
        F.lit(1).alias("feature_level_after"),
        F.lit(ResourceType.BROKER).alias("resource_type"),
        F.lit(MIN_ISR).alias("config_name"),
        F.lit(MECHANISM).alias("mechanism"),
        F.lit(REFERENCE).alias("reference"),
    ]
