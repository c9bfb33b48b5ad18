"""A unique secret planted in every place issue #16 names, through every decoder and the row building that
follows (``decode_rows`` for files; parse, redaction and excerpts for server.properties, as the ingest job does),
with the shipped sensitivity rules: the secret appears in no column of any produced row, as text, hex or base64."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable
from functools import cache

import pytest

from jobs.conf_loader import sensitivity_rules
from tests.fuzz.campaign import SCHEMA
from tests.fuzz.markers import leak_forms
from transforms.decode.binary.encode import encode_batch, encode_log_segment, encode_metadata_record
from transforms.decode.files import FileDescriptor, decode_rows, to_batch
from transforms.decode.redaction import SensitivityRules, redact_text, redact_value, safe_config_name
from transforms.decode.text.properties import parse_server_properties

KEY = b"planted-secrets-redaction-key-32"
TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA"


@cache
def rules() -> SensitivityRules:
    return sensitivity_rules()


def json_line(record_type: str, data: dict[str, object], **fields: object) -> str:
    return json.dumps({"offset": 7, "type": record_type, "version": 0, "data": data, **fields})


def dump_line(payload: str) -> str:
    return f"| offset: 7 CreateTime: 1732150000000 keySize: -1 valueSize: 12 sequence: -1 headerKeys: [] {payload}"


def dump_payload(record_type: str, data: dict[str, object]) -> str:
    return dump_line("payload: " + json.dumps({"type": record_type, "version": 0, "data": data}))


def config(resource_type: int, name: str, value: object, **extra: object) -> dict[str, object]:
    return {"resourceType": resource_type, "resourceName": "r", "name": name, "value": value, **extra}


def segment(*records: tuple[int, int, dict[str, object]]) -> bytes:
    return encode_log_segment(list(records), base_offset=40)


def raw(data: bytes) -> dict[str, object]:
    return {"_raw": base64.b64encode(data).decode()}


def head_truncated_at(secret: str) -> bytes:
    data = segment((4, 0, config(4, "ssl.keystore.password", secret)), (20, 0, {}))
    return data[data.index(secret.encode()) :]  # the file now starts with the value's bytes


def crc_broken(secret: str) -> bytes:
    value = encode_metadata_record(4, 0, config(4, "sasl.jaas.config", secret))
    batch = bytearray(encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=0, records=[(None, value)]))
    batch[-3] ^= 0xFF
    return bytes(batch)


FILES: dict[str, tuple[str, Callable[[str], str | bytes]]] = {
    "json-unknown-record-type": (
        "JSON_LINES",
        lambda s: json_line("ConfigRecord", config(4, "ssl.keystore.password", s)),
    ),
    "json-resource-type-8": ("JSON_LINES", lambda s: json_line("CONFIG_RECORD", config(8, "kafka.server.Log", s))),
    "json-resource-type-99": ("JSON_LINES", lambda s: json_line("CONFIG_RECORD", config(99, "retention.ms", s))),
    "json-unknown-topic-key": ("JSON_LINES", lambda s: json_line("CONFIG_RECORD", config(2, "my.plugin.key", s))),
    "json-extra-field": (
        "JSON_LINES",
        lambda s: json_line("CONFIG_RECORD", config(2, "retention.ms", "1", oldValue=s)),
    ),
    "json-client-config-unknown-key": (
        "JSON_LINES",
        lambda s: json_line(
            "CLIENT_CONFIG_RECORD", {"entity": [{"entityType": "user", "entityName": "a"}], "key": "x.y", "value": s}
        ),
    ),
    "json-static-config-unknown-key": (
        "JSON_LINES",
        lambda s: json_line(
            "REGISTER_BROKER_RECORD", {"brokerId": 1, "brokerEpoch": 1, "staticConfigs": [{"name": "x.y", "value": s}]}
        ),
    ),
    "json-excerpt-name-far-after-value": (
        "JSON_LINES",
        lambda s: f'{{"offset": 7, "data": {{"value": "{s}", "pad": "{"x" * 300}", "name": "ssl.keystore.password"',
    ),
    "json-bad-field-in-reason": ("JSON_LINES", lambda s: json_line("NO_OP_RECORD", {}, timestamp=s)),
    "json-lone-surrogate-line": ("JSON_LINES", lambda s: json_line("NO_OP_RECORD", {"v": s}).replace(s, s + "\\ud800")),
    "json-deep-line": (
        "JSON_LINES",
        lambda s: json_line("NO_OP_RECORD", {"v": s, "d": "D"}).replace('"D"', "[" * 1500 + "]" * 1500),
    ),
    "dump-unknown-record-type": (
        "DUMP_LOG_TEXT",
        lambda s: dump_payload("ConfigRecord", config(4, "ssl.keystore.password", s)),
    ),
    "dump-resource-type-8": (
        "DUMP_LOG_TEXT",
        lambda s: dump_payload("CONFIG_RECORD", config(8, "kafka.server.Log", s)),
    ),
    "dump-extra-field": (
        "DUMP_LOG_TEXT",
        lambda s: dump_payload("CONFIG_RECORD", config(2, "retention.ms", "1", oldValue=s)),
    ),
    "dump-value-of-wrong-kind": (
        "DUMP_LOG_TEXT",
        lambda s: dump_payload("CONFIG_RECORD", config(2, "retention.ms", {"x": s})),
    ),
    "dump-unrecognised-line": ("DUMP_LOG_TEXT", lambda s: f"my.unknown.setting={s}"),
    "dump-error-at-message": ("DUMP_LOG_TEXT", lambda s: dump_line(f"payload: Error at 7, skipping. {s}")),
    "dump-invalid-bytes-file": ("DUMP_LOG_TEXT", lambda s: f"Found 9 invalid bytes at the end of {s}.log"),
    "dump-unknown-control-type": ("DUMP_LOG_TEXT", lambda s: dump_line(f"controlType: {s}(99)")),
    "dump-bad-json-payload": (
        "DUMP_LOG_TEXT",
        lambda s: dump_line(f'payload: {{"type":"CONFIG_RECORD","data":{{"value":"{s}"'),
    ),
    "binary-unknown-version-raw": (
        "LOG_SEGMENT",
        lambda s: segment((4, 99, raw(b"\x00\x10ssl.keystore.key" + s.encode()))),
    ),
    "binary-unknown-api-key-raw": ("LOG_SEGMENT", lambda s: segment((99, 0, raw(struct.pack(">h", 1) + s.encode())))),
    "binary-resource-type-8": ("LOG_SEGMENT", lambda s: segment((4, 0, config(8, "kafka.server.Log", s)))),
    "binary-unknown-tagged-field": (
        "LOG_SEGMENT",
        lambda s: segment(
            (2, 0, {"name": "t", "topicId": TOPIC_ID, "_unknownTaggedFields": {"9": raw(s.encode())["_raw"]}})
        ),
    ),
    "binary-head-truncated-at-value": ("LOG_SEGMENT", head_truncated_at),
    "binary-crc-broken-batch": ("LOG_SEGMENT", crc_broken),
}


@pytest.mark.parametrize("place", list(FILES), ids=list(FILES))
def test_a_secret_planted_in_a_file_reaches_no_row(place: str) -> None:
    secret = f"MK{place.replace('-', '').upper()}Z"
    kind, build = FILES[place]
    content = build(secret)
    data = content if isinstance(content, bytes) else content.encode()
    descriptors = {"f": FileDescriptor("f", "/in/f", "c1", kind, "sha")}

    rows = list(decode_rows("f", data, descriptors, rules(), KEY))
    assert to_batch(rows, SCHEMA).num_rows == len(rows) > 0
    text = repr(rows)
    assert not [form for form in leak_forms(secret) if form in text]


PROPERTIES: dict[str, Callable[[str], str]] = {
    "properties-password": lambda s: f"ssl.keystore.password={s}",
    "properties-unknown-key": lambda s: f"my.unknown.broker.setting={s}",
    "properties-listener-password": lambda s: f"listener.name.internal.ssl.key.password={s}",
    "properties-malformed-escape": lambda s: f"bad.escape=\\uZZ{s}",
    "properties-lone-surrogate": lambda s: f"lone=\\ud800{s}",
    "properties-jaas-missing-continuation": lambda s: f'sasl.jaas.config=Plain required\n password="{s}";',
    "properties-escaped-separator": lambda s: f"ssl.key.password\\={s}",
}


@pytest.mark.parametrize("place", list(PROPERTIES), ids=list(PROPERTIES))
def test_a_secret_planted_in_server_properties_reaches_no_row(place: str) -> None:
    secret = f"MK{place.replace('-', '').upper()}Z"
    properties, quarantined = parse_server_properties("node.id=1\n" + PROPERTIES[place](secret) + "\n")

    # The static_configs and quarantine rows the ingest job builds from them.
    rows = [(safe_config_name(n, KEY), *redact_value(n, v, "broker", rules(), KEY)) for n, v in properties.items()]
    rows += [(q.line_number, q.reason, redact_text(q.excerpt, rules())) for q in quarantined]
    assert len(rows) >= 2
    text = repr(rows)
    assert not [form for form in leak_forms(secret) if form in text]


def test_an_unrecognised_file_head_reaches_no_row() -> None:
    secret = "MKUNRECOGNISEDHEADZ"
    excerpt = redact_text(f"user=admin\npassword={secret}\n", rules())  # what ingest keeps of an unknown file
    assert secret not in excerpt
