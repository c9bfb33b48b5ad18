"""The same records as ``kafka-dump-log`` text and as JSON lines: the text and JSON inputs of the ingest benchmark.

``kraft-audit synth`` writes binary logs only and the product has no text writers (it only reads text), so the
harness decodes each synthetic binary file with the product's decoder and prints every record twice, in the
shapes the product's text readers accept (docs/contract.md §3):

* dump-log text as ``kafka-dump-log.sh --cluster-metadata-decoder`` prints it (Scala printer of Kafka 4.x): a
  ``Dumping <file>`` section per file, a batch line per batch and one ``| offset: ...`` line per record with its
  ``payload: {"type", "version", "data"}`` (control records as ``SnapshotHeader {...}`` & co.);
* JSON lines: ``{"offset", "timestamp", "type", "version", "batchBaseOffset", "leaderEpoch", "data"}`` per record.

Each cluster directory keeps its ``meta.properties`` so the same cluster ids come out of every format. Clusters
are exported in parallel processes (``spawn``).
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.decoded import DecodedRecord
from transforms.decode.text.detect import detect_input_kind, snapshot_end_offset_from_name, snapshot_epoch_from_name

_CONTROL_LABELS = {
    "LEADER_CHANGE": "LeaderChange:",
    "SNAPSHOT_HEADER": "SnapshotHeader",
    "SNAPSHOT_FOOTER": "SnapshotFooter",
    "KRAFT_VERSION": "KRaftVersion",
    "KRAFT_VOTERS": "KRaftVoters",
}
_BINARY_SUFFIXES = (".log", ".checkpoint")


@dataclass
class ExportCounts:
    """Records and bytes written per format."""

    records: int = 0
    text_bytes: int = 0
    json_bytes: int = 0
    files: int = 0


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _record_line(rec: DecodedRecord) -> str:
    ts = rec.timestamp_ms if rec.timestamp_ms is not None else -1
    if rec.is_control:
        body = {"version": rec.record_version or 0, **rec.data}
        label = _CONTROL_LABELS.get(rec.record_type)
        tail = f"{label} {_dumps(body)}" if label else f"controlType: {rec.record_type}({rec.api_key})"
        size = len(tail)
        return (
            f"| offset: {rec.offset} CreateTime: {ts} keySize: 4 valueSize: {size} sequence: -1 headerKeys: [] {tail}"
        )
    payload = _dumps({"type": rec.record_type, "version": rec.record_version, "data": rec.data})
    return (
        f"| offset: {rec.offset} CreateTime: {ts} keySize: -1 valueSize: {len(payload)} sequence: -1 "
        f"headerKeys: [] payload: {payload}"
    )


def _batch_line(batch: list[DecodedRecord], size: int) -> str:
    first, last = batch[0], batch[-1]
    ts = first.timestamp_ms if first.timestamp_ms is not None else -1
    return (
        f"baseOffset: {first.batch_base_offset} lastOffset: {last.offset} count: {len(batch)} baseSequence: -1 "
        f"lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: {first.leader_epoch or 0} "
        f"isTransactional: false isControl: {str(first.is_control).lower()} deleteHorizonMs: OptionalLong.empty "
        f"position: {first.position or 0} CreateTime: {ts} size: {size} magic: 2 compresscodec: none crc: 0 "
        "isvalid: true"
    )


def _batches(records: list[DecodedRecord]) -> Iterable[list[DecodedRecord]]:
    current: list[DecodedRecord] = []
    for rec in records:
        if current and rec.batch_base_offset != current[0].batch_base_offset:
            yield current
            current = []
        current.append(rec)
    if current:
        yield current


def dump_log_text(path: str, kind: str, records: list[DecodedRecord], file_size: int) -> str:
    """One ``Dumping`` section of ``kafka-dump-log`` text for the records of one binary file."""
    lines = [f"Dumping {path}"]
    if kind == "LOG_SEGMENT":
        lines.append(f"Log starting offset: {records[0].batch_base_offset if records else 0}")
    elif kind == "SNAPSHOT":
        end, epoch = snapshot_end_offset_from_name(path), snapshot_epoch_from_name(path)
        lines.append(f"Snapshot end offset: {end}, epoch: {epoch}")
    else:
        lines.append("KRaft bootstrap snapshot")
    batches = list(_batches(records))
    for i, batch in enumerate(batches):
        start = batch[0].position or 0
        end = batches[i + 1][0].position or 0 if i + 1 < len(batches) else file_size
        lines.append(_batch_line(batch, max(0, end - start)))
        lines.extend(_record_line(rec) for rec in batch)
    return "\n".join(lines) + "\n"


def json_lines(records: list[DecodedRecord]) -> str:
    """The records as JSON lines (docs/contract.md §3 shape)."""
    out = []
    for rec in records:
        obj: dict[str, Any] = {
            "offset": rec.offset,
            "timestamp": rec.timestamp_ms,
            "type": rec.record_type,
            "version": rec.record_version,
            "batchBaseOffset": rec.batch_base_offset,
            "leaderEpoch": rec.leader_epoch,
        }
        if rec.is_control:
            obj["isControl"] = True
        obj["data"] = rec.data
        out.append(_dumps(obj))
    return "\n".join(out) + ("\n" if out else "")


def export_cluster(cluster_dir: str, text_root: str, json_root: str) -> ExportCounts:
    """Export every binary file of one synthetic cluster directory as text and JSON lines (runs in a worker)."""
    from transforms.decode.binary.decode import decode_file

    source = Path(cluster_dir)
    counts = ExportCounts()
    for root in (Path(text_root) / source.name, Path(json_root) / source.name):
        root.mkdir(parents=True, exist_ok=True)
        if (source / "meta.properties").exists():
            shutil.copyfile(source / "meta.properties", root / "meta.properties")
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.suffix not in _BINARY_SUFFIXES:
            continue
        data = path.read_bytes()
        kind = detect_input_kind(str(path), data[:64])
        if kind not in ("LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT"):
            continue
        end = snapshot_end_offset_from_name(str(path))
        records = [
            item for item in decode_file(data, kind=kind, snapshot_end_offset=end) if isinstance(item, DecodedRecord)
        ]
        relative = path.relative_to(source)
        text = dump_log_text(str(path), kind, records, len(data)).encode("utf-8")
        lines = json_lines(records).encode("utf-8")
        text_path = Path(text_root) / source.name / relative.with_name(relative.name + ".txt")
        json_path = Path(json_root) / source.name / relative.with_name(relative.name + ".jsonl")
        for target, payload in ((text_path, text), (json_path, lines)):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(payload)
        counts.records += len(records)
        counts.text_bytes += len(text)
        counts.json_bytes += len(lines)
        counts.files += 1
    return counts


def export_fleet(fleet: Path, text_root: Path, json_root: Path, *, workers: int = 2) -> ExportCounts:
    """Export every cluster of a synthetic fleet (``<fleet>/<cluster>/...``)."""
    for root in (text_root, json_root):
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
    clusters = sorted(str(p) for p in fleet.iterdir() if p.is_dir())
    total = ExportCounts()
    if workers <= 1 or len(clusters) <= 1:
        parts = [export_cluster(c, str(text_root), str(json_root)) for c in clusters]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            n = len(clusters)
            parts = list(pool.map(export_cluster, clusters, [str(text_root)] * n, [str(json_root)] * n))
    for part in parts:
        total.records += part.records
        total.text_bytes += part.text_bytes
        total.json_bytes += part.json_bytes
        total.files += part.files
    return total
