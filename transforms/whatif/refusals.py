"""The changes Kafka's brokers would refuse outright: the dynamic BROKER layers a change leaves unapplied.

A broker validates an (Incremental)AlterConfigs of a BROKER resource as the whole layer it leaves, the stored keys
with the request's operations applied (confluentinc/kafka 3.7 ... 4.4: ``ConfigAdminManager.preprocess`` →
``DynamicBrokerConfig.validate``): a key that is not dynamic there or whose value its ConfigDef rejects fails the
request (``validateConfigs``), and so does a reconfigurable component (thread pools, the log cleaner, the log
config) rejecting the broker's config with the new layer in place (``processReconfiguration`` in validate-only
mode), which also sees the per-broker layers above a cluster-default change. The request is refused with
InvalidRequestException and nothing is written — while the same layer written past that validation (through the
controller, or by another tool) is stored and not applied, which is what the resolution reports of a state
(``transforms.effective.unapplied_layer_rows``). So, read on the state after a change:

* a per-broker change (``BROKER "N"``) is refused when broker ``N``'s per-broker layer has a row it does not apply;
* a cluster-default change (``BROKER ""``) is refused when some broker does not apply a row of its cluster-default
  layer, or refuses its per-broker layer whole (``REJECTED_CONFIG_LAYER``).

A GROUP change is refused when a key it sets is outside the bounds the broker's group coordinator sets for it
(``GroupConfig.validate`` → ``validateValues``: session timeouts, heartbeat and assignment intervals, share record
locks and delivery counts, streams standby and warm-up replicas, task offset interval; confluentinc/kafka 4.0 ...
4.4): from 4.3 a broker caps such a stored value into its bounds (``transforms.effective.clamps``), so the request
is refused exactly when the state after it holds a capped value of that key (``refused_group_changes``); before
4.3 the constraint rules flag the value itself. Kafka 4.3.1 and 4.4.0 refuse a ``consumer.session.timeout.ms`` of
1000 so (oracle scenario ``refused-topic-group-client-metrics-changes``).

A TOPIC change is refused when the topic holds a key its brokers' release does not define but keeps in its image
(KAFKA-19851 is not in 4.0.x, 4.1.x and 4.2.0: ``transforms.effective.common.kept_unsupported``): the controller
validates the topic's whole config after the change and names the key ("Unknown topic config name"), whatever the
request sets; deleting the key is accepted. Kafka 4.0.2, 4.1.2 and 4.2.0 refuse a ``segment.ms`` change of a topic
that kept a 3.x ``message.format.version`` so (oracle scenario ``binary-upgrade-keeps-a-removed-topic-config``).

Static (``server.properties``) changes are not requests and are never refused here; other topic and client changes
are judged by the constraint rules their validators generate.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from schemas.changes import ChangeSet
from schemas.kafka_vocabulary import ResourceType
from transforms.effective.clamps import CLAMPED_DYNAMIC_CONFIG
from transforms.effective.common import DEFAULT_LAYER, NODE_LAYER
from transforms.effective.layer_validity import REJECTED_CONFIG_LAYER

__all__ = ["REFUSED_CHANGE_COLUMNS", "refused_broker_changes", "refused_group_changes", "refused_topic_changes"]

# The finding kind a refusal for a kept unsupported key is filed under (as resolution reports the key).
SKIPPED_ON_REPLAY: Final = "SKIPPED_ON_REPLAY"

REFUSED_CHANGE_COLUMNS: Final = ("cluster_id", "resource_name", "node_id", "name", "ignored_kind", "ignored_reason")


def refused_broker_changes(changes: ChangeSet, unapplied_df: DataFrame) -> DataFrame:
    """``REFUSED_CHANGE_COLUMNS``: per dynamic BROKER change of ``changes``, the unapplied rows
    (``unapplied_layer_rows`` of the state after the changes) that make a broker refuse it; no row for a change a
    broker accepts.

    Args:
        changes: the validated change set (a change without ``cluster_id`` applies to every cluster).
        unapplied_df: ``unapplied_layer_rows`` of the state after the changes, with plain cluster ids.
    """
    changes_df = _changed_resources(changes, ResourceType.BROKER, unapplied_df.sparkSession)
    is_default = F.col("resource_name") == ""
    blocks = F.when(
        is_default,
        (F.col("layer") == DEFAULT_LAYER)
        | ((F.col("layer") == NODE_LAYER) & (F.col("ignored_kind") == REJECTED_CONFIG_LAYER)),
    ).otherwise((F.col("layer") == NODE_LAYER) & (F.col("node_id").cast("string") == F.col("resource_name")))
    in_cluster = F.col("change_cluster").isNull() | (F.col("change_cluster") == F.col("cluster_id"))
    return (
        unapplied_df.join(F.broadcast(changes_df), on=in_cluster & blocks, how="inner")
        .select(*REFUSED_CHANGE_COLUMNS)
        .dropDuplicates()
    )


def refused_group_changes(changes: ChangeSet, effective_df: DataFrame) -> DataFrame:
    """``REFUSED_CHANGE_COLUMNS`` (``resource_name`` the group, ``node_id`` a broker that caps it): per dynamic GROUP
    change of ``changes``, the keys it sets that the state after it holds capped (``effective_df``: the effective
    rows after the changes, plain cluster ids; a capped row has ``value_set``)."""
    spark = effective_df.sparkSession
    wanted = sorted(
        {
            (change.cluster_id, change.resource_name, key)
            for change in changes.changes
            if change.resource_type == ResourceType.GROUP and change.layer == "dynamic"
            for key in (
                [op.key for op in change.ops if op.op != "DELETE"] if change.ops is not None else change.replace or {}
            )
        },
        key=lambda c: (c[0] or "", c[1], c[2]),
    )
    changes_df = spark.createDataFrame(wanted, "change_cluster string, resource_name string, config_name string")
    in_cluster = F.col("change_cluster").isNull() | (F.col("change_cluster") == F.col("cluster_id"))
    capped_df = effective_df.where(
        (F.col("resource_type") == ResourceType.GROUP) & F.col("value_set").isNotNull()
    ).select("cluster_id", "resource_name", "node_id", "config_name", "value", "value_set")
    reason = F.concat(
        F.lit("GroupConfig.validate: "),
        F.col("config_name"),
        F.lit("="),
        F.col("value_set"),
        F.lit(" is outside the bounds the broker's group coordinator sets for it (the broker would use "),
        F.col("value"),
        F.lit(")"),
    )
    return (
        capped_df.join(F.broadcast(changes_df), on=["resource_name", "config_name"], how="inner")
        .where(in_cluster)
        .select(
            "cluster_id",
            "resource_name",
            "node_id",
            F.col("config_name").alias("name"),
            F.lit(CLAMPED_DYNAMIC_CONFIG).alias("ignored_kind"),
            reason.alias("ignored_reason"),
        )
        .dropDuplicates()
    )


def refused_topic_changes(changes: ChangeSet, kept_df: DataFrame) -> DataFrame:
    """``REFUSED_CHANGE_COLUMNS`` (``node_id`` NULL: the controller refuses): per dynamic TOPIC change of ``changes``,
    the keys the topic still holds after it that its release keeps without defining them (``kept_df``:
    ``kept_unsupported`` of the state after the changes, plain cluster ids)."""
    changes_df = _changed_resources(changes, ResourceType.TOPIC, kept_df.sparkSession)
    in_cluster = F.col("change_cluster").isNull() | (F.col("change_cluster") == F.col("cluster_id"))
    reason = F.concat(
        F.lit("Unknown topic config name: "),
        F.col("name"),
        F.lit(" (Kafka "),
        F.col("catalog_release"),
        F.lit(" keeps it in its metadata image without defining it, KAFKA-19851; delete it in the same request)"),
    )
    return (
        kept_df.where(F.col("resource_type") == ResourceType.TOPIC)
        .join(F.broadcast(changes_df), on="resource_name", how="inner")
        .where(in_cluster)
        .select(
            "cluster_id",
            "resource_name",
            F.lit(None).cast("int").alias("node_id"),
            "name",
            F.lit(SKIPPED_ON_REPLAY).alias("ignored_kind"),
            reason.alias("ignored_reason"),
        )
        .dropDuplicates()
    )


def _changed_resources(changes: ChangeSet, resource_type: str, spark: SparkSession) -> DataFrame:
    """``(change_cluster, resource_name)`` of the dynamic changes of ``resource_type`` (``change_cluster`` NULL: a
    change for every cluster)."""
    wanted = sorted(
        {
            (change.cluster_id, change.resource_name)
            for change in changes.changes
            if change.resource_type == resource_type and change.layer == "dynamic"
        },
        key=lambda c: (c[0] or "", c[1]),
    )
    return spark.createDataFrame(wanted, "change_cluster string, resource_name string")
