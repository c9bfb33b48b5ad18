"""Record batch v2: header, validation, resynchronisation after garbage, record framing, and batch building.

Layout (big-endian, ``DefaultRecordBatch``): BaseOffset int64 · Length int32 (bytes after this field) ·
PartitionLeaderEpoch int32 · Magic int8 = 2 · CRC uint32 (CRC-32C of everything after it) · Attributes int16 ·
LastOffsetDelta int32 · BaseTimestamp int64 · MaxTimestamp int64 · ProducerId int64 · ProducerEpoch int16 ·
BaseSequence int32 · RecordsCount int32 · records (compressed as one stream when the codec bits are set).

BaseOffset, Length and PartitionLeaderEpoch are *not* covered by the CRC; everything from Attributes on is.

Each record: Length varint · Attributes int8 · TimestampDelta varlong · OffsetDelta varint · KeyLength varint
(-1 = null) · Key · ValueLength varint · Value · HeadersCount varint · headers. These varints are zigzag.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

import crc32c

from transforms.decode.binary.compression import compress
from transforms.decode.binary.crc_ranges import RangeCrc
from transforms.decode.binary.varint import encode_varint, encode_varlong, read_varint, read_varlong

HEADER_SIZE: Final = 61
MAGIC_OFFSET: Final = 16
CRC_START: Final = 21  # the CRC covers attributes .. end of batch
MIN_LENGTH: Final = HEADER_SIZE - 12  # Length of a batch with no records
# Kafka caps a batch at message.max.bytes (~1 MiB default, 8 MiB for metadata); stay generous but sane.
MAX_LENGTH: Final = 1 << 30
MAX_CODEC: Final = 4
ATTR_COMPRESSION_MASK: Final = 0x07
ATTR_LOG_APPEND_TIME: Final = 0x08
ATTR_TRANSACTIONAL: Final = 0x10
ATTR_CONTROL: Final = 0x20

_HEADER: Final = struct.Struct(">qiibIhiqqqhii")
_BEFORE_CRC: Final = struct.Struct(">qiibI")  # _HEADER up to the CRC: base offset, length, leader epoch, magic, CRC
_AFTER_CRC: Final = struct.Struct(">hiqqqhii")  # the rest of _HEADER: attributes .. records count
_LENGTH: Final = struct.Struct(">i")
_CRC: Final = struct.Struct(">I")
_INT16: Final = struct.Struct(">h")

# A raw record as framed in a batch: (timestamp delta, offset delta, key or None, value or None).
RawRecord = tuple[int, int, bytes | None, bytes | None]


class BatchHeader(NamedTuple):
    """The fixed 61-byte header of one batch (a tuple: cheap to build once per batch)."""

    base_offset: int
    length: int
    leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int  # not `count`: that name is tuple.count

    @property
    def size(self) -> int:
        """Total bytes of the batch in the file (Length + the 12 bytes before it)."""
        return self.length + 12

    @property
    def compression(self) -> int:
        """Codec id from attribute bits 0-2."""
        return self.attributes & ATTR_COMPRESSION_MASK

    @property
    def is_control(self) -> bool:
        """Attribute bit 5: a control batch (Raft LeaderChange, snapshot header/footer, voters...)."""
        return bool(self.attributes & ATTR_CONTROL)


_make_header = BatchHeader._make


@dataclass(slots=True)
class BadRegion:
    """A byte range that is not a valid batch, with the reason found at its start."""

    position: int
    length: int
    reason: str


def check_batch(data: bytes, pos: int, crcs: RangeCrc | None = None) -> BatchHeader | str:
    """Validate the batch that should start at ``pos``.

    Args:
        data: The whole file.
        pos: Where a batch header is expected.
        crcs: The file's range-CRC index (one for ``data`` when None); it bounds the cost of the CRC check
            whatever length the header claims.

    Returns:
        The header when framing, magic and CRC-32C are good; otherwise the reason.
    """
    available = len(data) - pos
    if available < HEADER_SIZE:
        return f"truncated batch header ({available} trailing byte(s))"
    header = _make_header(_HEADER.unpack_from(data, pos))
    length = header.length
    if header.magic != 2:
        return f"unsupported magic {header.magic} (metadata batches are v2)"
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        return f"batch length {length} out of range"
    if length + 12 > available:
        return f"truncated batch: needs {length + 12} bytes, {available} left in the file"
    actual = (crcs or RangeCrc(data)).crc(pos + CRC_START, pos + length + 12)
    if actual != header.crc:
        return f"CRC-32C mismatch (stored {header.crc}, computed {actual})"
    return header


def _is_batch(data: bytes, pos: int, crcs: RangeCrc) -> bool:
    """Cheap checks first (sane length that fits, known codec, non-negative count no larger than the length), then
    the CRC-32C, at a bounded cost (``RangeCrc``)."""
    if len(data) - pos < HEADER_SIZE:
        return False
    (length,) = _LENGTH.unpack_from(data, pos + 8)
    if not MIN_LENGTH <= length <= min(MAX_LENGTH, len(data) - pos - 12):
        return False
    (attributes,) = _INT16.unpack_from(data, pos + CRC_START)
    (count,) = _LENGTH.unpack_from(data, pos + 57)
    if attributes & ATTR_COMPRESSION_MASK > MAX_CODEC or not 0 <= count <= length:
        return False
    (stored,) = _CRC.unpack_from(data, pos + 17)
    return crcs.crc(pos + CRC_START, pos + length + 12) == stored


def find_next_batch(data: bytes, start: int, crcs: RangeCrc | None = None) -> int | None:
    """Scan forward for the first position holding a plausible batch whose CRC-32C verifies.

    Every position from ``start`` on whose byte at +16 is the magic 2 is a candidate, and every candidate that
    passes the cheap checks is CRC-verified: none is left out, however many a crafted region holds, so the first
    real batch after garbage is always found. Each verification costs a constant (see ``iter_regions``).

    Args:
        data: The whole file.
        start: First candidate position.
        crcs: The file's range-CRC index (one for ``data`` when None).

    Returns:
        The position, or None when no valid batch follows.
    """
    crcs = crcs or RangeCrc(data)
    # Candidates are positions whose byte at +16 is the magic 2; find() keeps the scan in C.
    probe = data.find(b"\x02", start + MAGIC_OFFSET)
    while probe != -1:
        candidate = probe - MAGIC_OFFSET
        if _is_batch(data, candidate, crcs):
            return candidate
        probe = data.find(b"\x02", probe + 1)
    return None


def iter_regions(data: bytes, crcs: RangeCrc | None = None) -> Iterator[tuple[int, BatchHeader] | BadRegion]:
    """Split a file into valid batches and bad regions that together cover every byte exactly once.

    A bad batch (bad magic, length out of range, truncated, CRC mismatch) starts a bad region that extends to
    the first following position holding a valid batch (``find_next_batch``) or to the end of the file. No
    candidate is skipped, so no valid batch after a bad region is lost, whatever garbage precedes it.

    Work is linear in the file size ``N``, with no budget to spend:

    * every position is examined at most twice: once as a resynchronisation candidate (the scan only moves
      forward, and a bad region ends where its scan stopped) and once as the start of a sequential check (the
      cursor only moves forward too);
    * an examination is a few header reads and at most one CRC-32C of a range, which ``RangeCrc`` computes at a
      bounded cost whatever length the header claims: at most ``DIRECT_MAX`` bytes hashed and 8 table steps;
    * ``RangeCrc`` builds its checkpoints once, hashing the file once.

    So at most ``N + 2 * DIRECT_MAX * N`` bytes are hashed and ``O(N)`` Python steps run (in practice candidates
    are the positions holding a 2 sixteen bytes on, and a valid sequential batch hashes at most its own bytes).
    Verifying each candidate over its claimed length instead was quadratic: a crafted prefix of headers claiming
    lengths up to the end of the file cost gigabytes of hashing, and the per-file budget that bounded it could
    be spent by a few kilobytes of such headers, losing every batch of the real segment behind them (issue 58).

    Args:
        data: The whole file.
        crcs: The range-CRC index of ``data`` to use (a new one when None; tests pass one to read its counters).

    Yields:
        ``(position, BatchHeader)`` for each valid batch, ``BadRegion`` for each undecodable range, in file order.
    """
    pos = 0
    end = len(data)
    crcs = crcs or RangeCrc(data)
    while pos < end:
        checked = check_batch(data, pos, crcs)
        if type(checked) is BatchHeader:
            yield pos, checked
            pos += checked.length + 12
            continue
        assert isinstance(checked, str)
        following = find_next_batch(data, pos + 1, crcs)
        stop = end if following is None else following
        yield BadRegion(pos, stop - pos, checked)
        pos = stop


class RecordFramingError(ValueError):
    """The records section of a CRC-valid batch does not parse as records."""


def _skip_headers(buf: bytes, pos: int, count: int) -> int:
    """Skip record headers (KRaft writes none; accept and ignore them)."""
    for _ in range(count):
        key_length, pos = read_varint(buf, pos)
        if key_length < 0:
            raise RecordFramingError("record header key is null")
        pos += key_length
        value_length, pos = read_varint(buf, pos)
        pos += max(value_length, 0)
    return pos


def _read_key(buf: bytes, pos: int) -> tuple[bytes | None, int]:
    """Read a record key that is not the one-byte null (rare in metadata: only control records carry keys)."""
    key_length, pos = read_varint(buf, pos)
    if key_length < 0:
        return None, pos
    return buf[pos : pos + key_length], pos + key_length


def parse_records(buf: bytes, pos: int, end: int, stop_after: int | None = None) -> tuple[list[RawRecord], str | None]:
    """Split a records section into raw records.

    Args:
        buf: Buffer holding the records (the file for uncompressed batches, else the decompressed bytes).
        pos: Start of the first record.
        end: End of the records section.
        stop_after: Stop once this many records are parsed (a record budget: the caller only needs to know the
            batch holds more than it may decode); None parses the whole section.

    Returns:
        The records parsed, and None or the reason parsing stopped early (the rest of the section is lost).
    """
    records: list[RawRecord] = []
    append = records.append
    stop = -1 if stop_after is None else stop_after
    try:
        while pos < end and len(records) != stop:
            # The one-byte zigzag fast path covers lengths below 64, the usual case for metadata records.
            b = buf[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                length, pos = read_varint(buf, pos)
            record_end = pos + length
            if length < 6 or record_end > end:
                return records, f"record length {length} does not fit the batch"
            pos += 1  # attributes: unused
            b = buf[pos]
            if b < 0x80:
                timestamp_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                timestamp_delta, pos = read_varlong(buf, pos)
            b = buf[pos]
            if b < 0x80:
                offset_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                offset_delta, pos = read_varint(buf, pos)
            if buf[pos] == 1:  # key length -1: null key, the metadata case
                key = None
                pos += 1
            else:
                key, pos = _read_key(buf, pos)
            b = buf[pos]
            if b < 0x80:
                value_length = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                value_length, pos = read_varint(buf, pos)
            if value_length < 0:
                value = None
            else:
                value = buf[pos : pos + value_length]
                pos += value_length
            if buf[pos] == 0:
                pos += 1
            else:
                header_count, pos = read_varint(buf, pos)
                pos = _skip_headers(buf, pos, header_count)
            if pos != record_end:
                return records, "record fields do not match the record length"
            append((timestamp_delta, offset_delta, key, value))
    except (IndexError, ValueError):
        return records, "record framing runs past the end of the batch"
    return records, None


def encode_record(offset_delta: int, timestamp_delta: int, key: bytes | None, value: bytes | None) -> bytes:
    """Frame one record for a v2 batch (no headers).

    Args:
        offset_delta: Offset relative to the batch base offset.
        timestamp_delta: Timestamp relative to the batch base timestamp.
        key: Key bytes or None.
        value: Value bytes or None.

    Returns:
        The length-prefixed record.
    """
    body = b"".join(
        (
            b"\x00",  # attributes
            encode_varlong(timestamp_delta),
            encode_varint(offset_delta),
            encode_varint(-1) if key is None else encode_varint(len(key)) + key,
            encode_varint(-1) if value is None else encode_varint(len(value)) + value,
            b"\x00",  # no headers
        )
    )
    return encode_varint(len(body)) + body


def build_batch(
    *,
    base_offset: int,
    leader_epoch: int,
    timestamp_ms: int,
    records: Sequence[tuple[bytes | None, bytes | None]],
    control: bool = False,
    compression: int = 0,
) -> bytes:
    """Build one v2 batch the way the KRaft leader does (CreateTime, no producer, one record per offset).

    Args:
        base_offset: Offset of the first record.
        leader_epoch: PartitionLeaderEpoch (the Raft epoch; the snapshot epoch inside snapshots).
        timestamp_ms: Base and max timestamp; every record gets delta 0.
        records: ``(key, value)`` pairs.
        control: Set attribute bit 5 (control batch).
        compression: Codec id 0-4.

    Returns:
        The batch bytes with a correct CRC-32C.

    Raises:
        ValueError: No records, or an unknown codec.
    """
    if not records:
        raise ValueError("a batch needs at least one record")
    section = b"".join(encode_record(i, 0, key, value) for i, (key, value) in enumerate(records))
    return seal_batch(
        base_offset=base_offset,
        leader_epoch=leader_epoch,
        timestamp_ms=timestamp_ms,
        attributes=compression | (ATTR_CONTROL if control else 0),
        count=len(records),
        payload=compress(compression, section),
    )


def seal_batch(
    *, base_offset: int, leader_epoch: int, timestamp_ms: int, attributes: int, count: int, payload: bytes
) -> bytes:
    """Put the 61-byte header, with its Length and CRC-32C, in front of an encoded records section.

    The header is the KRaft leader's: CreateTime with base = max timestamp, no producer (id, epoch and base
    sequence -1), one record per offset. ``build_batch`` and the synthetic generator's fast path
    (``encode_fast``) both end here, so the two cannot lay a header out differently.

    Args:
        base_offset: Offset of the first record.
        leader_epoch: PartitionLeaderEpoch.
        timestamp_ms: Base and max timestamp.
        attributes: Attribute bits (codec, control).
        count: Records in ``payload``.
        payload: The records section, compressed when ``attributes`` names a codec.

    Returns:
        The batch bytes.
    """
    after_crc = _AFTER_CRC.pack(attributes, count - 1, timestamp_ms, timestamp_ms, -1, -1, -1, count) + payload
    length = len(after_crc) + 9  # leader epoch (4) + magic (1) + crc (4)
    return _BEFORE_CRC.pack(base_offset, length, leader_epoch, 2, crc32c.crc32c(after_crc)) + after_crc
