"""Resynchronisation cannot be starved (issue 58): garbage of crafted plausible batch headers in front of, or
inside, a segment costs only its own bytes, quarantined with position and reason; every batch after it is kept;
and the CRC work stays linear in the file size (counted in bytes hashed, not in seconds).

Expected records come from the segment's own layout, read here with Kafka's batch format (BaseOffset, Length,
RecordsCount and each record's OffsetDelta), or from the encoder's known records; never from the decoder."""

from __future__ import annotations

import random
import struct
from typing import Any

import crc32c
import pytest

from schemas.decoded import DecodedRecord, QuarantineItem
from tests.conftest import REAL_METADATA
from tests.fuzz.hostile import STYLES, plausible_headers
from transforms.decode.binary import crc_ranges
from transforms.decode.binary.batch import iter_regions
from transforms.decode.binary.crc_ranges import DIRECT_MAX, RangeCrc, shift
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_log_segment

from .test_binary_fuzz import assert_regions_tile_the_file

# The segment of issue 58's report: 353,439 bytes, 4,929 records.
REAL_SEGMENT = REAL_METADATA / "Niloufar1171__LDI-POC" / "__cluster_metadata-0" / "00000000000000000000.log"
SYNTHETIC = encode_log_segment(
    [(20, 0, {}), (2, 0, {"name": "orders", "topicId": "v9meXjI1RVKB-NSvF0GXDA"})] * 300,
    base_offset=1000,
    records_per_batch=3,
)


def _zigzag(buf: bytes, pos: int) -> tuple[int, int]:
    raw = shift_bits = 0
    while True:
        byte = buf[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift_bits
        shift_bits += 7
        if byte < 0x80:
            return (raw >> 1) ^ -(raw & 1), pos


def batch_layout(data: bytes) -> list[tuple[int, int, list[int]]]:
    """``(position, size, offsets)`` of each batch of an intact uncompressed segment, from Kafka's format."""
    layout = []
    pos = 0
    while pos < len(data):
        base_offset, length = struct.unpack_from(">qi", data, pos)
        (count,) = struct.unpack_from(">i", data, pos + 57)
        offsets = []
        p = pos + 61
        for _ in range(count):
            record_length, p = _zigzag(data, p)
            record_end = p + record_length
            _, q = _zigzag(data, p + 1)  # timestamp delta
            delta, _ = _zigzag(data, q)
            offsets.append(base_offset + delta)
            p = record_end
        layout.append((pos, length + 12, offsets))
        pos += length + 12
    assert pos == len(data)
    return layout


def segments() -> list[Any]:
    cases = [pytest.param(SYNTHETIC, id="synthetic")]
    if REAL_SEGMENT.is_file():
        cases.append(pytest.param(REAL_SEGMENT.read_bytes(), id="real-353KB"))
    else:
        cases.append(
            pytest.param(b"", id="real-353KB", marks=pytest.mark.skip(reason=f"real segment absent: {REAL_SEGMENT}"))
        )
    return cases


def offsets_of(items: list[DecodedRecord | QuarantineItem]) -> list[int]:
    return [i.offset for i in items if isinstance(i, DecodedRecord)]


def bad_regions(items: list[DecodedRecord | QuarantineItem]) -> list[tuple[int | None, int | None]]:
    return [(i.position, i.length) for i in items if isinstance(i, QuarantineItem)]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("size", [64, 6336, 12672, 65536], ids=lambda s: f"{s}B")
@pytest.mark.parametrize("segment", segments())
def test_a_crafted_prefix_costs_only_its_own_bytes_and_every_record_behind_it_is_kept(
    segment: bytes, size: int, style: str
) -> None:
    layout = batch_layout(segment)
    prefix = plausible_headers(size, at=0, file_size=size + len(segment), style=style, rng=random.Random(size))
    data = prefix + segment
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    assert offsets_of(items) == [o for _p, _s, offsets in layout for o in offsets]
    (bad,) = [i for i in items if isinstance(i, QuarantineItem)]
    assert (bad.position, bad.length, bad.extra["region"]) == (0, size, "batch")
    assert bad.reason.startswith("CRC-32C mismatch")


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("segment", segments())
def test_crafted_regions_inside_a_segment_are_quarantined_each_at_its_place(segment: bytes, style: str) -> None:
    layout = batch_layout(segment)
    rng = random.Random(58)
    cuts = sorted(rng.sample(range(1, len(layout)), 3))  # insert before these batches
    sizes = [96, 4096, 640]
    total = len(segment) + sum(sizes)
    pieces: list[bytes] = []
    expected_regions: list[tuple[int, int]] = []
    cursor = 0
    out_len = 0
    for cut, size in zip(cuts, sizes, strict=True):
        position = layout[cut][0]
        pieces.append(segment[cursor:position])
        out_len += position - cursor
        pieces.append(plausible_headers(size, at=out_len, file_size=total, style=style, rng=rng))
        expected_regions.append((out_len, size))
        out_len += size
        cursor = position
    pieces.append(segment[cursor:])
    data = b"".join(pieces)
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    assert offsets_of(items) == [o for _p, _s, offsets in layout for o in offsets]
    assert bad_regions(items) == expected_regions
    assert all(i.reason for i in items if isinstance(i, QuarantineItem))


def test_the_crc_work_of_a_crafted_prefix_is_linear_not_quadratic(monkeypatch: pytest.MonkeyPatch) -> None:
    segment = REAL_SEGMENT.read_bytes() if REAL_SEGMENT.is_file() else SYNTHETIC
    size = 65536
    data = plausible_headers(size, at=0, file_size=size + len(segment), style="to_eof") + segment
    hashed: list[int] = []
    real_crc = crc_ranges._crc32c

    def counting_crc(view: Any, value: int = 0) -> int:
        hashed.append(len(view))
        return int(real_crc(view, value))

    monkeypatch.setattr(crc_ranges, "_crc32c", counting_crc)
    regions = list(iter_regions(data))

    # Candidates: positions whose byte 16 on is the magic 2 (counted here from the bytes), plus sequential starts.
    candidates = sum(1 for p in range(len(data) - 60) if data[p + 16] == 2)
    batches = sum(1 for r in regions if isinstance(r, tuple))
    claimed = sum(len(data) - q - 12 for q in range(32, size, 32))  # what verifying each over its claim costs
    assert sum(hashed) <= len(data) + DIRECT_MAX * (candidates + batches + 1)
    assert sum(hashed) <= 30 * len(data)
    assert claimed > 1500 * len(data)  # the quadratic cost the old resync had to cap (and could be starved of)
    assert [r[0] for r in regions if isinstance(r, tuple)] == [size + p for p, _s, _o in batch_layout(segment)]


def test_a_range_crc_equals_the_crc_of_the_bytes_whatever_the_range() -> None:
    rng = random.Random(7)
    data = rng.randbytes(100_000)
    crcs = RangeCrc(data)
    ranges = [(0, 0), (0, len(data)), (1, len(data)), (4095, 4097), (4096, 8192 * 3), (len(data), len(data))]
    for _ in range(300):
        low, high = sorted((rng.randrange(len(data) + 1), rng.randrange(len(data) + 1)))
        ranges.append((low, high))
    for start, end in ranges:
        assert crcs.crc(start, end) == crc32c.crc32c(data[start:end]), (start, end)


def test_shift_carries_a_crc_over_zero_bytes() -> None:
    # CRCs compose: crc(A + B) = shift(crc(A), len(B)) ^ crc(B); checked with B = n zero bytes against the library.
    for n in (0, 1, 15, 16, 255, 4096, 65537, 1_000_003):
        a = b"kraft-audit"
        assert shift(crc32c.crc32c(a), n) ^ crc32c.crc32c(bytes(n)) == crc32c.crc32c(a + bytes(n)), n
