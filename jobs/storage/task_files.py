"""Parquet files of a frame written by its own Spark tasks with pyarrow (``mapInArrow``); only the list of files
written reaches the driver.

Why not Spark's parquet writer: the tables here are partitioned by cluster, and a table of a large audit is a few
rows per cluster (silver state, violations, findings), gathered into one task that writes one file per cluster.
Spark's writer opens each file through its output committer: 0.8-2.1 s a table of 100 clusters (the benchmark's L),
against 0.1-0.8 s here; the effective configurations (5.75 M rows, 100 files) 12.4-15.3 s against 11.2-14.5 s.
Measured in one process on the L warehouse, three rounds each (README, Performance).

Layout: as Spark's writer gives it, one directory level per partition column (``col=<value>``, the value escaped
as Spark's ``ExternalCatalogUtils.escapePathName`` does, ``__HIVE_DEFAULT_PARTITION__`` for NULL or empty), the
partition columns left out of the files. Each task sorts its rows by the partition columns first, as Spark's writer
does, and writes one file per partition value it holds, in row groups of at most ``ROW_GROUP_ROWS`` rows (a task
buffers about that many rows). Only string partition columns are supported (``supported``); a task that fails
and is retried leaves its first attempt's files behind, in no list: the caller commits the files listed and removes
the others (``deltars``).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

__all__ = [
    "HIVE_NULL",
    "ROW_GROUP_ROWS",
    "WrittenFile",
    "escape_path_name",
    "supported",
    "write_files",
    "write_table",
]

HIVE_NULL: Final = "__HIVE_DEFAULT_PARTITION__"
ROW_GROUP_ROWS: Final = 1 << 17
# Characters Spark escapes as %XX in a partition directory's value (ExternalCatalogUtils.charToEscape, non-Windows)
_ESCAPED: Final = frozenset([chr(c) for c in range(0x01, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))
_FILES: Final = StructType(
    [
        StructField("path", StringType(), False),
        StructField("values", ArrayType(StringType()), False),
        StructField("rows", LongType(), False),
        StructField("size", LongType(), False),
    ]
)
_FILES_ARROW: Final = pa.schema(
    [
        pa.field("path", pa.string(), False),
        pa.field("values", pa.list_(pa.string()), False),
        pa.field("rows", pa.int64(), False),
        pa.field("size", pa.int64(), False),
    ]
)


@dataclass(frozen=True)
class WrittenFile:
    """One file a task wrote: its path relative to the directory written into, its partition values (None for
    NULL, in the partition columns' order), its row count and its size in bytes."""

    path: str
    values: tuple[str | None, ...]
    rows: int
    size: int


def supported(df: DataFrame, partition_by: Sequence[str]) -> bool:
    """Whether ``df`` can be written here: every partition column is a string."""
    types = {f.name: f.dataType for f in df.schema.fields}
    return all(isinstance(types.get(c), StringType) for c in partition_by)


def escape_path_name(value: str | None) -> str:
    """A partition value as Spark names its directory (``col=<this>``); NULL and the empty string are Hive's
    default partition, which Spark reads back as NULL."""
    if not value:
        return HIVE_NULL
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in value)


def write_files(
    df: DataFrame, uri: str, partition_by: Sequence[str], *, row_group_rows: int = ROW_GROUP_ROWS
) -> list[WrittenFile]:
    """Write ``df``'s rows as parquet files under ``uri`` (a directory every executor reaches), partitioned by
    ``partition_by``; one Spark job. Returns the files written, for the caller's commit."""
    columns = list(partition_by)
    # the empty string is NULL's partition (as Spark's writer makes it before sorting), so they sort together
    rows_df = df
    if columns:
        rows_df = df.withColumns({c: F.nullif(F.col(c), F.lit("")) for c in columns}).sortWithinPartitions(*columns)
    task = _TaskWriter(uri, columns, row_group_rows)
    return [
        WrittenFile(row["path"], tuple(row["values"]), int(row["rows"]), int(row["size"]))
        for row in rows_df.mapInArrow(task, _FILES).collect()
    ]


def write_table(table: pa.Table, uri: str, partition_by: Sequence[str]) -> list[WrittenFile]:
    """``write_files`` for rows the driver holds already, written by the driver in the same layout (no job)."""
    columns = list(partition_by)
    if columns:
        for c in columns:
            column = table.column(c)
            table = table.set_column(table.schema.get_field_index(c), c, pc.if_else(pc.equal(column, ""), None, column))
        table = table.sort_by([(c, "ascending") for c in columns])  # NULLs together (at the end)
    task = _TaskWriter(uri, columns, ROW_GROUP_ROWS)
    return [
        WrittenFile(row["path"], tuple(row["values"]), row["rows"], row["size"])
        for batch in task(iter(table.to_batches()))
        for row in batch.to_pylist()
    ]


class _TaskWriter:
    """The function each task runs: its batches (sorted by the partition columns) into one file per partition."""

    def __init__(self, uri: str, partition_by: list[str], row_group_rows: int) -> None:
        self.uri = uri
        self.partition_by = partition_by
        self.row_group_rows = row_group_rows

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        fs, root = pafs.FileSystem.from_uri(self.uri)
        written: list[dict[str, object]] = []
        open_file: _OpenFile | None = None
        for batch in batches:
            for values, part in self._runs(batch):
                if open_file is None or open_file.values != values:
                    if open_file is not None:
                        written.append(open_file.close())
                    directory = "/".join(
                        [root] + [f"{c}={escape_path_name(v)}" for c, v in zip(self.partition_by, values, strict=True)]
                    )
                    fs.create_dir(directory)
                    name = f"{directory}/part-{uuid.uuid4().hex}.parquet"
                    open_file = _OpenFile(fs, name, root, values, part.schema, self.row_group_rows)
                open_file.add(part)
        if open_file is not None:
            written.append(open_file.close())
        if written:
            yield pa.RecordBatch.from_pylist(written, schema=_FILES_ARROW)

    def _runs(self, batch: pa.RecordBatch) -> Iterator[tuple[tuple[str | None, ...], pa.RecordBatch]]:
        """The batch's runs of equal partition values (the rows are sorted by them), each without those columns."""
        if batch.num_rows == 0:
            return
        keys = [batch.column(c) for c in self.partition_by]
        data = batch.drop_columns(self.partition_by) if self.partition_by else batch
        starts = [0]
        if keys and batch.num_rows > 1:
            changed = functools.reduce(pc.or_, [_changes(key) for key in keys])
            starts += [int(i) + 1 for i in pc.indices_nonzero(changed).to_pylist()]
        ends = [*starts[1:], batch.num_rows]
        for start, end in zip(starts, ends, strict=True):
            values = tuple(k[start].as_py() or None for k in keys)
            yield values, data.slice(start, end - start)


def _changes(key: pa.Array) -> pa.Array:
    """Per row after the first, whether ``key`` differs from the row before (NULL equal to NULL)."""
    after, before = key.slice(1), key.slice(0, len(key) - 1)
    differs = pc.fill_null(pc.not_equal(after, before), False)
    return pc.or_(differs, pc.xor(pc.is_null(after), pc.is_null(before)))


class _OpenFile:
    """A parquet file being written, its rows buffered up to a row group."""

    def __init__(
        self,
        fs: pafs.FileSystem,
        path: str,
        root: str,
        values: tuple[str | None, ...],
        schema: pa.Schema,
        row_group_rows: int,
    ) -> None:
        self.fs, self.path, self.row_group_rows = fs, path, row_group_rows
        self.writer = pq.ParquetWriter(path, schema, filesystem=fs)
        self.relative = path[len(root) + 1 :]
        self.values = values
        self.buffered: list[pa.RecordBatch] = []
        self.pending = 0
        self.rows = 0

    def add(self, batch: pa.RecordBatch) -> None:
        self.buffered.append(batch)
        self.pending += batch.num_rows
        if self.pending >= self.row_group_rows:
            self._flush()

    def _flush(self) -> None:
        if self.buffered:
            self.writer.write_table(pa.Table.from_batches(self.buffered), row_group_size=self.row_group_rows)
            self.rows += self.pending
            self.buffered, self.pending = [], 0

    def close(self) -> dict[str, object]:
        self._flush()
        self.writer.close()
        size = self.fs.get_file_info(self.path).size or 0
        return {"path": self.relative, "values": list(self.values), "rows": self.rows, "size": size}
