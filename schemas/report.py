"""The data of the HTML report: the shapes of the small aggregates ``jobs.reporting.data`` computes.

Each ``jobs.reporting.data`` output ends with a ``select`` equal to one of these; ``jobs.report`` collects them
into the report and the dashboard notebook reads the same frames.
"""

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

# Violations counted by one dimension (constraint, severity, cluster, value source), largest first.
VIOLATION_COUNTS: Final = StructType(
    [
        StructField("label", StringType(), False),
        StructField("errors", LongType(), False),
        StructField("warnings", LongType(), False),
        StructField("violations", LongType(), False),  # errors + warnings (+ any other severity)
    ]
)

# Cluster x metadata.version level: is the level safe, and where the cluster stands.
READINESS_MATRIX: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("level", IntegerType(), False),
        StructField("mv", StringType(), False),
        StructField("errors", LongType(), False),
        StructField("warnings", LongType(), False),
        StructField("is_safe", BooleanType(), False),
        StructField("is_highest_safe", BooleanType(), False),  # the cluster's highest safe level
        StructField("is_current", BooleanType(), False),  # the cluster's metadata.version at the audited offset
    ]
)

# Per cluster of a run: current level and the highest safe MV (null when no level is safe).
SAFE_LEVELS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("current_level", IntegerType(), True),
        StructField("highest_safe_level", IntegerType(), True),
        StructField("highest_safe_mv", StringType(), True),
    ]
)

# One point per audit run, oldest first.
RUN_TREND: Final = StructType(
    [
        StructField("run_id", StringType(), False),
        StructField("run_ts", TimestampType(), False),
        StructField("command", StringType(), False),
        StructField("target_mv", StringType(), False),
        StructField("target_level", IntegerType(), False),
        StructField("clusters", IntegerType(), False),
        StructField("errors", LongType(), False),
        StructField("warnings", LongType(), False),
        StructField("findings", LongType(), False),
        StructField("verdict", StringType(), False),
    ]
)

# The violation table of the report: errors first, then by cluster, constraint and resource.
VIOLATION_ROWS: Final = StructType(
    [
        StructField("severity", StringType(), False),
        StructField("cluster_id", StringType(), False),
        StructField("constraint_id", StringType(), False),
        StructField("constraint_mv", StringType(), True),
        StructField("constraint_origin", StringType(), False),  # schemas.violations.CONSTRAINT_ORIGINS
        StructField("constraint_release", StringType(), True),  # release of a release-bound base validator
        StructField("resource_type", StringType(), False),
        StructField("resource_name", StringType(), False),
        StructField("node_id", IntegerType(), True),
        StructField("config_name", StringType(), False),
        StructField("value", StringType(), True),  # "[redacted]" stays "[redacted]"
        StructField("value_source", StringType(), True),
        StructField("new_at_target", BooleanType(), True),
        StructField("affected_topics", IntegerType(), True),
        StructField("message", StringType(), False),
        StructField("remediation", StringType(), False),
    ]
)

# Findings by kind, blocking kinds first.
FINDING_COUNTS: Final = StructType(
    [
        StructField("kind", StringType(), False),
        StructField("findings", LongType(), False),
        StructField("blocking", LongType(), False),
        StructField("clusters", LongType(), False),
    ]
)

# The findings table of the report.
FINDING_ROWS: Final = StructType(
    [
        StructField("kind", StringType(), False),
        StructField("is_blocking", BooleanType(), False),
        StructField("cluster_id", StringType(), False),
        StructField("resource_type", StringType(), True),
        StructField("resource_name", StringType(), True),
        StructField("config_name", StringType(), True),
        StructField("offset", LongType(), True),
        StructField("message", StringType(), False),
    ]
)

# Quarantined input rows grouped by cluster and reason, with one example location.
QUARANTINE_COUNTS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("reason", StringType(), False),
        StructField("rows", LongType(), False),
        StructField("files", LongType(), False),
        StructField("example_file", StringType(), True),
        StructField("example_location", StringType(), True),  # "byte N", "line N" or null
        StructField("example_excerpt", StringType(), True),  # redacted at ingest
    ]
)
