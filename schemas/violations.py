"""Constraint evaluation results: the ``violations`` table (docs/contract.md §6) and its companions.

``VIOLATIONS`` is the one fixed result schema of ``transforms.constraints.evaluate.evaluate_constraints``.
Besides the docs/contract.md §6 columns it carries:

* ``is_downgrade`` — target level below the cluster's current level (KIP-1294 audits downgrades too);
* ``node_id`` — for topic expressions whose hosting brokers' views differ, the broker view that fails;
* ``synonym`` — the key the value was actually read from (``log.retention.hours`` for ``log.retention.ms``);
* ``affected_topics`` — on BROKER rows: topics hosted on that node that inherit the violating value;
* ``constraint_source`` / ``constraint_kind`` / ``constraint_mv`` — where the rule came from, its check kind
  (``min``, ``in``, ..., ``expr``) and the MV name of its ``since``;
* ``constraint_origin`` / ``constraint_release`` — which kind of rule it is (``CONSTRAINT_ORIGINS``: a base
  validator or an MV validator, written by Kafka or by the user) and, for a base validator bound to a Kafka
  release (the generated ConfigDef checks), that release;
* ``value_assumed`` — the value judged (for an expression, any value it reads) is a release default assumed for
  a broker whose server.properties is not known in full (``EFFECTIVE_CONFIGS.is_assumed``);
* ``violation_code`` — machine-readable reason (see ``VIOLATION_CODES``);
* ``remediation_change`` — the fix as a structured change in the ``simulate`` changes format (null when no
  concrete value can be proposed, e.g. an ``in`` rule with several allowed values).
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

VIOLATION_CODES: Final = (
    "NULL_VALUE",  # a rule that needs a value (min/max/between/in/regex/not_null/non_empty_list) got null
    "NOT_A_NUMBER",  # the value does not parse as the key's type (Java parse rules after trim)
    "BELOW_MIN",
    "ABOVE_MAX",
    "NOT_ALLOWED",  # `in`: value (or a list element) not in the allowed set
    "FORBIDDEN",  # `not_in`: value (or a list element) in the forbidden set
    "NO_MATCH",  # `regex`
    "WRONG_TYPE",  # `type`
    "EMPTY_LIST",
    "DUPLICATES",
    "EMPTY_ELEMENT",
    "EXPRESSION_FALSE",
    "COULD_NOT_EVALUATE",  # an expression evaluated to NULL
)

# constraint_origin: Kafka's base validators (a release's ConfigDef checks, `release`), Kafka's MV validators
# (conf/kafka_mv_gates.yaml, `since`), the user's base rules (no `since`) and MV validators (`since`).
CONSTRAINT_ORIGINS: Final = ("kafka_base", "kafka_mv", "user_base", "user_mv")

# The fix as a change of the `simulate` changes file (schemas/changes.py), one operation. Every field is
# set when the struct is; fields are declared nullable because Spark cannot cast derived struct fields to NOT NULL.
REMEDIATION_CHANGE: Final = StructType(
    [
        StructField("resource_type", StringType(), True),  # BROKER, TOPIC, GROUP, CLIENT_METRICS, CLIENT
        StructField("resource_name", StringType(), True),  # "" = the cluster-wide broker default
        StructField("layer", StringType(), True),  # dynamic | static (server.properties)
        StructField("op", StringType(), True),  # SET | DELETE
        StructField("key", StringType(), True),
        StructField("value", StringType(), True),  # null for DELETE
    ]
)

VIOLATIONS: Final = StructType(
    [
        StructField("run_id", StringType(), False),
        StructField("run_ts", TimestampType(), False),  # UTC start of the run
        StructField("cluster_id", StringType(), False),
        StructField("target_mv", StringType(), False),
        StructField("target_level", IntegerType(), False),
        StructField("current_level", IntegerType(), True),  # null when the cluster's level is unknown
        StructField("is_downgrade", BooleanType(), True),  # target_level < current_level
        StructField("resource_type", StringType(), False),
        StructField("resource_name", StringType(), False),
        StructField("node_id", IntegerType(), True),  # failing broker view of a topic expression, see above
        StructField("config_name", StringType(), False),  # validated key; first of `configs` for expressions
        StructField("value", StringType(), True),  # "[redacted]" for sensitive keys
        StructField("value_source", StringType(), True),  # DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, ...
        StructField("synonym", StringType(), True),
        StructField("source_offset", LongType(), True),  # null for static/default values
        StructField("constraint_id", StringType(), False),
        StructField("constraint_source", StringType(), False),  # catalog file
        StructField("constraint_kind", StringType(), False),  # min, max, between, in, ..., expr
        StructField("constraint_level", IntegerType(), True),  # level of `since`; null for base validators
        StructField("constraint_mv", StringType(), True),  # MV name of that level
        StructField("constraint_origin", StringType(), False),  # one of CONSTRAINT_ORIGINS
        StructField("constraint_release", StringType(), True),  # release of a release-bound base validator
        StructField("severity", StringType(), False),  # error | warning
        StructField("violation_code", StringType(), False),  # one of VIOLATION_CODES
        StructField("message", StringType(), False),
        StructField("remediation", StringType(), False),
        StructField("remediation_change", REMEDIATION_CHANGE, True),
        StructField("reference", StringType(), True),
        StructField("affected_topics", IntegerType(), True),  # BROKER rows only: inheriting topics on that node
        StructField("new_at_target", BooleanType(), True),  # null when current_level is unknown
        # the judged value (an expression: a value it reads) is an assumed default (EFFECTIVE_CONFIGS.is_assumed)
        StructField("value_assumed", BooleanType(), True),
    ]
)
VIOLATIONS_PARTITIONS: Final = ("cluster_id",)

# Input of evaluate_constraints: how a BROKER key can be changed (Kafka's DynamicBrokerConfig sets).
DYNAMIC_SCOPES: Final = StructType(
    [
        StructField("config_name", StringType(), False),
        StructField("scope", StringType(), False),  # read-only | per-broker | cluster-wide
    ]
)
DYNAMIC_SCOPE_VALUES: Final = ("read-only", "per-broker", "cluster-wide")

# Errors and warnings per cluster and metadata.version level (every level of the MV table evaluated at once).
VIOLATIONS_BY_LEVEL: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("level", IntegerType(), False),
        StructField("mv", StringType(), False),
        StructField("errors", LongType(), False),
        StructField("warnings", LongType(), False),
        StructField("is_safe", BooleanType(), False),  # no error violation at this level
    ]
)

# One row per cluster: the run summary's highest_safe_mv.
HIGHEST_SAFE_LEVELS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("current_level", IntegerType(), True),
        StructField("highest_safe_level", IntegerType(), True),  # null when every level has an error
        StructField("highest_safe_mv", StringType(), True),
    ]
)
