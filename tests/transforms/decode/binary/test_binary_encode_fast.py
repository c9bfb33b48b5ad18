"""``encode_fast`` writes exactly the bytes of the real encoder: record values, log segments (several batches, the
LeaderChange control batch of a new epoch) and snapshots (header and footer control batches)."""

from __future__ import annotations

import base64
from typing import Any

from transforms.decode.binary import encode, encode_fast
from transforms.decode.binary.encode import MetadataRecordSpec

# apiKeys of every record the synthetic generator writes (synthetic/records.py). Written out here, not imported,
# so this layer's tests do not depend on the generator; the generator's own test compares its records too.
GENERATOR_RECORD_TYPES = {0, 1, 2, 3, 4, 5, 9, 12, 14, 15, 17, 20, 21, 23, 24, 25, 27, 28}


def uuid(n: int) -> str:
    return base64.urlsafe_b64encode(n.to_bytes(16, "big")).decode("ascii")[:22]


def registration(version: int) -> dict[str, Any]:
    endpoints = [
        {"name": "INTERNAL", "host": "prod-payments-000-1.kafka.internal", "port": 9094, "securityProtocol": 1},
        {"name": "SASL_SSL", "host": "prod-payments-000-1.kafka.internal", "port": 9093, "securityProtocol": 3},
    ]
    data: dict[str, Any] = {
        "brokerId": 1,
        "incarnationId": uuid(11),
        "brokerEpoch": 2**40 + 7,
        "endPoints": endpoints,
        "features": [{"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 30}],
        "rack": None if version % 2 else "use1-az1",
        "fenced": True,
    }
    if version >= 1:
        data["inControlledShutdown"] = False
    if version >= 2:
        data["isMigratingZkBroker"] = False
    if version >= 3:
        data["logDirs"] = [uuid(21), uuid(22)]
    if version >= 5:
        data["staticConfigs"] = [{"name": "log.segment.bytes", "value": "1073741824"}, {"name": "x", "value": None}]
    return data


def partition(version: int, replicas: list[int], **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "partitionId": 4,
        "topicId": uuid(99),
        "replicas": replicas,
        "isr": replicas[:-1],
        "leader": replicas[0] if replicas else -1,
        "leaderEpoch": 3,
        "partitionEpoch": 5,
        **extra,
    }
    if version >= 1:
        data["directories"] = [uuid(30 + r) for r in replicas]
    return data


def config(resource_type: int, name: str, key: str, value: str | None) -> MetadataRecordSpec:
    return (4, 0, {"resourceType": resource_type, "resourceName": name, "name": key, "value": value})


SAMPLE: list[MetadataRecordSpec] = [
    (23, 0, {"name": "Bootstrap records"}),
    (12, 0, {"name": "metadata.version", "featureLevel": 30}),
    (12, 0, {"name": "group.version", "featureLevel": 1}),
    (21, 0, {"zkMigrationState": 0}),
    (24, 0, {}),
    *[(0, version, registration(version)) for version in range(6)],
    (27, 0, {**{k: registration(0)[k] for k in ("incarnationId", "endPoints", "features")}, "controllerId": 3000}),
    (17, 1, {"brokerId": 1, "brokerEpoch": 9, "fenced": -1}),
    (17, 2, {"brokerId": 1, "brokerEpoch": 9, "fenced": 1}),
    (17, 3, {"brokerId": 1, "brokerEpoch": 9, "inControlledShutdown": 1}),
    (1, 0, {"brokerId": 4, "brokerEpoch": 12}),
    config(4, "", "log.retention.ms", "604800000"),
    config(4, "2", "listener.name.internal.ssl.key.password", "synth-fake-secret-0a1b2c"),
    config(2, "orders.events.00001", "cleanup.policy", None),  # a delete
    config(16, "basic-producer-metrics", "metrics", "org.apache.kafka.producer."),
    config(32, "payments-orders-consumer-0", "consumer.heartbeat.interval.ms", "5000"),
    config(2, "ünïcode.tøpic", "retention.ms", "x" * 300),  # multi-byte string and length varints
    (2, 0, {"name": "orders.events.00001", "topicId": uuid(99)}),
    *[(3, version, partition(version, [1, 2, 3])) for version in range(3)],
    (3, 1, partition(1, list(range(1, 11)))),  # 10 replicas: past the precompiled array packers
    (3, 0, partition(0, [])),  # no replicas, leader -1
    (3, 2, partition(2, [1, 2], removingReplicas=[2])),  # a key the hand layout does not cover: generic writer
    *[(5, version, {"partitionId": 4, "topicId": uuid(99), "leader": 2}) for version in range(3)],
    *[(5, version, {"partitionId": 4, "topicId": uuid(99), "isr": [1, 3]}) for version in range(3)],
    (5, 0, {"partitionId": 4, "topicId": uuid(99), "leader": 1, "isr": [1]}),  # both tags: generic writer
    (28, 0, {"topicName": "orders.events.00001"}),
    (9, 0, {"topicId": uuid(99)}),
    (
        14,
        0,
        {
            "entity": [{"entityType": "user", "entityName": None}],
            "key": "producer_byte_rate",
            "value": 1e7,
            "remove": False,
        },
    ),
    (
        14,
        0,
        {"entity": [{"entityType": "client-id", "entityName": "ads-ingest"}], "key": "k", "value": 0.0, "remove": True},
    ),
    (15, 0, {"brokerId": 2, "brokerEpoch": 40, "nextProducerId": 2**33}),
    (20, 0, {}),
    (23, 0, {"name": "CreateTopics"}),
    (25, 0, {"reason": "controller failover during CreateTopics"}),
]


def test_fast_encoder_bytes_equal_the_real_encoder_bytes() -> None:
    assert {api_key for api_key, _, _ in SAMPLE} >= GENERATOR_RECORD_TYPES
    for record in SAMPLE:
        assert encode_fast.metadata_value(record) == encode.encode_metadata_record(*record), record
    # 200 copies: batches past 64 records (two-byte offset deltas) and a last, partial batch
    records = SAMPLE * 200
    for records_per_batch in (1, 7, 100, len(records)):
        for leader in ({}, {"leader_id": 3001, "voter_ids": [3000, 3001, 3002]}):
            options: dict[str, Any] = {
                "base_offset": 2**33 + 11,
                "leader_epoch": 41,
                "timestamp_ms": 1_735_689_600_000,
                "timestamp_step_ms": 500,
                "records_per_batch": records_per_batch,
                **leader,
            }
            fast = encode_fast.log_segment_bytes(records, **options)
            assert fast == encode.encode_log_segment(records, **options), options
        options = {
            "epoch": 41,
            "last_contained_log_timestamp": 1_735_689_700_000,
            "timestamp_ms": 1_735_689_700_000,
            "records_per_batch": records_per_batch,
        }
        assert encode_fast.snapshot_bytes(records, **options) == encode.encode_snapshot(records, **options), options
    assert encode_fast.snapshot_bytes([], epoch=0) == encode.encode_snapshot([], epoch=0)  # bootstrap-like, empty
