"""The storage interface every job uses, and the schema rules both backends share."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from schemas.errors import AuditError, SchemaMismatchError, StorageError


class ConcurrentCommitError(StorageError):
    """Another writer committed to the table after the version a write was based on; nothing was committed."""


# Partition column -> the values whose partitions an overwrite replaces (replaceWhere on partition columns).
PartitionPredicate = Mapping[str, Sequence[str]]


class DeltaStore(ABC):
    """Delta tables under one warehouse directory, addressed by table name."""

    backend: str = "abstract"

    def __init__(self, spark: SparkSession, warehouse: str) -> None:
        self.spark = spark
        self.warehouse = warehouse.rstrip("/") if "://" in warehouse else os.path.abspath(warehouse)

    def path(self, table: str) -> str:
        """Location of a table."""
        return f"{self.warehouse}/{table}"

    @abstractmethod
    def exists(self, table: str) -> bool:
        """Whether the table has a Delta log."""

    @abstractmethod
    def schema(self, table: str) -> StructType:
        """The table's current schema."""

    @abstractmethod
    def partition_columns(self, table: str) -> list[str]:
        """The table's partition columns."""

    @abstractmethod
    def _create(self, table: str, schema: StructType, partition_by: Sequence[str]) -> None: ...

    @abstractmethod
    def append(self, table: str, df: DataFrame, *, read_version: int | None = None) -> int:
        """Add the rows of ``df``; returns the table version this write committed.

        With ``read_version`` the commit is made only if the table is still at that version (the rows were decided
        from it); otherwise ConcurrentCommitError is raised and nothing is committed.
        """

    @abstractmethod
    def overwrite(self, table: str, df: DataFrame) -> int:
        """Replace the whole content with ``df``; returns the table version this write committed."""

    @abstractmethod
    def replace_partitions(
        self, table: str, df: DataFrame, where: PartitionPredicate, *, read_version: int | None = None
    ) -> int:
        """Replace exactly the partitions matching ``where`` with ``df`` (replaceWhere semantics).

        Every row of ``df`` must fall inside ``where``; otherwise nothing is written and StorageError is raised.
        Re-running with the same data leaves the content unchanged, which makes re-runs idempotent.
        ``read_version`` as for :meth:`append`.
        """

    def undo(self, table: str, version: int) -> int:
        """Commit the inverse of commit ``version`` (its added files removed, its removed files added back).

        For a writer that learns, after committing, that its work duplicates another writer's: only that commit's
        files are touched, so later commits of others stay. Returns the new table version.
        """
        raise StorageError(f"the {self.backend} backend cannot undo commit {version} of {table}")

    @abstractmethod
    def read(self, table: str, *, version: int | None = None, timestamp: datetime | None = None) -> DataFrame:
        """The latest snapshot, or the one at ``version`` / as of ``timestamp``."""

    @abstractmethod
    def history(self, table: str) -> list[dict[str, Any]]:
        """Commit history, newest first (version, timestamp, operation, ...)."""

    @abstractmethod
    def version(self, table: str) -> int:
        """The latest table version."""

    def rows_per_partition(self, table: str, column: str, *, version: int | None = None) -> dict[str, int] | None:
        """The row count per value of the partition ``column`` (values with no row left out) in the latest snapshot,
        or the one at ``version`` (a write's own commit: what it wrote, whatever another writer committed since),
        read from the table's log alone: no data file is opened and no Spark job runs. None when the log cannot
        tell (a file without a row count, rows whose value is NULL) or the backend does not read logs itself; the
        caller then counts the rows."""
        return None

    def partition_files(self, table: str, column: str, *, version: int | None = None) -> dict[str, list[str]] | None:
        """The absolute URIs of the Parquet files that hold each value of the partition ``column`` (values with no
        file left out) in the latest snapshot or the one at ``version``, read from the table's log alone: what a
        reader that opens the files itself (with pyarrow, in a Spark task) needs. Every file holds the table's columns
        but the partition columns (or fewer, if written before a column was added). None when the backend does not
        read logs itself, or a file holds rows whose value is NULL; the caller then reads the table with Spark."""
        return None

    def ensure(self, table: str, schema: StructType, partition_by: Sequence[str] = ()) -> None:
        """Create the table if missing; otherwise check it has this schema and partitioning."""
        if not self.exists(table):
            self._create(table, schema, partition_by)
            return
        check_same_schema(table, expected=self.schema(table), actual=schema)
        if list(self.partition_columns(table)) != list(partition_by):
            raise SchemaMismatchError(
                f"table {table} is partitioned by {self.partition_columns(table)}, expected {list(partition_by)}"
            )

    def check_tables(self, tables: Iterable[str]) -> None:
        """Every table of ``tables`` that exists can be read (its log, version and schema): run by a job before its
        first write, so that a warehouse it cannot reach (an object store without its connector or credentials) or
        a table whose log is corrupt stops the run at once with one line, before any other table was written.

        Raises:
            StorageError: naming the first table that cannot be read and the first line of the reason.
        """
        for table in tables:
            try:
                if self.exists(table):
                    self.version(table)
                    self.schema(table)
            except AuditError:
                raise
            except Exception as error:  # any library's error: delta-rs, Py4J, the file system
                raise StorageError(f"{self.path(table)}: cannot read the table: {first_line(error)}") from error

    def _require(self, table: str) -> None:
        if not self.exists(table):
            raise StorageError(f"table {table} does not exist at {self.path(table)}")


def first_line(error: BaseException) -> str:
    """The first non-empty line of an error's text (a Java or Rust error carries its whole trace), at most 300
    characters."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[0] if lines else type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def check_same_schema(table: str, *, expected: StructType, actual: StructType) -> None:
    """Raise SchemaMismatchError unless both schemas have the same column names and types.

    Nullability is not compared: Spark marks most derived columns nullable. Order is not compared either;
    writers reorder columns to the table's order. Nothing is ever cast silently.
    """
    want = {f.name: f.dataType for f in expected.fields}
    got = {f.name: f.dataType for f in actual.fields}
    problems: list[str] = []
    missing = [n for n in want if n not in got]
    extra = [n for n in got if n not in want]
    if missing:
        problems.append("missing columns " + ", ".join(missing))
    if extra:
        problems.append("unexpected columns " + ", ".join(extra))
    for name, dtype in want.items():
        if name in got and got[name] != dtype:
            problems.append(f"column {name} is {got[name].simpleString()}, table has {dtype.simpleString()}")
    if problems:
        raise SchemaMismatchError(f"schema mismatch writing {table}: " + "; ".join(problems))


def aligned(df: DataFrame, schema: StructType) -> DataFrame:
    """``df`` with its columns in the table's order (after check_same_schema)."""
    return df.select(*[f.name for f in schema.fields])


def check_predicate(table: str, where: PartitionPredicate, partition_by: Sequence[str]) -> None:
    """A replaceWhere predicate may only name partition columns and must list at least one value each."""
    if not where:
        raise StorageError(f"replace_partitions on {table} needs a predicate")
    for column, values in where.items():
        if column not in partition_by:
            raise StorageError(f"replace_partitions on {table}: {column} is not a partition column")
        if not values:
            raise StorageError(f"replace_partitions on {table}: no values given for {column}")
