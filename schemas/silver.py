"""Silver tables: cluster state replayed from the bronze records (one row per entity at the audited offset)."""

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

# The latest registration of every broker still registered at the audited offset.
BROKERS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("node_id", IntegerType(), False),
        StructField("incarnation_id", StringType(), True),
        StructField("broker_epoch", LongType(), True),
        StructField("rack", StringType(), True),
        StructField("fenced", BooleanType(), False),
        StructField("in_controlled_shutdown", BooleanType(), False),
        StructField("min_supported_mv", IntegerType(), True),  # metadata.version feature range it registered
        StructField("max_supported_mv", IntegerType(), True),
        # e.g. "4.2": the oldest of release_candidates, else the release of max_supported_mv (transforms.replay.brokers)
        StructField("kafka_release", StringType(), True),
        # releases whose registered feature maxima equal this registration's (empty: none; null: no features)
        StructField("release_candidates", ArrayType(StringType(), False), True),
        StructField("registration_version", IntegerType(), True),  # REGISTER_BROKER_RECORD version
        StructField("has_static_configs", BooleanType(), False),  # v5 StaticConfigs or a --static-config file
        StructField("registration_offset", LongType(), True),
    ]
)

# The static (server.properties) layer per broker: v5 registrations' StaticConfigs, else --static-config files.
# Controller-only nodes (not registered brokers) have their --static-config file here too (origin FILE).
BROKER_STATIC_CONFIGS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("node_id", IntegerType(), False),
        StructField("name", StringType(), False),
        StructField("value", StringType(), True),
        StructField("value_hash", StringType(), True),
        StructField("origin", StringType(), False),  # REGISTRATION or FILE
        StructField("source_offset", LongType(), True),  # offset of the registration (null for a file)
    ]
)

TOPICS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("topic_id", StringType(), False),  # 22-char URL-safe base64
        StructField("topic_name", StringType(), False),
        StructField("partitions", IntegerType(), False),
        StructField("replication_factor", IntegerType(), True),  # max replica-list length over partitions
        StructField("internal", BooleanType(), False),  # __consumer_offsets, __transaction_state, __share_group_state
        StructField("replica_nodes", ArrayType(IntegerType(), False), False),  # brokers hosting any replica
        StructField("created_offset", LongType(), True),
    ]
)

# Dynamic configs (ConfigRecord) per resource at the audited offset; deletes and removed topics applied.
DYNAMIC_CONFIGS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("resource_type", StringType(), False),  # BROKER, TOPIC, GROUP, CLIENT_METRICS
        StructField("resource_name", StringType(), False),  # "" = cluster-wide broker default
        StructField("name", StringType(), False),
        StructField("value", StringType(), True),
        StructField("value_hash", StringType(), True),
        StructField("source_offset", LongType(), True),
        StructField("source_timestamp", TimestampType(), True),
        StructField("from_snapshot", BooleanType(), False),  # set by a snapshot record (offset = snapshot end - 1)
    ]
)

# Client quota and client config entries per <user, client-id> entity ("<default>" names the default entity).
CLIENT_ENTITY_CONFIGS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("entity_user", StringType(), True),  # null when the entity has no user part
        StructField("entity_client_id", StringType(), True),  # null when the entity has no client-id part
        StructField("entity_ip", StringType(), True),
        StructField("kind", StringType(), False),  # QUOTA or CLIENT_CONFIG
        StructField("name", StringType(), False),
        StructField("value", StringType(), True),
        StructField("value_hash", StringType(), True),
        StructField("source_offset", LongType(), True),
        StructField("source_timestamp", TimestampType(), True),
    ]
)

FEATURES: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("feature", StringType(), False),
        StructField("level", IntegerType(), False),
        StructField("source_offset", LongType(), True),
    ]
)

CONTROLLERS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("controller_id", IntegerType(), False),
        StructField("incarnation_id", StringType(), True),
        StructField("min_supported_mv", IntegerType(), True),
        StructField("max_supported_mv", IntegerType(), True),
        StructField("registration_offset", LongType(), True),
    ]
)

# One row per cluster: the facts cluster-state policies and the run summary need.
CLUSTER_STATE: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("current_level", IntegerType(), True),  # finalized metadata.version level
        # the oldest Kafka release a registered broker runs (BROKERS.kafka_release); null when none is known
        StructField("kafka_release", StringType(), True),
        StructField("broker_count", IntegerType(), False),  # live: registered and not fenced
        StructField("rack_count", IntegerType(), False),
        StructField("topic_count", IntegerType(), False),
        StructField("snapshot_end_offset", LongType(), True),  # the snapshot replay started from
        StructField("last_offset", LongType(), True),  # the last offset applied
        StructField("last_timestamp", TimestampType(), True),
        StructField("records_applied", LongType(), False),
    ]
)
