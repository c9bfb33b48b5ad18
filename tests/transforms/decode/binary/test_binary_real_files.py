"""Every real KRaft file from public repositories decodes completely, and its record counts match a walker
written here that only reads batch headers, record framing and the apiKey varint (not the code under test)."""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path

import pytest

from schemas.decoded import DecodedRecord, QuarantineItem
from tests.conftest import REAL_METADATA, real_metadata_dir
from transforms.decode.binary.decode import decode_file

pytestmark = pytest.mark.system


def _real_files() -> list[Path]:
    if not REAL_METADATA.is_dir():
        return []
    return sorted(
        path for path in REAL_METADATA.rglob("*") if path.suffix in (".log", ".checkpoint") and path.is_file()
    )


def _kind(path: Path) -> str:
    if path.name == "bootstrap.checkpoint":
        return "BOOTSTRAP_SNAPSHOT"
    return "SNAPSHOT" if path.suffix == ".checkpoint" else "LOG_SEGMENT"


def _zigzag(buf: bytes, pos: int) -> tuple[int, int]:
    raw = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return (raw >> 1) ^ -(raw & 1), pos


def _uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    raw = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return raw, pos


def independent_type_counts(data: bytes) -> Counter[tuple[bool, int]]:
    """Count records by (is_control, apiKey or control type) walking the raw batch structure."""
    counts: Counter[tuple[bool, int]] = Counter()
    pos = 0
    while pos < len(data):
        length = struct.unpack_from(">i", data, pos + 8)[0]
        attributes = struct.unpack_from(">h", data, pos + 21)[0]
        record_count = struct.unpack_from(">i", data, pos + 57)[0]
        assert attributes & 0x07 == 0, "the survey says no real batch is compressed"
        is_control = bool(attributes & 0x20)
        p = pos + 61
        for _ in range(record_count):
            record_length, p = _zigzag(data, p)
            record_end = p + record_length
            p += 1  # attributes
            _, p = _zigzag(data, p)  # timestamp delta
            _, p = _zigzag(data, p)  # offset delta
            key_length, p = _zigzag(data, p)
            key = data[p : p + key_length] if key_length >= 0 else b""
            p += max(key_length, 0)
            _, p = _zigzag(data, p)  # value length
            if is_control:
                counts[(True, struct.unpack(">h", key[2:4])[0])] += 1
            else:
                _, q = _uvarint(data, p)  # frame version
                api_key, _ = _uvarint(data, q)
                counts[(False, api_key)] += 1
            p = record_end
        pos += length + 12
    assert pos == len(data)
    return counts


@pytest.mark.parametrize("path", _real_files(), ids=lambda p: str(p.relative_to(REAL_METADATA)))
def test_real_file_decodes_without_quarantine_and_counts_match_independent_walker(path: Path) -> None:
    data = path.read_bytes()
    items = list(decode_file(data, kind=_kind(path)))

    quarantined = [item for item in items if isinstance(item, QuarantineItem)]
    records = [item for item in items if isinstance(item, DecodedRecord)]
    assert quarantined == []
    assert not any(record.is_unknown for record in records)
    assert Counter((r.is_control, r.api_key) for r in records) == independent_type_counts(data)


def test_real_metadata_folder_holds_the_87_surveyed_files() -> None:
    real_metadata_dir()  # skips with the reason when the shared folder is absent
    assert len(_real_files()) == 87


def test_real_snapshot_offsets_restart_at_zero_with_header_first_and_footer_last() -> None:
    real_metadata_dir()
    snapshots = [path for path in _real_files() if path.suffix == ".checkpoint"]
    assert snapshots
    for path in snapshots:
        records = [r for r in decode_file(path.read_bytes(), kind=_kind(path)) if isinstance(r, DecodedRecord)]
        assert records[0].record_type == "SNAPSHOT_HEADER" and records[0].offset == 0
        assert records[-1].record_type == "SNAPSHOT_FOOTER"
        assert [r.offset for r in records] == list(range(len(records)))
