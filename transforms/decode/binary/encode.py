"""Write KRaft metadata records, batches, log segments and snapshots (the inverse of ``decode``).

Used by round-trip tests, and by the synthetic-fleet generator through its fast path (``encode_fast``). Records
are given in the decoder's JSON shape, so ``decode_file(encode_log_segment(records))`` returns the same ``data``
dicts.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Any, Final

from schemas.record_schemas import METADATA_RECORD_SCHEMAS
from schemas.record_types import CONTROL_RECORD_IDS
from transforms.decode.binary.batch import build_batch
from transforms.decode.binary.fields import version_bounds
from transforms.decode.binary.message import CONTROL_BODIES, METADATA_BODIES
from transforms.decode.binary.varint import encode_uvarint

# One metadata record to write: (apiKey, version, data in the decoder's JSON shape).
MetadataRecordSpec = tuple[int, int, dict[str, Any]]

FRAME_VERSION: Final = 1
_CONTROL_KEY: Final = struct.Struct(">hh")
_CONTROL_KEY_VERSION: Final = 0
_SNAPSHOT_HEADER: Final = CONTROL_RECORD_IDS["SNAPSHOT_HEADER"]
_SNAPSHOT_FOOTER: Final = CONTROL_RECORD_IDS["SNAPSHOT_FOOTER"]
_KRAFT_VERSION: Final = CONTROL_RECORD_IDS["KRAFT_VERSION"]
_KRAFT_VOTERS: Final = CONTROL_RECORD_IDS["KRAFT_VOTERS"]
_LEADER_CHANGE: Final = CONTROL_RECORD_IDS["LEADER_CHANGE"]


def _raw_body(data: dict[str, Any]) -> bytes | None:
    """The body of a record kept undecoded (``{"_raw": base64}``), else None."""
    if set(data) == {"_raw"}:
        return base64.b64decode(data["_raw"], validate=True)
    return None


def encode_metadata_record(api_key: int, version: int, data: dict[str, Any]) -> bytes:
    """Encode one metadata record value: ``[frameVersion=1][apiKey][version][body]``.

    Args:
        api_key: The metadata apiKey (e.g. 4 for ConfigRecord).
        version: The record version.
        data: The body in the decoder's JSON shape; ``{"_raw": base64}`` writes a body verbatim (any apiKey).

    Returns:
        The framed value bytes (the record key of a metadata record is null).

    Raises:
        ValueError: No schema for ``(api_key, version)`` and no ``_raw`` body, or ``data`` does not fit the schema.
    """
    body = _raw_body(data)
    if body is None:
        codec = METADATA_BODIES.get((api_key, version))
        if codec is None:
            raise ValueError(f"no schema for metadata apiKey {api_key} version {version}")
        body = codec.write(data)
    return encode_uvarint(FRAME_VERSION) + encode_uvarint(api_key) + encode_uvarint(version) + body


def encode_control_record(control_type: int, data: dict[str, Any]) -> tuple[bytes, bytes]:
    """Encode one control record.

    The body's version is its ``version`` field (default 0). Kafka itself always lays bodies out at schema
    version 0; a stated version the schema knows (e.g. LeaderChange 1) is laid out at that version.

    Args:
        control_type: The control type id (2 LEADER_CHANGE, 3 SNAPSHOT_HEADER, 4 SNAPSHOT_FOOTER, ...).
        data: The body in the decoder's JSON shape, or ``{"_raw": base64}``.

    Returns:
        ``(key, value)``: key = int16 key version 0 + int16 type; value = the bare body (no frame).

    Raises:
        ValueError: Unknown control type without ``_raw``, or ``data`` does not fit the schema.
    """
    key = _CONTROL_KEY.pack(_CONTROL_KEY_VERSION, control_type)
    body = _raw_body(data)
    if body is not None:
        return key, body
    versions = [v for (kind, v) in CONTROL_BODIES if kind == control_type]
    if not versions:
        raise ValueError(f"no schema for control type {control_type}")
    stated = data.get("version", 0)
    layout = stated if isinstance(stated, int) and stated in versions else 0
    return key, CONTROL_BODIES[(control_type, layout)].write(data)


def encode_batch(
    *,
    base_offset: int,
    leader_epoch: int,
    timestamp_ms: int,
    records: Sequence[tuple[bytes | None, bytes]],
    control: bool = False,
    compression: int = 0,
) -> bytes:
    """Encode one record batch v2 with a correct CRC-32C.

    Args:
        base_offset: Offset of the first record; record ``i`` gets ``base_offset + i``.
        leader_epoch: PartitionLeaderEpoch (the snapshot epoch inside snapshots).
        timestamp_ms: Base and max timestamp (CreateTime); record timestamp deltas are 0.
        records: ``(key, value)`` pairs: ``(None, encode_metadata_record(...))`` or ``encode_control_record(...)``.
        control: Mark the batch as a control batch (attribute bit 5).
        compression: 0 none, 1 gzip, 2 snappy (xerial framing), 3 lz4 (frame), 4 zstd.

    Returns:
        The batch bytes.

    Raises:
        ValueError: Empty ``records`` or unknown codec.
    """
    return build_batch(
        base_offset=base_offset,
        leader_epoch=leader_epoch,
        timestamp_ms=timestamp_ms,
        records=records,
        control=control,
        compression=compression,
    )


def _data_batches(
    records: Sequence[MetadataRecordSpec],
    *,
    base_offset: int,
    leader_epoch: int,
    timestamp_ms: int,
    timestamp_step_ms: int,
    records_per_batch: int,
    compression: int,
) -> tuple[list[bytes], int, int]:
    """Encode metadata records into batches; return the batches, the next offset and the next timestamp."""
    if records_per_batch < 1:
        raise ValueError("records_per_batch must be at least 1")
    batches = []
    offset, timestamp = base_offset, timestamp_ms
    for start in range(0, len(records), records_per_batch):
        chunk = records[start : start + records_per_batch]
        values = [(None, encode_metadata_record(api_key, version, data)) for api_key, version, data in chunk]
        batches.append(
            build_batch(
                base_offset=offset,
                leader_epoch=leader_epoch,
                timestamp_ms=timestamp,
                records=values,
                compression=compression,
            )
        )
        offset += len(chunk)
        timestamp += timestamp_step_ms
    return batches, offset, timestamp


def encode_log_segment(
    records: Sequence[MetadataRecordSpec],
    *,
    base_offset: int = 0,
    leader_epoch: int = 1,
    timestamp_ms: int = 0,
    timestamp_step_ms: int = 0,
    records_per_batch: int = 100,
    compression: int = 0,
    leader_id: int | None = None,
    voter_ids: Sequence[int] = (),
) -> bytes:
    """Encode a ``.log`` segment from metadata records.

    Args:
        records: ``(apiKey, version, data)`` in log order.
        base_offset: Offset of the first batch (the segment's base offset).
        leader_epoch: Raft epoch stamped on every batch.
        timestamp_ms: Timestamp of the first batch.
        timestamp_step_ms: Added to the timestamp for each following batch.
        records_per_batch: Records per data batch (the KRaft leader batches each controller append).
        compression: Codec id for the data batches.
        leader_id: When set, the segment starts with a LeaderChange control batch for this leader, as a log
            does at every new epoch.
        voter_ids: Voters (and granting voters) named in that LeaderChange record.

    Returns:
        The segment bytes.
    """
    batches: list[bytes] = []
    offset = base_offset
    if leader_id is not None:
        batches.append(leader_change_batch(offset, leader_epoch, timestamp_ms, leader_id, voter_ids))
        offset += 1
    data_batches, _, _ = _data_batches(
        records,
        base_offset=offset,
        leader_epoch=leader_epoch,
        timestamp_ms=timestamp_ms,
        timestamp_step_ms=timestamp_step_ms,
        records_per_batch=records_per_batch,
        compression=compression,
    )
    return b"".join(batches + data_batches)


def encode_snapshot(
    records: Sequence[MetadataRecordSpec],
    *,
    epoch: int = 1,
    last_contained_log_timestamp: int = 0,
    timestamp_ms: int = 0,
    records_per_batch: int = 1000,
    compression: int = 0,
    kraft_version: int | None = None,
    voters: Sequence[dict[str, Any]] = (),
) -> bytes:
    """Encode a ``<end offset>-<epoch>.checkpoint`` snapshot (or ``bootstrap.checkpoint``, epoch 0).

    Layout as ``RecordsSnapshotWriter`` writes it: a control batch at offset 0 with the SnapshotHeader (plus the
    KRaftVersion and Voters records when ``kraft_version`` is given), the data batches numbered on from there,
    and a final control batch with the SnapshotFooter. Offsets are positions inside the snapshot, not log offsets.

    Args:
        records: ``(apiKey, version, data)`` of the snapshot's state.
        epoch: Snapshot epoch, stamped as PartitionLeaderEpoch on every batch.
        last_contained_log_timestamp: The header's LastContainedLogTimestamp.
        timestamp_ms: Batch timestamp.
        records_per_batch: Records per data batch.
        compression: Codec id for the data batches.
        kraft_version: When set, also write the KRaftVersion record (and Voters when ``voters`` is given).
        voters: VotersRecord voter dicts (``voterId``, ``voterDirectoryId``, ``endpoints``, ``kRaftVersionFeature``).

    Returns:
        The snapshot bytes.
    """
    header, header_records = snapshot_header_batch(
        epoch, timestamp_ms, last_contained_log_timestamp, kraft_version=kraft_version, voters=voters
    )
    data_batches, offset, _ = _data_batches(
        records,
        base_offset=header_records,
        leader_epoch=epoch,
        timestamp_ms=timestamp_ms,
        timestamp_step_ms=0,
        records_per_batch=records_per_batch,
        compression=compression,
    )
    return b"".join([header, *data_batches, snapshot_footer_batch(offset, epoch, timestamp_ms)])


def leader_change_batch(
    base_offset: int, leader_epoch: int, timestamp_ms: int, leader_id: int, voter_ids: Sequence[int]
) -> bytes:
    """The control batch that opens a new epoch in a log: one LeaderChange record (every voter granted).

    Args:
        base_offset: Offset of the record.
        leader_epoch: The new epoch.
        timestamp_ms: Batch timestamp.
        leader_id: The elected leader.
        voter_ids: Voters, also named as granting voters.

    Returns:
        The batch bytes.
    """
    voters = [{"voterId": voter} for voter in voter_ids]
    leader_change = {"version": 0, "leaderId": leader_id, "voters": voters, "grantingVoters": voters}
    return build_batch(
        base_offset=base_offset,
        leader_epoch=leader_epoch,
        timestamp_ms=timestamp_ms,
        records=[encode_control_record(_LEADER_CHANGE, leader_change)],
        control=True,
    )


def snapshot_header_batch(
    epoch: int,
    timestamp_ms: int,
    last_contained_log_timestamp: int,
    *,
    kraft_version: int | None = None,
    voters: Sequence[dict[str, Any]] = (),
) -> tuple[bytes, int]:
    """The control batch at offset 0 of a snapshot: SnapshotHeader, then KRaftVersion and Voters when given.

    Args:
        epoch: Snapshot epoch.
        timestamp_ms: Batch timestamp.
        last_contained_log_timestamp: The header's LastContainedLogTimestamp.
        kraft_version: When set, also write the KRaftVersion record (and Voters when ``voters`` is given).
        voters: VotersRecord voter dicts.

    Returns:
        The batch bytes and its record count (the offset of the first data record).
    """
    header_records = [
        encode_control_record(
            _SNAPSHOT_HEADER, {"version": 0, "lastContainedLogTimestamp": last_contained_log_timestamp}
        )
    ]
    if kraft_version is not None:
        header_records.append(encode_control_record(_KRAFT_VERSION, {"version": 0, "kRaftVersion": kraft_version}))
        if voters:
            header_records.append(encode_control_record(_KRAFT_VOTERS, {"version": 0, "voters": list(voters)}))
    header = build_batch(
        base_offset=0, leader_epoch=epoch, timestamp_ms=timestamp_ms, records=header_records, control=True
    )
    return header, len(header_records)


def snapshot_footer_batch(base_offset: int, epoch: int, timestamp_ms: int) -> bytes:
    """The control batch that closes a snapshot: one SnapshotFooter record.

    Args:
        base_offset: Offset after the last data record.
        epoch: Snapshot epoch.
        timestamp_ms: Batch timestamp.

    Returns:
        The batch bytes.
    """
    return build_batch(
        base_offset=base_offset,
        leader_epoch=epoch,
        timestamp_ms=timestamp_ms,
        records=[encode_control_record(_SNAPSHOT_FOOTER, {"version": 0})],
        control=True,
    )


def supported_versions(api_key: int) -> tuple[int, int]:
    """Return the lowest and highest version the codec knows for a metadata apiKey.

    Args:
        api_key: The metadata apiKey.

    Returns:
        ``(low, high)``.

    Raises:
        KeyError: Unknown apiKey.
    """
    return version_bounds(METADATA_RECORD_SCHEMAS[api_key].valid_versions)
