"""Tiny in-code bronze inputs: METADATA_RECORDS / STATIC_CONFIGS rows from (offset, record_type, data) tuples.

``records(spark, [(0, "CONFIG_RECORD", {...}), ...], source_file=..., input_kind=...)`` builds one file's rows;
union several calls for several files or clusters. A 4th tuple element is a dict of column overrides
(``timestamp_ms``, ``leader_epoch``, ``record_version``, ``is_control``, ``is_unknown``). The record builders
below return the tuples with the payload field names kafka-dump-log prints.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from schemas.bronze import METADATA_RECORDS, STATIC_CONFIGS

Record = tuple[Any, ...]
INGESTED_AT = datetime(2026, 1, 1, tzinfo=UTC)
CONTROL_TYPES = {"LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"}


def ts(ms: int) -> datetime:
    """A UTC datetime from epoch milliseconds."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def records(
    spark: SparkSession,
    recs: Iterable[Record],
    *,
    cluster_id: str = "c1",
    source_file: str = "/in/c1/__cluster_metadata-0/00000000000000000000.log",
    input_kind: str = "LOG_SEGMENT",
    snapshot_end_offset: int | None = None,
) -> DataFrame:
    """METADATA_RECORDS rows of one source file."""
    rows = []
    for rec in recs:
        offset, record_type, data = rec[0], rec[1], rec[2]
        extra: Mapping[str, Any] = rec[3] if len(rec) > 3 else {}
        payload = json.dumps(data, separators=(",", ":"))
        timestamp_ms = extra.get("timestamp_ms", 1_700_000_000_000 + offset * 1000)
        rows.append(
            (
                cluster_id,
                source_file,
                input_kind,
                hashlib.sha256(source_file.encode()).hexdigest(),
                snapshot_end_offset,
                None,
                None,
                offset,
                offset,
                extra.get("leader_epoch", 1),
                ts(timestamp_ms) if timestamp_ms is not None else None,
                extra.get("is_control", record_type in CONTROL_TYPES),
                record_type,
                None,
                extra.get("record_version", 0),
                payload,
                extra.get("is_unknown", False),
                "ingest-1",
                INGESTED_AT,
            )
        )
    return spark.createDataFrame(rows, METADATA_RECORDS)


def static_configs(
    spark: SparkSession,
    rows: Iterable[tuple[int, str, str | None]],
    *,
    cluster_id: str = "c1",
    source_file: str = "/in/server.properties",
) -> DataFrame:
    """STATIC_CONFIGS rows ``(node_id, name, value)`` of one server.properties file."""
    data = [
        (cluster_id, node, source_file, "sha", name, value, None, "ingest-1", INGESTED_AT) for node, name, value in rows
    ]
    return spark.createDataFrame(data, STATIC_CONFIGS)


def no_static_configs(spark: SparkSession) -> DataFrame:
    """An empty STATIC_CONFIGS frame."""
    return spark.createDataFrame([], STATIC_CONFIGS)


# --- record builders ---------------------------------------------------------------------------------------


def config(offset: int, resource_type: int, resource_name: str, name: str, value: str | None, **extra: Any) -> Record:
    """CONFIG_RECORD (2 TOPIC, 4 BROKER, 16 CLIENT_METRICS, 32 GROUP); value None deletes."""
    data = {"resourceType": resource_type, "resourceName": resource_name, "name": name, "value": value}
    return (offset, "CONFIG_RECORD", data, extra)


def broker_config(offset: int, node: int | str, name: str, value: str | None, **extra: Any) -> Record:
    """BROKER ConfigRecord; node "" is the cluster default."""
    return config(offset, 4, str(node), name, value, **extra)


def topic_config(offset: int, topic: str, name: str, value: str | None, **extra: Any) -> Record:
    return config(offset, 2, topic, name, value, **extra)


def register(
    offset: int,
    broker_id: int,
    *,
    epoch: int = 1,
    mv_max: int | None = 29,
    fenced: bool = False,
    rack: str | None = None,
    static: Sequence[tuple[str, str | None]] | None = None,
    **extra: Any,
) -> Record:
    """REGISTER_BROKER_RECORD (v5 with staticConfigs when ``static`` is given)."""
    data: dict[str, Any] = {
        "brokerId": broker_id,
        "incarnationId": f"inc{broker_id}x{epoch}",
        "brokerEpoch": epoch,
        "endPoints": [{"name": "PLAINTEXT", "host": "h", "port": 9092, "securityProtocol": 0}],
        "features": []
        if mv_max is None
        else [{"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": mv_max}],
        "rack": rack,
        "fenced": fenced,
        "inControlledShutdown": False,
    }
    version = 3
    if static is not None:
        data["staticConfigs"] = [{"name": n, "value": v} for n, v in static]
        version = 5
    return (offset, "REGISTER_BROKER_RECORD", data, {"record_version": version, **extra})


def unregister(offset: int, broker_id: int, epoch: int = 1) -> Record:
    return (offset, "UNREGISTER_BROKER_RECORD", {"brokerId": broker_id, "brokerEpoch": epoch})


def topic(offset: int, name: str, topic_id: str) -> Record:
    return (offset, "TOPIC_RECORD", {"name": name, "topicId": topic_id})


def remove_topic(offset: int, topic_id: str) -> Record:
    return (offset, "REMOVE_TOPIC_RECORD", {"topicId": topic_id})


def partition(offset: int, topic_id: str, partition_id: int, replicas: list[int]) -> Record:
    data = {
        "partitionId": partition_id,
        "topicId": topic_id,
        "replicas": replicas,
        "isr": replicas,
        "removingReplicas": [],
        "addingReplicas": [],
        "leader": replicas[0] if replicas else -1,
        "leaderEpoch": 0,
        "partitionEpoch": 0,
    }
    return (offset, "PARTITION_RECORD", data)


def feature(offset: int, name: str, level: int) -> Record:
    return (offset, "FEATURE_LEVEL_RECORD", {"name": name, "featureLevel": level})


def begin(offset: int) -> Record:
    return (offset, "BEGIN_TRANSACTION_RECORD", {"name": "t"})


def end(offset: int) -> Record:
    return (offset, "END_TRANSACTION_RECORD", {})


def abort(offset: int) -> Record:
    return (offset, "ABORT_TRANSACTION_RECORD", {"reason": "test"})


def quota(offset: int, entity: Mapping[str, str | None], key: str, value: float, remove: bool = False) -> Record:
    ent = [{"entityType": t, "entityName": n} for t, n in entity.items()]
    return (offset, "CLIENT_QUOTA_RECORD", {"entity": ent, "key": key, "value": value, "remove": remove})


def client_config(offset: int, entity: Mapping[str, str | None], key: str, value: str | None) -> Record:
    ent = [{"entityType": t, "entityName": n} for t, n in entity.items()]
    return (offset, "CLIENT_CONFIG_RECORD", {"entity": ent, "key": key, "value": value})
