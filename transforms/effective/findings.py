"""Findings of effective-config resolution, in ``FINDING_ROWS`` shape (gold FINDINGS without run columns).

* ``IGNORED_DYNAMIC_CONFIG``: a BROKER ConfigRecord brokers drop (read-only key, listener prefix missing,
  per-broker key at the cluster default); one finding per (resource, key), ``resource_name`` ``""`` for the
  cluster default, ``offset`` of the record.
* ``INVALID_DYNAMIC_CONFIG``: a BROKER ConfigRecord whose value the broker's ConfigDef parse rejects
  (``DynamicBrokerConfig.removeInvalidConfigs``); same shape, the message names the value (redacted when
  sensitive) and the failed check of the release the brokers run.
* ``REJECTED_CONFIG_LAYER``: a broker refuses a whole dynamic layer (cluster default or per-broker) because the
  config with it fails a ``KafkaConfig`` cross-field check (``transforms.effective.layer_validity``); one finding
  per (broker, layer) naming the checks and the keys not applied, ``offset`` of the layer's latest record.
* ``LAYER_ORDER_DEPENDENT``: a broker whose applied dynamic layers depend on the order it applies its stored
  cluster-default and per-broker layers at a restart, which Kafka does not fix (``layer_validity.layer_order``); one
  finding per broker naming both outcomes and the refusing checks.
* ``SKIPPED_ON_REPLAY``: a TOPIC / GROUP / CLIENT_METRICS override of a key the cluster's release (4.0+) does
  not define: Kafka skips it on replay (KAFKA-19851, ``transforms.effective.common.unsupported_overrides``), so it
  has no effective row; one finding per (resource, key), ``offset`` of the record.
* ``COVERAGE_GAP`` (partial static layer): a broker whose static configs come only from its RegisterBrokerRecord v5
  ``StaticConfigs`` (no ``--static-config`` file). KIP-1294 registrations carry the static keys that need
  validation, not the whole server.properties, so every other key the broker's layers do not set resolves to its
  default by assumption; one finding per broker with the number of such keys.
* ``COVERAGE_GAP``: a registered broker without static configs (no v5 ``staticConfigs``, no ``--static-config``
  file). One finding per broker; the message lists every read-only (non-internal) key of its release, which was
  therefore resolved from dynamic layers and defaults only and could not be audited against server.properties.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import ResourceType
from transforms.effective.common import DEFAULT_LAYER, PATCHED_FROM, UNPATCHED_LINES
from transforms.kit.finding_rows import finding_rows


def _broker_finding(df: DataFrame, *, kind: str, message: Column, offset: Column) -> DataFrame:
    """A finding about a whole broker (``node_id``), not one key."""
    return finding_rows(
        df,
        kind=kind,
        message=message,
        offset=offset,
        resource_type=ResourceType.BROKER,
        resource_name=F.col("node_id").cast("string"),
    )


def to_ignored_dynamic_findings(layers_df: DataFrame) -> DataFrame:
    """``IGNORED_DYNAMIC_CONFIG`` / ``INVALID_DYNAMIC_CONFIG`` findings from broker layer rows (``to_broker_layers``);
    a cluster-default record rejected differently by brokers of different releases gives one finding per reason."""
    where = F.when(F.col("resource_name") == "", F.lit("the cluster default")).otherwise(
        F.concat(F.lit("broker "), F.col("resource_name"))
    )
    message = F.concat(
        F.lit("dynamic config "),
        F.col("name"),
        F.lit(" set on "),
        where,
        F.lit(" is ignored by brokers: it "),
        F.col("ignored_reason"),
    )
    return (
        layers_df.where(F.col("ignored_reason").isNotNull() & (F.col("ignored_kind") != "REJECTED_CONFIG_LAYER"))
        .select("cluster_id", "resource_name", "name", "source_offset", "ignored_kind", message.alias("message"))
        .distinct()
        .transform(
            finding_rows,
            kind=F.col("ignored_kind"),
            message=F.col("message"),
            offset=F.col("source_offset"),
            resource_type=ResourceType.BROKER,
            resource_name=F.col("resource_name"),
            config_name=F.col("name"),
        )
    )


def to_rejected_layer_findings(layers_df: DataFrame) -> DataFrame:
    """``REJECTED_CONFIG_LAYER`` findings from broker layer rows (``without_rejected_layers``)."""
    layer_name = F.when(F.col("layer") == DEFAULT_LAYER, F.lit("cluster-default")).otherwise(F.lit("per-broker"))
    message = F.concat(
        F.lit("broker "),
        F.col("node_id").cast("string"),
        F.lit(" does not apply its "),
        layer_name,
        F.lit(" dynamic config layer ("),
        F.size("keys").cast("string"),
        F.lit(" keys: "),
        F.array_join("keys", ", "),
        F.lit("): it "),
        F.col("ignored_reason"),
    )
    return (
        layers_df.where(F.col("ignored_kind") == "REJECTED_CONFIG_LAYER")
        .groupBy("cluster_id", "node_id", "layer", "ignored_reason")
        .agg(F.array_sort(F.collect_list("name")).alias("keys"), F.max("source_offset").alias("offset"))
        .transform(_broker_finding, kind="REJECTED_CONFIG_LAYER", message=message, offset=F.col("offset"))
    )


LAYER_ORDER_DEPENDENT: Final = "LAYER_ORDER_DEPENDENT"


def to_layer_order_findings(failed_df: DataFrame) -> DataFrame:
    """``LAYER_ORDER_DEPENDENT`` findings: brokers whose applied dynamic layers depend on the order Kafka applies
    them at a restart (``layer_validity.layer_order``), one per broker, not blocking: the effective rows are the
    cluster-default-first outcome."""
    order = F.col("order")
    message = F.concat(
        F.lit("broker "),
        F.col("node_id").cast("string"),
        F.lit(" applies its stored cluster-default and per-broker layers at a restart in either order (Kafka's "),
        F.lit("DynamicConfigPublisher iterates a HashMap of config resources), and the order decides what it runs: "),
        F.lit("cluster default first, "),
        order["default_first"],
        F.lit(" (the effective configs shown); per-broker first, "),
        order["node_first"],
        F.lit("; the keys whose values differ: "),
        F.array_join(order["keys"], ", "),
        F.lit("; refused by: "),
        F.array_join(order["reasons"], "; "),
    )
    return failed_df.where(order.isNotNull()).transform(
        _broker_finding, kind=LAYER_ORDER_DEPENDENT, message=message, offset=F.lit(None).cast("long")
    )


def _replay_of_removed_keys(release: Column) -> Column:
    """What brokers of ``release`` (X.Y) do with a removed key on replay, as the message says it."""
    keeps = F.concat(
        F.lit("Kafka "),
        release,
        F.lit(" does not apply it but keeps it in its metadata image (no released 4.0.x or 4.1.x has KAFKA-19851), "),
        F.lit("and a later config change of the resource may be refused (InvalidConfigurationException)"),
    )
    patched = F.concat(F.lit("Kafka "), release, F.lit(" ignores it on replay (KAFKA-19851) and does not apply it"))
    message = F.when(release.isin(*UNPATCHED_LINES), keeps)
    for line, first in PATCHED_FROM.items():
        message = message.when(
            release == line,
            F.lit(
                f"Kafka {first} and later ignore it on replay (KAFKA-19851) and do not apply it; {line}.0 does not "
                "apply it but keeps it in its metadata image, and a later config change of the resource may be "
                "refused (InvalidConfigurationException)"
            ),
        )
    return message.otherwise(patched)


def to_skipped_config_findings(unsupported_df: DataFrame) -> DataFrame:
    """``SKIPPED_ON_REPLAY`` findings from ``unsupported_overrides`` rows."""
    known = F.when(
        F.col("last_release").isNotNull(),
        F.concat(F.lit("was removed after Kafka "), F.col("last_release")),
    ).otherwise(F.lit("is not a config of any Kafka release the catalog knows"))
    message = F.concat(
        F.lit("config "),
        F.col("name"),
        F.lit("="),
        F.coalesce(F.col("value"), F.lit("null")),
        F.lit(" set on "),
        F.lower(F.col("resource_type")),
        F.lit(" "),
        F.col("resource_name"),
        F.lit(" "),
        known,
        F.lit(": "),
        _replay_of_removed_keys(F.col("catalog_release")),
        F.lit("; delete it"),
    )
    return finding_rows(
        unsupported_df,
        kind="SKIPPED_ON_REPLAY",
        message=message,
        offset=F.col("source_offset"),
        resource_type=F.col("resource_type"),
        resource_name=F.col("resource_name"),
        config_name=F.col("name"),
    )


def to_partial_static_findings(
    static_df: DataFrame, layers_df: DataFrame, nodes_df: DataFrame, config_keys_df: DataFrame, synonyms_df: DataFrame
) -> DataFrame:
    """``COVERAGE_GAP`` findings for brokers whose static layer is only the registration's ``StaticConfigs``."""
    partial_df = (
        static_df.groupBy("cluster_id", "node_id")
        .agg(
            F.count(F.lit(1)).alias("carried"),
            F.max((F.col("origin") == "FILE").cast("int")).alias("has_file"),
            F.max("source_offset").alias("offset"),
        )
        .where(F.col("has_file") == 0)
        .join(nodes_df, on=["cluster_id", "node_id"], how="inner")
    )
    groups_df = synonyms_df.where(F.col("resource_type") == ResourceType.BROKER).select(
        F.col("release").alias("catalog_release"), F.col("synonym").alias("name"), F.col("config_name").alias("grp")
    )

    def grouped(df: DataFrame) -> DataFrame:
        return df.join(F.broadcast(groups_df), on=["catalog_release", "name"], how="left").select(
            "*", F.coalesce(F.col("grp"), F.col("name")).alias("group_key")
        )

    set_df = (
        grouped(layers_df.where(F.col("ignored_reason").isNull()))
        .select("cluster_id", "node_id", "group_key")
        .distinct()
    )
    keys_df = config_keys_df.where((F.col("resource_type") == ResourceType.BROKER) & ~F.col("is_internal")).select(
        F.col("release").alias("catalog_release"), "name"
    )
    assumed_df = (
        grouped(partial_df.select("cluster_id", "node_id", "catalog_release").join(keys_df, on="catalog_release"))
        .join(set_df, on=["cluster_id", "node_id", "group_key"], how="left_anti")
        .groupBy("cluster_id", "node_id")
        .agg(F.count(F.lit(1)).alias("assumed"))
    )
    message = F.concat(
        F.lit("broker "),
        F.col("node_id").cast("string"),
        F.lit("'s static configs come only from its RegisterBrokerRecord v5 StaticConfigs ("),
        F.col("carried").cast("string"),
        F.lit(" keys), which carry the keys that need validation, not the whole server.properties: "),
        F.coalesce(F.col("assumed"), F.lit(0)).cast("string"),
        F.lit(" keys no layer sets were resolved to Kafka "),
        F.col("catalog_release"),
        F.lit("'s defaults by assumption; pass --static-config "),
        F.col("node_id").cast("string"),
        F.lit("=server.properties to audit them"),
    )
    return partial_df.join(assumed_df, on=["cluster_id", "node_id"], how="left").transform(
        _broker_finding, kind="COVERAGE_GAP", message=message, offset=F.col("offset")
    )


def to_coverage_findings(brokers_df: DataFrame, nodes_df: DataFrame, config_keys_df: DataFrame) -> DataFrame:
    """``COVERAGE_GAP`` findings for brokers whose static layer is unknown."""
    read_only_df = (
        config_keys_df.where(
            (F.col("resource_type") == ResourceType.BROKER)
            & (F.col("dynamic_scope") == "read-only")
            & ~F.col("is_internal")
        )
        .groupBy(F.col("release").alias("catalog_release"))
        .agg(F.array_sort(F.collect_list("name")).alias("keys"))
    )
    keys = F.coalesce(F.col("keys"), F.array().cast("array<string>"))
    message = F.concat(
        F.lit("broker "),
        F.col("node_id").cast("string"),
        F.lit(" registered no static configs (no RegisterBrokerRecord v5 staticConfigs, no --static-config file): "),
        F.lit("its server.properties layer is unknown, so its "),
        F.size(keys).cast("string"),
        F.lit(" read-only configs of Kafka "),
        F.col("catalog_release"),
        F.lit(" were resolved from defaults and could not be audited: "),
        F.array_join(keys, ", "),
    )
    return (
        brokers_df.where(~F.col("has_static_configs"))
        .join(nodes_df, on=["cluster_id", "node_id"], how="inner")
        .join(read_only_df, on="catalog_release", how="left")
        .transform(_broker_finding, kind="COVERAGE_GAP", message=message, offset=F.col("registration_offset"))
    )
