"""Replay's intermediate frames and the typed views of the record payloads it reads.

``REPLAY_BOUNDS`` / ``REPLAY_STREAM`` / ``APPLIED_RECORDS`` are the frames ``transforms.replay.ordering`` builds
from bronze ``METADATA_RECORDS`` before the silver tables; ``PAYLOAD_DDL`` is the ``from_json`` schema per record
type (``transforms.replay.payloads``): payloads are the JSON ``data`` objects kafka-dump-log prints (lowerCamel
field names).
"""

from __future__ import annotations

from typing import Final

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

# Per cluster: where replay starts and stops.
REPLAY_BOUNDS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("snapshot_end_offset", LongType(), True),  # chosen snapshot (0 = bootstrap); null = none
        StructField("snapshot_kind", StringType(), True),  # SNAPSHOT or BOOTSTRAP_SNAPSHOT
        StructField("snapshot_timestamp", TimestampType(), True),  # its lastContainedLogTimestamp
        StructField("snapshot_epoch", LongType(), True),  # its epoch (file name <end offset>-<epoch>); -1 = unnamed
        StructField("upper_offset", LongType(), True),  # last log offset inside the as-of bound; null = no bound
    ]
)

# Every de-duplicated data record in replay order, with what replay decided about it.
REPLAY_STREAM: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("seq", LongType(), False),  # 1-based replay order within the cluster
        StructField("from_snapshot", BooleanType(), False),
        StructField("file_offset", LongType(), False),  # offset as in bronze (inside the file for snapshots)
        StructField("offset", LongType(), True),  # log position: snapshot records get snapshot end - 1
        StructField("timestamp", TimestampType(), True),  # null for snapshot records (time of the snapshot)
        StructField("record_type", StringType(), False),
        StructField("record_version", IntegerType(), True),
        StructField("payload", StringType(), False),
        StructField("is_unknown", BooleanType(), False),
        StructField("source_file", StringType(), False),  # the copy that was kept
        StructField("copies", IntegerType(), False),  # copies of this position across source files
        StructField("is_conflict", BooleanType(), False),  # copies differ
        StructField("conflict_files", ArrayType(StringType(), False), True),  # sorted, only for conflicts
        StructField("txn_state", StringType(), False),  # NONE, COMMITTED, ABORTED, UNTERMINATED
        StructField("txn_begin_offset", LongType(), True),  # file_offset of the BEGIN of its transaction
        StructField("is_applied", BooleanType(), False),  # changes state (data record, not discarded)
    ]
)

# What the state transforms read: the applied records only.
APPLIED_RECORDS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("seq", LongType(), False),
        StructField("from_snapshot", BooleanType(), False),
        StructField("offset", LongType(), True),
        StructField("timestamp", TimestampType(), True),
        StructField("record_type", StringType(), False),
        StructField("record_version", IntegerType(), True),
        StructField("payload", StringType(), False),
        StructField("is_unknown", BooleanType(), False),
    ]
)

# --- payload views (from_json schemas, PERMISSIVE: a field of the wrong JSON type parses to NULL) ---

FEATURES_DDL: Final = "array<struct<name: string, minSupportedVersion: int, maxSupportedVersion: int>>"
NAME_VALUE_DDL: Final = "array<struct<name: string, value: string, valueHash: string>>"
ENTITY_DDL: Final = "array<struct<entityType: string, entityName: string>>"

PAYLOAD_DDL: Final[dict[str, str]] = {
    "CONFIG_RECORD": "resourceType int, resourceName string, name string, value string, valueHash string",
    "REGISTER_BROKER_RECORD": (
        "brokerId int, incarnationId string, brokerEpoch long, rack string, fenced boolean, "
        f"inControlledShutdown boolean, features {FEATURES_DDL}, staticConfigs {NAME_VALUE_DDL}"
    ),
    "UNREGISTER_BROKER_RECORD": "brokerId int, brokerEpoch long",
    "FENCE_BROKER_RECORD": "id int, epoch long",
    "UNFENCE_BROKER_RECORD": "id int, epoch long",
    "BROKER_REGISTRATION_CHANGE_RECORD": "brokerId int, brokerEpoch long, fenced int, inControlledShutdown int",
    "REGISTER_CONTROLLER_RECORD": f"controllerId int, incarnationId string, features {FEATURES_DDL}",
    "UNREGISTER_CONTROLLER_RECORD": "controllerId int",
    "TOPIC_RECORD": "name string, topicId string",
    "REMOVE_TOPIC_RECORD": "topicId string",
    "PARTITION_RECORD": "partitionId int, topicId string, replicas array<int>, addingReplicas array<int>",
    "PARTITION_CHANGE_RECORD": "partitionId int, topicId string, replicas array<int>, addingReplicas array<int>",
    "FEATURE_LEVEL_RECORD": "name string, featureLevel int",
    "CLIENT_QUOTA_RECORD": f"entity {ENTITY_DDL}, key string, value double, remove boolean",
    "CLIENT_CONFIG_RECORD": f"entity {ENTITY_DDL}, key string, value string, valueHash string",
}
