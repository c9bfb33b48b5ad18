"""Record-level behaviour: bad records are quarantined alone, unknown types and tags are kept and flagged,
control records, compression edge cases, timestamps, snapshot completeness."""

from __future__ import annotations

import base64
import struct

import cramjam
import crc32c
import pytest

from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.binary.compression import XERIAL_MAGIC, compress
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_batch, encode_control_record, encode_metadata_record, encode_snapshot

CONFIG = {"resourceType": 2, "resourceName": "orders", "name": "retention.ms", "value": "1000"}
GOOD = encode_metadata_record(4, 0, CONFIG)


def _decode(
    records: list[tuple[bytes | None, bytes]], *, control: bool = False
) -> list[DecodedRecord | QuarantineItem]:
    batch = encode_batch(base_offset=100, leader_epoch=2, timestamp_ms=1000, records=records, control=control)
    return list(decode_file(batch, kind="LOG_SEGMENT"))


def _with_header(batch: bytes, fmt: str, offset: int, value: int) -> bytes:
    """Patch a CRC-covered header field and recompute the CRC-32C."""
    patched = bytearray(batch)
    struct.pack_into(fmt, patched, offset, value)
    struct.pack_into(">I", patched, 17, crc32c.crc32c(bytes(patched[21:])))
    return bytes(patched)


def _only(items: list[DecodedRecord | QuarantineItem], kind: type) -> list:
    return [i for i in items if isinstance(i, kind)]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (b"\x00" + GOOD[1:], "frame version 0"),
        (b"\x02" + GOOD[1:], "frame version 2"),
        (GOOD + b"\x00\x00", "2 byte(s) of garbage"),
        (GOOD[:-4], "past the end of the record"),
        (b"\x01\x04\x00\x02\x07orders\x00", "non-nullable field name is null"),
        (b"\x01", "frame is truncated"),
    ],
    ids=["frame-v0", "frame-v2", "leftover-bytes", "truncated-body", "null-in-non-nullable", "no-api-key"],
)
def test_bad_record_is_quarantined_with_its_offset_and_its_neighbours_decode(value: bytes, reason: str) -> None:
    items = _decode([(None, GOOD), (None, value), (None, GOOD)])

    quarantined = _only(items, QuarantineItem)
    assert len(quarantined) == 1
    assert reason in quarantined[0].reason
    assert (quarantined[0].offset, quarantined[0].position, quarantined[0].length) == (101, 0, None)
    assert quarantined[0].extra["region"] == "record"
    assert [(r.offset, r.data) for r in _only(items, DecodedRecord)] == [(100, CONFIG), (102, CONFIG)]


def test_unknown_api_key_is_kept_raw_and_flagged() -> None:
    body = b"\x05\x06\x00"
    value = b"\x01\xc8\x01\x00" + body  # apiKey 200 as a two-byte varint
    (record,) = _decode([(None, value)])

    assert isinstance(record, DecodedRecord)
    assert (record.record_type, record.api_key, record.record_version, record.is_unknown) == ("UNKNOWN", 200, 0, True)
    assert record.data == {"_raw": base64.b64encode(body).decode()}
    assert encode_metadata_record(200, 0, record.data) == value


def test_known_api_key_with_unknown_version_keeps_its_name_and_raw_body() -> None:
    value = encode_metadata_record(4, 7, {"_raw": base64.b64encode(b"\x02\x00").decode()})
    (record,) = _decode([(None, value)])

    assert isinstance(record, DecodedRecord)
    assert (record.record_type, record.record_version, record.is_unknown) == ("CONFIG_RECORD", 7, True)
    assert record.data == {"_raw": "AgA="}


def test_unknown_tag_inside_a_nested_struct_flags_the_record() -> None:
    config = {"name": "log.segment.bytes", "value": "1", "_unknownTaggedFields": {"3": "AQ=="}}
    value = encode_metadata_record(0, 5, {"brokerId": 1, "rack": None, "staticConfigs": [config]})
    (record,) = _decode([(None, value)])

    assert isinstance(record, DecodedRecord) and record.is_unknown
    assert record.data["staticConfigs"] == [config]
    assert "_unknownTaggedFields" not in record.data


def test_tagged_field_that_does_not_fill_its_size_is_quarantined() -> None:
    # PartitionChangeRecord: partitionId, topicId, then tag 1 (Leader int32) declared with size 5.
    value = b"\x01\x05\x00" + struct.pack(">i", 0) + bytes(16) + b"\x01\x01\x05" + struct.pack(">i", 3) + b"\x00"
    (item,) = _decode([(None, value)])
    assert isinstance(item, QuarantineItem) and "declared size" in item.reason


def test_partition_change_json_lists_tagged_fields_in_declaration_order() -> None:
    body = {
        "partitionId": 1,
        "topicId": "AAAAAAAAAAAAAAAAAAAAAA",
        "directories": ["AAAAAAAAAAAAAAAAAAAAAA"],
        "eligibleLeaderReplicas": [2],
        "isr": [1],
    }
    (record,) = _decode([(None, encode_metadata_record(5, 2, body))])

    assert isinstance(record, DecodedRecord)
    assert list(record.data) == ["partitionId", "topicId", "isr", "directories", "eligibleLeaderReplicas"]


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [(b"\x00\x01", GOOD, "has a key"), (None, None, "null value")],
    ids=["key-present", "null-value"],
)
def test_data_record_with_key_or_without_value_is_quarantined(
    key: bytes | None, value: bytes | None, reason: str
) -> None:
    batch = encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=0, records=[(key, value)])  # type: ignore[list-item]
    (item,) = list(decode_file(batch, kind="LOG_SEGMENT"))
    assert isinstance(item, QuarantineItem) and reason in item.reason and item.offset == 0


def test_control_records_carry_type_id_and_body_version() -> None:
    leader = {"version": 0, "leaderId": 3, "voters": [{"voterId": 3}], "grantingVoters": []}
    items = _decode(
        [encode_control_record(2, leader), encode_control_record(5, {"version": 0, "kRaftVersion": 1})], control=True
    )

    assert [
        (r.record_type, r.api_key, r.record_version, r.is_control, r.data) for r in _only(items, DecodedRecord)
    ] == [
        ("LEADER_CHANGE", 2, 0, True, leader),
        ("KRAFT_VERSION", 5, 0, True, {"version": 0, "kRaftVersion": 1}),
    ]


def test_leader_change_stating_version_1_in_kafkas_version_0_layout_still_decodes() -> None:
    # Kafka lays every control body out at schema version 0 whatever its Version field says.
    key, value = encode_control_record(
        2, {"version": 0, "leaderId": 1, "voters": [{"voterId": 1}, {"voterId": 2}], "grantingVoters": [{"voterId": 1}]}
    )
    value = b"\x00\x01" + value[2:]
    (record,) = _decode([(key, value)], control=True)

    assert isinstance(record, DecodedRecord)
    assert record.record_version == 1
    assert record.data["voters"] == [{"voterId": 1}, {"voterId": 2}]


def test_unknown_control_type_is_kept_raw_and_bad_control_body_is_quarantined() -> None:
    items = _decode(
        [(struct.pack(">hh", 0, 9), b"\x00\x00\x01"), (struct.pack(">hh", 0, 4), b"\x00\x00\x00\x07")], control=True
    )

    unknown, bad = items
    assert isinstance(unknown, DecodedRecord)
    assert (unknown.record_type, unknown.api_key, unknown.is_unknown, unknown.is_control) == ("UNKNOWN", 9, True, True)
    assert isinstance(bad, QuarantineItem) and "garbage" in bad.reason


def test_decompression_failure_quarantines_exactly_that_batch() -> None:
    broken = _with_header(
        encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=0, records=[(None, GOOD)]), ">h", 21, 1
    )
    after = encode_batch(base_offset=1, leader_epoch=1, timestamp_ms=0, records=[(None, GOOD)])
    items = list(decode_file(broken + after, kind="LOG_SEGMENT"))

    quarantined = _only(items, QuarantineItem)
    assert [(q.position, q.length, q.extra["region"]) for q in quarantined] == [(0, len(broken), "batch")]
    assert "gzip" in quarantined[0].reason
    assert [r.offset for r in _only(items, DecodedRecord)] == [1]


def test_raw_snappy_without_xerial_framing_is_accepted_and_writer_uses_xerial() -> None:
    plain = encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=0, records=[(None, GOOD)])
    raw = bytes(cramjam.snappy.compress_raw(plain[61:]))
    batch = plain[:61] + raw
    batch = struct.pack(">i", len(batch) - 12).join([batch[:8], batch[12:]])
    batch = _with_header(batch, ">h", 21, 2)
    (record,) = list(decode_file(batch, kind="LOG_SEGMENT"))

    assert isinstance(record, DecodedRecord) and record.data == CONFIG
    assert compress(2, b"x" * 100_000).startswith(XERIAL_MAGIC + b"\x00\x00\x00\x01\x00\x00\x00\x01")


def test_record_count_mismatch_is_reported_after_the_records_that_parsed() -> None:
    batch = _with_header(
        encode_batch(base_offset=5, leader_epoch=1, timestamp_ms=0, records=[(None, GOOD)]), ">i", 57, 2
    )
    record, mismatch = list(decode_file(batch, kind="LOG_SEGMENT"))

    assert isinstance(record, DecodedRecord) and record.offset == 5
    assert isinstance(mismatch, QuarantineItem) and "declares 2" in mismatch.reason and mismatch.length is None


def test_log_append_time_batches_stamp_records_with_the_max_timestamp() -> None:
    batch = encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=1000, records=[(None, GOOD)])
    batch = _with_header(_with_header(batch, ">q", 35, 5000), ">h", 21, 0x08)
    (record,) = list(decode_file(batch, kind="LOG_SEGMENT"))
    assert isinstance(record, DecodedRecord) and record.timestamp_ms == 5000


def test_snapshot_without_footer_gets_a_zero_length_file_quarantine_but_a_segment_does_not() -> None:
    snapshot = encode_snapshot([(20, 0, {})])
    footer = [r for r in _only(list(decode_file(snapshot, kind="SNAPSHOT")), DecodedRecord)][-1]
    assert footer.record_type == "SNAPSHOT_FOOTER" and footer.position is not None
    cut = snapshot[: footer.position]

    assert _only(list(decode_file(snapshot, kind="SNAPSHOT")), QuarantineItem) == []
    (missing,) = _only(list(decode_file(cut, kind="SNAPSHOT", snapshot_end_offset=10)), QuarantineItem)
    assert (missing.position, missing.length, missing.extra["region"]) == (len(cut), 0, "file")
    assert _only(list(decode_file(cut, kind="LOG_SEGMENT")), QuarantineItem) == []


def test_decode_file_refuses_text_kinds() -> None:
    with pytest.raises(ValueError, match="JSON_LINES"):
        list(decode_file(b"", kind="JSON_LINES"))


def test_writer_refuses_fields_the_schema_does_not_have() -> None:
    with pytest.raises(ValueError, match="valeu"):
        encode_metadata_record(4, 0, {"valeu": "x"})
    with pytest.raises(ValueError, match="no schema"):
        encode_metadata_record(4, 9, CONFIG)
