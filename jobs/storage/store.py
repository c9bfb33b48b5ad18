"""Delta tables under one warehouse, through delta-spark: Spark's ``format("delta")`` and the ``DeltaTable`` API.

Writes are Delta Lake's own: appends, partition overwrites with ``replaceWhere`` (idempotent re-runs), ``MERGE``,
transaction identifiers (``txnAppId`` / ``txnVersion``: a write already committed under its identifier is skipped),
optimistic concurrency with Delta's conflict detection, schema enforcement. Each write returns the version of its own
commit, which Delta records in the session (``spark.databricks.delta.lastCommitVersionInSession``) whatever another
writer committed since: no history lookup, no Spark job.

Table properties are given when a table is created (``table_shape.table_properties``).

A table is created by its first write (``ensure`` only records its schema and partitioning; a table ensured but never
written reads as empty in this store, and ``create_pending`` creates it for other readers). A first write without rows
(a frame the driver knows to be empty) is Delta's ``CREATE TABLE``: the same schema, partitioning and properties,
every column nullable as Delta's writer leaves them (``table_shape.as_written``), and no Spark job.

What Delta costs, in Spark jobs: a table's creation with its first rows 2 (without rows 0), a blind append 1, and a
write that must know the files it replaces (``replaceWhere``, ``MERGE``) or a read that lists them also rebuilds the
table's state at a new version (one job without adaptive execution, three with it). Reading the schema or partition
columns (``DESCRIBE``) runs none.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from jobs.runtime.holding import no_rows
from jobs.storage.table_shape import as_written, check_predicate, check_same_schema, table_properties
from schemas.errors import AuditError, SchemaMismatchError, StorageError, UsageError
from transforms.kit.local_frames import local_frame

log = logging.getLogger("kraft_audit")

# Partition column -> the values whose partitions an overwrite replaces (replaceWhere on partition columns).
PartitionPredicate = Mapping[str, Sequence[str]]

# Where Delta records the version of the session's last commit.
LAST_COMMIT = "spark.databricks.delta.lastCommitVersionInSession"
# What delta-spark registers for format("delta") (its META-INF/services DataSourceRegister entry).
DELTA_SOURCE = "org.apache.spark.sql.delta.sources.DeltaDataSource"
# A write that lost a conflict to another writer is tried again this many times (its content decided anew only by
# callers that pass ``read_version``).
WRITE_ATTEMPTS = 4
# Delta's error classes and exception names of a lost commit race (io.delta.exceptions / DeltaErrors).
_CONFLICTS = (
    "ConcurrentAppendException",
    "ConcurrentDeleteReadException",
    "ConcurrentDeleteDeleteException",
    "ConcurrentTransactionException",
    "ConcurrentWriteException",
    "MetadataChangedException",
    "ProtocolChangedException",
    "DELTA_CONCURRENT",
    "DELTA_METADATA_CHANGED",
    "DELTA_PROTOCOL_CHANGED",
)
_SCHEMA_ERRORS = ("DELTA_FAILED_TO_MERGE_FIELDS", "schema mismatch", "DELTA_SCHEMA_CHANGED", "_LEGACY_ERROR_TEMP_DELTA")
_ALREADY_EXISTS = ("DELTA_TABLE_ALREADY_EXISTS", "already exists")
# A commit (``00000000000000000000.json``), checkpoint or compacted-commits file of a Delta log: named by a version.
_LOG_FILE = re.compile(r"\d{20}\.")
_COMMIT_FILE = re.compile(r"\d{20}\.json")  # a commit of the log (not a checkpoint, a checksum or a temporary file)
_NOT_A_TABLE = (
    "DELTA_MISSING_DELTA_TABLE",
    "PATH_NOT_FOUND",
    "is not a Delta table",
    "does not exist",
    "doesn't exist",
)


class ConcurrentCommitError(StorageError):
    """Another writer committed to the table after the version a write was based on; nothing was committed."""


def delta_available(spark: SparkSession) -> bool:
    """Whether Delta Lake's data source loads in this session (its jars are on the classpath), asked without an
    exception (a failed ``format("delta")`` lookup scans every data source, seconds in a fresh session)."""
    jvm = spark._jvm  # the only way to ask the JVM whether a class exists without raising
    return jvm is not None and bool(jvm.org.apache.spark.util.Utils.classIsLoadable(DELTA_SOURCE))


class DeltaStore:
    """Delta tables under one warehouse directory or URI, addressed by table name."""

    def __init__(self, spark: SparkSession, warehouse: str) -> None:
        self.spark = spark
        self.warehouse = warehouse.rstrip("/") if "://" in warehouse else os.path.abspath(warehouse)
        self._partitioning: dict[str, list[str]] = {}  # a table's partition columns never change
        # tables ensured that do not exist yet: their first write creates them (schema, partition columns)
        self._pending: dict[str, tuple[StructType, list[str]]] = {}
        self._own: dict[str, set[int]] = {}  # the versions of each table this store committed (``own_commits``)

    # ---- what is there -------------------------------------------------------------------------------------------

    def path(self, table: str) -> str:
        """Location of a table."""
        return f"{self.warehouse}/{table}"

    def _delta_table(self, table: str) -> Any:
        from delta.tables import DeltaTable

        return DeltaTable.forPath(self.spark, self.path(table))

    def exists(self, table: str) -> bool:
        """Whether the table has a Delta log. On a local warehouse a log folder without a commit file is a "no" from
        the file system alone (Delta's own answer is an exception built from a JVM stack trace: about 0.1 s, and a
        fresh warehouse asks about a hundred times). Otherwise ``DeltaTable.isDeltaTable`` answers from the session's
        cached log, which misses a table another process created after this session looked; a "no" is therefore
        asked again through a read, which refreshes the log (no Spark job)."""
        from delta.tables import DeltaTable

        if self._no_local_commit(table):
            return False
        if DeltaTable.isDeltaTable(self.spark, self.path(table)):
            return True
        try:
            self.spark.read.format("delta").load(self.path(table)).schema  # noqa: B018  (the load refreshes the log)
        except (PySparkException, Py4JJavaError) as error:
            if _is(error, _NOT_A_TABLE):
                return False
            raise
        return True

    def _local_log(self, table: str) -> Path | None:
        """The table's ``_delta_log`` folder when the warehouse is a local path (None for an object store)."""
        if "://" in self.warehouse and not self.warehouse.startswith("file:"):
            return None
        return Path(self.path(table).removeprefix("file:")) / "_delta_log"

    def _no_local_commit(self, table: str) -> bool:
        """The table is local and its log holds no commit or checkpoint file (or there is no log): not a table."""
        log_dir = self._local_log(table)
        if log_dir is None:
            return False
        try:
            with os.scandir(log_dir) as entries:
                return not any(_LOG_FILE.match(entry.name) for entry in entries)
        except FileNotFoundError:
            return True
        except OSError:  # unreadable: Delta gives the reason
            return False

    def _require(self, table: str) -> None:
        if not self.exists(table):
            raise StorageError(f"table {table} does not exist at {self.path(table)}")

    def _still_pending(self, table: str) -> bool:
        """Ensured here and not created yet (by this store's first write, or by another writer meanwhile)."""
        if table not in self._pending:
            return False
        if self.exists(table):
            del self._pending[table]
            return False
        return True

    def schema(self, table: str) -> StructType:
        """The table's current schema."""
        if self._still_pending(table):
            return self._pending[table][0]
        self._require(table)
        return self.spark.read.format("delta").load(self.path(table)).schema

    def partition_columns(self, table: str) -> list[str]:
        """The table's partition columns, from ``DESCRIBE`` (the table's metadata: no Spark job, unlike
        ``DeltaTable.detail``, which rebuilds the table's state)."""
        if table not in self._partitioning:
            if self._still_pending(table):
                return list(self._pending[table][1])
            self._require(table)
            rows = self.spark.sql(f"DESCRIBE TABLE delta.{_quoted(self.path(table))}").collect()
            names = [str(r["col_name"]) for r in rows]
            columns: list[str] = []
            if "# Partition Information" in names:
                for name in names[names.index("# Partition Information") + 2 :]:
                    if not name or name.startswith("#"):
                        break
                    columns.append(name)
            self._partitioning[table] = columns
        return self._partitioning[table]

    def version(self, table: str) -> int:
        """The latest table version (-1 for a table ensured here and not created yet): in a local warehouse the
        newest commit file of the table's log (Delta's protocol: ``_delta_log/<version>.json``, the newest one is
        never cleaned up; no Spark job), elsewhere its history's first row (one Spark job)."""
        if self._still_pending(table):
            return -1
        self._require(table)
        log_dir = self._local_log(table)
        if log_dir is not None:
            try:
                commits = [int(entry.name[:-5]) for entry in os.scandir(log_dir) if _COMMIT_FILE.fullmatch(entry.name)]
            except OSError:
                commits = []
            if commits:
                return max(commits)
        return self._history_version(table)

    def _history_version(self, table: str) -> int:
        """The latest version as Delta's history gives it, having read the table's log (one Spark job)."""
        row = self.spark.sql(f"DESCRIBE HISTORY delta.{_quoted(self.path(table))} LIMIT 1").first()
        return int(row["version"]) if row else 0

    def history(self, table: str) -> list[dict[str, Any]]:
        """Commit history, newest first (version, timestamp, operation, userMetadata, ...)."""
        if self._still_pending(table):
            return []
        self._require(table)
        return [row.asDict(recursive=True) for row in self._delta_table(table).history().collect()]

    def notes(self, table: str, *, limit: int) -> list[str]:
        """The ``userMetadata`` of the table's last ``limit`` commits that have one, newest first (one Spark job)."""
        if self._still_pending(table):
            return []
        self._require(table)
        rows = self._delta_table(table).history(limit).select("userMetadata").collect()
        return [row[0] for row in rows if row[0]]

    def version_as_of(self, table: str, timestamp: datetime) -> int | None:
        """The newest version of the table committed at or before ``timestamp`` (UTC if naive); None when the table
        did not exist then (or does not exist)."""
        ts = timestamp if timestamp.tzinfo else timestamp.replace(tzinfo=UTC)
        if not self.exists(table):
            return None
        for commit in self.history(table):  # newest first
            committed = commit["timestamp"]
            committed = committed if committed.tzinfo else committed.replace(tzinfo=UTC)  # the session is in UTC
            if committed <= ts:
                return int(commit["version"])
        return None

    def commit_time(self, table: str, version: int) -> datetime | None:
        """When the table's commit ``version`` was made (UTC); None when the table has no such version."""
        for commit in self.history(table):
            if int(commit["version"]) == version:
                committed: datetime = commit["timestamp"]
                return committed if committed.tzinfo else committed.replace(tzinfo=UTC)
        return None

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
                    self._history_version(table)  # Delta reads the log's commits: a corrupt one fails here
                    self.schema(table)
            except AuditError:
                raise
            except Exception as error:  # any error of Delta, the JVM or the file system
                raise StorageError(f"{self.path(table)}: cannot read the table: {first_line(error)}") from error

    # ---- reads ---------------------------------------------------------------------------------------------------

    def read(self, table: str, *, version: int | None = None, timestamp: datetime | None = None) -> DataFrame:
        """The latest snapshot, or the one at ``version`` / as of ``timestamp`` (Delta's time travel)."""
        if self._still_pending(table) and version in (None, -1) and timestamp is None:
            return self.spark.createDataFrame([], self._pending[table][0])
        if version == -1:  # the version a table had before its creation (read while it was pending): no rows
            return self.spark.createDataFrame([], self.schema(table))
        self._require(table)
        reader = self.spark.read.format("delta")
        if version is not None:
            reader = reader.option("versionAsOf", version)
        if timestamp is not None:
            ts = timestamp if timestamp.tzinfo else timestamp.replace(tzinfo=UTC)
            reader = reader.option("timestampAsOf", ts.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f"))
        try:
            return reader.load(self.path(table))
        except (PySparkException, Py4JJavaError) as error:
            raise StorageError(f"{table}: {first_line(error)}") from error

    def rows_written(self, table: str, version: int) -> int | None:
        """The rows the write committed as ``version`` added (``numOutputRows`` of the commit's metrics, read from
        the commit's file in the table's log: no Spark job); None when the warehouse is not a local path or the
        commit does not record it (then the caller counts the rows). For the version a write of this store returned
        (not for a write Delta skipped under its transaction identifier: that version is another writer's)."""
        log_dir = self._local_log(table)
        if log_dir is None:
            return None
        log_file = log_dir / f"{version:020d}.json"
        try:
            with log_file.open(encoding="utf-8") as actions:
                for line in actions:
                    info = json.loads(line).get("commitInfo") if line.strip() else None
                    if info is not None:
                        rows = (info.get("operationMetrics") or {}).get("numOutputRows")
                        return int(rows) if rows is not None else None
        except (OSError, ValueError):
            return None
        return None

    # ---- writes --------------------------------------------------------------------------------------------------

    def ensure(self, table: str, schema: StructType, partition_by: Sequence[str] = ()) -> None:
        """Create the table if missing (a concurrent creator of the same table is not an error); otherwise check it
        has this schema and partitioning."""
        if table in self._pending or not self.exists(table):
            self._pending[table] = (schema, list(partition_by))
            return
        check_same_schema(table, expected=self.schema(table), actual=schema)
        if list(self.partition_columns(table)) != list(partition_by):
            raise SchemaMismatchError(
                f"table {table} is partitioned by {self.partition_columns(table)}, expected {list(partition_by)}"
            )

    def create_pending(self) -> None:
        """Create every table ensured here and not written yet (empty), for readers in other processes."""
        for table in list(self._pending):
            if self._still_pending(table):
                self._create(table, local_frame(self.spark, [], self._pending[table][0]))

    def _create(
        self, table: str, df: DataFrame, *, txn: tuple[str, int] | None = None, note: str | None = None
    ) -> int | None:
        """Create a pending table with the rows of ``df`` (its first write: two Spark jobs; none without rows, see
        ``_create_empty``) and its ``table_properties``; returns the version (0), or None when another writer created it
        meanwhile (then the caller writes into it as into any table). ``df`` must have the ensured schema's columns
        and types."""
        schema, partition_by = self._pending[table]
        check_same_schema(table, expected=schema, actual=df.schema)
        try:
            if txn is None and note is None and no_rows(df):
                self._create_empty(table, schema, partition_by)
            else:
                writer = df.select(*schema.names).write.format("delta").mode("errorifexists")
                if partition_by:
                    writer = writer.partitionBy(*partition_by)
                for key, value in table_properties(schema).items():
                    writer = writer.option(key, value)
                if note is not None:
                    writer = writer.option("userMetadata", note)
                self._save(writer, table, txn)
        except (PySparkException, Py4JJavaError) as error:
            # two first runs on a fresh warehouse: the other one created it first
            if not (_is(error, _ALREADY_EXISTS + _CONFLICTS) and self.exists(table)):
                raise StorageError(f"{table}: cannot create the table: {first_line(error)}") from error
            del self._pending[table]
            check_same_schema(table, expected=self.schema(table), actual=schema)
            return None
        del self._pending[table]
        self._partitioning[table] = list(partition_by)
        return self._own_version(table)

    def _create_empty(self, table: str, schema: StructType, partition_by: Sequence[str]) -> None:
        """Create ``table`` without rows: Delta's ``CREATE TABLE``, a commit of the schema, partitioning and
        properties alone (writing an empty frame would run a Spark job to write no file). Fails as that write does
        when the table exists."""
        from delta.tables import DeltaTable

        builder = DeltaTable.create(self.spark).location(self.path(table)).addColumns(as_written(schema))
        if partition_by:
            builder = builder.partitionedBy(*partition_by)
        for key, value in table_properties(schema).items():
            builder = builder.property(key, value)
        self.spark.conf.unset(LAST_COMMIT)
        builder.execute()

    def append(
        self,
        table: str,
        df: DataFrame,
        *,
        read_version: int | None = None,
        txn: tuple[str, int] | None = None,
        note: str | None = None,
    ) -> int:
        """Add the rows of ``df``; returns the table version this write committed.

        With ``read_version`` the commit is made only if the table is still at that version (the rows were decided
        from it); otherwise ConcurrentCommitError is raised and nothing is committed. With ``txn`` (an application
        id and a version) Delta skips the write when that transaction was committed already: a re-run of the same
        work adds nothing (the version returned is then the table's latest). ``note`` becomes the commit's
        ``userMetadata`` (:meth:`notes`).
        """
        return self._write(table, df, mode="append", read_version=read_version, txn=txn, note=note)

    def overwrite(self, table: str, df: DataFrame) -> int:
        """Replace the whole content with ``df``; returns the table version this write committed."""
        return self._write(table, df, mode="overwrite", static=True)

    def replace_partitions(
        self,
        table: str,
        df: DataFrame,
        where: PartitionPredicate,
        *,
        read_version: int | None = None,
        note: str | None = None,
    ) -> int:
        """Replace exactly the partitions matching ``where`` with ``df`` (``replaceWhere``).

        Every row of ``df`` must fall inside ``where`` (Delta checks it); otherwise nothing is written and
        StorageError is raised. Re-running with the same data leaves the content unchanged (idempotent re-runs).
        ``read_version`` as for :meth:`append`.
        """
        check_predicate(table, where, self.partition_columns(table))
        predicate = " AND ".join(
            f"`{column}` IN ({', '.join(_sql_literal(v) for v in values)})" for column, values in where.items()
        )
        return self._write(table, df, mode="overwrite", replace_where=predicate, read_version=read_version, note=note)

    def merge(self, table: str, df: DataFrame, *, keys: Sequence[str], delete_where: Column | None = None) -> int:
        """``MERGE`` ``df`` into the table on ``keys``: matched rows updated, new rows inserted, and (with
        ``delete_where``, a condition on the table's rows) rows of the target that ``df`` does not hold and that
        match ``delete_where`` deleted. One commit; returns its version."""
        if self._still_pending(table) and (created := self._create(table, df)) is not None:
            return created
        self._require(table)
        # MERGE itself drops source columns the target lacks and casts types: held to the table's schema here
        check_same_schema(table, expected=self.schema(table), actual=df.schema)
        condition = " AND ".join(f"t.`{k}` <=> s.`{k}`" for k in keys)
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            builder = (
                self._delta_table(table)
                .alias("t")
                .merge(df.alias("s"), condition)
                .whenMatchedUpdateAll()
                .whenNotMatchedInsertAll()
            )
            if delete_where is not None:
                builder = builder.whenNotMatchedBySourceDelete(condition=delete_where)
            try:
                self.spark.conf.unset(LAST_COMMIT)
                builder.execute()
                return self._own_version(table)
            except (PySparkException, Py4JJavaError) as error:
                self._raise_unless_conflict(table, error, attempt)
        raise AssertionError("unreachable")

    def delete(self, table: str, condition: Column) -> int:
        """Delete the rows matching ``condition`` (one commit); returns the table's version after it."""
        self._require(table)
        self.spark.conf.unset(LAST_COMMIT)
        self._delta_table(table).delete(condition)
        return self._own_version(table)

    def undo(self, table: str, version: int) -> int:
        """Commit the inverse of commit ``version``: the rows it added removed and the rows it removed put back,
        within the partitions it touched, in one ``replaceWhere`` commit (later commits of others stay).

        For a writer that learns, after committing, that its work duplicates another writer's. Returns the new
        table version.
        """
        partition_by = self.partition_columns(table)
        after, before = self.read(table, version=version), self.read(table, version=version - 1)
        added, removed = after.exceptAll(before), before.exceptAll(after)
        if not partition_by:
            current = self.read(table)
            return self.overwrite(table, current.exceptAll(added).unionByName(removed))
        touched = added.unionByName(removed).select(*partition_by).distinct().collect()
        if not touched:
            return self.version(table)
        where = {c: sorted({str(row[c]) for row in touched}) for c in partition_by}
        in_scope = F.lit(True)
        for column, values in where.items():
            in_scope = in_scope & F.col(column).isin(values)
        current = self.read(table).filter(in_scope)
        return self.replace_partitions(
            table, current.exceptAll(added).unionByName(removed), where, note=f"UNDO of version {version}"
        )

    def _write(
        self,
        table: str,
        df: DataFrame,
        *,
        mode: str,
        replace_where: str | None = None,
        read_version: int | None = None,
        txn: tuple[str, int] | None = None,
        static: bool = False,
        note: str | None = None,
    ) -> int:
        if self._still_pending(table):
            if read_version not in (None, -1):
                raise ConcurrentCommitError(f"{table} changed after version {read_version} (another writer committed)")
            if (created := self._create(table, df, txn=txn, note=note)) is not None:
                return created
        self._require(table)
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            if read_version is not None and self.version(table) != read_version:
                raise ConcurrentCommitError(f"{table} changed after version {read_version} (another writer committed)")
            writer = df.write.format("delta").mode(mode)
            if replace_where is not None:
                writer = writer.option("replaceWhere", replace_where)
            if note is not None:  # the commit's userMetadata, shown by DESCRIBE HISTORY
                writer = writer.option("userMetadata", note)
            if static:  # the whole table, whatever the session's partitionOverwriteMode (dynamic: jobs.runtime.session)
                writer = writer.option("partitionOverwriteMode", "static")
            try:
                self._save(writer, table, txn)
            except (PySparkException, Py4JJavaError) as error:
                if read_version is not None and _is(error, _CONFLICTS):
                    raise ConcurrentCommitError(f"{table}: another writer committed first") from error
                self._raise_unless_conflict(table, error, attempt)
                continue
            return self._own_version(table)
        raise AssertionError("unreachable")

    def _save(self, writer: Any, table: str, txn: tuple[str, int] | None) -> None:
        """Run a Delta write of ``table`` (with its transaction identifier, if any), Delta's record of the session's
        last commit cleared first (``_own_version``)."""
        if txn is not None:
            writer = writer.option("txnAppId", txn[0]).option("txnVersion", str(txn[1]))
        self.spark.conf.unset(LAST_COMMIT)
        writer.save(self.path(table))

    def _raise_unless_conflict(self, table: str, error: Exception, attempt: int) -> None:
        """A lost commit race is retried (after a short pause) up to ``WRITE_ATTEMPTS``; anything else, or a race
        lost every time, is a one-line StorageError."""
        if _is(error, _SCHEMA_ERRORS):
            raise SchemaMismatchError(f"schema mismatch writing {table}: {first_line(error)}") from error
        if not _is(error, _CONFLICTS):
            raise StorageError(f"{table}: {first_line(error)}") from error
        if attempt == WRITE_ATTEMPTS:
            raise ConcurrentCommitError(
                f"{table}: other writers kept committing to the same partitions ({first_line(error)}); run again"
            ) from error
        log.info("  %s: lost a commit race to another writer, trying again (%d)", table, attempt)
        time.sleep(0.2 * attempt)

    def _own_version(self, table: str) -> int:
        """The version the write just made committed (Delta's record of the session's last commit, unset before the
        write); the table's latest when the write committed nothing (Delta skipped it for its transaction
        identifier)."""
        committed = self.spark.conf.get(LAST_COMMIT, None)
        if committed in (None, ""):
            return self.version(table)
        self._own.setdefault(table, set()).add(int(committed))
        return int(committed)

    def own_commits(self, table: str) -> set[int]:
        """The versions of ``table`` this store's writes committed (a write Delta skipped committed none)."""
        return set(self._own.get(table, ()))


def open_store(spark: SparkSession, warehouse: str) -> DeltaStore:
    """The table store of a warehouse; a session without Delta Lake's jars is a one-line usage error."""
    if not delta_available(spark):
        from jobs.runtime.session import DELTA_PACKAGE

        raise UsageError(
            f"Delta Lake's jars are not on this session's classpath: run `make setup`, or give spark-submit "
            f"--packages {DELTA_PACKAGE}"
        )
    return DeltaStore(spark, warehouse)


def first_line(error: BaseException) -> str:
    """The first non-empty line of an error's text (a Java error carries its whole trace), at most 300 characters."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[0] if lines else type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _is(error: BaseException, markers: Sequence[str]) -> bool:
    text = f"{type(error).__name__} {error}"
    return any(marker in text for marker in markers)


def _quoted(path: str) -> str:
    """A path as a back-quoted SQL identifier (``delta.`/a/b```)."""
    return "`" + path.replace("`", "``") + "`"


def _sql_literal(value: object) -> str:
    # Partition values are strings here; quote them the way Spark SQL reads string literals.
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"
