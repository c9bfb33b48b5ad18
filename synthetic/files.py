"""Turn one cluster's history into the files Kafka keeps in its metadata log directory: ``meta.properties``,
``bootstrap.checkpoint``, the ``.log`` segments and the snapshot. Records are encoded segment by segment, so a
cluster of millions of records never sits in memory; the bytes are exactly what ``transforms.decode.binary.encode``
writes (through its fast path, ``transforms.decode.binary.encode_fast``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

from synthetic.history import ClusterSynth
from synthetic.image import SnapshotCut
from synthetic.plan import ClusterPlan, new_uuid, seed_for
from synthetic.records import bootstrap_records
from synthetic.spec import FleetSpec
from transforms.decode.binary.encode import MetadataRecordSpec
from transforms.decode.binary.encode_fast import log_segment_bytes, snapshot_bytes

__all__ = ["METADATA_DIR", "ClusterEncoder", "FileInfo", "meta_properties"]

METADATA_DIR: Final = "__cluster_metadata-0"
_RUN_BATCHES: Final = 32  # batches encoded per call while a segment fills


@dataclass(frozen=True)
class FileInfo:
    """One written file of a cluster, for the manifest."""

    path: str  # relative to the cluster directory
    kind: str  # LOG_SEGMENT, SNAPSHOT, BOOTSTRAP_SNAPSHOT, META_PROPERTIES
    bytes: int
    records: int = 0  # records in the file, control records included
    base_offset: int | None = None  # segments: the first offset; snapshots: the end offset (exclusive)
    epoch: int | None = None  # snapshots: the epoch in the name


@dataclass
class ClusterEncoder:
    """Encodes one cluster's records into the files Kafka keeps in its metadata log directory.

    ``files()`` yields ``(relative path, bytes)``: ``meta.properties``, ``bootstrap.checkpoint``, then the
    ``__cluster_metadata-0/<base offset>.log`` segments (``spec.segment_records`` records each, control records
    included; a new leader epoch starts a segment with a LeaderChange record) and, with ``spec.snapshot``,
    ``<end offset>-<epoch>.checkpoint`` holding the state before the cut. As Kafka does once a snapshot exists,
    segments that end before the snapshot's end offset are deleted (not written); the segment holding the cut is
    kept, so its records below the end offset duplicate the snapshot. The attributes describe what was written
    once ``files()`` is exhausted.
    """

    synth: ClusterSynth
    written: list[FileInfo] = field(default_factory=list)
    deleted_segments: int = 0  # segments below the snapshot, not written
    deleted_records: int = 0
    end_offset: int = 0  # the log end offset (next offset to be written)
    snapshot_end_offset: int | None = None

    def files(self) -> Iterator[tuple[str, bytes]]:
        """Encode lazily; see the class docstring."""
        plan, spec = self.synth.plan, self.synth.spec
        yield self._file("meta.properties", "META_PROPERTIES", meta_properties(plan))
        bootstrap = bootstrap_records(plan)
        yield self._file(
            "bootstrap.checkpoint", "BOOTSTRAP_SNAPSHOT", snapshot_bytes(bootstrap, epoch=0), len(bootstrap) + 2
        )
        writer = _SegmentWriter(plan, spec)
        cut_seen = not spec.snapshot
        for item in self.synth.items():
            if isinstance(item, SnapshotCut):
                writer.flush()
                cut_seen = True
                self.snapshot_end_offset = writer.offset
                name = f"{METADATA_DIR}/{writer.offset:020d}-{writer.epoch:010d}.checkpoint"
                data = snapshot_bytes(
                    item.records,
                    epoch=writer.epoch,
                    last_contained_log_timestamp=writer.last_timestamp,
                    timestamp_ms=writer.last_timestamp,
                    records_per_batch=1000,
                )
                info = FileInfo(name, "SNAPSHOT", len(data), len(item.records) + 2, writer.offset, writer.epoch)
                self.written.append(info)
                yield name, data
                continue
            if writer.add(item):  # the segment is full
                yield from self._finish_segment(writer, cut_seen)
        yield from self._finish_segment(writer, cut_seen)
        self.end_offset = writer.offset

    def _finish_segment(self, writer: _SegmentWriter, cut_seen: bool) -> Iterator[tuple[str, bytes]]:
        base, records, data = writer.close()
        if not records:
            return
        if not cut_seen:
            self.deleted_segments += 1
            self.deleted_records += records
            return
        name = f"{METADATA_DIR}/{base:020d}.log"
        self.written.append(FileInfo(name, "LOG_SEGMENT", len(data), records, base))
        yield name, data

    def _file(self, path: str, kind: str, data: bytes, records: int = 0) -> tuple[str, bytes]:
        self.written.append(FileInfo(path, kind, len(data), records))
        return path, data


class _SegmentWriter:
    """Accumulates records into the current segment, encoding them in runs of whole batches."""

    def __init__(self, plan: ClusterPlan, spec: FleetSpec) -> None:
        self.rng = random.Random(seed_for(plan.seed, "raft"))
        self.spec = spec
        self.voters = list(plan.controller_ids)
        self.offset = 0  # next offset to assign
        self.epoch = plan.first_epoch
        self.timestamp = plan.base_timestamp_ms  # timestamp of the next batch
        self.last_timestamp = 0  # timestamp of the last batch written
        self.run_size = spec.records_per_batch * _RUN_BATCHES
        self._start_segment(new_epoch=True)

    def _start_segment(self, *, new_epoch: bool) -> None:
        self.base_offset = self.offset
        self.parts: list[bytes] = []
        self.run: list[MetadataRecordSpec] = []
        self.leader_pending = new_epoch  # the segment opens with a LeaderChange control record
        self.count = 1 if new_epoch else 0  # records in the segment, the pending LeaderChange included

    def add(self, record: MetadataRecordSpec) -> bool:
        """Add one record; True when the segment is full."""
        self.run.append(record)
        self.count += 1
        if len(self.run) >= self.run_size:
            self.flush()
        return self.count >= self.spec.segment_records

    def flush(self) -> None:
        """Encode the pending run (call at a cut so the snapshot offset falls on a batch boundary)."""
        if not self.run:
            return
        spec = self.spec
        leader = self.rng.choice(self.voters) if self.leader_pending else None
        self.parts.append(
            log_segment_bytes(
                self.run,
                base_offset=self.offset,
                leader_epoch=self.epoch,
                timestamp_ms=self.timestamp,
                timestamp_step_ms=spec.batch_interval_ms,
                records_per_batch=spec.records_per_batch,
                leader_id=leader,
                voter_ids=self.voters,
            )
        )
        batches = -(-len(self.run) // spec.records_per_batch)
        self.offset += len(self.run) + (1 if leader is not None else 0)
        self.last_timestamp = self.timestamp + (batches - 1) * spec.batch_interval_ms
        self.timestamp += batches * spec.batch_interval_ms
        self.leader_pending = False
        self.run = []

    def close(self) -> tuple[int, int, bytes]:
        """Finish the segment: ``(base offset, records, bytes)``; then start the next one (maybe a new epoch)."""
        self.flush()
        result = (self.base_offset, self.offset - self.base_offset, b"".join(self.parts))
        new_epoch = self.rng.random() < 0.2  # a controller election now and then
        if new_epoch:
            self.epoch += 1
        self._start_segment(new_epoch=new_epoch)
        return result


def meta_properties(plan: ClusterPlan) -> bytes:
    """``meta.properties`` as ``kafka-storage format`` writes it into the metadata log directory."""
    rng = random.Random(seed_for(plan.seed, "meta.properties"))
    stamp = datetime.fromtimestamp(plan.base_timestamp_ms / 1000, UTC).strftime("%a %b %d %H:%M:%S UTC %Y")
    lines = [
        "#",
        f"#{stamp}",
        f"node.id={plan.controller_ids[0]}",
        f"directory.id={new_uuid(rng)}",
        "version=1",
        f"cluster.id={plan.cluster_id}",
    ]
    return ("\n".join(lines) + "\n").encode("ascii")
