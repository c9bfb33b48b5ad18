"""Decode ``__cluster_metadata`` log segments and snapshots into ``DecodedRecord`` / ``QuarantineItem``.

A ``.log`` segment, a ``<offset>-<epoch>.checkpoint`` snapshot and ``bootstrap.checkpoint`` share one format: a
plain concatenation of v2 record batches. Every byte ends up either in a decoded batch or in a quarantined
region; after a bad region the decoder resynchronises on the next batch whose CRC-32C verifies, so one corrupt
batch never hides the good batches after it. Decoding never raises on any input bytes, takes time linear in the
file size and memory bounded per batch (decompression is capped, see ``compression``).

A record whose offset or timestamp no bronze column can hold (``transforms.bounds``: a base offset of 2^63-1
with a second record, a base timestamp of 10^16 ms) is quarantined on its own. Quarantine excerpts are hex of the
first bytes of a CRC-verified batch header only: a region that failed the checks may start anywhere, e.g. inside
a record value after a head truncation, so its bytes are never copied (position and length locate it).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterator
from typing import Any, Final

from schemas.decoded import DecodedRecord, QuarantineItem
from schemas.record_schemas import CONTROL_RECORD_SCHEMAS
from schemas.record_types import CONTROL_RECORD_TYPES, METADATA_RECORD_TYPES, UNKNOWN_RECORD
from transforms.binary.batch import (
    ATTR_COMPRESSION_MASK,
    ATTR_CONTROL,
    ATTR_LOG_APPEND_TIME,
    HEADER_SIZE,
    BadRegion,
    BatchHeader,
    RawRecord,
    iter_regions,
    parse_records,
)
from transforms.binary.compression import CODEC_NAMES, DecompressionError, decompress
from transforms.binary.fields import version_bounds
from transforms.binary.message import CONTROL_BODIES, METADATA_BODIES, BodyError
from transforms.binary.varint import read_uvarint
from transforms.bounds import INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN

BINARY_KINDS: Final = ("LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT")
SNAPSHOT_KINDS: Final = ("SNAPSHOT", "BOOTSTRAP_SNAPSHOT")
EXCERPT_BYTES: Final = 32  # only ever taken from a CRC-verified batch header, never from record values (secrets)
FRAME_VERSION: Final = 1  # 0 was KRaft's 2.8 preview format, which Kafka refuses to read
MAX_API_KEY_OR_VERSION: Final = 0x7FFF

_CONTROL_KEY: Final = struct.Struct(">hh")
_INT16: Final = struct.Struct(">h")
_METADATA_NAMES: Final = METADATA_RECORD_TYPES
_CONTROL_VERSIONS: Final = {
    control_type: version_bounds(message.valid_versions) for control_type, message in CONTROL_RECORD_SCHEMAS.items()
}


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _header_excerpt(data: bytes, position: int) -> str:
    """Hex of the start of the batch header at ``position``; call only for a batch whose CRC-32C verified."""
    return data[position : position + EXCERPT_BYTES].hex()


def _range_problem(offset: int, timestamp: int) -> str | None:
    """Why a record's offset or timestamp fits no bronze column, or None (the usual case, two comparisons)."""
    if not INT64_MIN <= offset <= INT64_MAX:
        return "record offset is outside the 64-bit range"
    if not TIMESTAMP_MS_MIN <= timestamp <= TIMESTAMP_MS_MAX:
        return f"record timestamp {timestamp} ms is outside the years 1-9999"
    return None


def decode_file(
    data: bytes, *, kind: str, snapshot_end_offset: int | None = None
) -> Iterator[DecodedRecord | QuarantineItem]:
    """Decode one binary metadata file.

    Offsets are those stored in the file: absolute log offsets for a segment, and offsets counted from 0 inside
    a snapshot (Kafka numbers snapshot batches from 0; the snapshot's log position is ``snapshot_end_offset``,
    which the caller records; the decoder does not rewrite offsets).

    Quarantine items come in three scopes, named by ``extra["region"]``:

    * ``"batch"``: a byte range that is not a valid batch (``position`` and ``length`` set); the ranges of all
      decoded batches plus these lengths add up to the file size;
    * ``"record"``: one record (or the unparseable rest of a batch) inside a decoded batch; ``position`` is the
      batch's position and ``length`` is None because the bytes are already counted in the batch;
    * ``"file"``: a whole-file problem with ``length`` 0, e.g. a snapshot without its SnapshotFooter.

    Args:
        data: The file's bytes.
        kind: ``LOG_SEGMENT``, ``SNAPSHOT`` or ``BOOTSTRAP_SNAPSHOT``.
        snapshot_end_offset: For snapshots, the exclusive end offset from the file name (informational).

    Yields:
        Records and quarantine items in file order.

    Raises:
        ValueError: ``kind`` is not a binary kind (a caller bug, never caused by the bytes).
    """
    if kind not in BINARY_KINDS:
        raise ValueError(f"decode_file reads {BINARY_KINDS}, not {kind!r}")
    data = bytes(data)
    last_type: str | None = None
    for region in iter_regions(data):
        if type(region) is BadRegion:
            yield QuarantineItem(
                reason=region.reason,
                position=region.position,
                length=region.length,
                extra={"region": "batch"},
            )
            continue
        assert isinstance(region, tuple)
        items = _decode_batch(data, *region)
        yield from items
        for item in reversed(items):
            if type(item) is DecodedRecord:
                last_type = item.record_type
                break
    if kind in SNAPSHOT_KINDS and last_type != "SNAPSHOT_FOOTER":
        # Kafka only publishes a snapshot once its footer is written; without it the snapshot is incomplete.
        yield QuarantineItem(
            reason="snapshot does not end with a SnapshotFooter control record (incomplete snapshot)",
            position=len(data),
            length=0,
            extra={"region": "file", "snapshot_end_offset": snapshot_end_offset},
        )


Items = list[DecodedRecord | QuarantineItem]


def _record_quarantine(data: bytes, position: int, reason: str, offset: int | None) -> QuarantineItem:
    return QuarantineItem(
        reason=reason,
        excerpt=_header_excerpt(data, position),
        position=position,
        length=None,
        offset=offset if offset is None or INT64_MIN <= offset <= INT64_MAX else None,
        extra={"region": "record"},
    )


def _decode_batch(data: bytes, position: int, header: BatchHeader) -> Items:
    """Decode the records of one CRC-valid batch."""
    start = position + HEADER_SIZE
    end = position + header.length + 12
    buf = data
    codec = header.attributes & ATTR_COMPRESSION_MASK
    if codec:
        try:
            buf = decompress(codec, data[start:end])
        except DecompressionError as exc:
            # The CRC vouches for the framing, so the region is exactly this batch.
            return [
                QuarantineItem(
                    reason=f"decompression failed: {exc}",
                    excerpt=_header_excerpt(data, position),
                    position=position,
                    length=header.length + 12,
                    offset=header.base_offset,
                    extra={"region": "batch", "codec": CODEC_NAMES.get(codec, "?")},
                )
            ]
        start, end = 0, len(buf)
    records, error = parse_records(buf, start, end)
    items: Items = []
    if header.attributes & ATTR_CONTROL:
        _control_records(data, position, header, records, items)
    else:
        _data_records(data, position, header, records, items)
    if error is None and len(records) != header.records_count:
        error = f"batch declares {header.records_count} record(s) but holds {len(records)}"
    if error is not None:
        next_offset = header.base_offset + (records[-1][1] + 1 if records else 0)
        items.append(
            _record_quarantine(data, position, f"records after offset {next_offset - 1}: {error}", next_offset)
        )
    return items


def _data_records(data: bytes, position: int, header: BatchHeader, records: list[RawRecord], items: Items) -> None:
    """Decode framed metadata records (``[frameVersion][apiKey][version][body]``) into ``items``."""
    base_offset = header.base_offset
    epoch = header.leader_epoch
    log_append_time = header.attributes & ATTR_LOG_APPEND_TIME
    base_timestamp = header.base_timestamp
    bodies = METADATA_BODIES
    append = items.append
    for timestamp_delta, offset_delta, key, value in records:
        offset = base_offset + offset_delta
        # LogAppendTime batches stamp every record with the batch's max timestamp.
        timestamp = header.max_timestamp if log_append_time else base_timestamp + timestamp_delta
        if not (INT64_MIN <= offset <= INT64_MAX and TIMESTAMP_MS_MIN <= timestamp <= TIMESTAMP_MS_MAX):
            append(_record_quarantine(data, position, _range_problem(offset, timestamp) or "", offset))
            continue
        if key is not None or value is None:
            reason = "metadata record has a key" if key is not None else "metadata record has a null value"
            append(_record_quarantine(data, position, reason, offset))
            continue
        # Fast path: frame version 1 and one-byte apiKey and version (every record Kafka writes today).
        if len(value) >= 4 and value[0] == FRAME_VERSION and value[1] < 0x80 and value[2] < 0x80:
            api_key = value[1]
            version = value[2]
            body_start = 3
        else:
            frame = _read_frame(value)
            if isinstance(frame, str):
                append(_record_quarantine(data, position, frame, offset))
                continue
            api_key, version, body_start = frame
        codec = bodies.get((api_key, version))
        if codec is None:
            # No schema for this apiKey/version: keep the body so nothing is lost, flag it as unknown.
            body: dict[str, Any] = {"_raw": _b64(value[body_start:])}
            name = _METADATA_NAMES.get(api_key, UNKNOWN_RECORD)
            unknown = True
        else:
            try:
                body, unknown = codec.read(value, body_start)
            except BodyError as exc:
                append(_record_quarantine(data, position, str(exc), offset))
                continue
            name = _METADATA_NAMES[api_key]
        append(
            DecodedRecord(offset, name, api_key, version, body, False, unknown, base_offset, epoch, timestamp, position)
        )


def _read_frame(value: bytes) -> tuple[int, int, int] | str:
    """Parse the value frame the slow way; return ``(api_key, version, body_start)`` or the reason it is bad."""
    try:
        frame_version, pos = read_uvarint(value, 0)
        api_key, pos = read_uvarint(value, pos)
        version, pos = read_uvarint(value, pos)
    except (IndexError, ValueError):
        return "metadata record frame is truncated"
    if frame_version != FRAME_VERSION:
        return f"unsupported metadata frame version {frame_version}"
    if api_key > MAX_API_KEY_OR_VERSION or version > MAX_API_KEY_OR_VERSION:
        return "metadata record apiKey or version above 32767"
    if pos >= len(value):
        return "metadata record body is empty"
    return api_key, version, pos


def _control_records(data: bytes, position: int, header: BatchHeader, records: list[RawRecord], items: Items) -> None:
    """Decode control records (key = int16 key version + int16 type, value = the bare body) into ``items``."""
    for timestamp_delta, offset_delta, key, value in records:
        offset = header.base_offset + offset_delta
        timestamp = (
            header.max_timestamp
            if header.attributes & ATTR_LOG_APPEND_TIME
            else header.base_timestamp + timestamp_delta
        )
        if problem := _range_problem(offset, timestamp):
            items.append(_record_quarantine(data, position, problem, offset))
            continue
        if key is None or len(key) != 4 or value is None:
            items.append(_record_quarantine(data, position, "control record without a 4-byte key and a value", offset))
            continue
        _, control_type = _CONTROL_KEY.unpack(key)
        decoded = _control_body(control_type, value)
        if isinstance(decoded, str):
            items.append(_record_quarantine(data, position, decoded, offset))
            continue
        name, version, body, unknown = decoded
        items.append(
            DecodedRecord(
                offset,
                name,
                control_type,
                version,
                body,
                True,
                unknown,
                header.base_offset,
                header.leader_epoch,
                timestamp,
                position,
            )
        )


def _control_body(control_type: int, value: bytes) -> tuple[str, int | None, dict[str, Any], bool] | str:
    """Decode a control body; return ``(name, version, data, is_unknown)`` or the reason it is bad."""
    bounds = _CONTROL_VERSIONS.get(control_type)
    if bounds is None:
        return UNKNOWN_RECORD, None, {"_raw": _b64(value)}, True
    name = CONTROL_RECORD_TYPES[control_type]
    if len(value) < 2:
        return f"{name} control record body is truncated"
    # The body's first field is its int16 Version. Kafka writes and reads every body at schema version 0
    # (ControlRecordUtils), so try the stated version first and fall back to 0.
    (stated,) = _INT16.unpack_from(value, 0)
    low, high = bounds
    candidates = [stated] if low <= stated <= high and stated != 0 else []
    candidates.append(0)
    first_error = ""
    for version in candidates:
        try:
            body, unknown = CONTROL_BODIES[(control_type, version)].read(value)
        except BodyError as exc:
            first_error = first_error or str(exc)
            continue
        return name, stated, body, unknown
    return first_error
