"""Decode ``__cluster_metadata`` log segments and snapshots into ``DecodedRecord`` / ``QuarantineItem``.

A ``.log`` segment, a ``<offset>-<epoch>.checkpoint`` snapshot and ``bootstrap.checkpoint`` share one format: a
plain concatenation of v2 record batches. Every byte ends up either in a decoded batch or in a quarantined
region; after a bad region the decoder resynchronises on the next batch whose CRC-32C verifies, so one corrupt
batch never hides the good batches after it. Decoding never raises on any input bytes, takes time linear in the
file size and memory bounded per batch (decompression is capped, see ``compression``). The rows and decompressed
bytes of a file, and of an ingest, are capped too (``budget``): what is past a cap is one quarantine item from the
batch where it was reached, never dropped.

A record whose offset or timestamp no bronze column can hold (``transforms.kit.bounds``: a base offset of 2^63-1
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
from transforms.decode.binary.batch import (
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
from transforms.decode.binary.budget import DecodeBudget, FileBudget
from transforms.decode.binary.compression import (
    CODEC_NAMES,
    MAX_DECOMPRESSED_BYTES,
    DecompressedTooLargeError,
    DecompressionError,
    decompress,
)
from transforms.decode.binary.fields import version_bounds
from transforms.decode.binary.message import CONTROL_BODIES, METADATA_BODIES, BodyError
from transforms.decode.binary.varint import read_uvarint
from transforms.kit.bounds import INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN

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
    data: bytes, *, kind: str, snapshot_end_offset: int | None = None, budget: DecodeBudget | None = None
) -> Iterator[DecodedRecord | QuarantineItem]:
    """Decode one binary metadata file.

    Offsets are those stored in the file: absolute log offsets for a segment, and offsets counted from 0 inside
    a snapshot (Kafka numbers snapshot batches from 0; the snapshot's log position is ``snapshot_end_offset``,
    which the caller records; the decoder does not rewrite offsets).

    Quarantine items come in three scopes, named by ``extra["region"]``:

    * ``"batch"``: a byte range that is not a valid batch, or that a budget left undecoded (``position`` and
      ``length`` set); the ranges of all decoded batches plus these lengths add up to the file size;
    * ``"record"``: one record (or the unparseable rest of a batch) inside a decoded batch; ``position`` is the
      batch's position and ``length`` is None because the bytes are already counted in the batch;
    * ``"file"``: a whole-file problem with ``length`` 0, e.g. a snapshot without its SnapshotFooter.

    Budgets (``budget``): a batch whose rows would pass the file's or the ingest's record cap ends decoding: it
    and the rest of the file become one ``"batch"`` item (``extra["budget"] = "records"``) with the batch's base
    offset. A compressed batch that would decompress past the file's or the ingest's decompressed-bytes cap is
    quarantined alone, and every later compressed batch of the file is left compressed, each run of them one
    ``"batch"`` item (``extra["budget"] = "decompressed"``); uncompressed batches after it are still decoded.

    Args:
        data: The file's bytes.
        kind: ``LOG_SEGMENT``, ``SNAPSHOT`` or ``BOOTSTRAP_SNAPSHOT``.
        snapshot_end_offset: For snapshots, the exclusive end offset from the file name (informational).
        budget: The ingest's budget, spent by this file (a fresh default one when None).

    Yields:
        Records and quarantine items in file order.

    Raises:
        ValueError: ``kind`` is not a binary kind (a caller bug, never caused by the bytes).
    """
    if kind not in BINARY_KINDS:
        raise ValueError(f"decode_file reads {BINARY_KINDS}, not {kind!r}")
    data = bytes(data)
    caps = (budget or DecodeBudget()).open_file(len(data))
    last_type: str | None = None
    skipped: _Skipped | None = None  # compressed batches left compressed since the decompression cap was reached
    for region in iter_regions(data):
        if type(region) is BadRegion:
            if skipped is not None:
                yield skipped.item()
                skipped = None
            yield _bad_region_item(region)
            continue
        assert isinstance(region, tuple)
        position, header = region
        if caps.decompression_spent and header.attributes & ATTR_COMPRESSION_MASK:
            skipped = _left_compressed(skipped, position, header, caps)
            continue
        if skipped is not None:
            yield skipped.item()
            skipped = None
        items = _decode_batch(data, position, header, caps)
        if items is None or len(items) > caps.records:
            yield _records_cap_item(data, position, header.base_offset, caps)
            return  # nothing after the cap is decoded, so no snapshot footer check either
        if caps.decompression_spent and header.attributes & ATTR_COMPRESSION_MASK:
            # this batch was refused for the budget: it starts the run left compressed
            skipped = _left_compressed(None, position, header, caps)
            continue
        caps.spend_records(len(items))
        yield from items
        last_type = _last_record_type(items, last_type)
    yield from _closing_items(skipped, kind, last_type, len(data), snapshot_end_offset)


def _bad_region_item(region: BadRegion) -> QuarantineItem:
    """The ``"batch"`` item for a byte range that is not a valid batch (its bytes are never copied)."""
    return QuarantineItem(
        reason=region.reason,
        position=region.position,
        length=region.length,
        extra={"region": "batch"},
    )


def _left_compressed(skipped: _Skipped | None, position: int, header: BatchHeader, caps: FileBudget) -> _Skipped:
    """Start (when ``skipped`` is None) or extend the run of batches left compressed, to end after this batch."""
    if skipped is None:
        skipped = _Skipped(position, header.base_offset, caps.decompression_reason)
    skipped.end = position + header.length + 12
    return skipped


def _last_record_type(items: Items, last_type: str | None) -> str | None:
    """The type of the last decoded record among ``items``, else ``last_type`` (for the snapshot footer check)."""
    for item in reversed(items):
        if type(item) is DecodedRecord:
            return item.record_type
    return last_type


def _closing_items(
    skipped: _Skipped | None, kind: str, last_type: str | None, file_size: int, snapshot_end_offset: int | None
) -> Items:
    """The items after a file's last batch: the run still left compressed, then the ``"file"`` item of a snapshot
    without its SnapshotFooter (Kafka only publishes a snapshot once its footer is written)."""
    items: Items = [] if skipped is None else [skipped.item()]
    if kind in SNAPSHOT_KINDS and last_type != "SNAPSHOT_FOOTER":
        items.append(
            QuarantineItem(
                reason="snapshot does not end with a SnapshotFooter control record (incomplete snapshot)",
                position=file_size,
                length=0,
                extra={"region": "file", "snapshot_end_offset": snapshot_end_offset},
            )
        )
    return items


class _Skipped:
    """A run of compressed batches left compressed because the decompression budget is spent."""

    __slots__ = ("end", "offset", "position", "reason")

    def __init__(self, position: int, offset: int, reason: str) -> None:
        self.position = position
        self.end = position
        self.offset = offset
        self.reason = reason

    def item(self) -> QuarantineItem:
        return QuarantineItem(
            reason=f"compressed batch(es) left undecoded from this offset on: {self.reason}",
            position=self.position,
            length=self.end - self.position,
            offset=self.offset if INT64_MIN <= self.offset <= INT64_MAX else None,
            extra={"region": "batch", "budget": "decompressed"},
        )


def _records_cap_item(data: bytes, position: int, base_offset: int, caps: FileBudget) -> QuarantineItem:
    """The rest of the file from the batch that would pass the record cap, as one item."""
    scope = "this file" if caps.records_binding == "file" else "this ingest (what was left of it)"
    return QuarantineItem(
        reason=(
            f"record cap reached: {scope} may decode {caps.records_cap} row(s); this batch and the rest of the file "
            f"({len(data) - position} bytes) are not decoded"
        ),
        position=position,
        length=len(data) - position,
        offset=base_offset if INT64_MIN <= base_offset <= INT64_MAX else None,
        extra={"region": "batch", "budget": "records"},
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


def _decode_batch(data: bytes, position: int, header: BatchHeader, caps: FileBudget) -> Items | None:
    """Decode the records of one CRC-valid batch, decompressing within the file's budget; None when it holds more
    records than the file may still decode (found without decoding them: parsing stops one record past the cap)."""
    start = position + HEADER_SIZE
    end = position + header.length + 12
    buf = data
    codec = header.attributes & ATTR_COMPRESSION_MASK
    if codec:
        budget_left, scope = caps.decompression_limit()
        if budget_left <= 0:
            caps.refuse_decompression(scope)
            return []
        limit = min(MAX_DECOMPRESSED_BYTES, budget_left)
        try:
            buf = decompress(codec, data[start:end], limit=limit)
        except DecompressionError as exc:
            if isinstance(exc, DecompressedTooLargeError):
                caps.spend_decompressed(limit)  # the work done before the cap was hit
                if limit < MAX_DECOMPRESSED_BYTES:
                    caps.refuse_decompression(scope)  # the caller quarantines this batch and the later compressed
                    return []
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
        caps.spend_decompressed(len(buf))
        start, end = 0, len(buf)
    records, error = parse_records(buf, start, end, stop_after=caps.records + 1)
    if len(records) > caps.records:
        return None
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
