"""Storage contract (issue 59): the one store, DeltaStore on delta-spark, creates, appends, overwrites, replaces
partitions, merges, deletes, undoes a commit, skips a transaction already committed, time-travels, enforces the
schema, commits atomically and loses commit races cleanly; every table written here is read back by two independent
readers (delta-rs and DuckDB's delta extension) with the same rows as Spark."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType, TimestampType

from benchmarks.jobcount import counting
from jobs.storage import (
    TABLE_PROPERTIES,
    ConcurrentCommitError,
    DeltaStore,
    delta_available,
    open_store,
    table_properties,
)
from schemas.errors import SchemaMismatchError, StorageError
from tests.jobs.race_writer import T0, race_rows, race_writes
from tests.short_jvm import FAST_JVM
from transforms.kit.local_frames import local_frame

REPO = Path(__file__).resolve().parents[2]
SCHEMA = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("offset", LongType(), False),
        StructField("name", StringType(), True),
        StructField("level", IntegerType(), True),
        StructField("ts", TimestampType(), True),
    ]
)
Row = tuple[Any, ...]


def rows(cluster: str, offsets: range, name: str = "x") -> list[Row]:
    return [(cluster, o, f"{name}{o}", o % 7, T0 + dt.timedelta(seconds=o)) for o in offsets]


@pytest.fixture
def store(spark: SparkSession, warehouse: Path) -> DeltaStore:
    return open_store(spark, str(warehouse))


def frame(spark: SparkSession, data: list[Row]) -> DataFrame:
    return spark.createDataFrame(data, SCHEMA)


def normal(row: Any) -> Row:
    """Rows compared as plain tuples with timestamps as naive UTC (each reader returns its own flavour)."""
    return tuple(
        v.astimezone(dt.UTC).replace(tzinfo=None) if isinstance(v, dt.datetime) and v.tzinfo else v for v in row
    )


def content(df: DataFrame) -> list[Row]:
    return sorted(normal(r) for r in df.select(*SCHEMA.names).collect())


def expect(data: list[Row]) -> list[Row]:
    return sorted(normal(r) for r in data)


def deltalake_rows(path: str) -> list[Row]:
    from deltalake import DeltaTable

    table = DeltaTable(path).to_pyarrow_table()
    cols = [table.column(n).to_pylist() for n in SCHEMA.names]
    return sorted(normal(r) for r in zip(*cols, strict=True))


def duckdb_rows(path: str) -> list[Row]:
    import duckdb
    import duckdb_extensions

    con = duckdb.connect()
    duckdb_extensions.import_extension("delta", con=con)
    con.execute("LOAD delta")
    con.execute("SET TimeZone='UTC'")
    result = con.execute('SELECT cluster_id, "offset", name, level, ts FROM delta_scan(?)', [path]).fetchall()
    return sorted(normal(r) for r in result)


def assert_three_readers_agree(store: DeltaStore, table: str, expected: list[Row]) -> None:
    want = expect(expected)
    assert content(store.read(table)) == want, "Spark"
    assert deltalake_rows(store.path(table)) == want, "delta-rs"
    assert duckdb_rows(store.path(table)) == want, "DuckDB"


def log_actions(store: DeltaStore, table: str, version: int) -> list[dict[str, Any]]:
    """The actions of one commit, read from its JSON file in the table's log (not through Delta)."""
    commit = Path(store.path(table)) / "_delta_log" / f"{version:020d}.json"
    return [json.loads(line) for line in commit.read_text(encoding="utf-8").splitlines() if line.strip()]


def assert_created_with_the_table_properties(store: DeltaStore, table: str) -> None:
    """TABLE_PROPERTIES and the statistics' columns are in the table's metadata (as its log and delta-rs read it) and
    no reader feature, such as deletion vectors, is required: every reader reads the plain Parquet files."""
    from deltalake import DeltaTable

    (metadata,) = [a["metaData"] for a in log_actions(store, table, 0) if "metaData" in a]
    expected = table_properties(store.schema(table))
    assert metadata["configuration"] == expected
    assert TABLE_PROPERTIES.items() <= expected.items()
    assert TABLE_PROPERTIES["delta.enableDeletionVectors"] == "false"
    table_rs = DeltaTable(store.path(table))
    assert table_rs.metadata().configuration == expected
    assert table_rs.protocol().reader_features in (None, [])
    assert table_rs.protocol().min_reader_version == 1


# ---- create ----------------------------------------------------------------------------------------------------


def test_an_ensured_table_is_created_by_its_first_write_and_reads_as_empty_until_then(
    spark: SparkSession, store: DeltaStore
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    assert not store.exists("t")
    assert not (Path(store.path("t")) / "_delta_log").exists()  # nothing on disk yet
    pending = store.read("t")
    assert [(f.name, f.dataType) for f in pending.schema.fields] == [(f.name, f.dataType) for f in SCHEMA.fields]
    assert pending.collect() == []
    assert (store.version("t"), store.history("t"), store.partition_columns("t")) == (-1, [], ["cluster_id"])
    assert store.append("t", frame(spark, rows("a", range(3)))) == 0
    assert store.exists("t") and store.version("t") == 0
    assert store.partition_columns("t") == ["cluster_id"]
    assert [(h["version"], h["operation"]) for h in store.history("t")] == [(0, "WRITE")]
    assert_created_with_the_table_properties(store, "t")
    assert_three_readers_agree(store, "t", rows("a", range(3)))


def test_files_carry_statistics_of_the_run_and_ingest_ids_only_and_a_filter_on_them_skips_files(
    spark: SparkSession, store: DeltaStore
) -> None:
    """Delta's per-file statistics are kept for ``run_id`` and ``ingest_id`` (what readers filter on besides the
    partition column), not for every column; a filter on the run skips the other runs' files."""
    with_run = StructType([*SCHEMA.fields, StructField("run_id", StringType(), True)])
    store.ensure("runs", with_run, ["cluster_id"])
    store.ensure("plain", SCHEMA, ["cluster_id"])
    for version, run in enumerate(("r1", "r2")):
        plain = rows("a", range(version * 3, version * 3 + 3))
        of_run = spark.createDataFrame([(*row, run) for row in plain], with_run)
        assert store.append("runs", of_run.coalesce(1)) == version
        assert store.append("plain", frame(spark, plain).coalesce(1)) == version
    for table, indexed in (("runs", {"run_id"}), ("plain", set())):
        for version in (0, 1):
            (add,) = [json.loads(a["add"]["stats"]) for a in log_actions(store, table, version) if "add" in a]
            assert add["numRecords"] == 3
            assert set(add.get("minValues", {})) == indexed, table
    assert table_properties(with_run)["delta.dataSkippingStatsColumns"] == "run_id"
    scan = store.read("runs").filter(F.col("run_id") == "r2")
    assert sorted(r["offset"] for r in scan.collect()) == [3, 4, 5]
    (second,) = [a["add"]["path"] for a in log_actions(store, "runs", 1) if "add" in a]
    assert [Path(f).name for f in scan.inputFiles()] == [Path(second).name]  # the files left after Delta's skipping
    assert_three_readers_agree(store, "plain", rows("a", range(6)))


def test_create_pending_creates_every_ensured_table_empty_for_other_readers(store: DeltaStore) -> None:
    store.ensure("by_cluster", SCHEMA, ["cluster_id"])
    store.ensure("flat", SCHEMA)
    store.create_pending()
    for table, partitioned_by in (("by_cluster", ["cluster_id"]), ("flat", [])):
        assert store.exists(table) and store.version(table) == 0
        assert store.partition_columns(table) == partitioned_by
        (metadata,) = [a["metaData"] for a in log_actions(store, table, 0) if "metaData" in a]
        assert metadata["partitionColumns"] == partitioned_by
        assert [f["name"] for f in json.loads(metadata["schemaString"])["fields"]] == SCHEMA.names
        assert_created_with_the_table_properties(store, table)
        assert_three_readers_agree(store, table, [])
    # a second store on the same warehouse (another run) finds the tables as they are
    again = DeltaStore(store.spark, store.warehouse)
    again.ensure("by_cluster", SCHEMA, ["cluster_id"])
    assert again.version("by_cluster") == 0


def test_an_empty_table_is_created_without_a_spark_job_and_as_a_write_of_rows_creates_it(
    spark: SparkSession, store: DeltaStore
) -> None:
    """A first write without rows is Delta's CREATE TABLE (a commit of metadata alone); its table has the schema a
    write of rows gives, every column nullable as Delta's writer makes them, so the same later writes land."""
    store.ensure("empty", SCHEMA, ["cluster_id"])
    store.ensure("written", SCHEMA, ["cluster_id"])
    with counting(spark) as jobs:
        assert store.append("empty", local_frame(spark, [], SCHEMA).coalesce(1)) == 0
    assert jobs.total == 0
    store.append("written", frame(spark, rows("a", range(2))))
    (commit,) = [a["commitInfo"] for a in log_actions(store, "empty", 0) if "commitInfo" in a]
    assert commit["operation"] == "CREATE TABLE"

    def metadata(table: str) -> dict[str, Any]:
        (found,) = [a["metaData"] for a in log_actions(store, table, 0) if "metaData" in a]
        return found

    empty, written = metadata("empty"), metadata("written")
    assert json.loads(empty["schemaString"]) == json.loads(written["schemaString"])
    assert not any(f["nullable"] is False for f in json.loads(empty["schemaString"])["fields"])
    for part in ("partitionColumns", "configuration"):
        assert empty[part] == written[part], part
    assert_created_with_the_table_properties(store, "empty")
    assert_three_readers_agree(store, "empty", [])
    store.append("empty", frame(spark, rows("a", range(2))))
    assert_three_readers_agree(store, "empty", rows("a", range(2)))


def test_an_empty_table_another_writer_created_first_is_written_into(spark: SparkSession, store: DeltaStore) -> None:
    """Two first runs on one warehouse: both ensured the table, the other created it; this one's first write, empty
    or not, goes into that table."""
    other = DeltaStore(spark, store.warehouse)
    store.ensure("t", SCHEMA, ["cluster_id"])
    other.ensure("t", SCHEMA, ["cluster_id"])
    other.create_pending()
    store.append("t", local_frame(spark, [], SCHEMA))
    store.append("t", frame(spark, rows("a", range(2))))
    assert_three_readers_agree(store, "t", rows("a", range(2)))


@pytest.mark.parametrize(
    ("schema", "partition_by", "message"),
    [
        (StructType([*SCHEMA.fields[:-1], StructField("ts", StringType(), True)]), ["cluster_id"], "column ts"),
        (SCHEMA, ["level"], "partitioned by"),
    ],
    ids=["another-type", "another-partitioning"],
)
def test_ensure_refuses_an_existing_table_of_another_shape(
    spark: SparkSession, store: DeltaStore, schema: StructType, partition_by: list[str], message: str
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(1))))
    with pytest.raises(SchemaMismatchError, match=message):
        DeltaStore(store.spark, store.warehouse).ensure("t", schema, partition_by)


# ---- append, overwrite, partition values -----------------------------------------------------------------------


def test_appends_add_rows_and_each_returns_its_own_commits_version(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    assert store.append("t", frame(spark, rows("a", range(3)))) == 0
    assert store.append("t", frame(spark, rows("b", range(2)))) == 1
    df = frame(spark, rows("c", range(2)))
    assert store.append("t", df.select(*reversed(df.columns))) == 2  # columns are matched by name
    assert [int(h["version"]) for h in store.history("t")] == [2, 1, 0]
    assert_three_readers_agree(store, "t", rows("a", range(3)) + rows("b", range(2)) + rows("c", range(2)))


def test_partition_values_come_from_the_log_not_from_paths(spark: SparkSession, store: DeltaStore) -> None:
    odd = ["001", "a b/c", "x=y%z", "ünï", "q:r#s?t*u", "o'b\\r"]
    store.ensure("t", SCHEMA, ["cluster_id"])
    data = [r for c in odd for r in rows(c, range(2))]
    store.append("t", frame(spark, data))
    assert_three_readers_agree(store, "t", data)
    # a value with a quote and a backslash is matched exactly by a partition overwrite
    store.replace_partitions("t", frame(spark, rows("o'b\\r", range(5, 6))), {"cluster_id": ["o'b\\r"]})
    assert_three_readers_agree(store, "t", data[:-2] + rows("o'b\\r", range(5, 6)))


def test_overwrite_replaces_everything(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(3))))
    assert store.overwrite("t", frame(spark, rows("c", range(1)))) == 1
    assert_three_readers_agree(store, "t", rows("c", range(1)))


# ---- replace_partitions ----------------------------------------------------------------------------------------


def test_replace_partitions_touches_only_the_named_partitions(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(3)) + rows("c", range(1))))
    new = rows("a", range(10, 12), "new")
    assert store.replace_partitions("t", frame(spark, new), {"cluster_id": ["a", "c"]}) == 1
    assert_three_readers_agree(store, "t", new + rows("b", range(3)))  # c: named, no rows given, emptied


def test_rerunning_a_partition_overwrite_with_the_same_data_changes_nothing(
    spark: SparkSession, store: DeltaStore
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("b", range(4))))
    batch = frame(spark, rows("a", range(5)))
    versions = [store.replace_partitions("t", batch, {"cluster_id": ["a"]}) for _ in range(3)]
    assert versions == [1, 2, 3]  # each run commits, and the content is the same after every one
    for version in versions:
        assert content(store.read("t", version=version)) == expect(rows("a", range(5)) + rows("b", range(4)))
    assert_three_readers_agree(store, "t", rows("a", range(5)) + rows("b", range(4)))


def test_replace_partitions_refuses_rows_outside_the_predicate_and_writes_nothing(
    spark: SparkSession, store: DeltaStore
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2)) + rows("b", range(1))))
    with pytest.raises(StorageError, match="DELTA_REPLACE_WHERE_MISMATCH") as refused:
        store.replace_partitions("t", frame(spark, rows("a", range(5)) + rows("b", range(2))), {"cluster_id": ["a"]})
    assert not isinstance(refused.value, SchemaMismatchError | ConcurrentCommitError)
    assert "\n" not in str(refused.value)
    assert store.version("t") == 0
    assert_three_readers_agree(store, "t", rows("a", range(2)) + rows("b", range(1)))


@pytest.mark.parametrize(
    ("where", "message"),
    [({"name": ["x"]}, "name is not a partition column"), ({"cluster_id": []}, "no values given"), ({}, "needs")],
    ids=["not-a-partition-column", "no-values", "no-predicate"],
)
def test_replace_partitions_refuses_a_predicate_it_cannot_run(
    spark: SparkSession, store: DeltaStore, where: dict[str, list[str]], message: str
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    with pytest.raises(StorageError, match=message):
        store.replace_partitions("t", frame(spark, []), where)
    assert not store.exists("t")


def test_a_table_partitioned_by_a_number_replaces_the_partitions_named_as_text(
    spark: SparkSession, store: DeltaStore
) -> None:
    data = rows("a", range(10))  # levels 0..6, 0..2
    store.ensure("by_level", SCHEMA, ["level"])
    store.append("by_level", frame(spark, data))
    store.replace_partitions("by_level", frame(spark, [r for r in data if r[3] == 1][:1]), {"level": ["1", "2"]})
    kept = [r for r in data if r[3] not in (1, 2)] + [r for r in data if r[3] == 1][:1]
    assert_three_readers_agree(store, "by_level", kept)


# ---- merge, delete, undo ---------------------------------------------------------------------------------------


def test_merge_updates_matched_rows_inserts_new_ones_and_deletes_only_what_delete_where_names(
    spark: SparkSession, store: DeltaStore
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(2))))
    source = rows("a", range(1, 2), "updated") + rows("a", range(7, 8), "inserted")
    # rows of a the source does not hold (offsets 0 and 2) are deleted; b is outside delete_where and stays
    version = store.merge(
        "t", frame(spark, source), keys=("cluster_id", "offset"), delete_where=F.col("t.cluster_id") == "a"
    )
    assert version == 1 and store.version("t") == 1  # one commit
    assert store.history("t")[0]["operation"] == "MERGE"
    assert_three_readers_agree(store, "t", source + rows("b", range(2)))
    # merging the same rows again changes nothing
    store.merge("t", frame(spark, source), keys=("cluster_id", "offset"), delete_where=F.col("t.cluster_id") == "a")
    assert_three_readers_agree(store, "t", source + rows("b", range(2)))


def test_a_merge_into_an_ensured_table_creates_it_with_the_merged_rows(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    assert store.merge("t", frame(spark, rows("a", range(3))), keys=("cluster_id", "offset")) == 0
    assert_created_with_the_table_properties(store, "t")
    assert_three_readers_agree(store, "t", rows("a", range(3)))


def test_delete_removes_the_matching_rows_in_one_commit(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(4)) + rows("b", range(2))))
    assert store.delete("t", (F.col("cluster_id") == "a") & (F.col("offset") >= 2)) == 1
    assert_three_readers_agree(store, "t", rows("a", range(2)) + rows("b", range(2)))


@pytest.mark.parametrize("partition_by", [["cluster_id"], []], ids=["partitioned", "unpartitioned"])
def test_undo_reverses_one_commit_and_keeps_later_commits_of_others(
    spark: SparkSession, store: DeltaStore, partition_by: list[str]
) -> None:
    store.ensure("t", SCHEMA, partition_by)
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(2))))
    deleted = store.delete("t", (F.col("cluster_id") == "a") & (F.col("offset") >= 1))  # removes a1, a2
    appended = store.append("t", frame(spark, rows("a", range(20, 21), "mine")))
    store.append("t", frame(spark, rows("c", range(1))))  # a later commit of another writer
    undone = store.undo("t", appended)
    assert undone == 4 == store.version("t")
    assert content(store.read("t")) == expect(rows("a", range(1)) + rows("b", range(2)) + rows("c", range(1)))
    assert store.undo("t", deleted) == 5
    assert_three_readers_agree(store, "t", rows("a", range(3)) + rows("b", range(2)) + rows("c", range(1)))


# ---- transactions, versions ------------------------------------------------------------------------------------


def test_an_append_under_a_transaction_id_already_committed_adds_nothing(
    spark: SparkSession, store: DeltaStore
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    assert store.append("t", frame(spark, rows("b", range(2))), txn=("ingest-b", 1)) == 1
    assert store.append("t", frame(spark, rows("b", range(2))), txn=("ingest-b", 1)) == 1  # skipped: the latest
    assert store.version("t") == 1
    assert store.append("t", frame(spark, rows("b", range(2, 3))), txn=("ingest-b", 2)) == 2  # a newer version
    assert store.append("t", frame(spark, rows("b", range(2))), txn=("ingest-b", 1)) == 2  # an older one: skipped
    assert store.append("t", frame(spark, rows("c", range(1))), txn=("ingest-c", 1)) == 3  # another application
    (txn,) = [a["txn"] for a in log_actions(store, "t", 1) if "txn" in a]
    assert (txn["appId"], txn["version"]) == ("ingest-b", 1)
    assert_three_readers_agree(store, "t", rows("a", range(2)) + rows("b", range(3)) + rows("c", range(1)))


def test_the_first_write_of_an_ensured_table_may_carry_a_transaction_id(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    assert store.append("t", frame(spark, rows("a", range(2))), txn=("ingest-a", 1)) == 0
    assert store.append("t", frame(spark, rows("a", range(2))), txn=("ingest-a", 1)) == 0
    assert_three_readers_agree(store, "t", rows("a", range(2)))


def test_a_write_based_on_an_old_version_is_refused_and_commits_nothing(spark: SparkSession, store: DeltaStore) -> None:
    """#16 item 10: with read_version, another writer's commit in between is a ConcurrentCommitError."""
    store.ensure("t", SCHEMA, ["cluster_id"])
    read_at = store.append("t", frame(spark, rows("a", range(2))))
    store.append("t", frame(spark, rows("b", range(2))))  # another writer
    with pytest.raises(ConcurrentCommitError):
        store.append("t", frame(spark, rows("a", range(2, 4))), read_version=read_at)
    with pytest.raises(ConcurrentCommitError):
        store.replace_partitions(
            "t", frame(spark, rows("a", range(9, 10))), {"cluster_id": ["a"]}, read_version=read_at
        )
    assert store.version("t") == 1
    assert store.append("t", frame(spark, rows("c", range(1))), read_version=1) == 2  # current: accepted
    assert_three_readers_agree(store, "t", rows("a", range(2)) + rows("b", range(2)) + rows("c", range(1)))


def test_a_table_read_at_the_version_it_had_while_pending_is_empty_after_another_writer_created_it(
    spark: SparkSession, store: DeltaStore
) -> None:
    """A run that ensured a table records its version -1 (not there yet); another writer then creates it: reading it
    at -1 (what the run decided from) is still the empty table, not an error."""
    store.ensure("t", SCHEMA, ["cluster_id"])
    read_at = store.version("t")
    assert read_at == -1
    other = DeltaStore(spark, store.warehouse)
    other.ensure("t", SCHEMA, ["cluster_id"])
    other.append("t", frame(spark, rows("b", range(2))))
    assert store.read("t", version=read_at).collect() == []
    with pytest.raises(ConcurrentCommitError):
        store.append("t", frame(spark, rows("a", range(2))), read_version=read_at)


def test_a_table_another_process_created_is_found_by_a_store_that_looked_before(
    spark: SparkSession, store: DeltaStore
) -> None:
    """What a first write that lost the creation race to another process relies on: the store sees the table the
    other process created (here delta-rs, another process's writer) although this session looked at the path
    before, when its log held no commit yet (as the losing writer's own transaction did)."""
    import pyarrow as pa
    from deltalake import write_deltalake

    (Path(store.path("t")) / "_delta_log").mkdir(parents=True)
    assert not store.exists("t")
    other = pa.table({"cluster_id": ["a"], "offset": pa.array([1], pa.int64())})
    write_deltalake(store.path("t"), other, partition_by=["cluster_id"])
    assert store.exists("t")
    assert store.version("t") == 0


def _another_writer_commits_right_after(
    monkeypatch: pytest.MonkeyPatch, store: DeltaStore, table: str
) -> Callable[[], None]:
    """Patch every way the store commits (a DataFrame write, MERGE, DELETE) so that delta-rs, another writer,
    appends one row (cluster z) to ``table`` just after the store's own commit and before the store learns its
    version. Returns a function that removes the patches."""
    import pyarrow as pa
    from delta.tables import DeltaMergeBuilder, DeltaTable
    from deltalake import write_deltalake
    from pyspark.sql.readwriter import DataFrameWriter

    other = pa.Table.from_pylist(
        [dict(zip(SCHEMA.names, r, strict=True)) for r in rows("z", range(1))],
        schema=pa.schema(
            [
                ("cluster_id", pa.string()),
                ("offset", pa.int64()),
                ("name", pa.string()),
                ("level", pa.int32()),
                ("ts", pa.timestamp("us", tz="UTC")),
            ]
        ),
    )

    def then_another_writer(real: Callable[..., Any]) -> Callable[..., Any]:
        def commit(*args: Any, **kwargs: Any) -> Any:
            result = real(*args, **kwargs)
            write_deltalake(store.path(table), other, mode="append")
            return result

        return commit

    for owner, name in ((DataFrameWriter, "save"), (DeltaMergeBuilder, "execute"), (DeltaTable, "delete")):
        monkeypatch.setattr(owner, name, then_another_writer(getattr(owner, name)))
    return monkeypatch.undo


@pytest.mark.parametrize(
    ("write", "own"),
    [
        (lambda s, df: s.append("t", df), rows("a", range(2)) + rows("a", range(5, 7))),
        (lambda s, df: s.overwrite("t", df), rows("a", range(5, 7))),
        (lambda s, df: s.replace_partitions("t", df, {"cluster_id": ["a"]}), rows("a", range(5, 7))),
        (lambda s, df: s.merge("t", df, keys=("cluster_id", "offset")), rows("a", range(2)) + rows("a", range(5, 7))),
        (lambda s, df: s.delete("t", F.col("offset") == 0), rows("a", range(1, 2))),
    ],
    ids=["append", "overwrite", "replace_partitions", "merge", "delete"],
)
def test_a_write_returns_its_own_commits_version_when_another_writer_committed_after_it(
    spark: SparkSession,
    store: DeltaStore,
    monkeypatch: pytest.MonkeyPatch,
    write: Callable[[DeltaStore, DataFrame], int],
    own: list[Row],
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    undo = _another_writer_commits_right_after(monkeypatch, store, "t")
    version = write(store, frame(spark, rows("a", range(5, 7))))
    undo()
    assert (version, store.version("t")) == (1, 2)
    assert content(store.read("t", version=version)) == expect(own)
    assert_three_readers_agree(store, "t", own + rows("z", range(1)))


# ---- time travel -----------------------------------------------------------------------------------------------


def test_time_travel_by_version_and_by_timestamp(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    store.append("t", frame(spark, rows("b", range(1))))
    store.delete("t", F.col("cluster_id") == "a")
    states = [rows("a", range(2)), rows("a", range(2)) + rows("b", range(1)), rows("b", range(1))]
    # each commit's time: its file's modification time in milliseconds (what Delta takes a commit's time to be
    # without in-commit timestamps), read from the file system
    log = Path(store.path("t")) / "_delta_log"
    times = [
        dt.datetime.fromtimestamp((log / f"{v:020d}.json").stat().st_mtime_ns // 1_000_000 / 1000, dt.UTC)
        for v in range(3)
    ]
    for version, state in enumerate(states):
        assert content(store.read("t", version=version)) == expect(state)
        assert content(store.read("t", timestamp=times[version])) == expect(state)
        # a naive timestamp is UTC
        assert content(store.read("t", timestamp=times[version].replace(tzinfo=None))) == expect(state)
    assert content(store.read("t")) == expect(states[-1])
    with pytest.raises(StorageError, match="DELTA_VERSION_NOT_FOUND"):
        store.read("t", version=3)
    with pytest.raises(StorageError, match="before the earliest version"):
        store.read("t", timestamp=times[0] - dt.timedelta(days=1))


def test_reading_a_missing_table_is_a_clear_error(store: DeltaStore) -> None:
    with pytest.raises(StorageError, match="does not exist"):
        store.read("nope")


# ---- schema enforcement, atomic commits, corrupt logs ----------------------------------------------------------

MISMATCHES = [
    pytest.param(lambda df: df.withColumn("extra", F.lit(1)), id="extra-column"),
    pytest.param(lambda df: df.withColumn("level", F.col("level").cast("long")), id="wider-type"),
    pytest.param(lambda df: df.withColumn("offset", F.col("offset").cast("int")), id="narrower-type"),
    pytest.param(lambda df: df.withColumn("level", F.col("level").cast("string")), id="string-for-int"),
]


@pytest.mark.parametrize("mutation", MISMATCHES)
def test_a_frame_of_another_shape_is_a_schema_mismatch_and_writes_nothing(
    spark: SparkSession, store: DeltaStore, mutation: Callable[[DataFrame], DataFrame]
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    wrong = mutation(frame(spark, rows("b", range(2))))
    writes: list[Callable[[], int]] = [
        lambda: store.append("t", wrong),
        lambda: store.overwrite("t", wrong),
        lambda: store.replace_partitions("t", wrong, {"cluster_id": ["b"]}),
    ]
    for attempt in writes:
        with pytest.raises(SchemaMismatchError):
            attempt()
    assert store.version("t") == 0
    assert [(f.name, f.dataType) for f in store.schema("t").fields] == [(f.name, f.dataType) for f in SCHEMA.fields]
    assert_three_readers_agree(store, "t", rows("a", range(2)))


@pytest.mark.parametrize("mutation", MISMATCHES)
def test_a_merge_of_a_frame_of_another_shape_is_a_schema_mismatch_and_writes_nothing(
    spark: SparkSession, store: DeltaStore, mutation: Callable[[DataFrame], DataFrame]
) -> None:
    # MERGE's UPDATE SET * / INSERT * would otherwise drop an extra column and cast a different type silently
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    with pytest.raises(SchemaMismatchError):
        store.merge("t", mutation(frame(spark, rows("b", range(2)))), keys=("cluster_id", "offset"))
    assert store.version("t") == 0
    assert_three_readers_agree(store, "t", rows("a", range(2)))


@pytest.mark.parametrize("mutation", MISMATCHES)
def test_the_first_write_of_an_ensured_table_is_held_to_the_ensured_schema(
    spark: SparkSession, store: DeltaStore, mutation: Callable[[DataFrame], DataFrame]
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    with pytest.raises(SchemaMismatchError):
        store.append("t", mutation(frame(spark, rows("a", range(2)))))
    assert not store.exists("t")


def test_a_failed_spark_job_leaves_no_visible_change(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3))))
    # raise_error fails the job on the executors half-way through writing
    failing = frame(spark, rows("a", range(100))).withColumn(
        "name", F.when(F.col("offset") == 77, F.raise_error(F.lit("boom"))).otherwise(F.col("name"))
    )
    with pytest.raises(StorageError, match="boom"):
        store.append("t", failing)
    with pytest.raises(StorageError, match="boom"):
        store.replace_partitions("t", failing, {"cluster_id": ["a"]})
    assert store.version("t") == 0
    assert sorted(p.name for p in (Path(store.path("t")) / "_delta_log").glob("*.json")) == [f"{0:020d}.json"]
    assert_three_readers_agree(store, "t", rows("a", range(3)))


def test_check_tables_names_a_table_whose_log_is_corrupt_in_one_line(spark: SparkSession, store: DeltaStore) -> None:
    for table in ("good", "bad"):
        store.ensure(table, SCHEMA, ["cluster_id"])
        store.append(table, frame(spark, rows("a", range(2))))
    store.check_tables(["good", "bad", "missing"])  # a missing table is not an error here
    (Path(store.path("bad")) / "_delta_log" / f"{1:020d}.json").write_text('{"add": {"path": ', encoding="utf-8")
    fresh = DeltaStore(spark, store.warehouse)  # another run
    with pytest.raises(StorageError) as refused:
        fresh.check_tables(["good", "bad"])
    message = str(refused.value)
    assert message.startswith(f"{store.path('bad')}: cannot read the table: ")
    assert "\n" not in message and len(message) < 500
    fresh.check_tables(["good"])


def test_delta_lake_is_loaded_in_every_session_the_builder_starts(spark: SparkSession) -> None:
    """``delta_available`` asks whether Delta's registered source class loads; Spark's own lookup of
    ``format("delta")`` finds the same source."""
    jvm = spark._jvm
    assert jvm is not None
    source = jvm.org.apache.spark.sql.execution.datasources.DataSource.lookupDataSource(
        "delta", spark._jsparkSession.sessionState().conf()
    )
    assert source.getName() == "org.apache.spark.sql.delta.sources.DeltaDataSource"
    assert delta_available(spark)


# ---- two processes ----------------------------------------------------------------------------------------------


@pytest.mark.system
def test_two_processes_racing_for_a_partition_leave_one_of_their_contents_and_different_partitions_both_land(
    spark: SparkSession, store: DeltaStore, tmp_path: Path
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("shared", range(2), "before") + rows("kept", range(1))))
    gate = tmp_path / "gate"
    gate.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "SPARK_LOCAL_IP": "127.0.0.1", "TZ": "UTC"}
    env.pop("PYSPARK_GATEWAY_PORT", None)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    # writer "two" is a process of its own (a session and a Delta log of its own); writer "one" writes from this
    # worker's session meanwhile (tests/jobs/race_writer.py)
    python, jvm = str(REPO / ".venv" / "bin" / "python"), f"{FAST_JVM} -Duser.timezone=UTC"
    other = subprocess.Popen(
        [python, "-m", "tests.jobs.race_writer", store.warehouse, "two", "one", str(gate), jvm],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        outcomes = {"one": race_writes(spark, store.warehouse, "one", "two", str(gate))}
        out, err = other.communicate(timeout=420)
    finally:
        if other.poll() is None:
            other.kill()
    assert other.returncode == 0, err[-3000:]
    (line,) = [line for line in out.splitlines() if line.startswith("OUTCOME ")]
    outcomes["two"] = json.loads(line.removeprefix("OUTCOME "))

    # the same partition: each write landed (after a retry) or was refused; the table holds exactly one content
    same = {me: o["same"] for me, o in outcomes.items()}
    assert not any("error" in o for o in same.values()), same
    landed = {me: s["version"] for me, s in same.items() if "version" in s}
    assert landed, same
    last = max(landed, key=lambda me: landed[me])
    final = rows("kept", range(1)) + race_rows(last, "shared")
    for me, version in landed.items():  # each one's version is its own commit, whatever the other committed
        shared = store.read("t", version=version).filter(F.col("cluster_id") == "shared")
        assert content(shared) == expect(race_rows(me, "shared")), (me, same)
    assert sum(s["retries"] for s in same.values()) + len(same) - len(landed) >= 1, same  # the race was lost once
    # different partitions: both land, neither has to retry
    different = {me: o["different"] for me, o in outcomes.items()}
    assert all("version" in d and d["retries"] == 0 for d in different.values()), different
    assert sorted(d["version"] for d in different.values()) == [max(landed.values()) + 1, max(landed.values()) + 2]
    final += race_rows("one", "one") + race_rows("two", "two")
    assert_three_readers_agree(DeltaStore(spark, store.warehouse), "t", final)
    # two first writes of a new table: one creates it, the other appends; both rows are there, with the properties
    created = {me: o["create"] for me, o in outcomes.items()}
    assert not any("error" in o for o in created.values()), created
    assert sorted(c.get("version", -1) for c in created.values()) == [0, 1], created
    assert_created_with_the_table_properties(store, "fresh")
    assert_three_readers_agree(store, "fresh", race_rows("one", "one") + race_rows("two", "two"))


@pytest.mark.skipif(shutil.which("javac") is None, reason="make setup compiles jobs/runtime/java with a JDK's javac")
def test_a_local_session_writes_through_the_local_file_system_without_a_process_per_file(
    spark: SparkSession, tmp_path: Path
) -> None:
    # jobs/runtime/java: permissions set in Java, no Hadoop .crc side files; the files' modes are Hadoop's own
    # (0666 less the 022 umask of fs.permissions.umask-mode)
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    assert hadoop.get("fs.file.impl") == "kraftaudit.hadoop.LocalFileSystem"
    assert hadoop.get("fs.AbstractFileSystem.file.impl") == "kraftaudit.hadoop.LocalFs"
    table = tmp_path / "t"
    spark.range(3).withColumn("p", F.col("id") % 2).write.format("delta").partitionBy("p").save(str(table))
    spark.range(3, 5).withColumn("p", F.col("id") % 2).write.format("delta").mode("append").save(str(table))
    files = [path for path in table.rglob("*") if path.is_file()]
    assert not [path.name for path in files if path.name.startswith(".") and path.name.endswith(".crc")]
    parquet = [path for path in files if path.suffix == ".parquet"]
    assert parquet
    assert {stat.S_IMODE(path.stat().st_mode) for path in parquet} == {0o644}
    assert sorted(row.id for row in spark.read.format("delta").load(str(table)).collect()) == [0, 1, 2, 3, 4]
