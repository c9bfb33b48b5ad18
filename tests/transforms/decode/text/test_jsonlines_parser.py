"""JSON-lines exports (docs/contract.md §3 shape) → DecodedRecord / QuarantineItem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.text.jsonlines import data_problems, parse_json_lines

DATA = Path(__file__).resolve().parents[3] / "data" / "text"

_ABSENT = object()  # marks a key line() leaves out
CONFIG_DATA = {"resourceType": 2, "resourceName": "orders", "name": "retention.ms", "value": "86400000"}


def line(**fields: Any) -> str:
    base: dict[str, Any] = {"offset": 7, "type": "CONFIG_RECORD", "version": 0, "data": CONFIG_DATA}
    base.update(fields)
    return json.dumps({k: v for k, v in base.items() if v is not _ABSENT})


def only(lines: list[str]) -> DecodedRecord | QuarantineItem:
    items = list(parse_json_lines(lines))
    assert len(items) == 1, items
    return items[0]


def test_contract_example_file_decodes_every_record_with_position_fields() -> None:
    lines = (DATA / "records.jsonl").read_text(encoding="utf-8").splitlines()

    items = list(parse_json_lines(lines))

    assert all(isinstance(i, DecodedRecord) for i in items)
    got = [
        (
            r.line_number,
            r.offset,
            r.record_type,
            r.api_key,
            r.record_version,
            r.is_control,
            r.is_unknown,
            r.timestamp_ms,
            r.batch_base_offset,
            r.leader_epoch,
        )
        for r in items
        if isinstance(r, DecodedRecord)
    ]
    assert got == [
        (1, 42, "CONFIG_RECORD", 4, 0, False, False, 1732150000000, None, None),
        (2, 43, "CLIENT_CONFIG_RECORD", None, 0, False, False, None, None, None),
        (3, 44, "REGISTER_BROKER_RECORD", 0, 5, False, False, 1732150000100, 44, 7),
        (5, 45, "SNAPSHOT_HEADER", 3, 0, True, False, None, None, None),
        (6, 46, "FUTURE_THING_RECORD", None, 0, False, True, None, None, None),
    ]
    first = items[0]
    assert isinstance(first, DecodedRecord)
    assert first.data == {"resourceType": 4, "resourceName": "", "name": "log.segment.bytes", "value": "4194304"}
    broker = items[2]
    assert isinstance(broker, DecodedRecord)
    assert broker.data["staticConfigs"] == [
        {"name": "log.segment.bytes", "value": "2097152"},
        {"name": "log.dirs", "value": None},
    ]


def test_config_record_with_null_value_is_a_delete_and_is_kept() -> None:
    item = only([line(data={**CONFIG_DATA, "value": None})])

    assert isinstance(item, DecodedRecord) and item.data["value"] is None


def test_unknown_type_is_kept_as_unknown_record_not_dropped() -> None:
    item = only([line(type="QUANTUM_RECORD", data={"anything": [1, 2]})])

    assert isinstance(item, DecodedRecord)
    assert (item.record_type, item.api_key, item.is_unknown, item.data) == (
        "QUANTUM_RECORD",
        None,
        True,
        {"anything": [1, 2]},
    )


@pytest.mark.parametrize(
    ("record_type", "expected_type", "api_key"),
    [
        ("LEADER_CHANGE", "LEADER_CHANGE", 2),
        ("SnapshotFooter", "SNAPSHOT_FOOTER", 4),
        ("KRAFT_VOTERS", "KRAFT_VOTERS", 6),
    ],
    ids=["upper-snake", "dump-log-label", "voters"],
)
def test_control_types_become_control_records_without_isControl(
    record_type: str, expected_type: str, api_key: int
) -> None:
    item = only([line(type=record_type, data={"version": 0})])

    assert isinstance(item, DecodedRecord)
    assert (item.record_type, item.api_key, item.is_control, item.is_unknown) == (expected_type, api_key, True, False)


def test_isControl_true_with_an_unknown_type_is_an_unknown_control_record() -> None:
    item = only([line(type="FUTURE_CONTROL", isControl=True, data={})])

    assert isinstance(item, DecodedRecord)
    assert (item.is_control, item.is_unknown, item.api_key) == (True, True, None)


def test_negative_timestamp_means_no_timestamp() -> None:
    item = only([line(timestamp=-1)])

    assert isinstance(item, DecodedRecord) and item.timestamp_ms is None


def test_version_may_be_absent() -> None:
    item = only([line(version=_ABSENT)])

    assert isinstance(item, DecodedRecord) and item.record_version is None


def test_blank_lines_are_skipped_and_line_numbers_count_them() -> None:
    items = list(parse_json_lines(["", "   ", line(offset=3) + "\r\n"]))

    assert [(i.line_number, i.offset) for i in items] == [(3, 3)]


def test_byte_order_mark_on_the_first_line_is_ignored() -> None:
    item = only(["\ufeff" + line()])

    assert isinstance(item, DecodedRecord)


OTHER_ENTITY = [{"entityType": "user", "entityName": None}]


@pytest.mark.parametrize(
    ("text", "code", "offset"),
    [
        ('{"offset": 1, "type": "CONFIG_RECORD"', "JSON_INVALID", None),
        ("[1, 2]", "JSON_NOT_OBJECT", None),
        ('"just a string"', "JSON_NOT_OBJECT", None),
        (line(offset=_ABSENT), "JSON_MISSING_OFFSET", None),
        (line(offset=None), "JSON_MISSING_OFFSET", None),
        (line(offset=-1), "JSON_BAD_OFFSET", None),
        (line(offset="42"), "JSON_BAD_OFFSET", None),
        (line(offset=4.0), "JSON_BAD_OFFSET", None),
        (line(offset=True), "JSON_BAD_OFFSET", None),
        (line(type=_ABSENT), "JSON_BAD_TYPE", 7),
        (line(type=4), "JSON_BAD_TYPE", 7),
        (line(type=""), "JSON_BAD_TYPE", 7),
        (line(data=_ABSENT), "JSON_BAD_DATA", 7),
        (line(data=[1]), "JSON_BAD_DATA", 7),
        (line(timestamp="2024-11-21"), "JSON_BAD_FIELD", 7),
        (line(version=-1), "JSON_BAD_FIELD", 7),
        (line(version=40000), "JSON_BAD_FIELD", 7),
        (line(version="0"), "JSON_BAD_FIELD", 7),
        (line(batchBaseOffset=-5), "JSON_BAD_FIELD", 7),
        (line(leaderEpoch="3"), "JSON_BAD_FIELD", 7),
        (line(isControl="yes"), "JSON_BAD_FIELD", 7),
        (line(type="LEADER_CHANGE", isControl=False, data={}), "JSON_CONTROL_MISMATCH", 7),
        (line(isControl=True), "JSON_CONTROL_MISMATCH", 7),
        (line(data={"resourceType": 2, "resourceName": "t", "name": "k"}), "JSON_BAD_RECORD_DATA", 7),
        (line(data={**CONFIG_DATA, "resourceType": "2"}), "JSON_BAD_RECORD_DATA", 7),
        (line(data={**CONFIG_DATA, "value": 86400000}), "JSON_BAD_RECORD_DATA", 7),
        (
            line(
                type="CLIENT_CONFIG_RECORD",
                data={"entity": [{"entityType": "ip", "entityName": "1.2.3.4"}], "key": "k", "value": "v"},
            ),
            "JSON_BAD_RECORD_DATA",
            7,
        ),
        (
            line(type="CLIENT_CONFIG_RECORD", data={"entity": [], "key": "k", "value": "v"}),
            "JSON_BAD_RECORD_DATA",
            7,
        ),
        (
            line(type="CLIENT_CONFIG_RECORD", data={"entity": [{"entityType": "user"}], "key": "k", "value": "v"}),
            "JSON_BAD_RECORD_DATA",
            7,
        ),
        (
            line(type="CLIENT_CONFIG_RECORD", data={"entity": OTHER_ENTITY, "key": "k", "value": 5}),
            "JSON_BAD_RECORD_DATA",
            7,
        ),
        (
            line(type="CLIENT_QUOTA_RECORD", data={"entity": OTHER_ENTITY, "key": "producer_byte_rate", "value": 1.0}),
            "JSON_BAD_RECORD_DATA",
            7,
        ),
        (
            line(type="REGISTER_BROKER_RECORD", data={"brokerId": 1, "brokerEpoch": 5, "staticConfigs": [{"name": 1}]}),
            "JSON_BAD_RECORD_DATA",
            7,
        ),
        (line(type="TOPIC_RECORD", data={"name": "orders"}), "JSON_BAD_RECORD_DATA", 7),
        (line(type="FEATURE_LEVEL_RECORD", data={"name": "metadata.version"}), "JSON_BAD_RECORD_DATA", 7),
    ],
    ids=[
        "invalid-json",
        "array",
        "string",
        "missing-offset",
        "null-offset",
        "negative-offset",
        "string-offset",
        "float-offset",
        "bool-offset",
        "missing-type",
        "number-type",
        "empty-type",
        "missing-data",
        "list-data",
        "string-timestamp",
        "negative-version",
        "version-above-int16",
        "string-version",
        "negative-batch-base-offset",
        "string-leader-epoch",
        "string-isControl",
        "control-type-with-isControl-false",
        "metadata-type-with-isControl-true",
        "config-without-value",
        "config-string-resource-type",
        "config-number-value",
        "client-config-ip-entity",
        "client-config-empty-entity",
        "client-config-entity-without-name",
        "client-config-number-value",
        "client-quota-without-remove",
        "broker-bad-static-configs",
        "topic-without-id",
        "feature-level-without-level",
    ],
)
def test_bad_line_is_quarantined_with_line_number_reason_and_offset_when_known(
    text: str, code: str, offset: int | None
) -> None:
    items = list(parse_json_lines([line(offset=1), text]))

    assert isinstance(items[0], DecodedRecord)
    item = items[1]
    assert isinstance(item, QuarantineItem)
    assert (item.extra["code"], item.line_number, item.offset) == (code, 2, offset)
    assert item.reason
    assert item.excerpt == text[:120]


def test_quarantine_excerpt_is_at_most_120_chars() -> None:
    text = line(offset=-1, data={**CONFIG_DATA, "value": "x" * 500})

    item = only([text])

    assert isinstance(item, QuarantineItem) and len(item.excerpt) == 120


def test_data_problems_lists_every_missing_field_and_wrong_type() -> None:
    problems = data_problems("CONFIG_RECORD", {"resourceType": "4", "name": "k"})

    assert problems == ["missing field(s) resourceName, value", "'resourceType' must be an integer"]


@pytest.mark.parametrize(
    ("record_type", "data"),
    [
        ("CONFIG_RECORD", CONFIG_DATA),
        ("NO_OP_RECORD", {}),
        ("SNAPSHOT_HEADER", {}),
        ("CLIENT_QUOTA_RECORD", {"entity": OTHER_ENTITY, "key": "request_percentage", "value": 50, "remove": False}),
        ("PARTITION_CHANGE_RECORD", {"partitionId": 0, "topicId": "v9meXjI1RVKB-NSvF0GXDA", "replicas": None}),
    ],
    ids=["config", "no-op-has-no-rules", "control-has-no-rules", "quota-int-value", "partition-change-null-replicas"],
)
def test_data_problems_is_empty_for_usable_records(record_type: str, data: dict[str, Any]) -> None:
    assert data_problems(record_type, data) == []
