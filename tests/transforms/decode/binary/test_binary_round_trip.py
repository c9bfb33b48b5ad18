"""Round trips: random bodies for every (apiKey, version) and control body, encoded, batched with every codec,
decoded back to the same dicts."""

from __future__ import annotations

import base64
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas.decoded import DecodedRecord, QuarantineItem
from schemas.record_schemas import CONTROL_RECORD_SCHEMAS, METADATA_RECORD_SCHEMAS, FieldSpec
from schemas.record_types import CONTROL_RECORD_TYPES, METADATA_RECORD_TYPES
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import (
    encode_batch,
    encode_control_record,
    encode_log_segment,
    encode_metadata_record,
    encode_snapshot,
)
from transforms.decode.binary.message_reader import compile_struct_reader
from transforms.decode.binary.message_writer import compile_struct_writer

from .strategies import body_strategy

CODECS = [0, 1, 2, 3, 4]


def _versions(valid: str) -> range:
    low, _, high = valid.partition("-")
    return range(int(low), int(high or low) + 1)


METADATA_CASES = [
    (api_key, version)
    for api_key, spec in METADATA_RECORD_SCHEMAS.items()
    for version in _versions(spec.valid_versions)
]


def _decode_one(data: bytes) -> DecodedRecord:
    items = list(decode_file(data, kind="LOG_SEGMENT"))
    assert [i for i in items if isinstance(i, QuarantineItem)] == []
    assert len(items) == 1 and isinstance(items[0], DecodedRecord)
    return items[0]


def test_metadata_table_covers_every_record_type_and_the_newest_versions() -> None:
    assert set(METADATA_RECORD_SCHEMAS) == set(METADATA_RECORD_TYPES)
    newest = {api_key: max(v for k, v in METADATA_CASES if k == api_key) for api_key in METADATA_RECORD_SCHEMAS}
    assert (newest[0], newest[3], newest[5], newest[17]) == (5, 2, 2, 3)


@pytest.mark.parametrize(("api_key", "version"), METADATA_CASES, ids=lambda v: str(v))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_metadata_body_survives_encode_and_decode(api_key: int, version: int, data: st.DataObject) -> None:
    body = data.draw(body_strategy(METADATA_RECORD_SCHEMAS[api_key].fields, version), label="body")
    codec = data.draw(st.sampled_from(CODECS), label="codec")
    value = encode_metadata_record(api_key, version, body)
    decoded = _decode_one(
        encode_batch(
            base_offset=42, leader_epoch=3, timestamp_ms=1_700_000_000_000, records=[(None, value)], compression=codec
        )
    )

    assert decoded.data == body
    assert (decoded.record_type, decoded.api_key, decoded.record_version) == (
        METADATA_RECORD_TYPES[api_key],
        api_key,
        version,
    )
    assert (decoded.offset, decoded.leader_epoch, decoded.timestamp_ms) == (42, 3, 1_700_000_000_000)
    assert not decoded.is_control and not decoded.is_unknown
    assert encode_metadata_record(api_key, version, decoded.data) == value


def test_register_broker_v5_static_configs_round_trip_as_tag_2() -> None:
    static = [{"name": "log.segment.bytes", "value": "2097152"}, {"name": "log.retention.hours", "value": None}]
    body = {"brokerId": 1, "rack": None, "staticConfigs": static}
    value = encode_metadata_record(0, 5, body)

    decoded = _decode_one(encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=0, records=[(None, value)]))
    assert decoded.data["staticConfigs"] == static
    # The body ends with its tagged section: 1 field, tag 2, size, then a compact array of 2 structs
    # {compact name, compact nullable value, empty tag section}.
    field = (
        b"\x03" + b"\x12log.segment.bytes" + b"\x082097152" + b"\x00" + b"\x14log.retention.hours" + b"\x00" + b"\x00"
    )
    assert value.endswith(b"\x01\x02" + bytes([len(field)]) + field)
    # Version 4 has no such field: writing it there is refused rather than silently dropped.
    with pytest.raises(ValueError, match="staticConfigs"):
        encode_metadata_record(0, 4, body)


CONTROL_CASES = [
    (control_type, version)
    for control_type, spec in CONTROL_RECORD_SCHEMAS.items()
    for version in _versions(spec.valid_versions)
]


@pytest.mark.parametrize(("control_type", "version"), CONTROL_CASES, ids=lambda v: str(v))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_random_control_body_survives_encode_and_decode(control_type: int, version: int, data: st.DataObject) -> None:
    body: dict[str, Any] = data.draw(body_strategy(CONTROL_RECORD_SCHEMAS[control_type].fields, version))
    body["version"] = version  # the body's Version field states its layout
    key, value = encode_control_record(control_type, body)
    decoded = _decode_one(
        encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=5, records=[(key, value)], control=True)
    )

    assert decoded.data == body
    assert decoded.is_control and not decoded.is_unknown
    assert (decoded.record_type, decoded.api_key, decoded.record_version) == (
        CONTROL_RECORD_TYPES[control_type],
        control_type,
        version,
    )


@pytest.mark.parametrize("codec", CODECS, ids=["none", "gzip", "snappy", "lz4", "zstd"])
def test_segment_of_many_records_round_trips_with_every_codec(codec: int) -> None:
    records = [
        (4, 0, {"resourceType": 2, "resourceName": f"t{i}", "name": "retention.ms", "value": str(i)})
        for i in range(500)
    ]
    segment = encode_log_segment(
        records,
        base_offset=1000,
        leader_epoch=7,
        timestamp_ms=10,
        timestamp_step_ms=5,
        records_per_batch=64,
        compression=codec,
        leader_id=1,
        voter_ids=[1, 2, 3],
    )
    items = list(decode_file(segment, kind="LOG_SEGMENT"))

    assert all(isinstance(i, DecodedRecord) for i in items)
    decoded = [i for i in items if isinstance(i, DecodedRecord)]
    assert decoded[0].record_type == "LEADER_CHANGE" and decoded[0].data["leaderId"] == 1
    assert [r.offset for r in decoded] == list(range(1000, 1501))
    assert [(r.api_key, r.record_version, r.data) for r in decoded[1:]] == records
    assert decoded[-1].timestamp_ms == 10 + 5 * (499 // 64)


def test_snapshot_has_header_data_and_footer_numbered_from_zero() -> None:
    voters = [
        {
            "voterId": 1,
            "voterDirectoryId": "AAAAAAAAAAAAAAAAAAAAAQ",
            "endpoints": [{"name": "CONTROLLER", "host": "c1", "port": 9093}],
            "kRaftVersionFeature": {"minSupportedVersion": 0, "maxSupportedVersion": 1},
        }
    ]
    records = [(12, 0, {"name": "metadata.version", "featureLevel": 27})] * 3
    snapshot = encode_snapshot(
        records, epoch=4, last_contained_log_timestamp=99, kraft_version=1, voters=voters, records_per_batch=2
    )
    items = [i for i in decode_file(snapshot, kind="SNAPSHOT", snapshot_end_offset=100)]

    assert all(isinstance(i, DecodedRecord) for i in items)
    got = [(i.offset, i.record_type) for i in items if isinstance(i, DecodedRecord)]
    assert got == [
        (0, "SNAPSHOT_HEADER"),
        (1, "KRAFT_VERSION"),
        (2, "KRAFT_VOTERS"),
        (3, "FEATURE_LEVEL_RECORD"),
        (4, "FEATURE_LEVEL_RECORD"),
        (5, "FEATURE_LEVEL_RECORD"),
        (6, "SNAPSHOT_FOOTER"),
    ]
    assert isinstance(items[2], DecodedRecord) and items[2].data["voters"] == voters
    assert all(isinstance(i, DecodedRecord) and i.leader_epoch == 4 for i in items)


def test_unknown_tagged_fields_are_kept_and_written_back() -> None:
    raw = base64.b64encode(b"\x07\x08").decode()
    value = encode_metadata_record(
        4, 0, {"resourceType": 2, "resourceName": "t", "name": "k", "value": "v", "_unknownTaggedFields": {"9": raw}}
    )
    decoded = _decode_one(encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=0, records=[(None, value)]))

    assert decoded.is_unknown
    assert decoded.data["_unknownTaggedFields"] == {"9": raw}
    assert encode_metadata_record(4, 0, decoded.data) == value


# No real non-flexible schema has strings or arrays (only EndTxnMarker, all fixed width), so exercise the
# classic int16/int32 length prefixes with a made-up schema.
_CLASSIC_FIELDS = (
    FieldSpec("Version", "int16"),
    FieldSpec("Name", "string", nullable_versions="0+"),
    FieldSpec("Blob", "bytes"),
    FieldSpec("Ids", "[]int32", nullable_versions="0+"),
    FieldSpec("Items", "[]Item", fields=(FieldSpec("Key", "string"), FieldSpec("Id", "uuid"))),
)
_classic_read = compile_struct_reader(_CLASSIC_FIELDS, 0, flexible=False)
_classic_write = compile_struct_writer(_CLASSIC_FIELDS, 0, flexible=False)


@settings(max_examples=100, deadline=None)
@given(body=body_strategy(_CLASSIC_FIELDS, 0))
def test_non_flexible_encoding_uses_classic_lengths_and_round_trips(body: dict[str, Any]) -> None:
    out = bytearray()
    _classic_write(out, body)
    decoded, end = _classic_read(bytes(out), 0)

    assert decoded == body and end == len(out)
    name = body["name"]
    expected_prefix = struct.pack(">h", -1 if name is None else len(name.encode()))
    assert bytes(out[2:4]) == expected_prefix  # int16 length (-1 = null), no compact varint
