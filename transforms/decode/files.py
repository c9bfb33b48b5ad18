"""Decode whole input files, redacting as they are decoded: on the executors (``decode_files``, ``mapInArrow``) or,
for an input small enough to hold in one process, where the caller runs (``decoded_table``, no Spark).

Input: a DataFrame with ``path`` and ``content`` (Spark's ``binaryFile`` source), or ``(path, content)`` pairs.
Output: DECODED_ROWS — one row per decoded record and one per quarantined region or line. Both run the same
per-file Python (``decoded_batches``) once per file; no row-level UDF is involved.

Hostile input never takes a file or the run down: decoders check the bronze ranges per record, a record that
still cannot be redacted or encoded becomes a quarantine row on its own, rows are flushed every ``_FLUSH_ROWS``
(also within a file), the binary files decoded in one call share one ``DecodeBudget`` (records and decompressed
bytes: the whole ingest in the driver, one task's files on an executor), and the Arrow conversion falls back to
checking every row, turning a row no column can hold into a quarantine row that says which column (``_storable``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql.pandas.types import to_arrow_schema

from schemas.bronze import DECODED_ROWS
from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.binary.budget import DecodeBudget
from transforms.decode.redaction import SensitivityRules, keyed_hash_bytes, redact_record, redact_text
from transforms.decode.text.lines import split_lines
from transforms.kit.bounds import (
    TIMESTAMP_MS_MAX,
    TIMESTAMP_MS_MIN,
    fits_int32,
    fits_int64,
    fits_timestamp_ms,
    is_utf8_encodable,
    storable_text,
)
from transforms.kit.cycle_collection import cycle_collection_paused

# One DECODED_ROWS row as a tuple in the schema's field order (built per record: tuples, not dicts, and one
# transposition per Arrow batch keep the Python side of decoding cheap).
Row = tuple[Any, ...]
Base = tuple[Any, ...]  # cluster_id, source_file, input_kind, file_sha256, snapshot_end_offset
# json.dumps(separators=..., ensure_ascii=False) builds a new encoder per call; one shared encoder, same output.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
BINARY_KINDS = frozenset({"LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT"})
TEXT_KINDS = frozenset({"DUMP_LOG_TEXT", "JSON_LINES"})
_FLUSH_ROWS = 20_000
_REASON_CHARS = 500
# DECODED_ROWS positions used below.
_POSITION, _LINE_NUMBER, _OFFSET = 6, 8, 10
_TIMESTAMP_US_MIN, _TIMESTAMP_US_MAX = TIMESTAMP_MS_MIN * 1000, TIMESTAMP_MS_MAX * 1000 + 999


@dataclass(frozen=True)
class FileDescriptor:
    """What the driver knows about one input file before it is decoded."""

    path: str  # the file's local path (``local_path`` of the path the binaryFile source reports)
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

    ``descriptors`` are keyed by each file's local path (``local_path``). Files whose path is not in
    ``descriptors`` produce one QUARANTINE row each (they were not expected). Decoders never raise on bad bytes; an
    unexpected decoder error becomes a QUARANTINE row for the whole file.
    """

    def decode_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        files = (
            (local_path(path), batch.column("content")[i].as_py() or b"")
            for batch in batches
            for i, path in enumerate(batch.column("path").to_pylist())
        )
        yield from decoded_batches(files, descriptors=descriptors, rules=rules, redaction_key=redaction_key)

    return files_df.select("path", "content").mapInArrow(decode_batches, DECODED_ROWS)


def local_path(spark_path: str) -> str:
    """The local path of a path Spark's file sources report (``file:/a%20b`` -> ``/a b``); other schemes as given."""
    parsed = urlparse(spark_path)
    return unquote(parsed.path) if parsed.scheme in ("file", "") else spark_path


def decoded_table(
    files: Iterable[tuple[str, bytes]],
    *,
    descriptors: Mapping[str, FileDescriptor],
    rules: SensitivityRules,
    redaction_key: bytes,
    budget: DecodeBudget | None = None,
) -> pa.Table:
    """The DECODED_ROWS of ``files`` (``(path, content)`` pairs, paths as ``descriptors`` name them) as one Arrow
    table, decoded where it is called: the same rows ``decode_files`` gives for the same files, without Spark. For
    inputs small enough to hold in one process (the caller decides); the files share one ``budget`` (a default
    one when None), so the whole ingest's rows and decompressed bytes are capped."""
    arrow_schema = to_arrow_schema(DECODED_ROWS, timezone="UTC")
    batches = decoded_batches(files, descriptors=descriptors, rules=rules, redaction_key=redaction_key, budget=budget)
    return pa.Table.from_batches(list(batches), schema=arrow_schema)


def decoded_batches(
    files: Iterable[tuple[str, bytes]],
    *,
    descriptors: Mapping[str, FileDescriptor],
    rules: SensitivityRules,
    redaction_key: bytes,
    budget: DecodeBudget | None = None,
) -> Iterator[pa.RecordBatch]:
    """Arrow batches of DECODED_ROWS for ``files``, at most ``_FLUSH_ROWS`` rows each (also within a file); the
    binary files spend one ``budget`` (a default one for this call when None)."""
    arrow_schema = to_arrow_schema(DECODED_ROWS, timezone="UTC")
    budget = budget or DecodeBudget()
    rows = (
        row for path, content in files for row in decode_rows(path, content, descriptors, rules, redaction_key, budget)
    )
    while True:
        with (
            cycle_collection_paused()
        ):  # a batch's rows are many small acyclic objects (transforms.kit.cycle_collection)
            pending = list(itertools.islice(rows, _FLUSH_ROWS))
            batch = to_batch(pending, arrow_schema) if pending else None
        if batch is None:
            return
        yield batch


def decode_rows(
    path: str,
    content: bytes,
    descriptors: Mapping[str, FileDescriptor],
    rules: SensitivityRules,
    key: bytes,
    budget: DecodeBudget | None = None,
) -> Iterator[Row]:
    """The DECODED_ROWS rows of one file, as tuples in the schema's field order (pure Python: no Spark).

    Args:
        path: The file's path as the binaryFile source reports it.
        content: The file's bytes.
        descriptors: What the driver knows of each expected file, by ``path``.
        rules: Which config names are sensitive.
        key: The redaction key of the keyed hashes.
        budget: The records and decompressed bytes binary files may still produce (``transforms.decode.binary.budget``);
            a default one for this file when None. Text files are not budgeted: a line is at most one row.

    Yields:
        One row per decoded record or quarantined region/line; never raises on any content.
    """
    desc = descriptors.get(path)
    if desc is None:
        yield _orphan(path)
        return
    base = (desc.cluster_id, desc.source_file, desc.input_kind, desc.file_sha256, desc.snapshot_end_offset)
    binary = desc.input_kind in BINARY_KINDS
    try:
        for item, snapshot_end in _items(desc, content, budget):
            where = base if snapshot_end is None else (*base[:4], snapshot_end)
            try:
                if type(item) is DecodedRecord:
                    row = _record_row(where, item, rules, key, binary)
                else:
                    assert isinstance(item, QuarantineItem)
                    row = _quarantine_row(where, item, _excerpt(item, content, rules, key, binary))
            except Exception as error:  # one record that cannot be redacted or encoded costs that record only
                row = _unstorable(where, item, f"record could not be stored ({type(error).__name__})")
            yield row
    except Exception as error:  # a decoder bug must not lose the file silently: quarantine it whole
        # The exception's message may quote the input: only its type is kept.
        failure = QuarantineItem(reason=f"decoder failed: {type(error).__name__}", position=0, length=len(content))
        yield _quarantine_row(base, failure, None)


def _items(
    desc: FileDescriptor, content: bytes, budget: DecodeBudget | None
) -> Iterator[tuple[DecodedRecord | QuarantineItem, int | None]]:
    """Decoded items with, for dump-log text, the snapshot end offset of the section they were printed in."""
    if desc.input_kind in BINARY_KINDS:
        from transforms.decode.binary.decode import decode_file

        decoded = decode_file(
            content, kind=desc.input_kind, snapshot_end_offset=desc.snapshot_end_offset, budget=budget
        )
        for item in decoded:
            yield item, None
        return
    text = content.decode("utf-8", errors="replace")
    lines = split_lines(text)
    if desc.input_kind == "JSON_LINES":
        from transforms.decode.text.jsonlines import parse_json_lines

        for item in parse_json_lines(lines):
            yield item, None
        return
    from transforms.decode.text.dumplog import DumpLogParser

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


def _record_row(base: Base, rec: DecodedRecord, rules: SensitivityRules, key: bytes, binary: bool) -> Row:
    if rec.timestamp_ms is not None and not fits_timestamp_ms(rec.timestamp_ms):
        return _unstorable(base, rec, "record timestamp is outside the years 1-9999")
    # The binary decoder only emits schema fields of schema kinds, except in records it flags unknown.
    data = redact_record(rec.record_type, rec.data, rules, key, trusted_shape=binary and not rec.is_unknown)
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


def _excerpt(item: QuarantineItem, content: bytes, rules: SensitivityRules, key: bytes, binary: bool) -> str | None:
    """What a quarantine row may show of the input.

    Binary excerpts are hex of a CRC-verified batch header (the decoder never copies other bytes); a bad region
    gets the keyed hash of its bytes instead. Text excerpts are raw lines, reduced to their shape.
    """
    if not binary:
        return redact_text(item.excerpt, rules) if item.excerpt else None
    if item.excerpt:
        return item.excerpt
    if item.position is not None and item.length:
        return keyed_hash_bytes(memoryview(content)[item.position : item.position + item.length], key)
    return None


def _quarantine_row(base: Base, item: QuarantineItem, excerpt: str | None) -> Row:
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
        item.reason[:_REASON_CHARS],
        excerpt,
    )


def _unstorable(base: Base, item: DecodedRecord | QuarantineItem, reason: str) -> Row:
    """A quarantine row for a record (or item) that cannot be stored as it is: where it was and why."""
    offset = item.offset if item.offset is not None and fits_int64(item.offset) else None
    where = QuarantineItem(reason=reason, position=item.position, line_number=item.line_number, offset=offset)
    return _quarantine_row(base, where, None)


def _orphan(path: str) -> Row:
    base = ("unknown", path, "UNKNOWN", "", None)
    return _quarantine_row(base, QuarantineItem(reason="file was not among the discovered inputs"), None)


def to_batch(rows: list[Row], schema: pa.Schema) -> pa.RecordBatch:
    """DECODED_ROWS rows as one Arrow batch; a row no column can hold becomes a quarantine row, never an error.

    Args:
        rows: Rows in the schema's field order.
        schema: The Arrow form of DECODED_ROWS.

    Returns:
        One batch with one row per input row.
    """
    try:
        return _arrow(rows, schema)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        # Some row does not fit (a value out of its column's range, text without a UTF-8 form): check each row.
        return _arrow([_storable(row, schema) for row in rows], schema)


def _arrow(rows: list[Row], schema: pa.Schema) -> pa.RecordBatch:
    if not rows:
        return pa.RecordBatch.from_pylist([], schema=schema)
    columns = zip(*rows, strict=True)
    arrays = [pa.array(values, type=field.type) for values, field in zip(columns, schema, strict=True)]
    for array in arrays:
        # Arrow takes any int64 of microseconds; Spark and Python only years 1-9999 (a vectorised check).
        if pa.types.is_timestamp(array.type) and array.null_count < len(array):
            bounds = pc.min_max(array.cast(pa.int64())).as_py()
            if bounds["min"] < _TIMESTAMP_US_MIN or bounds["max"] > _TIMESTAMP_US_MAX:
                raise ValueError("timestamp outside the years 1-9999")
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _storable(row: Row, schema: pa.Schema) -> Row:
    """``row`` when every value fits its column. Otherwise a record becomes a quarantine row naming the first
    column that does not fit; a quarantine row keeps its place with that text escaped and those numbers null
    (every non-text column of DECODED_ROWS is nullable)."""
    bad = [i for i, (value, field) in enumerate(zip(row, schema, strict=True)) if not _fits(value, field)]
    if not bad:
        return row
    if row[0] != "RECORD":
        return tuple(
            value if i not in bad else _text(value) if pa.types.is_string(field.type) else None
            for i, (value, field) in enumerate(zip(row, schema, strict=True))
        )
    kept = [row[i] if i not in bad else None for i in range(len(row))]
    base = (*(_text(kept[i]) for i in range(1, 5)), kept[5])
    reason = f"record not stored: its {schema.field(bad[0]).name} fits no bronze column"
    where = QuarantineItem(
        reason=reason, position=kept[_POSITION], line_number=kept[_LINE_NUMBER], offset=kept[_OFFSET]
    )
    return _quarantine_row(base, where, None)


def _fits(value: Any, field: pa.Field) -> bool:
    if value is None:
        return field.nullable
    kind = field.type
    if pa.types.is_string(kind):
        return isinstance(value, str) and is_utf8_encodable(value)
    if pa.types.is_boolean(kind):
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    if pa.types.is_int32(kind):
        return fits_int32(value)
    if pa.types.is_timestamp(kind):  # microseconds
        return _TIMESTAMP_US_MIN <= value <= _TIMESTAMP_US_MAX
    return fits_int64(value)


def _text(value: Any) -> str:
    return storable_text(value) if isinstance(value, str) else "" if value is None else storable_text(str(value))
