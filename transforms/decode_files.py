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

# One DECODED_ROWS row as a tuple in the schema's field order (built per record: tuples, not dicts, and one
# transposition per Arrow batch keep the Python side of decoding cheap).
Row = tuple[Any, ...]
Base = tuple[Any, ...]  # cluster_id, source_file, input_kind, file_sha256, snapshot_end_offset
# json.dumps(separators=..., ensure_ascii=False) builds a new encoder per call; one shared encoder, same output.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
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

    def decode_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        pending: list[Row] = []
        for batch in batches:
            paths = batch.column("path").to_pylist()
            contents = batch.column("content")
            for i, path in enumerate(paths):
                content = contents[i].as_py() or b""
                pending.extend(_decode_one(path, content, descriptors, rules, redaction_key))
                if len(pending) >= _FLUSH_ROWS:
                    yield _to_batch(pending, arrow_schema)
                    pending = []
        if pending:
            yield _to_batch(pending, arrow_schema)

    return files_df.select("path", "content").mapInArrow(decode_batches, DECODED_ROWS)


def _decode_one(
    path: str,
    content: bytes,
    descriptors: Mapping[str, FileDescriptor],
    rules: SensitivityRules,
    key: bytes,
) -> list[Row]:
    desc = descriptors.get(path)
    if desc is None:
        return [_orphan(path)]
    base = (desc.cluster_id, desc.source_file, desc.input_kind, desc.file_sha256, desc.snapshot_end_offset)
    rows: list[Row] = []
    try:
        for item, snapshot_end in _items(desc, content):
            where = base if snapshot_end is None else (*base[:4], snapshot_end)
            if type(item) is DecodedRecord:
                rows.append(_record_row(where, item, rules, key))
            else:
                assert isinstance(item, QuarantineItem)
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


def _record_row(base: Base, rec: DecodedRecord, rules: SensitivityRules, key: bytes) -> Row:
    data = redact_record(rec.record_type, rec.data, rules, key)
    return (
        "RECORD",
        *base,
        rec.position,
        None,
        rec.line_number,
        rec.batch_base_offset,
        rec.offset,
        rec.leader_epoch,
        rec.timestamp_ms * 1000 if rec.timestamp_ms is not None else None,
        rec.is_control,
        rec.record_type,
        rec.api_key,
        rec.record_version,
        _JSON.encode(data),
        rec.is_unknown,
        None,
        None,
    )


def _quarantine_row(base: Base, item: QuarantineItem, rules: SensitivityRules) -> Row:
    return (
        "QUARANTINE",
        *base,
        item.position,
        item.length,
        item.line_number,
        None,
        item.offset,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        item.reason[:500],
        redact_text(item.excerpt, rules) if item.excerpt else None,
    )


def _orphan(path: str) -> Row:
    base = ("unknown", path, "UNKNOWN", "", None)
    return _quarantine_row(base, QuarantineItem(reason="file was not among the discovered inputs"), SensitivityRules())


def _to_batch(rows: list[Row], schema: pa.Schema) -> pa.RecordBatch:
    columns = zip(*rows, strict=True)
    arrays = [pa.array(values, type=field.type) for values, field in zip(columns, schema, strict=True)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
