"""Bronze tables: what was read, as it was read (after redaction), and what could not be read."""

from __future__ import annotations

from typing import Final

from pyspark.sql.types import (
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

# One row per decoded record per source file. Replicas of the same log land once per file; replay de-duplicates.
METADATA_RECORDS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("source_file", StringType(), False),  # the input path as given (absolute)
        # LOG_SEGMENT, SNAPSHOT, BOOTSTRAP_SNAPSHOT, DUMP_LOG_TEXT or JSON_LINES
        StructField("input_kind", StringType(), False),
        StructField("file_sha256", StringType(), False),  # content hash of the whole file
        StructField("snapshot_end_offset", LongType(), True),  # snapshots: exclusive end offset from the name
        StructField("position", LongType(), True),  # binary: byte position of the record's batch
        StructField("line_number", LongType(), True),  # text: 1-based line
        StructField("batch_base_offset", LongType(), True),
        StructField("offset", LongType(), False),  # log offset; inside a snapshot, the offset within the file
        StructField("leader_epoch", IntegerType(), True),
        StructField("timestamp", TimestampType(), True),
        StructField("is_control", BooleanType(), False),  # Raft control record (LeaderChange, SnapshotHeader, ...)
        StructField("record_type", StringType(), False),  # UPPER_SNAKE, as kafka-dump-log prints it
        StructField("api_key", IntegerType(), True),  # metadata apiKey, or the control type for control records
        StructField("record_version", IntegerType(), True),
        StructField("payload", StringType(), False),  # JSON of the record's data, sensitive values redacted
        StructField("is_unknown", BooleanType(), False),  # unknown apiKey, version or tagged field: kept raw
        StructField("ingest_id", StringType(), False),
        StructField("ingested_at", TimestampType(), False),
    ]
)
METADATA_RECORDS_PARTITIONS: Final = ("cluster_id",)

# Every undecodable region, line or record, with where it was and why. Never holds a secret.
QUARANTINE: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("source_file", StringType(), False),
        StructField("input_kind", StringType(), True),
        StructField("file_sha256", StringType(), True),
        StructField("position", LongType(), True),
        StructField("length", LongType(), True),
        StructField("line_number", LongType(), True),
        StructField("offset", LongType(), True),
        StructField("reason", StringType(), False),
        StructField("excerpt", StringType(), True),  # short and redacted
        StructField("ingest_id", StringType(), False),
        StructField("ingested_at", TimestampType(), False),
    ]
)
QUARANTINE_PARTITIONS: Final = ("cluster_id",)

# Broker static configs from server.properties files given with --static-config (one row per key).
STATIC_CONFIGS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("node_id", IntegerType(), False),
        StructField("source_file", StringType(), False),
        StructField("file_sha256", StringType(), False),
        StructField("name", StringType(), False),
        StructField("value", StringType(), True),  # "[redacted]" for sensitive keys
        StructField("value_hash", StringType(), True),  # keyed hash of a redacted value, for drift checks
        StructField("ingest_id", StringType(), False),
        StructField("ingested_at", TimestampType(), False),
    ]
)
STATIC_CONFIGS_PARTITIONS: Final = ("cluster_id",)

# One row per (cluster, file) ever ingested: what makes re-ingesting the same inputs a no-op.
INGESTED_FILES: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("source_file", StringType(), False),
        StructField("input_kind", StringType(), False),
        StructField("file_sha256", StringType(), False),
        StructField("size_bytes", LongType(), False),
        StructField("records", LongType(), False),
        StructField("quarantined", LongType(), False),
        StructField("ingest_id", StringType(), False),
        StructField("ingested_at", TimestampType(), False),
    ]
)
INGESTED_FILES_PARTITIONS: Final = ("cluster_id",)

# What the per-file decoder emits on the executors: records and quarantine rows in one stream (row_kind tells
# them apart), so every file is decoded exactly once; the ingest job splits it into the two bronze tables.
DECODED_ROWS: Final = StructType(
    [
        StructField("row_kind", StringType(), False),  # RECORD or QUARANTINE
        StructField("cluster_id", StringType(), False),
        StructField("source_file", StringType(), False),
        StructField("input_kind", StringType(), False),
        StructField("file_sha256", StringType(), False),
        StructField("snapshot_end_offset", LongType(), True),
        StructField("position", LongType(), True),
        StructField("length", LongType(), True),
        StructField("line_number", LongType(), True),
        StructField("batch_base_offset", LongType(), True),
        StructField("offset", LongType(), True),
        StructField("leader_epoch", IntegerType(), True),
        StructField("timestamp", TimestampType(), True),
        StructField("is_control", BooleanType(), True),
        StructField("record_type", StringType(), True),
        StructField("api_key", IntegerType(), True),
        StructField("record_version", IntegerType(), True),
        StructField("payload", StringType(), True),
        StructField("is_unknown", BooleanType(), True),
        StructField("reason", StringType(), True),
        StructField("excerpt", StringType(), True),
    ]
)
