"""The expectation suites of the bronze, silver and gold tables (one ``TableSuite`` per table).

Every suite starts from the table's ``StructType`` in ``schemas/``: the column set, each column's Spark type and
every non-nullable column's not-null expectation, all critical. Table rules follow: allowed codes and names
(record types, input kinds, resource types, config sources, severities), key uniqueness, offsets increasing per
file in decode order, secrets only ever ``[redacted]``. Cross-row and cross-column rules are derived as ``dq_*``
flag columns (``transforms.quality.flags``) and expected to be true.

Critical means the table breaks a contract or an invariant the pipeline relies on (a failure stops the run);
warning means the data is unusual but the audit stays meaningful (it is reported).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from schemas import bronze, gold, silver
from schemas.constraints import CHECK_KINDS
from schemas.decoded import INPUT_KINDS
from schemas.kafka_vocabulary import (
    CONFIG_RESOURCE_IDS,
    CONFIG_RESOURCE_TYPES,
    RESOURCE_TYPES,
    AlterConfigOpType,
    ConfigSource,
)
from schemas.quality import CRITICAL, DERIVED_PREFIX, WARNING, Criticality, Expectation, Stage
from schemas.record_types import CLIENT_CONFIG_RECORD, CONTROL_RECORD_TYPES, METADATA_RECORD_TYPES, UNKNOWN_RECORD
from schemas.upgrade_effects import UPGRADE_EFFECTS, UpgradeWith
from schemas.violations import VIOLATION_CODES, VIOLATIONS
from transforms.decode.redaction import EXCERPT_LIMIT
from transforms.quality import flags as fl

KNOWN_RECORD_TYPES: Final = (
    *METADATA_RECORD_TYPES.values(),
    CLIENT_CONFIG_RECORD,
    *CONTROL_RECORD_TYPES.values(),
    UNKNOWN_RECORD,
)
# Kafka ConfigEntry.ConfigSource names an effective value can carry (docs/contract.md §4).
# plain strings, not enum members: they become Great Expectations arguments, which GX validates and serializes
CONFIG_SOURCES: Final = tuple(s.value for s in ConfigSource)
EFFECTIVE_RESOURCE_TYPES: Final = tuple(t.value for t in RESOURCE_TYPES)
# ConfigRecord resources that can be persisted in the metadata log (BROKER_LOGGER, 8, never is).
DYNAMIC_RESOURCE_TYPES: Final = tuple(t.value for t in CONFIG_RESOURCE_TYPES)
CONFIG_RESOURCE_CODES: Final = tuple(CONFIG_RESOURCE_IDS.values())
SEVERITIES: Final = ("error", "warning")
RECORD_TYPE: Final = DERIVED_PREFIX + "record_type"  # record_type of records not flagged unknown
CONFIG_RESOURCE_TYPE: Final = DERIVED_PREFIX + "config_resource_type"  # resourceType of CONFIG_RECORD payloads
CONSTRAINT_KINDS: Final = (*CHECK_KINDS, "expr")


@dataclass(frozen=True)
class FlagCheck:
    """A derived boolean column ``dq_<check_id>`` that must be true on every row."""

    check_id: str
    column: Callable[[], Column]  # built at validation time: Columns need an active SparkSession
    description: str
    criticality: Criticality = CRITICAL

    @property
    def name(self) -> str:
        """The derived column's name."""
        return DERIVED_PREFIX + self.check_id


@dataclass(frozen=True)
class TableSuite:
    """The expectations of one table, and the derived columns they read.

    ``derived`` are value columns the rules check (e.g. a payload field), ``flag_checks`` boolean columns that
    must be true; both are named ``dq_*`` and exist only in the validated DataFrame.
    """

    stage: Stage
    table: str
    schema: StructType
    row_keys: tuple[str, ...]  # columns that identify a failing row in reports (never a value column)
    rules: tuple[Expectation, ...] = ()
    flag_checks: tuple[FlagCheck, ...] = ()
    derived: Mapping[str, Callable[[], Column]] = field(default_factory=dict)

    @property
    def expectations(self) -> tuple[Expectation, ...]:
        """Schema expectations, then the table's rules, then one per flag."""
        flag_expectations = tuple(
            _in_set(f.check_id, f.name, [True], f.description, f.criticality) for f in self.flag_checks
        )
        derived = [*self.derived, *(f.name for f in self.flag_checks)]
        return (*schema_expectations(self.schema, derived), *self.rules, *flag_expectations)

    def prepare(self, df: DataFrame) -> DataFrame:
        """``df`` with the derived columns; without them when a column they read is missing.

        A table missing columns fails its critical column-set expectation anyway; the expectations on derived
        columns then fail as "column does not exist" instead of the whole validation crashing.
        """
        if not set(self.schema.names) <= set(df.columns):
            return df
        values = df.select("*", *[column().alias(name) for name, column in self.derived.items()])
        return fl.with_flags(values, {f.name: f.column() for f in self.flag_checks})


def schema_expectations(schema: StructType, derived: Sequence[str] = ()) -> list[Expectation]:
    """The column set (plus the derived flags), each column's Spark type, and not-null for non-nullable ones."""
    out = [
        Expectation(
            "columns",
            "expect_table_columns_to_match_set",
            {"column_set": [*column_paths(schema), *derived], "exact_match": True},
            CRITICAL,
            "the table has exactly the columns of its schema",
        )
    ]
    for f in schema.fields:
        out.append(
            Expectation(
                f"type:{f.name}",
                "expect_column_values_to_be_of_type",
                {"column": f.name, "type_": type(f.dataType).__name__},
                CRITICAL,
                f"{f.name} is {f.dataType.simpleString()}",
            )
        )
        if not f.nullable:
            out.append(
                Expectation(
                    f"not_null:{f.name}",
                    "expect_column_values_to_not_be_null",
                    {"column": f.name},
                    CRITICAL,
                    f"{f.name} is never null",
                )
            )
    return out


def column_paths(schema: StructType, prefix: str = "") -> list[str]:
    """Top-level column names and, for struct columns, their dotted field paths (as GX's Spark engine lists them)."""
    paths: list[str] = []
    for f in schema.fields:
        paths.append(prefix + f.name)
        if isinstance(f.dataType, StructType):
            paths.extend(column_paths(f.dataType, prefix + f.name + "."))
    return paths


def _in_set(
    check_id: str, column: str, values: Sequence[Any], description: str, criticality: Criticality = CRITICAL
) -> Expectation:
    return Expectation(
        check_id,
        "expect_column_values_to_be_in_set",
        {"column": column, "value_set": list(values)},
        criticality,
        description,
    )


def _at_least(
    check_id: str, column: str, minimum: int, description: str, criticality: Criticality = CRITICAL
) -> Expectation:
    return Expectation(
        check_id,
        "expect_column_values_to_be_between",
        {"column": column, "min_value": minimum},
        criticality,
        description,
    )


def _regex(
    check_id: str, column: str, regex: str, description: str, criticality: Criticality = CRITICAL
) -> Expectation:
    return Expectation(
        check_id,
        "expect_column_values_to_match_regex",
        {"column": column, "regex": regex},
        criticality,
        description,
    )


def _unique(keys: Sequence[str], criticality: Criticality = CRITICAL) -> FlagCheck:
    return FlagCheck(
        "key_unique",
        lambda: fl.unique_key(keys),
        f"one row per ({', '.join(keys)})",
        criticality,
    )


def _secret(name: str, value: str = "value", value_hash: str | None = "value_hash") -> FlagCheck:
    return FlagCheck(
        "secrets_redacted",
        lambda: fl.secret_hidden(F.col(name), F.col(value), F.col(value_hash) if value_hash else None),
        "values of sensitive configs, and values with a keyed hash, are only ever [redacted]",
    )


def _sha256(column: str) -> Expectation:
    return _regex(f"sha256:{column}", column, r"^[0-9a-f]{64}$", f"{column} is a SHA-256 hex digest")


# --- bronze -------------------------------------------------------------------------------------------------


def bronze_suites() -> list[TableSuite]:
    """metadata_records, quarantine, static_configs, ingested_files."""
    records = TableSuite(
        "bronze",
        "metadata_records",
        bronze.METADATA_RECORDS,
        ("cluster_id", "source_file", "offset"),
        rules=(
            _in_set("input_kind_known", "input_kind", INPUT_KINDS, "input_kind is a known input kind"),
            _at_least("offset_not_negative", "offset", 0, "log offsets are ≥ 0"),
            _in_set(
                "record_type_known",
                RECORD_TYPE,
                KNOWN_RECORD_TYPES,
                "record_type is a known KRaft record or control type unless the record is flagged unknown",
            ),
            _in_set(
                "config_resource_type_known",
                CONFIG_RESOURCE_TYPE,
                CONFIG_RESOURCE_CODES,
                "CONFIG_RECORD resourceType is TOPIC (2), BROKER (4), CLIENT_METRICS (16) or GROUP (32)",
                WARNING,
            ),
            _in_set(
                "records_decoded",
                "is_unknown",
                [False],
                "records of an unknown type, version or tagged field were kept raw",
                WARNING,
            ),
        ),
        derived={RECORD_TYPE: fl.known_record_type, CONFIG_RESOURCE_TYPE: fl.config_record_resource_type},
        flag_checks=(
            FlagCheck(
                "offsets_increasing",
                fl.offset_increasing,
                "offsets increase within each (cluster, source file) in decode order",
            ),
            FlagCheck("offset_in_batch", fl.offset_in_batch, "a record's offset is not below its batch's base offset"),
            FlagCheck("decode_position", fl.has_decode_position, "every record has a byte position or a line number"),
            FlagCheck("control_flag", fl.control_flag_consistent, "is_control agrees with the record type"),
            FlagCheck("payload_object", fl.payload_is_object, "the payload is a JSON object"),
            FlagCheck(
                "secrets_redacted",
                fl.payload_secrets_hidden,
                "payloads hold no secret: sensitive config values are [redacted], SCRAM salts and keys absent",
            ),
        ),
    )
    quarantine = TableSuite(
        "bronze",
        "quarantine",
        bronze.QUARANTINE,
        ("cluster_id", "source_file", "line_number", "position"),
        rules=(
            Expectation(
                "quarantine_empty",
                "expect_table_row_count_to_equal",
                {"value": 0},
                WARNING,
                "inputs had undecodable regions, lines or records (see the quarantine table)",
            ),
        ),
        flag_checks=(
            FlagCheck(
                "has_location",
                lambda: fl.any_not_null("position", "line_number", "offset"),
                "a quarantined item says where it was (byte position, line or offset)",
                WARNING,
            ),
            FlagCheck(
                "excerpt_short",
                lambda: F.length("excerpt") <= EXCERPT_LIMIT,
                f"quarantine excerpts are short redacted snippets (≤ {EXCERPT_LIMIT} characters)",
                WARNING,
            ),
        ),
    )
    static = TableSuite(
        "bronze",
        "static_configs",
        bronze.STATIC_CONFIGS,
        ("cluster_id", "node_id", "name"),
        rules=(_at_least("node_id_not_negative", "node_id", 0, "node ids are ≥ 0"), _sha256("file_sha256")),
        flag_checks=(_unique(["cluster_id", "node_id", "name"]), _secret("name")),
    )
    files = TableSuite(
        "bronze",
        "ingested_files",
        bronze.INGESTED_FILES,
        ("cluster_id", "source_file"),
        rules=(
            _in_set("input_kind_known", "input_kind", INPUT_KINDS, "input_kind is a known input kind"),
            _sha256("file_sha256"),
            _at_least("size_not_negative", "size_bytes", 0, "file sizes are ≥ 0"),
            _at_least("records_not_negative", "records", 0, "record counts are ≥ 0"),
            _at_least("quarantined_not_negative", "quarantined", 0, "quarantine counts are ≥ 0"),
        ),
        flag_checks=(_unique(["cluster_id", "source_file", "ingest_id"]),),
    )
    return [records, quarantine, static, files]


# --- silver -------------------------------------------------------------------------------------------------


def silver_suites() -> list[TableSuite]:
    """The replayed state tables."""
    return [
        TableSuite(
            "silver",
            "brokers",
            silver.BROKERS,
            ("cluster_id", "node_id"),
            rules=(
                _at_least("node_id_not_negative", "node_id", 0, "node ids are ≥ 0"),
                _regex("release_format", "kafka_release", r"^\d+\.\d+$", "kafka_release is MAJOR.MINOR", WARNING),
            ),
            flag_checks=(
                _unique(["cluster_id", "node_id"]),
                FlagCheck(
                    "mv_range",
                    lambda: fl.not_above("min_supported_mv", "max_supported_mv"),
                    "a broker's supported metadata.version range is not empty",
                ),
            ),
        ),
        TableSuite(
            "silver",
            "broker_static_configs",
            silver.BROKER_STATIC_CONFIGS,
            ("cluster_id", "node_id", "name"),
            rules=(_in_set("origin_known", "origin", ["REGISTRATION", "FILE"], "origin is REGISTRATION or FILE"),),
            flag_checks=(_unique(["cluster_id", "node_id", "name"]), _secret("name")),
        ),
        TableSuite(
            "silver",
            "topics",
            silver.TOPICS,
            ("cluster_id", "topic_name"),
            rules=(
                _regex("topic_id_format", "topic_id", r"^[A-Za-z0-9_-]{22}$", "topic ids are 22-char base64", WARNING),
                _at_least("has_partitions", "partitions", 1, "every topic has a partition", WARNING),
                _at_least("replication_factor_positive", "replication_factor", 1, "replication factor ≥ 1", WARNING),
            ),
            flag_checks=(_unique(["cluster_id", "topic_name"]),),
        ),
        TableSuite(
            "silver",
            "dynamic_configs",
            silver.DYNAMIC_CONFIGS,
            ("cluster_id", "resource_type", "resource_name", "name"),
            rules=(
                _in_set(
                    "resource_type_allowed",
                    "resource_type",
                    DYNAMIC_RESOURCE_TYPES,
                    "dynamic configs belong to BROKER, TOPIC, GROUP or CLIENT_METRICS resources",
                ),
            ),
            flag_checks=(_unique(["cluster_id", "resource_type", "resource_name", "name"]), _secret("name")),
        ),
        TableSuite(
            "silver",
            "client_entity_configs",
            silver.CLIENT_ENTITY_CONFIGS,
            ("cluster_id", "entity_user", "entity_client_id", "name"),
            rules=(_in_set("kind_known", "kind", ["QUOTA", "CLIENT_CONFIG"], "kind is QUOTA or CLIENT_CONFIG"),),
            flag_checks=(
                FlagCheck(
                    "entity_named",
                    lambda: fl.any_not_null("entity_user", "entity_client_id", "entity_ip"),
                    "every client entity names a user, a client id or an IP",
                ),
                _secret("name"),
            ),
        ),
        TableSuite(
            "silver",
            "features",
            silver.FEATURES,
            ("cluster_id", "feature"),
            rules=(_at_least("level_not_negative", "level", 0, "feature levels are ≥ 0"),),
            flag_checks=(_unique(["cluster_id", "feature"]),),
        ),
        TableSuite(
            "silver",
            "controllers",
            silver.CONTROLLERS,
            ("cluster_id", "controller_id"),
            flag_checks=(
                _unique(["cluster_id", "controller_id"]),
                FlagCheck(
                    "mv_range",
                    lambda: fl.not_above("min_supported_mv", "max_supported_mv"),
                    "a controller's supported metadata.version range is not empty",
                ),
            ),
        ),
        TableSuite(
            "silver",
            "cluster_state",
            silver.CLUSTER_STATE,
            ("cluster_id",),
            rules=(
                _at_least("broker_count_not_negative", "broker_count", 0, "broker counts are ≥ 0"),
                _at_least("records_applied_not_negative", "records_applied", 0, "applied record counts are ≥ 0"),
            ),
            flag_checks=(
                _unique(["cluster_id"]),
                FlagCheck(
                    "racks_within_brokers",
                    lambda: fl.not_above("rack_count", "broker_count"),
                    "a cluster has no more racks than live brokers",
                    WARNING,
                ),
            ),
        ),
    ]


# --- gold ---------------------------------------------------------------------------------------------------


def gold_suites() -> list[TableSuite]:
    """effective_configs, violations, findings and audit_runs."""
    resource_type_allowed = _in_set(
        "resource_type_allowed",
        "resource_type",
        EFFECTIVE_RESOURCE_TYPES,
        f"resource_type is one of {', '.join(EFFECTIVE_RESOURCE_TYPES)}",
    )
    return [
        TableSuite(
            "gold",
            "effective_configs",
            gold.EFFECTIVE_CONFIGS,
            ("cluster_id", "resource_type", "resource_name", "config_name"),
            rules=(
                resource_type_allowed,
                _in_set("source_allowed", "source", CONFIG_SOURCES, "source is a Kafka ConfigSource name"),
            ),
            flag_checks=(
                _unique(["cluster_id", "resource_type", "resource_name", "node_id", "config_name"]),
                FlagCheck(
                    "secrets_redacted",
                    fl.effective_secret_hidden,
                    "sensitive and PASSWORD values, and set values under sensitive names, are only ever [redacted]",
                ),
            ),
        ),
        TableSuite(
            "gold",
            "violations",
            VIOLATIONS,
            ("cluster_id", "resource_type", "resource_name", "constraint_id"),
            rules=(
                _in_set("severity_allowed", "severity", SEVERITIES, "severity is error or warning"),
                resource_type_allowed,
                _in_set(
                    "value_source_allowed", "value_source", CONFIG_SOURCES, "value_source is a Kafka ConfigSource name"
                ),
                _in_set("violation_code_known", "violation_code", VIOLATION_CODES, "violation_code is a known code"),
                _in_set(
                    "constraint_kind_known", "constraint_kind", CONSTRAINT_KINDS, "constraint_kind is a check kind"
                ),
                _at_least("target_level_positive", "target_level", 1, "target levels are ≥ 1"),
                _regex("message_present", "message", r"\S", "every violation has a message"),
            ),
            flag_checks=(
                FlagCheck(
                    "secrets_redacted",
                    fl.violation_secret_hidden,
                    "values set under sensitive names are only ever [redacted]",
                ),
                _unique(
                    [
                        "run_id",
                        "cluster_id",
                        "resource_type",
                        "resource_name",
                        "node_id",
                        "config_name",
                        "constraint_id",
                    ],
                    WARNING,
                ),
            ),
        ),
        TableSuite(
            "gold",
            "findings",
            gold.FINDINGS,
            ("cluster_id", "kind", "resource_name"),
            rules=(
                _in_set(
                    "resource_type_allowed",
                    "resource_type",
                    EFFECTIVE_RESOURCE_TYPES,
                    f"resource_type is one of {', '.join(EFFECTIVE_RESOURCE_TYPES)} when set",
                ),
                _regex("kind_format", "kind", r"^[A-Z][A-Z_]*$", "kind is an UPPER_SNAKE finding kind"),
                _regex("message_present", "message", r"\S", "every finding has a message"),
            ),
        ),
        TableSuite(
            "gold",
            "upgrade_effects",
            gold.with_run_columns(UPGRADE_EFFECTS),
            ("cluster_id", "resource_type", "resource_name", "config_name"),
            rules=(
                _in_set("upgrade_with_allowed", "upgrade_with", [f.value for f in UpgradeWith], "a known command form"),
                _in_set(
                    "operation_allowed",
                    "operation",
                    [AlterConfigOpType.SET.value, AlterConfigOpType.DELETE.value],
                    "operation is SET or DELETE",
                ),
                resource_type_allowed,
                _in_set("value_origin_allowed", "value_origin", CONFIG_SOURCES, "value_origin is a ConfigSource name"),
                _regex("message_present", "message", r"\S", "every effect has a message"),
            ),
            flag_checks=(
                _unique(["run_id", "cluster_id", "resource_type", "resource_name", "config_name"]),
                FlagCheck(
                    "value_matches_operation",
                    lambda: F.when(
                        F.col("operation") == AlterConfigOpType.SET, F.col("value_after").isNotNull()
                    ).otherwise(F.col("value_after").isNull()),
                    "a SET writes a value, a DELETE none",
                ),
            ),
        ),
        TableSuite(
            "gold",
            "audit_runs",
            gold.AUDIT_RUNS,
            ("run_id",),
            rules=(
                _in_set("verdict_allowed", "verdict", ["pass", "fail"], "verdict is pass or fail"),
                _at_least("target_level_positive", "target_level", 1, "target levels are ≥ 1"),
                _at_least("records_read_not_negative", "records_read", 0, "record counts are ≥ 0"),
                _at_least("violations_error_not_negative", "violations_error", 0, "violation counts are ≥ 0"),
                _at_least("violations_warning_not_negative", "violations_warning", 0, "violation counts are ≥ 0"),
                _at_least("duration_not_negative", "duration_ms", 0, "durations are ≥ 0"),
            ),
            flag_checks=(
                _unique(["run_id"]),
                FlagCheck(
                    "verdict_matches_errors",
                    # Waived errors do not fail the verdict, so only "fail implies an error" holds for every run.
                    lambda: (F.col("verdict") != "fail") | (F.col("violations_error") > 0),
                    "a fail verdict has at least one error violation (waived errors may pass)",
                ),
            ),
        ),
    ]


def suites_for(stage: Stage) -> list[TableSuite]:
    """The suites of one stage."""
    return {"bronze": bronze_suites, "silver": silver_suites, "gold": gold_suites}[stage]()


def all_suites() -> Mapping[str, TableSuite]:
    """Every suite by table name."""
    return {s.table: s for s in [*bronze_suites(), *silver_suites(), *gold_suites()]}
