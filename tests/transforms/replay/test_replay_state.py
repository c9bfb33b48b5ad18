"""Silver state from applied records: brokers, static configs, topics, configs, features, clients, controllers.

One replay of a hand-built log feeds most tests (module-scoped fixture); each test reads the rows it is about.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from pyspark.sql import Row, SparkSession
from pyspark.testing import assertSchemaEqual

from jobs.runtime.holding import LOCAL_ROWS, Checkpoints
from schemas import silver
from schemas.metadata_version import MetadataVersionTable
from tests.transforms.replay.bronze_rows import (
    broker_config,
    client_config,
    config,
    feature,
    partition,
    quota,
    records,
    register,
    remove_topic,
    static_configs,
    topic,
    topic_config,
    unregister,
)
from transforms.replay import replay_state

pytestmark = pytest.mark.spark

T1, T2, T3 = "AAAAAAAAAAAAAAAAAAAAAQ", "BBBBBBBBBBBBBBBBBBBBBQ", "CCCCCCCCCCCCCCCCCCCCCQ"
T4, T5 = "DDDDDDDDDDDDDDDDDDDDDQ", "EEEEEEEEEEEEEEEEEEEEEQ"


def _log() -> list[Any]:
    return [
        feature(0, "metadata.version", 26),
        feature(1, "group.version", 1),
        feature(2, "group.version", 0),  # level 0 removes the feature
        register(3, 1, epoch=10, rack="r1"),
        (4, "BROKER_REGISTRATION_CHANGE_RECORD", {"brokerId": 1, "brokerEpoch": 10, "fenced": -1}),
        (5, "BROKER_REGISTRATION_CHANGE_RECORD", {"brokerId": 1, "brokerEpoch": 10, "inControlledShutdown": 1}),
        register(
            6,
            2,
            epoch=20,
            fenced=True,
            rack="r2",
            static=[("log.segment.bytes", "2097152"), ("log.segment.bytes", "3145728")],
        ),
        (7, "UNFENCE_BROKER_RECORD", {"id": 2, "epoch": 20}),
        (8, "FENCE_BROKER_RECORD", {"id": 2, "epoch": 99}),  # wrong epoch: Kafka would fault; skipped
        register(9, 3, epoch=30, fenced=False, rack="r1"),
        unregister(10, 3, 30),
        register(11, 4, epoch=40, fenced=False),
        register(12, 4, epoch=41, fenced=True, rack="r4"),  # newer registration replaces
        register(13, 5, epoch=50, fenced=False, mv_max=40),  # above the MV table: newest release
        topic(20, "orders", T1),
        partition(21, T1, 0, [1, 2]),
        partition(22, T1, 1, [2, 4]),
        (23, "PARTITION_CHANGE_RECORD", {"partitionId": 1, "topicId": T1, "replicas": [2, 4, 5]}),
        (24, "PARTITION_CHANGE_RECORD", {"partitionId": 0, "topicId": T1, "leader": 2}),  # replicas unchanged
        topic(25, "__consumer_offsets", T2),
        partition(26, T2, 0, [1]),
        topic(27, "__remote_log_metadata", T3),
        topic_config(30, "orders", "retention.ms", "1000"),
        topic_config(31, "orders", "cleanup.policy", "compact"),
        topic_config(32, "orders", "cleanup.policy", None),  # deleted
        broker_config(33, "", "num.io.threads", "16"),
        config(34, 32, "g1", "consumer.session.timeout.ms", "50000"),
        config(35, 16, "sub", "interval.ms", "1000"),
        config(36, 8, "root", "log4j", "DEBUG"),  # BROKER_LOGGER: never replayed
        quota(40, {"user": "alice", "client-id": None}, "producer_byte_rate", 1048576),
        quota(41, {"client-id": "app", "user": "alice"}, "consumer_byte_rate", 2e7),
        quota(42, {"user": "alice", "client-id": "app"}, "consumer_byte_rate", 0, remove=True),
        client_config(43, {"user": "bob"}, "acks", "all"),
        client_config(44, {"user": "bob"}, "linger.ms", "5"),
        client_config(45, {"user": "bob"}, "linger.ms", None),
        (
            50,
            "REGISTER_CONTROLLER_RECORD",
            {
                "controllerId": 3000,
                "incarnationId": "x",
                "zkMigrationReady": False,
                "endPoints": [],
                "features": [{"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 26}],
            },
        ),
        (
            51,
            "REGISTER_CONTROLLER_RECORD",
            {"controllerId": 3001, "incarnationId": "y", "zkMigrationReady": False, "endPoints": [], "features": []},
        ),
        (52, "UNREGISTER_CONTROLLER_RECORD", {"controllerId": 3001}),
    ]


@dataclass(frozen=True)
class State:
    tables: dict[str, list[Row]]


@pytest.fixture(scope="module")
def state(interpreted_spark: SparkSession, mv_table: MetadataVersionTable) -> State:
    files = static_configs(
        interpreted_spark,
        [
            (1, "log.segment.bytes", "4194304"),
            (1, "log.roll.ms", None),
            (2, "log.segment.bytes", "1"),
            (2, "log.roll.ms", "3600000"),
        ],
    )
    result = replay_state(
        records(interpreted_spark, _log()), files, mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS)
    )
    tables = {
        "BROKERS": result.brokers,
        "BROKER_STATIC_CONFIGS": result.broker_static_configs,
        "TOPICS": result.topics,
        "DYNAMIC_CONFIGS": result.dynamic_configs,
        "CLIENT_ENTITY_CONFIGS": result.client_entity_configs,
        "FEATURES": result.features,
        "CONTROLLERS": result.controllers,
        "CLUSTER_STATE": result.cluster_state,
    }
    for name, df in tables.items():
        assertSchemaEqual(df.schema, getattr(silver, name), ignoreNullable=True)
    return State(tables={name: df.collect() for name, df in tables.items()})


def _brokers(state: State) -> dict[int, Row]:
    return {r.node_id: r for r in state.tables["BROKERS"]}


@pytest.mark.parametrize(
    ("node", "fenced", "shutdown", "epoch", "rack"),
    [(1, False, True, 10, "r1"), (2, False, False, 20, "r2"), (4, True, False, 41, "r4")],
    ids=[
        "change-record-unfences-and-sets-shutdown",
        "unfence-then-wrong-epoch-fence-skipped",
        "newer-registration-replaces-older",
    ],
)
def test_broker_registration_state(
    state: State, node: int, fenced: bool, shutdown: bool, epoch: int, rack: str
) -> None:
    row = _brokers(state)[node]
    assert (row.fenced, row.in_controlled_shutdown, row.broker_epoch, row.rack) == (fenced, shutdown, epoch, rack)


def test_unregistered_broker_is_gone(state: State) -> None:
    assert sorted(_brokers(state)) == [1, 2, 4, 5]


@pytest.mark.parametrize(
    ("node", "release", "mv_range"),
    [(1, "4.2", (7, 29)), (5, "4.4", (7, 40))],
    ids=["release-of-max-supported-level", "level-above-table-is-newest-release"],
)
def test_broker_release_from_registered_mv(state: State, node: int, release: str, mv_range: tuple[int, int]) -> None:
    row = _brokers(state)[node]
    assert (row.kafka_release, (row.min_supported_mv, row.max_supported_mv)) == (release, mv_range)


def test_static_configs_prefer_registration_over_file(state: State) -> None:
    rows = {(r.node_id, r.name): (r.value, r.origin, r.source_offset) for r in state.tables["BROKER_STATIC_CONFIGS"]}
    assert rows == {
        (1, "log.segment.bytes"): ("4194304", "FILE", None),
        (1, "log.roll.ms"): (None, "FILE", None),
        (2, "log.segment.bytes"): ("3145728", "REGISTRATION", 6),  # last entry of a repeated name wins
        (2, "log.roll.ms"): ("3600000", "FILE", None),  # v5 StaticConfigs is partial: the file fills the rest
    }
    brokers = _brokers(state)
    assert [brokers[n].has_static_configs for n in (1, 2, 4)] == [True, True, False]
    assert brokers[2].registration_version == 5


def test_topics(state: State) -> None:
    topics = {r.topic_name: r for r in state.tables["TOPICS"]}
    orders = topics["orders"]
    assert (orders.partitions, orders.replication_factor, orders.replica_nodes) == (2, 3, [1, 2, 4, 5])
    assert (topics["__consumer_offsets"].internal, topics["__remote_log_metadata"].internal) == (True, False)
    assert (topics["__remote_log_metadata"].partitions, topics["__remote_log_metadata"].replication_factor) == (0, None)


def test_a_reassignment_in_progress_does_not_count_its_adding_replicas(
    interpreted_spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    """confluentinc/kafka 4.2 TopicCommand.getReplicationFactor: replicas - addingReplicas while a reassignment runs;
    PartitionRegistration.merge keeps the adding replicas when a change record leaves them out."""
    log = [
        # Reassignments in progress (kafka-reassign-partitions moving {1, 2} to {4, 5}): the controller's change
        # record lists old and new replicas together, with the new ones as adding and the old ones as removing.
        topic(60, "payments", T4),
        partition(61, T4, 0, [1, 2]),
        (
            62,
            "PARTITION_CHANGE_RECORD",
            {
                "partitionId": 0,
                "topicId": T4,
                "replicas": [1, 2, 4, 5],
                "addingReplicas": [4, 5],
                "removingReplicas": [1, 2],
            },
        ),
        (63, "PARTITION_CHANGE_RECORD", {"partitionId": 0, "topicId": T4, "isr": [1, 2, 4]}),  # adding unchanged
        topic(64, "ledger", T5),  # a snapshot's PartitionRecord taken mid-reassignment
        (
            65,
            "PARTITION_RECORD",
            {
                "partitionId": 0,
                "topicId": T5,
                "replicas": [1, 2, 4],
                "isr": [1, 2],
                "removingReplicas": [1],
                "addingReplicas": [4],
                "leader": 1,
            },
        ),
        topic(66, "ledger-done", "FFFFFFFFFFFFFFFFFFFFFQ"),  # the same, then the change that completes it
        (
            67,
            "PARTITION_RECORD",
            {
                "partitionId": 0,
                "topicId": "FFFFFFFFFFFFFFFFFFFFFQ",
                "replicas": [1, 2, 4],
                "isr": [1, 2],
                "removingReplicas": [1],
                "addingReplicas": [4],
                "leader": 1,
            },
        ),
        (
            68,
            "PARTITION_CHANGE_RECORD",
            {
                "partitionId": 0,
                "topicId": "FFFFFFFFFFFFFFFFFFFFFQ",
                "replicas": [2, 4],
                "addingReplicas": [],
                "removingReplicas": [],
            },
        ),
    ]
    files = static_configs(interpreted_spark, [])
    result = replay_state(records(interpreted_spark, log), files, mv_table=mv_table, keep=Checkpoints(only=()))
    topics = {r.topic_name: r for r in result.topics.collect()}
    assert (topics["payments"].replication_factor, topics["payments"].replica_nodes) == (2, [1, 2, 4, 5])
    assert (topics["ledger"].replication_factor, topics["ledger"].replica_nodes) == (2, [1, 2, 4])
    assert (topics["ledger-done"].replication_factor, topics["ledger-done"].replica_nodes) == (2, [2, 4])


def test_a_change_record_of_a_partition_never_created_adds_no_partition(
    interpreted_spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    """confluentinc/kafka 4.2 metadata/.../image/TopicDelta.java replay(PartitionChangeRecord): a change to a
    partition neither the delta nor the image holds cannot be applied (Kafka throws); replay skips it, so the topic
    keeps its one partition and the replicas of the created one."""
    log = [
        topic(70, "billing", T4),
        partition(71, T4, 0, [1, 2]),
        (72, "PARTITION_CHANGE_RECORD", {"partitionId": 3, "topicId": T4, "replicas": [1, 2, 3, 4]}),
    ]
    files = static_configs(interpreted_spark, [])
    result = replay_state(records(interpreted_spark, log), files, mv_table=mv_table, keep=Checkpoints(only=()))
    [billing] = result.topics.collect()
    assert (billing.partitions, billing.replication_factor, billing.replica_nodes) == (1, 2, [1, 2])


def test_dynamic_configs_last_value_wins_and_null_deletes(state: State) -> None:
    rows = {(r.resource_type, r.resource_name, r.name): r.value for r in state.tables["DYNAMIC_CONFIGS"]}
    assert rows == {
        ("TOPIC", "orders", "retention.ms"): "1000",
        ("BROKER", "", "num.io.threads"): "16",
        ("GROUP", "g1", "consumer.session.timeout.ms"): "50000",
        ("CLIENT_METRICS", "sub", "interval.ms"): "1000",
    }


def test_features_level_zero_removes(state: State) -> None:
    assert [(r.feature, r.level, r.source_offset) for r in state.tables["FEATURES"]] == [("metadata.version", 26, 0)]


def test_client_entity_configs(state: State) -> None:
    rows = {(r.entity_user, r.entity_client_id, r.kind, r.name): r.value for r in state.tables["CLIENT_ENTITY_CONFIGS"]}
    assert rows == {
        ("alice", "<default>", "QUOTA", "producer_byte_rate"): "1048576.0",
        ("bob", None, "CLIENT_CONFIG", "acks"): "all",
    }


def test_controllers(state: State) -> None:
    rows = [(r.controller_id, r.max_supported_mv) for r in state.tables["CONTROLLERS"]]
    assert rows == [(3000, 26)]


def test_cluster_state(state: State) -> None:
    cluster = state.tables["CLUSTER_STATE"][0]
    assert (cluster.current_level, cluster.broker_count, cluster.rack_count, cluster.topic_count) == (26, 3, 2, 3)
    assert (cluster.snapshot_end_offset, cluster.last_offset) == (None, 52)


def test_removed_topic_and_its_configs_are_dropped_and_recreation_starts_clean(
    interpreted_spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    log = [
        topic(0, "t", T1),
        partition(1, T1, 0, [1]),
        topic_config(2, "t", "retention.ms", "1"),
        topic_config(3, "other", "retention.ms", "2"),
        remove_topic(4, T1),
        topic(5, "t", T2),
        partition(6, T2, 0, [1]),
        partition(7, T2, 1, [1]),
        topic_config(8, "t", "segment.bytes", "1048576"),
    ]
    result = replay_state(
        records(interpreted_spark, log),
        static_configs(interpreted_spark, []),
        mv_table=mv_table,
        keep=Checkpoints(local_rows=LOCAL_ROWS),
    )
    assert [(r.topic_id, r.partitions, r.created_offset) for r in result.topics.collect()] == [(T2, 2, 5)]
    configs = {(r.resource_name, r.name): r.value for r in result.dynamic_configs.collect()}
    assert configs == {("t", "segment.bytes"): "1048576", ("other", "retention.ms"): "2"}
