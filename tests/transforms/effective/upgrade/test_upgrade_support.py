"""Registrations that make Kafka's controller refuse the MV upgrade (transforms.effective.upgrade_support).

Expectations from Kafka's source (confluentinc/kafka 3.7 ... 4.4): ``FeatureControlManager.reasonNotSupported``
checks the new level against ``ClusterControlManager.brokerSupportedFeatures``, every broker registration, fenced
ones included (``brokerRegistrations.values()``), with ``QuorumFeatures.reasonNotSupported`` (``range.contains``;
a registration without the feature is ``DISABLED``, 0-0). Live brokers are assumed rolled to the target's release
before the upgrade (docs/contract.md §4.2), so only fenced ones are reported.
"""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from schemas.metadata_version import MetadataVersionTable
from schemas.silver import BROKERS, CLUSTER_STATE
from transforms.effective.upgrade_support import UNSUPPORTED_REGISTRATION, unsupported_registration_findings

pytestmark = pytest.mark.usefixtures("interpreted_spark")


def _broker(cluster: str, node: int, fenced: bool, low: int | None, high: int | None) -> tuple:
    return (cluster, node, None, 1, None, fenced, False, low, high, "3.9", ["3.9"], 2, False, 7)


def _cluster(cluster: str, level: int | None) -> tuple:
    return (cluster, level, "3.9", 2, 1, 0, None, 10, None, 10)


def test_a_fenced_registration_without_the_target_level_refuses_the_upgrade(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    target = next(v for v in mv_table.levels if v.name == "4.2-IV1")  # level 29
    brokers = [
        _broker("c1", 1, False, 7, 21),  # live 3.9 broker: rolled to 4.2 first
        _broker("c1", 2, True, 7, 21),  # fenced 3.9 broker: its registration stays, 29 is outside 7-21
        _broker("c1", 3, True, 7, 29),  # fenced, already on 4.2: supports it
        _broker("c1", 4, True, None, None),  # fenced, no metadata.version range: DISABLED (0-0)
        _broker("c2", 2, True, 7, 21),  # c2 is at the target already: no upgrade
        _broker("c3", 2, True, 7, 21),  # c3's level is not known: not judged
    ]
    clusters = [_cluster("c1", 21), _cluster("c2", 29), _cluster("c3", None)]
    rows = unsupported_registration_findings(
        spark.createDataFrame(brokers, BROKERS), spark.createDataFrame(clusters, CLUSTER_STATE), target
    ).collect()
    assert sorted((r.cluster_id, r.resource_name, r.kind, r.is_blocking, r.offset) for r in rows) == [
        ("c1", "2", UNSUPPORTED_REGISTRATION, True, 7),
        ("c1", "4", UNSUPPORTED_REGISTRATION, True, 7),
    ]
    (two,) = [r.message for r in rows if r.resource_name == "2"]
    assert "levels 7-21 only" in two and "4.2-IV1 (level 29)" in two and "unregister --id 2" in two
