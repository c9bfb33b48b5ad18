"""A fast path of ``encode`` for uncompressed metadata logs: same arguments, same bytes, several times the speed.

The generic schema-driven writer costs ~20 µs a record. The record shapes that make up nearly all of a large log
(Partition, Config, Topic, PartitionChange, NoOp) are laid out by hand here, and every other record goes through
``encode.encode_metadata_record``; records are framed inline and batches sealed by ``batch.seal_batch``, the
header writer ``build_batch`` uses too. Control batches (LeaderChange, snapshot header and footer) are the
generic ones. ``log_segment_bytes`` and ``snapshot_bytes`` return exactly what ``encode_log_segment`` and
``encode_snapshot`` return for the same arguments (``tests/transforms/decode/binary/test_binary_encode_fast.py``).
The synthetic fleet generator (``synthetic.files``) writes through it.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Sequence
from typing import Final

from schemas.record_types import METADATA_RECORD_API_KEYS
from transforms.decode.binary.batch import seal_batch
from transforms.decode.binary.encode import (
    MetadataRecordSpec,
    encode_metadata_record,
    leader_change_batch,
    snapshot_footer_batch,
    snapshot_header_batch,
)
from transforms.decode.binary.message_writer import uuid_from_json
from transforms.decode.binary.varint import encode_uvarint

__all__ = ["log_segment_bytes", "metadata_value", "snapshot_bytes"]

_TOPIC: Final = METADATA_RECORD_API_KEYS["TOPIC_RECORD"]
_PARTITION: Final = METADATA_RECORD_API_KEYS["PARTITION_RECORD"]
_CONFIG: Final = METADATA_RECORD_API_KEYS["CONFIG_RECORD"]
_PARTITION_CHANGE: Final = METADATA_RECORD_API_KEYS["PARTITION_CHANGE_RECORD"]
_NO_OP: Final = METADATA_RECORD_API_KEYS["NO_OP_RECORD"]

_INT32: Final = struct.Struct(">i")
# The key sets the hand layout covers; a record with any other key (e.g. removingReplicas, or a tagged field)
# falls back to the generic writer, which knows the schema defaults and tags.
_PARTITION_KEYS_V0: Final = frozenset(
    ("partitionId", "topicId", "replicas", "isr", "leader", "leaderEpoch", "partitionEpoch")
)
_PARTITION_KEYS_V1: Final = _PARTITION_KEYS_V0 | {"directories"}
# Arrays of up to 7 int32s (replicas, ISR): the length byte and a precompiled packer.
_INT32_ARRAYS: Final = tuple((bytes((n + 1,)), struct.Struct(f">{n}i").pack) for n in range(8))

# A log names few distinct topic ids, each many times (one per partition and change): decode each once.
_uuid_bytes = functools.lru_cache(maxsize=1 << 16)(uuid_from_json)


def _string(value: str | None) -> bytes:
    """A compact nullable string (flexible versions): length + 1 as an unsigned varint, 0 for null."""
    if value is None:
        return b"\x00"
    raw = value.encode("utf-8")
    return encode_uvarint(len(raw) + 1) + raw


def _int32_array(values: Sequence[int]) -> bytes:
    """A compact int32 array: length + 1, then the values."""
    n = len(values)
    if n < len(_INT32_ARRAYS):
        prefix, pack = _INT32_ARRAYS[n]
        return prefix + pack(*values)
    return encode_uvarint(n + 1) + struct.pack(f">{n}i", *values)


def metadata_value(record: MetadataRecordSpec) -> bytes:
    """The framed value of one metadata record; identical to ``encode_metadata_record(*record)``.

    Args:
        record: ``(apiKey, version, data)`` in the decoder's JSON shape.

    Returns:
        ``[frameVersion=1][apiKey][version][body]``.

    Raises:
        ValueError: The record does not fit its schema (raised by the generic writer).
    """
    api_key, version, data = record
    if api_key == _PARTITION and (
        data.keys() == _PARTITION_KEYS_V0 if version == 0 else data.keys() == _PARTITION_KEYS_V1
    ):
        body = [
            _INT32.pack(data["partitionId"]),
            _uuid_bytes(data["topicId"]),
            _int32_array(data["replicas"]),
            _int32_array(data["isr"]),
            b"\x01\x01",  # removingReplicas, addingReplicas: empty
            _INT32.pack(data["leader"]),
            _INT32.pack(data["leaderEpoch"]),
            _INT32.pack(data["partitionEpoch"]),
        ]
        if version >= 1:
            directories = data["directories"]
            body.append(encode_uvarint(len(directories) + 1) + b"".join([_uuid_bytes(d) for d in directories]))
        return bytes((1, _PARTITION, version)) + b"".join(body) + b"\x00"
    if api_key == _CONFIG and version == 0 and len(data) == 4:
        return b"".join(
            (
                b"\x01\x04\x00",
                data["resourceType"].to_bytes(1, "big", signed=True),
                _string(data["resourceName"]),
                _string(data["name"]),
                _string(data["value"]),
                b"\x00",
            )
        )
    if api_key == _TOPIC and version == 0 and len(data) == 2:
        return b"\x01\x02\x00" + _string(data["name"]) + _uuid_bytes(data["topicId"]) + b"\x00"
    if api_key == _NO_OP and not data:
        return b"\x01\x14\x00\x00"
    if api_key == _PARTITION_CHANGE and len(data) == 3:
        head = bytes((1, _PARTITION_CHANGE, version)) + _INT32.pack(data["partitionId"]) + _uuid_bytes(data["topicId"])
        if "isr" in data:  # tag 0
            isr = _int32_array(data["isr"])
            return head + b"\x01\x00" + encode_uvarint(len(isr)) + isr
        if "leader" in data:  # tag 1
            return head + b"\x01\x01\x04" + _INT32.pack(data["leader"])
    return encode_metadata_record(api_key, version, data)


def log_segment_bytes(
    records: Sequence[MetadataRecordSpec],
    *,
    base_offset: int,
    leader_epoch: int,
    timestamp_ms: int,
    timestamp_step_ms: int,
    records_per_batch: int,
    leader_id: int | None = None,
    voter_ids: Sequence[int] = (),
) -> bytes:
    """``encode_log_segment`` with the fast value encoder (same arguments, same bytes; no compression).

    Args:
        records: ``(apiKey, version, data)`` in log order.
        base_offset: Offset of the first batch.
        leader_epoch: Raft epoch stamped on every batch.
        timestamp_ms: Timestamp of the first batch.
        timestamp_step_ms: Added to the timestamp for each following data batch.
        records_per_batch: Records per data batch.
        leader_id: When set, the segment starts with a LeaderChange control batch for this leader.
        voter_ids: Voters (and granting voters) named in that LeaderChange record.

    Returns:
        The segment bytes.
    """
    batches = []
    offset = base_offset
    if leader_id is not None:
        batches.append(leader_change_batch(offset, leader_epoch, timestamp_ms, leader_id, voter_ids))
        offset += 1
    batches += _data_batches(records, offset, leader_epoch, timestamp_ms, timestamp_step_ms, records_per_batch)
    return b"".join(batches)


def snapshot_bytes(
    records: Sequence[MetadataRecordSpec],
    *,
    epoch: int,
    last_contained_log_timestamp: int = 0,
    timestamp_ms: int = 0,
    records_per_batch: int = 1000,
) -> bytes:
    """``encode_snapshot`` with the fast value encoder (same arguments, same bytes; no KRaft voters).

    Args:
        records: ``(apiKey, version, data)`` of the snapshot's state.
        epoch: Snapshot epoch, stamped on every batch.
        last_contained_log_timestamp: The header's LastContainedLogTimestamp.
        timestamp_ms: Batch timestamp.
        records_per_batch: Records per data batch.

    Returns:
        The snapshot bytes.
    """
    header, first_offset = snapshot_header_batch(epoch, timestamp_ms, last_contained_log_timestamp)
    data = _data_batches(records, first_offset, epoch, timestamp_ms, 0, records_per_batch)
    footer = snapshot_footer_batch(first_offset + len(records), epoch, timestamp_ms)
    return b"".join([header, *data, footer])


def _data_batches(
    records: Sequence[MetadataRecordSpec],
    base_offset: int,
    leader_epoch: int,
    timestamp_ms: int,
    timestamp_step_ms: int,
    records_per_batch: int,
) -> list[bytes]:
    """Metadata records in batches of ``records_per_batch``, offsets and timestamps counting on."""
    batches = []
    offset, timestamp = base_offset, timestamp_ms
    for start in range(0, len(records), records_per_batch):
        chunk = records[start : start + records_per_batch]
        batches.append(_data_batch(offset, leader_epoch, timestamp, [metadata_value(record) for record in chunk]))
        offset += len(chunk)
        timestamp += timestamp_step_ms
    return batches


def _data_batch(base_offset: int, leader_epoch: int, timestamp_ms: int, values: list[bytes]) -> bytes:
    """``build_batch`` for uncompressed metadata records with null keys, the records framed inline."""
    framed = []
    for delta, value in enumerate(values):
        offset_delta = encode_uvarint(delta << 1)  # zigzag varint of a non-negative delta
        value_length = encode_uvarint(len(value) << 1)
        # attributes 0, timestamp delta 0, offset delta, key length -1, value length, value, no headers
        body_length = 4 + len(offset_delta) + len(value_length) + len(value)
        framed.append(
            b"".join(
                (encode_uvarint(body_length << 1), b"\x00\x00", offset_delta, b"\x01", value_length, value, b"\x00")
            )
        )
    return seal_batch(
        base_offset=base_offset,
        leader_epoch=leader_epoch,
        timestamp_ms=timestamp_ms,
        attributes=0,
        count=len(values),
        payload=b"".join(framed),
    )
