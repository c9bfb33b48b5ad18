"""Row-level facts the data-quality expectations read, derived with native Spark (windows, JSON paths, regexes).

Great Expectations bundles the unexpected counts of all single-column expectations of a table into one
aggregate, but runs extra Spark jobs for column-pair, multi-column, uniqueness and ``row_condition``
expectations. Cross-row and cross-column rules are therefore computed here as boolean columns (``dq_*``, never
NULL: true when the row passes) and checked with ``expect_column_values_to_be_in_set([True])``, so each table
is read once per validation. No UDFs, no driver actions.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from functools import reduce

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import ConfigSource
from schemas.record_types import CONTROL_RECORD_TYPES, METADATA_RECORD_TYPES
from transforms.decode.redaction import REDACTED, SENSITIVE_NAME_PATTERN

_SENSITIVE_NAME_REGEX = "(?i)" + SENSITIVE_NAME_PATTERN


def with_flags(df: DataFrame, flags: Mapping[str, Column]) -> DataFrame:
    """``df`` with one boolean column per flag (NULL counts as passing: a check says nothing about absent data)."""
    return df.select("*", *[F.coalesce(flag, F.lit(True)).alias(name) for name, flag in flags.items()])


def unique_key(keys: Sequence[str]) -> Column:
    """True when no other row has the same key (NULL key parts compare equal, as a join would group them)."""
    return F.count(F.lit(1)).over(Window.partitionBy(*keys)) == 1


def offset_increasing() -> Column:
    """METADATA_RECORDS: true when the record's offset is above the previous record's of the same file section.

    Decode order is the byte position of the batch (binary) or the line (text), then the offset within a batch.
    A section is one file, or one snapshot inside a dump-log text file (``snapshot_end_offset``): offsets inside
    a snapshot restart at 0. The first record of a section passes.
    """
    section = Window.partitionBy("cluster_id", "source_file", "snapshot_end_offset").orderBy(
        F.col("position").asc_nulls_first(), F.col("line_number").asc_nulls_first(), F.col("offset")
    )
    previous = F.lag("offset").over(section)
    return previous.isNull() | (F.col("offset") > previous)


def offset_in_batch() -> Column:
    """METADATA_RECORDS: a record's offset is not below its batch's base offset (true when either is unknown)."""
    return F.col("batch_base_offset").isNull() | (F.col("offset") >= F.col("batch_base_offset"))


def has_decode_position() -> Column:
    """METADATA_RECORDS: the record says where it was read (byte position or line), so its order is known."""
    return F.col("position").isNotNull() | F.col("line_number").isNotNull()


def control_flag_consistent() -> Column:
    """METADATA_RECORDS: ``is_control`` agrees with the record type (control names vs metadata names)."""
    is_control_name = F.col("record_type").isin(list(CONTROL_RECORD_TYPES.values()))
    is_metadata_name = F.col("record_type").isin(list(METADATA_RECORD_TYPES.values()))
    control_with_metadata_name = F.col("is_control") & is_metadata_name
    data_with_control_name = ~F.col("is_control") & is_control_name
    return ~(control_with_metadata_name | data_with_control_name)


def known_record_type() -> Column:
    """METADATA_RECORDS: the record type of records not flagged unknown (NULL for unknown ones: not checked)."""
    return F.when(~F.col("is_unknown"), F.col("record_type"))


def config_record_resource_type() -> Column:
    """METADATA_RECORDS: ``resourceType`` of a CONFIG_RECORD payload as an int (NULL for other records)."""
    code = F.get_json_object(F.col("payload"), "$.resourceType").try_cast("int")
    return F.when(F.col("record_type") == "CONFIG_RECORD", code)


def payload_is_object() -> Column:
    """METADATA_RECORDS: the payload is a JSON object (cheap shape test; the decoders write objects only)."""
    text = F.trim(F.col("payload"))
    return text.startswith("{") & text.endswith("}")


def is_hidden(value: Column) -> Column:
    """A stored value that reveals nothing: NULL or ``[redacted]``."""
    return value.isNull() | (value == F.lit(REDACTED))


def is_sensitive_name(name: Column) -> Column:
    """Config names that are secret whatever the catalog says (``transforms.decode.redaction`` patterns)."""
    return F.coalesce(name.rlike(_SENSITIVE_NAME_REGEX), F.lit(False))


def secret_hidden(name: Column, value: Column, value_hash: Column | None = None) -> Column:
    """A value whose name looks sensitive, or that carries a keyed hash, is NULL or ``[redacted]``."""
    must_hide = is_sensitive_name(name)
    if value_hash is not None:
        must_hide = must_hide | value_hash.isNotNull()
    return ~must_hide | is_hidden(value)


def effective_secret_hidden() -> Column:
    """EFFECTIVE_CONFIGS: sensitive and PASSWORD values, and set values with sensitive names, are hidden.

    ConfigDef defaults are public (``delegation.token.expiry.time.ms`` defaults to 86400000) and stay visible.
    """
    is_default = F.col("source") == ConfigSource.DEFAULT_CONFIG
    is_password = F.coalesce(F.col("config_type") == "PASSWORD", F.lit(False))
    set_with_sensitive_name = is_sensitive_name(F.col("config_name")) & ~F.coalesce(is_default, F.lit(False))
    must_hide = F.col("is_sensitive") | is_password | set_with_sensitive_name | F.col("value_hash").isNotNull()
    return ~must_hide | is_hidden(F.col("value"))


def violation_secret_hidden() -> Column:
    """VIOLATIONS: a value set under a sensitive-looking name is hidden (defaults are public)."""
    is_default = F.coalesce(F.col("value_source") == ConfigSource.DEFAULT_CONFIG, F.lit(False))
    return ~(is_sensitive_name(F.col("config_name")) & ~is_default) | is_hidden(F.col("value"))


def payload_secrets_hidden() -> Column:
    """METADATA_RECORDS: no secret in a payload.

    CONFIG_RECORD / CLIENT_CONFIG_RECORD values under sensitive names or with a ``valueHash`` are hidden,
    REGISTER_BROKER_RECORD static configs likewise, and USER_SCRAM_CREDENTIAL_RECORD salts and keys are absent.
    """
    payload = F.col("payload")
    record_type = F.col("record_type")

    def field(path: str) -> Column:
        return F.get_json_object(payload, path)

    config_ok = secret_hidden(field("$.name"), field("$.value"), field("$.valueHash"))
    client_config_ok = secret_hidden(field("$.key"), field("$.value"), field("$.valueHash"))
    static_configs = F.from_json(field("$.staticConfigs"), "array<struct<name:string,value:string,valueHash:string>>")
    static_ok = F.coalesce(
        F.forall(static_configs, lambda c: secret_hidden(c["name"], c["value"], c["valueHash"])), F.lit(True)
    )
    scram_ok = field("$.salt").isNull() & field("$.storedKey").isNull() & field("$.serverKey").isNull()
    return (
        F.when(record_type == "CONFIG_RECORD", config_ok)
        .when(record_type == "CLIENT_CONFIG_RECORD", client_config_ok)
        .when(record_type == "REGISTER_BROKER_RECORD", static_ok)
        .when(record_type == "USER_SCRAM_CREDENTIAL_RECORD", scram_ok)
        .otherwise(F.lit(True))
    )


def not_above(low: str, high: str) -> Column:
    """``low`` ≤ ``high`` when both are known."""
    return F.col(low).isNull() | F.col(high).isNull() | (F.col(low) <= F.col(high))


def any_not_null(*columns: str) -> Column:
    """At least one of the columns is set."""
    return reduce(operator.or_, [F.col(c).isNotNull() for c in columns])
