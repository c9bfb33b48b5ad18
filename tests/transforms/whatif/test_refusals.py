"""Which dynamic BROKER changes a broker refuses, read from the layers it would not apply after them.

Expectations follow Kafka's AlterConfigs validation (confluentinc/kafka 3.7 ... 4.4, ``ConfigAdminManager`` →
``DynamicBrokerConfig.validate``): the whole layer a request leaves is validated on the broker, and a cluster-default
change is also judged with each broker's per-broker layer on top. The same outcomes measured on Kafka's brokers are
in ``tests/oracle/test_kafka_agrees.py``.
"""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from schemas.changes import load_changes_text
from transforms.effective.common import DEFAULT_LAYER, NODE_LAYER
from transforms.whatif.refusals import REFUSED_CHANGE_COLUMNS, refused_broker_changes, refused_group_changes

pytestmark = pytest.mark.spark

CHANGES = """
changes:
  - {resource_type: BROKER, resource_name: "1", cluster_id: c1, ops: [{op: SET, key: log.cleaner.threads, value: "4"}]}
  - {resource_type: BROKER, resource_name: "2", cluster_id: c1, ops: [{op: SET, key: num.io.threads, value: "16"}]}
  - {resource_type: BROKER, resource_name: "", ops: [{op: SET, key: message.max.bytes, value: "2000000"}]}
  - {resource_type: BROKER, resource_name: "3", layer: static, ops: [{op: SET, key: broker.rack, value: r1}]}
  - {resource_type: TOPIC, resource_name: t, ops: [{op: SET, key: retention.ms, value: "1"}]}
"""


def _unapplied(spark: SparkSession, rows: list[tuple]) -> object:
    ddl = "cluster_id string, node_id int, layer int, name string, ignored_kind string, ignored_reason string"
    return spark.createDataFrame(rows, ddl)


def _refused(spark: SparkSession, rows: list[tuple]) -> set[tuple]:
    changes = load_changes_text(CHANGES, "changes.yaml")
    df = refused_broker_changes(changes, _unapplied(spark, rows))  # type: ignore[arg-type]
    assert tuple(df.columns) == REFUSED_CHANGE_COLUMNS
    return {(r.cluster_id, r.resource_name, r.node_id, r.name, r.ignored_kind) for r in df.collect()}


def test_a_per_broker_change_is_refused_by_its_own_broker_only(spark: SparkSession) -> None:
    rows = [
        ("c1", 1, NODE_LAYER, "log.cleaner.threads", "REJECTED_CONFIG_LAYER", "LogCleaner"),
        ("c1", 3, NODE_LAYER, "num.io.threads", "REJECTED_CONFIG_LAYER", "DynamicThreadPool"),  # broker 3: not asked
        ("c2", 1, NODE_LAYER, "log.cleaner.threads", "REJECTED_CONFIG_LAYER", "LogCleaner"),  # the change names c1
    ]
    refused = _refused(spark, rows)
    assert {r for r in refused if r[1] != ""} == {("c1", "1", 1, "log.cleaner.threads", "REJECTED_CONFIG_LAYER")}
    # the same refused per-broker layers also refuse the cluster-default change (it names every cluster)
    assert {r[:3] for r in refused if r[1] == ""} == {("c1", "", 1), ("c1", "", 3), ("c2", "", 1)}


def test_a_key_the_broker_drops_refuses_its_layer_too(spark: SparkSession) -> None:
    rows = [("c1", 2, NODE_LAYER, "broker.rack", "IGNORED_DYNAMIC_CONFIG", "read-only")]
    assert _refused(spark, rows) == {("c1", "2", 2, "broker.rack", "IGNORED_DYNAMIC_CONFIG")}


def test_a_cluster_default_change_is_refused_by_any_broker_of_any_cluster_it_names(spark: SparkSession) -> None:
    rows = [
        ("c1", 1, DEFAULT_LAYER, "message.max.bytes", "INVALID_DYNAMIC_CONFIG", "below 0"),
        # a per-broker layer the broker refuses whole is validated with every cluster-default change
        ("c2", 7, NODE_LAYER, "log.cleaner.threads", "REJECTED_CONFIG_LAYER", "LogCleaner"),
        # a per-broker key dropped alone is that layer's problem, not the default's
        ("c3", 5, NODE_LAYER, "broker.rack", "IGNORED_DYNAMIC_CONFIG", "read-only"),
    ]
    assert _refused(spark, rows) == {
        ("c1", "", 1, "message.max.bytes", "INVALID_DYNAMIC_CONFIG"),
        ("c2", "", 7, "log.cleaner.threads", "REJECTED_CONFIG_LAYER"),
    }


def test_nothing_unapplied_refuses_nothing(spark: SparkSession) -> None:
    assert _refused(spark, []) == set()


GROUP_CHANGES = """
changes:
  - resource_type: GROUP
    resource_name: g1
    cluster_id: c1
    ops: [{op: SET, key: consumer.session.timeout.ms, value: "1000"}]
  - {resource_type: GROUP, resource_name: g2, ops: [{op: DELETE, key: consumer.session.timeout.ms}]}
  - {resource_type: GROUP, resource_name: g3, replace: {consumer.heartbeat.interval.ms: "1"}}
  - {resource_type: TOPIC, resource_name: g1, ops: [{op: SET, key: consumer.session.timeout.ms, value: "1000"}]}
"""


def test_a_group_change_is_refused_when_the_state_after_it_caps_a_key_it_sets(spark: SparkSession) -> None:
    """GroupConfig.validate checks each set key against the broker's bounds (confluentinc/kafka 4.4,
    group-coordinator/.../GroupConfig.java ``validateValues``), the bounds a 4.3+ broker caps a stored value into."""
    ddl = "cluster_id string, resource_type string, resource_name string, node_id int, config_name string, "
    ddl += "value string, value_set string"
    effective = spark.createDataFrame(
        [
            ("c1", "GROUP", "g1", 1, "consumer.session.timeout.ms", "45000", "1000"),  # set and capped: refused
            ("c2", "GROUP", "g1", 1, "consumer.session.timeout.ms", "45000", "1000"),  # the change names c1 only
            ("c1", "GROUP", "g1", 1, "consumer.heartbeat.interval.ms", "5000", "1"),  # capped, not set by it
            ("c1", "GROUP", "g2", 1, "consumer.session.timeout.ms", "45000", "1000"),  # a DELETE sets nothing
            ("c1", "GROUP", "g3", 2, "consumer.heartbeat.interval.ms", "2000", "1"),  # legacy replace: refused
            ("c1", "GROUP", "g3", 2, "consumer.session.timeout.ms", "45000", None),  # not capped
        ],
        ddl,
    )
    changes = load_changes_text(GROUP_CHANGES, "changes.yaml")
    df = refused_group_changes(changes, effective)
    assert tuple(df.columns) == REFUSED_CHANGE_COLUMNS
    refused = {(r.cluster_id, r.resource_name, r.node_id, r.name) for r in df.collect()}
    assert refused == {
        ("c1", "g1", 1, "consumer.session.timeout.ms"),
        ("c1", "g3", 2, "consumer.heartbeat.interval.ms"),
    }
    reasons = [r.ignored_reason for r in df.collect()]
    assert any(
        "consumer.session.timeout.ms=1000 is outside the bounds" in r and "would use 45000" in r for r in reasons
    )
