"""redact_record: secrets replaced in the record types that can hold them, anything not known to be safe (unknown
record types, fields, resource types, raw bytes) redacted, other records passed through; redact_text: excerpts
show a line's shape, never its values."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from transforms.decode.redaction import (
    REDACTED,
    SensitivityRules,
    keyed_hash,
    keyed_hash_bytes,
    redact_record,
    redact_text,
    safe_config_name,
)

RULES = SensitivityRules(password_keys=frozenset({"ssl.keystore.password"}))
# With a catalog: names outside it are unknown, hence sensitive (as in Kafka).
CATALOG = SensitivityRules(
    password_keys=frozenset({"ssl.keystore.password"}),
    known_keys={"topic": frozenset({"retention.ms"}), "broker": frozenset({"log.retention.ms"})},
)
KEY = b"k" * 32


def test_a_record_of_trusted_shape_without_secrets_is_passed_through_unchanged() -> None:
    data = {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitionId": 0, "replicas": [1, 2, 3]}
    assert redact_record("PARTITION_RECORD", data, RULES, KEY, trusted_shape=True) is data
    assert data == {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitionId": 0, "replicas": [1, 2, 3]}


def test_a_record_from_text_keeps_its_schema_fields() -> None:
    data = {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitionId": 0, "replicas": [1, 2, 3], "leaderRecoveryState": 1}
    assert redact_record("PARTITION_RECORD", data, RULES, KEY) == data


@pytest.mark.parametrize(
    ("record_type", "data", "redacted_field"),
    [
        (
            "CONFIG_RECORD",
            {"resourceType": 4, "resourceName": "1", "name": "ssl.keystore.password", "value": "s3"},
            "value",
        ),
        ("CONFIG_RECORD", {"resourceType": 4, "resourceName": "", "name": "my.plugin.secret", "value": "s3"}, "value"),
        (
            "REGISTER_BROKER_RECORD",
            {"brokerId": 1, "staticConfigs": [{"name": "ssl.keystore.password", "value": "s3"}]},
            "staticConfigs",
        ),
        ("USER_SCRAM_CREDENTIAL_RECORD", {"name": "alice", "salt": "c2FsdA==", "storedKey": "a2V5"}, "salt"),
    ],
    ids=["password-key", "secret-looking-name", "static-configs", "scram"],
)
def test_secrets_are_replaced_in_a_copy(record_type: str, data: dict[str, Any], redacted_field: str) -> None:
    original = copy.deepcopy(data)
    out = redact_record(record_type, data, RULES, KEY)
    assert data == original  # the decoded record is not changed in place
    assert out is not data
    assert "s3" not in repr(out) and "c2FsdA==" not in repr(out)
    if record_type == "CONFIG_RECORD":
        assert out["value"] == REDACTED and out["valueHash"].startswith("hmac-sha256:")
    if record_type == "REGISTER_BROKER_RECORD":
        assert out["staticConfigs"][0]["value"] == REDACTED


@pytest.mark.parametrize(
    "raw",
    [b"\x00\x05sasl.jaas.config=...password=x", b"\x00\x10ssl.keystore.key\x00\x06s3cr3t", b"\x00\x01\x02"],
    ids=["password-word", "no-password-word", "harmless"],
)
def test_raw_bytes_are_never_kept_only_their_length_and_keyed_hash(raw: bytes) -> None:
    encoded = base64.b64encode(raw).decode()
    for record_type in ("UNKNOWN_RECORD", "CONFIG_RECORD"):  # unknown apiKey; known apiKey of an unknown version
        out = redact_record(record_type, {"_raw": encoded}, RULES, KEY)
        assert out == {"_rawLength": len(raw), "_rawHash": keyed_hash_bytes(raw, KEY)}


def test_unknown_tagged_fields_at_any_depth_keep_only_length_and_hash() -> None:
    secret = base64.b64encode(b"s3cr3t").decode()
    data = {
        "brokerId": 1,
        "endPoints": [
            {"name": "PLAIN", "host": "h", "port": 9092, "securityProtocol": 0, "_unknownTaggedFields": {"7": secret}}
        ],
        "_unknownTaggedFields": {"9": secret},
    }
    out = redact_record("REGISTER_BROKER_RECORD", data, RULES, KEY)
    fingerprint = {"length": 6, "hash": keyed_hash_bytes(b"s3cr3t", KEY)}
    assert out["_unknownTaggedFields"] == {"9": fingerprint}
    assert out["endPoints"][0]["_unknownTaggedFields"] == {"7": fingerprint}
    assert secret not in repr(out)


def test_an_unknown_record_type_keeps_only_the_length_and_keyed_hash_of_its_data() -> None:
    data = {"resourceType": 4, "resourceName": "", "name": "ssl.keystore.password", "value": "s3"}
    out = redact_record("ConfigRecord", data, RULES, KEY)
    assert set(out) == {"_redacted", "_length", "_hash"} and out["_hash"].startswith("hmac-sha256:")
    assert "s3" not in repr(out) and "ssl.keystore" not in repr(out)


def test_fields_and_kinds_of_value_the_schema_does_not_define_are_redacted() -> None:
    data = {
        "resourceType": 2,
        "resourceName": "orders",
        "name": "retention.ms",
        "value": "1000",
        "oldValue": "s3",
        "nested": {"password": "s3"},
    }
    out = redact_record("CONFIG_RECORD", data, CATALOG, KEY)
    assert out == {**data, "oldValue": REDACTED, "nested": REDACTED}
    wrong_kind = redact_record("CONFIG_RECORD", {**data, "resourceName": {"x": "s3"}}, CATALOG, KEY)
    assert wrong_kind["resourceName"] == REDACTED


@pytest.mark.parametrize(
    ("record_type", "data"),
    [
        ("CONFIG_RECORD", {"resourceType": 8, "resourceName": "1", "name": "kafka.server", "value": "s3"}),
        ("CONFIG_RECORD", {"resourceType": 99, "resourceName": "1", "name": "retention.ms", "value": "s3"}),
        ("CONFIG_RECORD", {"resourceType": [2], "resourceName": "1", "name": "retention.ms", "value": "s3"}),
        ("CONFIG_RECORD", {"resourceType": 2, "resourceName": "t", "name": "my.plugin.setting", "value": "s3"}),
        ("CONFIG_RECORD", {"resourceType": 2, "resourceName": "t", "value": "s3"}),
        ("CLIENT_CONFIG_RECORD", {"entity": [{"entityType": "user", "entityName": "a"}], "key": "x.y", "value": "s3"}),
    ],
    ids=["broker-logger", "resource-99", "resource-not-int", "unknown-topic-key", "no-name", "client-config"],
)
def test_a_name_not_known_to_be_safe_has_its_value_redacted(record_type: str, data: dict[str, Any]) -> None:
    out = redact_record(record_type, data, CATALOG, KEY)
    assert out["value"] == REDACTED and out["valueHash"] == keyed_hash("s3", KEY)


def test_a_known_name_of_a_known_resource_keeps_its_value() -> None:
    data = {"resourceType": 2, "resourceName": "t", "name": "retention.ms", "value": "1000"}
    assert redact_record("CONFIG_RECORD", data, CATALOG, KEY)["value"] == "1000"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"offset": 7, "value": "s3", ' + "x" * 300 + ' "name": "ssl.keystore.password"}',
            '{"offset": 7, "value": "…", … "name": "ssl.keystore.password"}',
        ),
        ("my.unknown.setting=s3", "…=…"),
        ("retention.ms=s3", "retention.ms=…"),
        ("baseOffset: 12 lastOffset: s3 isvalid: false", "baseOffset: 12 lastOffset: … isvalid: false"),
        ('"value": 123456', '"value": …'),
        ("\x00s3\u2028", "…."),
    ],
    ids=[
        "name-far-after-value",
        "unknown-setting",
        "known-setting",
        "dump-batch-line",
        "number-after-value",
        "controls",
    ],
)
def test_an_excerpt_keeps_the_shape_of_a_line_never_its_values(text: str, expected: str) -> None:
    assert redact_text(text, CATALOG) == expected


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("log.retention.ms", "log.retention.ms"),
        (
            "listener.name.INTERNAL.scram-sha-512.sasl.jaas.config",
            "listener.name.INTERNAL.scram-sha-512.sasl.jaas.config",
        ),
        ('password="s3";', None),
        ("ssl.key.password=s3", None),
        ("a b", None),
    ],
    ids=["plain", "listener-prefixed", "jaas-line-without-continuation", "escaped-separator", "blank"],
)
def test_a_name_not_shaped_like_a_config_name_is_shown_as_its_keyed_hash(name: str, shown: str | None) -> None:
    assert safe_config_name(name, KEY) == (shown or f"{REDACTED} {keyed_hash(name, KEY)}")
    out = redact_record(
        "CONFIG_RECORD", {"resourceType": 2, "resourceName": "t", "name": name, "value": "1"}, CATALOG, KEY
    )
    assert out["name"] == safe_config_name(name, KEY)
