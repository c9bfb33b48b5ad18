"""Registrations that make Kafka's controller refuse the MV upgrade (docs/contract.md §6.2, kafka-semantics §4.1).

``FeatureControlManager.reasonNotSupported`` (confluentinc/kafka 3.7 ... 4.4, metadata/src/main/java/org/apache/
kafka/controller/FeatureControlManager.java) checks the new ``metadata.version`` level against the range every
broker **registration** declares (``ClusterControlManager.brokerSupportedFeatures`` iterates all registrations,
fenced ones included) and every registered controller; one range without the level refuses the whole update
(``INVALID_UPDATE_VERSION``: "Broker N only supports versions a-b"). A registration stays until the broker
registers again or is unregistered (``kafka-cluster.sh unregister``).

The audit at the target assumes the live brokers run the target's release by then (the rolling upgrade of the
binaries comes first, §4.2 of the contract), so their registrations will be renewed. A **fenced** broker's
registration is not renewed by a roll it takes no part in: if its range excludes the target, Kafka refuses the
upgrade until that broker comes back on a release that supports it or is unregistered. Each such broker is one
blocking ``UNSUPPORTED_REGISTRATION`` finding of a cluster whose current level is below the target (a cluster at
or above it is not upgraded). A registration without a ``metadata.version`` range counts as level 0 only
(``QuorumFeatures.DISABLED``), as Kafka reads it.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import ResourceType
from schemas.per_cluster import Targets
from transforms.kit.finding_rows import finding_rows
from transforms.kit.per_cluster import target_level_column, target_name_column

__all__ = ["UNSUPPORTED_REGISTRATION", "unsupported_registration_findings"]

UNSUPPORTED_REGISTRATION: Final = "UNSUPPORTED_REGISTRATION"


def unsupported_registration_findings(brokers_df: DataFrame, cluster_state_df: DataFrame, target: Targets) -> DataFrame:
    """``FINDING_ROWS``: one blocking ``UNSUPPORTED_REGISTRATION`` per fenced broker whose registered
    ``metadata.version`` range excludes ``target``, in a cluster whose ``current_level`` is below it.

    Args:
        brokers_df: silver ``BROKERS`` (``fenced``, ``min_supported_mv``, ``max_supported_mv``).
        cluster_state_df: silver ``CLUSTER_STATE`` (``current_level``; NULL: not known, no finding).
        target: the audit's target (per cluster: a ``PerCluster``).
    """
    level = target_level_column(target)
    low = F.coalesce(F.col("min_supported_mv"), F.lit(0))
    high = F.coalesce(F.col("max_supported_mv"), F.lit(0))
    upgraded_df = cluster_state_df.where(F.col("current_level") < level).select("cluster_id")
    refused_df = brokers_df.join(upgraded_df, on="cluster_id", how="left_semi").where(
        F.col("fenced") & ~level.between(low, high)
    )
    message = F.concat(
        F.lit("broker "),
        F.col("node_id").cast("string"),
        F.lit(" is fenced and its registration supports metadata.version levels "),
        low.cast("string"),
        F.lit("-"),
        high.cast("string"),
        F.lit(" only: the controller refuses the upgrade to "),
        target_name_column(target),
        F.lit(" (level "),
        level.cast("string"),
        F.lit(") until it registers"),
        F.lit(" again on a release that supports it or is unregistered (kafka-cluster.sh unregister --id "),
        F.col("node_id").cast("string"),
        F.lit(")"),
    )
    return finding_rows(
        refused_df,
        kind=UNSUPPORTED_REGISTRATION,
        message=message,
        offset=F.col("registration_offset"),
        resource_type=ResourceType.BROKER,
        resource_name=F.col("node_id").cast("string"),
        blocking=True,
    )
