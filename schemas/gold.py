"""Gold tables: effective configuration and what the audit noticed besides constraint violations."""

from __future__ import annotations

from typing import Final

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

# One row per (cluster, entity, key). Topic rows that inherit from brokers whose views differ are repeated per
# hosting node (node_id set); when all hosting brokers agree there is one row with node_id null.
EFFECTIVE_CONFIGS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("resource_type", StringType(), False),  # BROKER, TOPIC, GROUP, CLIENT_METRICS, CLIENT
        StructField("resource_name", StringType(), False),  # node id, topic, group, subscription, user=..,client-id=..
        StructField("node_id", IntegerType(), True),  # the broker view a topic value was resolved on, when views differ
        StructField("config_name", StringType(), False),
        StructField("value", StringType(), True),  # "[redacted]" for sensitive keys
        StructField("value_hash", StringType(), True),  # keyed hash of a redacted value
        StructField("is_sensitive", BooleanType(), False),
        StructField("config_type", StringType(), True),  # ConfigDef type (INT, LONG, LIST, ...); null if unknown
        StructField("source", StringType(), False),  # Kafka ConfigSource name, e.g. DYNAMIC_TOPIC_CONFIG
        StructField("synonym", StringType(), True),  # the key the value was read from (e.g. log.retention.hours)
        StructField("source_offset", LongType(), True),  # offset of the record that set it (null: static/default)
        StructField("source_timestamp", TimestampType(), True),
        StructField("kafka_release", StringType(), True),  # release whose ConfigDef defaults were applied
        # the value configured when Kafka uses another (`value`): a 3.6-3.9 timestamp fallback, a 4.3+ clamp
        StructField("value_set", StringType(), True),
        # `value` is a release default assumed for a broker whose server.properties is not known in full
        StructField("is_assumed", BooleanType(), False),
    ]
)
EFFECTIVE_CONFIGS_PARTITIONS: Final = ("cluster_id",)

# Everything the audit notices that is not a catalog violation: coverage gaps, ignored dynamic keys, conflicts.
FINDINGS: Final = StructType(
    [
        StructField("run_id", StringType(), False),
        StructField("run_ts", TimestampType(), False),
        StructField("cluster_id", StringType(), False),
        StructField("resource_type", StringType(), True),
        StructField("resource_name", StringType(), True),
        StructField("kind", StringType(), False),  # COVERAGE_GAP, IGNORED_DYNAMIC_CONFIG, REPLICA_CONFLICT, ...
        StructField("config_name", StringType(), True),
        StructField("message", StringType(), False),
        StructField("offset", LongType(), True),
        StructField("is_blocking", BooleanType(), False),
    ]
)
FINDINGS_PARTITIONS: Final = ("cluster_id",)

# The columns a per-run history table adds (see `with_run_columns`).
RUN_COLUMNS: Final = ("run_id", "run_ts")
# FINDINGS without the run columns: what replay and resolution produce before a run stamps them.
FINDING_ROWS: Final = StructType([f for f in FINDINGS.fields if f.name not in RUN_COLUMNS])


# One row per audit run: what was audited, how much, the verdict, and fingerprints of the code and catalogs.
AUDIT_RUNS: Final = StructType(
    [
        StructField("run_id", StringType(), False),
        StructField("run_ts", TimestampType(), False),
        StructField("command", StringType(), False),  # audit, run, gate
        StructField("target_mv", StringType(), False),
        StructField("target_level", IntegerType(), False),
        StructField("clusters", ArrayType(StringType(), False), False),
        StructField("downgrade_clusters", ArrayType(StringType(), False), False),  # current level above target
        StructField("as_of_offset", LongType(), True),
        StructField("as_of_time", TimestampType(), True),
        StructField("records_read", LongType(), False),
        StructField("records_quarantined", LongType(), False),
        StructField("entities_evaluated", LongType(), False),
        StructField("constraints_evaluated", IntegerType(), False),
        StructField("violations_error", LongType(), False),
        StructField("violations_warning", LongType(), False),
        StructField("findings", LongType(), False),
        StructField("highest_safe_mv", MapType(StringType(), StringType(), True), False),
        StructField("verdict", StringType(), False),  # pass or fail
        StructField("duration_ms", LongType(), False),
        StructField("code_fingerprint", StringType(), False),
        StructField("catalog_fingerprint", StringType(), False),
    ]
)


def with_run_columns(schema: StructType) -> StructType:
    """``schema`` preceded by ``run_id`` and ``run_ts``: the shape of a per-run history table."""
    return StructType(
        [StructField("run_id", StringType(), False), StructField("run_ts", TimestampType(), False), *schema.fields]
    )
