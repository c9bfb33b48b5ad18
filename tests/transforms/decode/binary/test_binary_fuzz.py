"""Fuzzing the decoder: truncation, bit flips, garbage, random bytes. It never raises, every byte is either in
a decoded batch or in exactly one quarantined region, and good batches around damage are still decoded."""

from __future__ import annotations

import contextlib
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.decoded import DecodedRecord, QuarantineItem
from schemas.record_schemas import CONTROL_RECORD_SCHEMAS, METADATA_RECORD_SCHEMAS
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_batch, encode_log_segment, encode_metadata_record
from transforms.decode.binary.message import CONTROL_BODIES, METADATA_BODIES, BodyError

from .strategies import body_strategy

RECORDS: list[tuple[int, int, dict[str, Any]]] = [
    (12, 0, {"name": "metadata.version", "featureLevel": 27}),
    (2, 0, {"name": "orders", "topicId": "v9meXjI1RVKB-NSvF0GXDA"}),
    (4, 0, {"resourceType": 2, "resourceName": "orders", "name": "retention.ms", "value": "86400000"}),
    (4, 0, {"resourceType": 4, "resourceName": "", "name": "log.segment.bytes", "value": "4194304"}),
    (20, 0, {}),
    (23, 0, {"name": "tx"}),
    (24, 0, {}),
]
SMALL_FILE = encode_log_segment(RECORDS, base_offset=10, records_per_batch=2, leader_id=1, voter_ids=[1])
SECRET = "p4ssw0rd-never-in-an-excerpt"


Record = tuple[int, str, dict[str, Any]]


def _batch_size(data: bytes, position: int) -> int:
    return struct.unpack_from(">i", data, position + 8)[0] + 12


def assert_regions_tile_the_file(data: bytes, items: list[DecodedRecord | QuarantineItem]) -> None:
    """Decoded batches plus batch-level quarantine regions cover [0, len(data)) without gaps or overlaps."""
    decoded_batches: set[int] = set()
    regions: list[tuple[int, int]] = []
    for item in items:
        assert item.position is not None
        if isinstance(item, DecodedRecord) or item.extra["region"] == "record":
            decoded_batches.add(item.position)
        elif item.extra["region"] == "batch":
            assert item.length is not None
            regions.append((item.position, item.length))
    regions += [(position, _batch_size(data, position)) for position in decoded_batches]
    cursor = 0
    for position, length in sorted(regions):
        assert position == cursor and length > 0
        cursor += length
    assert cursor == len(data)
    assert sum(length for _, length in regions) == len(data)


def _records(items: list[DecodedRecord | QuarantineItem]) -> list[Record]:
    return [(i.offset, i.record_type, i.data) for i in items if isinstance(i, DecodedRecord)]


def _batches(data: bytes) -> list[tuple[int, int, list[Record]]]:
    """(position, size, records) of every batch of an intact file."""
    items = list(decode_file(data, kind="LOG_SEGMENT"))
    out = []
    for position in sorted({i.position or 0 for i in items if isinstance(i, DecodedRecord)}):
        records = [
            (i.offset, i.record_type, i.data) for i in items if isinstance(i, DecodedRecord) and i.position == position
        ]
        out.append((position, _batch_size(data, position), records))
    return out


BATCHES = _batches(SMALL_FILE)


def test_small_file_has_several_batches_and_decodes_cleanly() -> None:
    assert len(BATCHES) == 5
    assert sum(size for _, size, _ in BATCHES) == len(SMALL_FILE)


def test_truncation_at_every_position_keeps_complete_batches_and_quarantines_the_tail() -> None:
    for cut in range(len(SMALL_FILE) + 1):
        data = SMALL_FILE[:cut]
        items = list(decode_file(data, kind="LOG_SEGMENT"))

        assert_regions_tile_the_file(data, items)
        expected = [r for position, size, records in BATCHES if position + size <= cut for r in records]
        assert _records(items) == expected
        tail = [i for i in items if isinstance(i, QuarantineItem)]
        complete = max((p + s for p, s, _ in BATCHES if p + s <= cut), default=0)
        assert len(tail) == (1 if cut > complete else 0)
        if tail:
            assert (tail[0].position, tail[0].length) == (complete, cut - complete)
            assert "truncated" in tail[0].reason


@settings(max_examples=400, deadline=None)
@given(index=st.integers(0, len(SMALL_FILE) - 1), bit=st.integers(0, 7))
def test_bit_flip_only_affects_the_batch_it_lands_in(index: int, bit: int) -> None:
    data = bytearray(SMALL_FILE)
    data[index] ^= 1 << bit
    items = list(decode_file(bytes(data), kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(bytes(data), items)
    decoded = _records(items)
    for position, size, records in BATCHES:
        if not position <= index < position + size:
            assert all(record in decoded for record in records)
        elif position + 21 <= index:
            # Inside the CRC-covered part: the batch cannot slip through.
            assert not any(record in decoded for record in records)
            assert any(isinstance(i, QuarantineItem) and i.position == position for i in items)


@settings(max_examples=200, deadline=None)
@given(garbage=st.binary(min_size=1, max_size=300))
def test_garbage_tail_is_one_quarantined_region_after_all_good_records(garbage: bytes) -> None:
    data = SMALL_FILE + garbage
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    assert _records(items) == [r for _, _, records in BATCHES for r in records]
    quarantined = [i for i in items if isinstance(i, QuarantineItem)]
    assert [(q.position, q.length) for q in quarantined] == [(len(SMALL_FILE), len(garbage))]


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=600))
def test_random_bytes_never_raise_and_are_fully_accounted_for(data: bytes) -> None:
    items = list(decode_file(data, kind="SNAPSHOT"))

    assert_regions_tile_the_file(data, items)
    for item in items:
        if isinstance(item, QuarantineItem):
            assert len(item.excerpt) <= 64


@settings(max_examples=200, deadline=None)
@given(garbage=st.binary(min_size=1, max_size=200), split=st.integers(1, 4))
def test_garbage_between_two_good_batches_is_one_region_and_both_sides_decode(garbage: bytes, split: int) -> None:
    cut = BATCHES[split][0]
    data = SMALL_FILE[:cut] + garbage + SMALL_FILE[cut:]
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    assert _records(items) == [r for _, _, records in BATCHES for r in records]
    quarantined = [i for i in items if isinstance(i, QuarantineItem)]
    assert [(q.position, q.length) for q in quarantined] == [(cut, len(garbage))]


@settings(max_examples=150, deadline=None)
@given(
    layout=st.lists(
        st.one_of(st.integers(0, len(BATCHES) - 1), st.binary(min_size=1, max_size=80)), min_size=1, max_size=8
    )
)
def test_good_batches_spliced_among_garbage_are_all_decoded(layout: list[int | bytes]) -> None:
    pieces = [
        piece if isinstance(piece, bytes) else SMALL_FILE[BATCHES[piece][0] : BATCHES[piece][0] + BATCHES[piece][1]]
        for piece in layout
    ]
    data = b"".join(pieces)
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    expected = [r for piece in layout if isinstance(piece, int) for r in BATCHES[piece][2]]
    assert _records(items) == expected


def test_a_region_that_failed_its_crc_is_quarantined_without_any_of_its_bytes() -> None:
    value = encode_metadata_record(
        4, 0, {"resourceType": 4, "resourceName": "", "name": "sasl.jaas.config", "value": SECRET}
    )
    batch = bytearray(encode_batch(base_offset=0, leader_epoch=1, timestamp_ms=0, records=[(None, value)]))
    batch[-3] ^= 0xFF  # break the CRC inside the value
    items = list(decode_file(bytes(batch) + SMALL_FILE, kind="LOG_SEGMENT"))

    quarantined = [i for i in items if isinstance(i, QuarantineItem)]
    assert len(quarantined) == 1 and "CRC" in quarantined[0].reason
    # The bytes did not verify, so nothing says they are a header: position and length locate them, no excerpt.
    assert quarantined[0].excerpt == ""
    assert (quarantined[0].position, quarantined[0].length) == (0, len(batch))
    assert SECRET not in quarantined[0].reason
    assert _records(items) == [r for _, _, records in BATCHES for r in records]


_ALL_BODIES = [("metadata", key) for key in sorted(METADATA_BODIES)] + [
    ("control", key) for key in sorted(CONTROL_BODIES)
]


@pytest.mark.parametrize(("family", "key"), _ALL_BODIES, ids=lambda v: str(v))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_body_reader_fails_only_with_body_error_on_random_or_damaged_bytes(
    family: str, key: tuple[int, int], data: st.DataObject
) -> None:
    codec = (METADATA_BODIES if family == "metadata" else CONTROL_BODIES)[key]
    if data.draw(st.booleans(), label="damage a valid body"):
        schema = (METADATA_RECORD_SCHEMAS if family == "metadata" else CONTROL_RECORD_SCHEMAS)[key[0]]
        body = bytearray(codec.write(data.draw(body_strategy(schema.fields, key[1]))))
        if body:
            body[data.draw(st.integers(0, len(body) - 1))] ^= data.draw(st.integers(1, 255))
        raw = bytes(body[: data.draw(st.integers(0, len(body)))])
    else:
        raw = data.draw(st.binary(max_size=64))
    with contextlib.suppress(BodyError):
        codec.read(raw)
