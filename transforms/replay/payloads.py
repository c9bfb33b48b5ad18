"""Typed views of record payloads: one ``from_json`` schema per record type replay reads.

Payloads are the JSON ``data`` objects kafka-dump-log prints (lowerCamel field names). ``from_json`` runs in
PERMISSIVE mode: a field of the wrong JSON type, a missing field or an undecodable payload (``{"_raw": ...}``)
parses to NULL, so every state transform filters on its key fields being non-NULL instead of failing.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

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
    "PARTITION_RECORD": "partitionId int, topicId string, replicas array<int>",
    "PARTITION_CHANGE_RECORD": "partitionId int, topicId string, replicas array<int>",
    "FEATURE_LEVEL_RECORD": "name string, featureLevel int",
    "CLIENT_QUOTA_RECORD": f"entity {ENTITY_DDL}, key string, value double, remove boolean",
    "CLIENT_CONFIG_RECORD": f"entity {ENTITY_DDL}, key string, value string, valueHash string",
}

_JSON_OPTIONS: Final = {"mode": "PERMISSIVE"}


def parsed(record_type: str) -> Column:
    """The payload of a ``record_type`` row as a struct (fields NULL when absent or of the wrong type)."""
    return F.from_json(F.col("payload"), PAYLOAD_DDL[record_type], _JSON_OPTIONS)


def filter_parsed(applied_df: DataFrame, record_type: str) -> DataFrame:
    """Applied records of one type with their parsed payload as column ``p`` (APPLIED_RECORDS columns kept)."""
    return applied_df.where(F.col("record_type") == record_type).select("*", parsed(record_type).alias("p"))
