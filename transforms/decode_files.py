"""Decode whole input files on the executors (``mapInArrow``), redacting as they are decoded.

Input: a DataFrame with ``path`` and ``content`` (Spark's ``binaryFile`` source). Output: DECODED_ROWS — one row
per decoded record and one per quarantined region or line. The per-file Python work runs once per file inside
``mapInArrow``; nothing is decoded on the driver and no row-level UDF is involved.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.pandas.types import to_arrow_schema

from schemas.bronze import DECODED_ROWS
from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.redact import SensitivityRules, redact_record, redact_text

BINARY_KINDS = frozenset({"LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT"})
TEXT_KINDS = frozenset({"DUMP_LOG_TEXT", "JSON_LINES"})
_FLUSH_ROWS = 20_000


@dataclass(frozen=True)
class FileDescriptor:
    """What the driver knows about one input file before it is decoded."""

    path: str  # the path exactly as the binaryFile source reports it
    source_file: str  # the path shown to users
    cluster_id: str
    input_kind: str
    file_sha256: str
    snapshot_end_offset: int | None = None


def decode_files(
    files_df: DataFrame,
    *,
    descriptors: Mapping[str, FileDescriptor],
    rules: SensitivityRules,
    redaction_key: bytes,
) -> DataFrame:
    """Decode every file of ``files_df`` (columns ``path``, ``content``) into DECODED_ROWS.

    Files whose path is not in ``descriptors`` produce one QUARANTINE row each (they were not expected). Decoders
    never raise on bad bytes; an unexpected decoder error becomes a QUARANTINE row for the whole file.
    """
    arrow_schema = to_arrow_schema(DECODED_ROWS, timezone="UTC")
    names = [f.name for f in DECODED_ROWS.fields]

    def decode_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        pending: list[dict[str, Any]] = []
        for batch in batches:
            paths = batch.column("path").to_pylist()
            contents = batch.column("content")
            for i, path in enumerate(paths):
                content = contents[i].as_py() or b""
                pending.extend(_decode_one(path, content, descriptors, rules, redaction_key))
                if len(pending) >= _FLUSH_ROWS:
                    yield _to_batch(pending, names, arrow_schema)
                    pending = []
        if pending:
            yield _to_batch(pending, names, arrow_schema)

    return files_df.select("path", "content").mapInArrow(decode_batches, DECODED_ROWS)


def _decode_one(
    path: str,
    content: bytes,
    descriptors: Mapping[str, FileDescriptor],
    rules: SensitivityRules,
    key: bytes,
) -> list[dict[str, Any]]:
    desc = descriptors.get(path)
    if desc is None:
        return [_orphan(path)]
    base = {
        "cluster_id": desc.cluster_id,
        "source_file": desc.source_file,
        "input_kind": desc.input_kind,
        "file_sha256": desc.file_sha256,
        "snapshot_end_offset": desc.snapshot_end_offset,
    }
    rows: list[dict[str, Any]] = []
    try:
        for item, snapshot_end in _items(desc, content):
            where = base if snapshot_end is None else {**base, "snapshot_end_offset": snapshot_end}
            if isinstance(item, DecodedRecord):
                rows.append(_record_row(where, item, rules, key))
            else:
                rows.append(_quarantine_row(where, item, rules))
    except Exception as error:  # a decoder bug must not lose the file silently: quarantine it whole
        rows.append(
            _quarantine_row(
                base,
                QuarantineItem(
                    reason=f"decoder failed: {type(error).__name__}: {error}", position=0, length=len(content)
                ),
                rules,
            )
        )
    return rows


def _items(desc: FileDescriptor, content: bytes) -> Iterator[tuple[DecodedRecord | QuarantineItem, int | None]]:
    """Decoded items with, for dump-log text, the snapshot end offset of the section they were printed in."""
    if desc.input_kind in BINARY_KINDS:
        from transforms.binary.decode import decode_file

        for item in decode_file(content, kind=desc.input_kind, snapshot_end_offset=desc.snapshot_end_offset):
            yield item, None
        return
    text = content.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if desc.input_kind == "JSON_LINES":
        from transforms.text.jsonlines import parse_json_lines

        for item in parse_json_lines(lines):
            yield item, None
        return
    from transforms.text.dumplog import DumpLogParser

    # A dump may print several files; records printed inside a snapshot section carry offsets *within* that
    # snapshot, so they get the section's end offset (0 for a bootstrap snapshot), like binary snapshots do.
    parser = DumpLogParser()
    for item in parser.parse(lines):
        section = parser.sections[-1] if parser.sections else None
        end = None
        if section is not None and section.kind == "SNAPSHOT":
            end = section.snapshot_end_offset
        elif section is not None and section.kind == "BOOTSTRAP_SNAPSHOT":
            end = 0
        yield item, end


def _record_row(base: dict[str, Any], rec: DecodedRecord, rules: SensitivityRules, key: bytes) -> dict[str, Any]:
    data = redact_record(rec.record_type, rec.data, rules, key)
    return {
        **base,
        "row_kind": "RECORD",
        "position": rec.position,
        "length": None,
        "line_number": rec.line_number,
        "batch_base_offset": rec.batch_base_offset,
        "offset": rec.offset,
        "leader_epoch": rec.leader_epoch,
        "timestamp": rec.timestamp_ms * 1000 if rec.timestamp_ms is not None else None,
        "is_control": rec.is_control,
        "record_type": rec.record_type,
        "api_key": rec.api_key,
        "record_version": rec.record_version,
        "payload": json.dumps(data, separators=(",", ":"), ensure_ascii=False),
        "is_unknown": rec.is_unknown,
        "reason": None,
        "excerpt": None,
    }


def _quarantine_row(base: dict[str, Any], item: QuarantineItem, rules: SensitivityRules) -> dict[str, Any]:
    return {
        **base,
        "row_kind": "QUARANTINE",
        "position": item.position,
        "length": item.length,
        "line_number": item.line_number,
        "batch_base_offset": None,
        "offset": item.offset,
        "leader_epoch": None,
        "timestamp": None,
        "is_control": None,
        "record_type": None,
        "api_key": None,
        "record_version": None,
        "payload": None,
        "is_unknown": None,
        "reason": item.reason[:500],
        "excerpt": redact_text(item.excerpt, rules) if item.excerpt else None,
    }


def _orphan(path: str) -> dict[str, Any]:
    row = dict.fromkeys(f.name for f in DECODED_ROWS.fields)
    row.update(
        row_kind="QUARANTINE",
        cluster_id="unknown",
        source_file=path,
        input_kind="UNKNOWN",
        file_sha256="",
        reason="file was not among the discovered inputs",
    )
    return row


def _to_batch(rows: list[dict[str, Any]], names: list[str], schema: pa.Schema) -> pa.RecordBatch:
    columns = {name: [row.get(name) for row in rows] for name in names}
    return pa.RecordBatch.from_pydict(columns, schema=schema)
