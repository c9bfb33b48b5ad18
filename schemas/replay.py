"""Replay's own frame and the typed views of the record payloads it reads.

``REPLAY_COUNTS`` is what replay reports besides the silver tables; ``PAYLOAD_DDL`` is the typed view per record
type, read as Spark's ``from_json`` reads it (``transforms.replay.json_reading``): payloads are the JSON ``data``
objects kafka-dump-log prints (lowerCamel field names).
"""

from __future__ import annotations

from typing import Final

from pyspark.sql.types import (
    LongType,
    StringType,
    StructField,
    StructType,
)

# Per cluster: how many de-duplicated records (data and transaction markers) replay read, applied or not.
REPLAY_COUNTS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("records", LongType(), False),
    ]
)

# --- payload views (as from_json reads them, PERMISSIVE: a field of the wrong JSON type reads as NULL) ---

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
