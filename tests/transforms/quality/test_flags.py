"""The derived data-quality flags: one passing, one failing and one NULL case per rule, on tiny frames."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from transforms.quality import flags as fl


def flag_values(spark: SparkSession, rows: list[tuple[object, ...]], ddl: str, flag: Column) -> list[bool]:
    """The flag of each row, in the order of the first column (an id)."""
    df = spark.createDataFrame(rows, ddl).transform(fl.with_flags, {"dq_flag": flag})
    return [r["dq_flag"] for r in df.orderBy("id").collect()]


def test_offsets_must_increase_per_file_section_in_decode_order(spark: SparkSession) -> None:
    ddl = (
        "id int, cluster_id string, source_file string, snapshot_end_offset long, position long, "
        "line_number long, offset long"
    )
    rows = [
        (1, "c", "a.jsonl", None, None, 1, 0),
        (2, "c", "a.jsonl", None, None, 2, 1),
        (3, "c", "a.jsonl", None, None, 3, 1),  # repeats offset 1: fails
        (4, "c", "a.jsonl", 100, None, 4, 0),  # a snapshot section restarts at 0: passes
        (5, "c", "b.log", None, 0, None, 7),
        (6, "c", "b.log", None, 10, None, 5),  # a later batch with a lower offset: fails
        (7, "c", "b.log", None, 10, None, 6),
        (8, "d", "a.jsonl", None, None, 1, 0),  # another cluster's file of the same name: its own sequence
    ]
    assert flag_values(spark, rows, ddl, fl.offset_increasing()) == [True, True, False, True, True, False, True, True]


def test_keys_must_be_unique_null_parts_included(spark: SparkSession) -> None:
    rows = [(1, "a", 1), (2, "a", 1), (3, "a", None), (4, "a", None), (5, "b", 1)]
    values = flag_values(spark, rows, "id int, k string, n int", fl.unique_key(["k", "n"]))
    assert values == [False, False, False, False, True]


@pytest.mark.parametrize(
    ("name", "value", "value_hash", "expected"),
    [
        ("ssl.keystore.password", "s3cret", None, False),
        ("ssl.keystore.password", "[redacted]", "hmac-sha256:ab", True),
        ("ssl.keystore.password", None, None, True),
        ("log.segment.bytes", "1048576", None, True),
        ("custom.plugin.setting", "visible", "hmac-sha256:ab", False),  # hashed means it was secret
        (None, "x", None, True),
    ],
    ids=["password-visible", "password-redacted", "password-null", "plain", "hashed-but-visible", "no-name"],
)
def test_secret_values_are_hidden(
    spark: SparkSession, name: str | None, value: str | None, value_hash: str | None, expected: bool
) -> None:
    flag = fl.secret_hidden(F.col("name"), F.col("value"), F.col("value_hash"))
    rows = [(1, name, value, value_hash)]
    assert flag_values(spark, rows, "id int, name string, value string, value_hash string", flag) == [expected]


def test_payload_secrets_are_hidden_for_configs_registrations_and_scram(spark: SparkSession) -> None:
    def payload(data: dict[str, object]) -> str:
        return json.dumps(data)

    rows = [
        (1, "CONFIG_RECORD", payload({"resourceType": 4, "name": "ssl.key.password", "value": "s3cret"})),
        (2, "CONFIG_RECORD", payload({"name": "ssl.key.password", "value": "[redacted]", "valueHash": "h"})),
        (3, "CONFIG_RECORD", payload({"name": "log.segment.bytes", "value": "1"})),
        (4, "REGISTER_BROKER_RECORD", payload({"staticConfigs": [{"name": "sasl.jaas.config", "value": "x"}]})),
        (5, "REGISTER_BROKER_RECORD", payload({"brokerId": 1})),  # no static configs
        (6, "USER_SCRAM_CREDENTIAL_RECORD", payload({"name": "alice", "salt": "c2FsdA=="})),
        (7, "USER_SCRAM_CREDENTIAL_RECORD", payload({"name": "alice", "salt": None})),
        (8, "CLIENT_CONFIG_RECORD", payload({"key": "sasl.jaas.config", "value": "x"})),
        (9, "TOPIC_RECORD", payload({"name": "password-topic"})),
    ]
    values = flag_values(spark, rows, "id int, record_type string, payload string", fl.payload_secrets_hidden())
    assert values == [False, True, True, False, True, False, True, False, True]


def test_effective_secrets_are_hidden_but_public_defaults_stay(spark: SparkSession) -> None:
    ddl = (
        "id int, config_name string, value string, value_hash string, is_sensitive boolean, "
        "config_type string, source string"
    )
    rows = [
        (1, "delegation.token.expiry.time.ms", "86400000", None, False, "LONG", "DEFAULT_CONFIG"),
        (2, "delegation.token.expiry.time.ms", "1000", None, False, "LONG", "DYNAMIC_BROKER_CONFIG"),
        (3, "ssl.truststore.password", "s3cret", None, True, "PASSWORD", "STATIC_BROKER_CONFIG"),
        (4, "ssl.truststore.password", None, None, True, "PASSWORD", "DEFAULT_CONFIG"),
        (5, "log.segment.bytes", "1048576", None, False, None, "STATIC_BROKER_CONFIG"),
    ]
    assert flag_values(spark, rows, ddl, fl.effective_secret_hidden()) == [True, False, False, True, True]


def test_control_flag_agrees_with_the_record_type(spark: SparkSession) -> None:
    rows = [(1, True, "LEADER_CHANGE"), (2, True, "CONFIG_RECORD"), (3, False, "LEADER_CHANGE"), (4, False, "UNKNOWN")]
    values = flag_values(spark, rows, "id int, is_control boolean, record_type string", fl.control_flag_consistent())
    assert values == [True, False, False, True]
