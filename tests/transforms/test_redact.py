"""redact_record: secrets replaced in the record types that can hold them, other records passed through."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from transforms.redact import REDACTED, SensitivityRules, redact_record

RULES = SensitivityRules(password_keys=frozenset({"ssl.keystore.password"}))
KEY = b"k" * 32


def test_a_record_without_secrets_is_passed_through_unchanged() -> None:
    data = {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitionId": 0, "replicas": [1, 2, 3]}
    assert redact_record("PARTITION_RECORD", data, RULES, KEY) is data
    assert data == {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitionId": 0, "replicas": [1, 2, 3]}


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


def test_raw_bytes_of_an_unknown_record_are_dropped_when_they_name_a_secret() -> None:
    raw = base64.b64encode(b"\x00\x05sasl.jaas.config=...password=x").decode()
    out = redact_record("UNKNOWN_RECORD_99", {"_raw": raw}, RULES, KEY)
    assert out["_raw"] is None and "_rawDropped" in out
    harmless = base64.b64encode(b"\x00\x01\x02").decode()
    assert redact_record("UNKNOWN_RECORD_99", {"_raw": harmless}, RULES, KEY)["_raw"] == harmless
