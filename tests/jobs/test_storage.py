"""Storage contract: every backend creates, appends, overwrites, replaces partitions, time-travels and refuses
what it cannot do; every table written is read back by two independent readers (delta-rs and DuckDB)."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType, TimestampType

from benchmarks.jobcount import counting
from jobs.stages import held_locally
from jobs.storage import ConcurrentCommitError, DeltaStore, open_store
from jobs.storage.native import native_delta_available
from schemas.errors import SchemaMismatchError, StorageError, UnsupportedTableError

SCHEMA = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("offset", LongType(), False),
        StructField("name", StringType(), True),
        StructField("level", IntegerType(), True),
        StructField("ts", TimestampType(), True),
    ]
)
T0 = dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.UTC)


def rows(cluster: str, offsets: range, name: str = "x") -> list[tuple[Any, ...]]:
    return [(cluster, o, f"{name}{o}", o % 7, T0 + dt.timedelta(seconds=o)) for o in offsets]


@pytest.fixture(params=["deltars", "native"])
def store(request: pytest.FixtureRequest, spark: SparkSession, warehouse: Path) -> DeltaStore:
    if request.param == "native" and not native_delta_available(spark):
        pytest.skip(
            "Delta Lake JVM jars are not on the classpath (Maven Central is unreachable here); run with "
            "DELTA_BACKEND=native and --packages io.delta:delta-spark_4.2_2.13:4.4.1 to exercise this backend"
        )
    return open_store(spark, str(warehouse), backend=request.param)


def frame(spark: SparkSession, data: list[tuple[Any, ...]]) -> DataFrame:
    return spark.createDataFrame(data, SCHEMA)


def normal(row: Any) -> tuple[Any, ...]:
    """Rows compared as plain tuples with timestamps as naive UTC (each reader returns its own flavour)."""
    return tuple(
        v.astimezone(dt.UTC).replace(tzinfo=None) if isinstance(v, dt.datetime) and v.tzinfo else v for v in row
    )


def content(df: DataFrame) -> list[tuple[Any, ...]]:
    return sorted(normal(r) for r in df.collect())


def deltalake_rows(path: str) -> list[tuple[Any, ...]]:
    from deltalake import DeltaTable

    table = DeltaTable(path).to_pyarrow_table()
    cols = [table.column(n).to_pylist() for n in ["cluster_id", "offset", "name", "level", "ts"]]
    return sorted(normal(r) for r in zip(*cols, strict=True))


def duckdb_rows(path: str) -> list[tuple[Any, ...]]:
    import duckdb
    import duckdb_extensions

    con = duckdb.connect()
    duckdb_extensions.import_extension("delta", con=con)
    con.execute("LOAD delta")
    con.execute("SET TimeZone='UTC'")
    result = con.execute('SELECT cluster_id, "offset", name, level, ts FROM delta_scan(?)', [path]).fetchall()
    return sorted(normal(r) for r in result)


def assert_three_readers_agree(store: DeltaStore, table: str, expected: list[tuple[Any, ...]]) -> None:
    expected = sorted(normal(r) for r in expected)
    assert content(store.read(table)) == expected
    assert deltalake_rows(store.path(table)) == expected
    assert duckdb_rows(store.path(table)) == expected


def test_create_then_read_gives_an_empty_table_with_the_schema(store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    df = store.read("t")
    assert [f.name for f in df.schema.fields] == SCHEMA.names
    assert [f.dataType for f in df.schema.fields] == [f.dataType for f in SCHEMA.fields]
    assert_three_readers_agree(store, "t", [])


def test_append_adds_rows_readable_by_all_readers(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3))))
    store.append("t", frame(spark, rows("b", range(2))))
    assert_three_readers_agree(store, "t", rows("a", range(3)) + rows("b", range(2)))


def test_partition_values_come_from_the_log_not_from_paths(spark: SparkSession, store: DeltaStore) -> None:
    odd = ["001", "a b/c", "x=y%z", "ünï"]
    store.ensure("t", SCHEMA, ["cluster_id"])
    data = [r for c in odd for r in rows(c, range(2))]
    store.append("t", frame(spark, data))
    assert_three_readers_agree(store, "t", data)


def test_each_write_path_gives_the_layout_spark_writes(spark: SparkSession, store: DeltaStore, tmp_path: Path) -> None:
    # deltars writes a small audit's held frames (local relations) with pyarrow in the driver, other frames with
    # pyarrow in Spark's tasks (jobs.storage.task_files); both give the partition directories Spark's writer gives
    odd = ["001", "a b/c", "x=y%z", "ünï", "q:r#s?t*u"]
    data = [r for c in odd for r in rows(c, range(2))]
    held = held_locally(frame(spark, data), 100)
    assert held is not None
    jobs_of: dict[str, int] = {}
    for table, df in (("held", held), ("tasks", frame(spark, data))):
        store.ensure(table, SCHEMA, ["cluster_id"])
        with counting(spark) as jobs:
            store.append(table, df)
        jobs_of[table] = jobs.total
        assert_three_readers_agree(store, table, data)
    if store.backend == "deltars":
        import pyarrow as pa
        from deltalake import DeltaTable

        def partitions(table: str) -> list[tuple[str, int]]:
            # the rows each partition's files hold, from the log (a task writes one file per partition it holds)
            files = pa.table(DeltaTable(store.path(table)).get_add_actions(flatten=True)).to_pylist()
            counted: dict[str, int] = {}
            for f in files:
                counted[f["partition.cluster_id"]] = counted.get(f["partition.cluster_id"], 0) + f["num_records"]
            return sorted(counted.items())

        assert partitions("held") == partitions("tasks") == [(c, 2) for c in sorted(odd)]
        assert jobs_of["held"] == 0 < jobs_of["tasks"]  # a local relation's rows are collected without a job
        frame(spark, data).write.partitionBy("cluster_id").parquet(str(tmp_path / "spark"))
        by_spark = {p.name for p in (tmp_path / "spark").iterdir() if p.is_dir()}
        assert len(by_spark) == len(odd)
        for table in ("held", "tasks"):
            written = {p.parent.name for p in Path(store.path(table)).rglob("*.parquet")}
            assert written == by_spark, table
    empty = held_locally(frame(spark, []), 100)
    assert empty is not None
    store.replace_partitions("held", empty, {"cluster_id": ["001"]})
    assert_three_readers_agree(store, "held", data[2:])
    store.replace_partitions("tasks", frame(spark, []), {"cluster_id": ["001"]})
    assert_three_readers_agree(store, "tasks", data[2:])


def test_files_of_a_failed_task_attempt_are_removed_after_the_commit(
    spark: SparkSession, warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a retried task's first attempt leaves files in the staging folder that no commit names (task_files lists the
    # files of the attempts that succeeded): planted here, they are gone after the write and the rows are the same
    from jobs.storage import deltars

    store = open_store(spark, str(warehouse), backend="deltars")
    store.ensure("t", SCHEMA, ["cluster_id"])
    write_files = deltars.task_files.write_files

    def with_a_failed_attempt(df: DataFrame, uri: str, partition_by: Any, **kwargs: Any) -> Any:
        written = write_files(df, uri, partition_by, **kwargs)
        stray = Path(uri) / "cluster_id=a" / "part-from-a-failed-attempt.parquet"
        stray.parent.mkdir(parents=True, exist_ok=True)
        stray.write_bytes(b"partial")
        return written

    monkeypatch.setattr(deltars.task_files, "write_files", with_a_failed_attempt)
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(2))))
    assert not list(Path(store.path("t")).rglob("part-from-a-failed-attempt.parquet"))
    assert_three_readers_agree(store, "t", rows("a", range(3)) + rows("b", range(2)))


def test_a_table_partitioned_by_a_number_is_written_by_sparks_writer(spark: SparkSession, store: DeltaStore) -> None:
    # jobs.storage.task_files names string partitions only; any other type keeps Spark's writer and its names
    data = rows("a", range(4))
    store.ensure("by_level", SCHEMA, ["level"])
    store.append("by_level", frame(spark, data))
    assert_three_readers_agree(store, "by_level", data)
    if store.backend == "deltars":
        names = {p.name for p in Path(store.path("by_level")).rglob("*.parquet")}
        assert names and all(n.endswith(".snappy.parquet") for n in names), names


def test_many_partitions_read_in_one_scan_with_values_from_the_log(spark: SparkSession, store: DeltaStore) -> None:
    odd = ["001", "a b/c", "x=y%z", "ünï", "e", "f", "g"]
    store.ensure("t", SCHEMA, ["cluster_id"])
    data = [r for c in odd for r in rows(c, range(2))]
    store.append("t", frame(spark, data[:6]))
    store.append("t", frame(spark, data[6:]))
    assert_three_readers_agree(store, "t", data)
    if store.backend == "deltars":
        plan = store.read("t")._jdf.queryExecution().executedPlan().toString()
        assert plan.count("FileScan parquet") == 1, plan


def test_overwrite_replaces_everything(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(3))))
    store.overwrite("t", frame(spark, rows("c", range(1))))
    assert_three_readers_agree(store, "t", rows("c", range(1)))


def test_replace_partitions_touches_only_the_named_partitions(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(3))))
    store.replace_partitions("t", frame(spark, rows("a", range(10, 12), "new")), {"cluster_id": ["a"]})
    assert_three_readers_agree(store, "t", rows("a", range(10, 12), "new") + rows("b", range(3)))


def test_replace_partitions_with_no_rows_empties_those_partitions(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(3))))
    store.replace_partitions("t", frame(spark, []), {"cluster_id": ["a"]})
    assert_three_readers_agree(store, "t", rows("b", range(3)))


def test_rerunning_a_partition_overwrite_with_the_same_data_changes_nothing(
    spark: SparkSession, store: DeltaStore
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("b", range(4))))
    batch = frame(spark, rows("a", range(5)))
    store.replace_partitions("t", batch, {"cluster_id": ["a"]})
    first = content(store.read("t"))
    store.replace_partitions("t", batch, {"cluster_id": ["a"]})
    store.replace_partitions("t", batch, {"cluster_id": ["a"]})
    assert content(store.read("t")) == first
    assert_three_readers_agree(store, "t", rows("a", range(5)) + rows("b", range(4)))


def test_replace_partitions_refuses_rows_outside_the_predicate(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    before = store.version("t")
    with pytest.raises(Exception, match=r"(?i)outside|replaceWhere|does not conform|DELTA_REPLACE_WHERE"):
        store.replace_partitions("t", frame(spark, rows("b", range(2))), {"cluster_id": ["a"]})
    assert store.version("t") == before
    assert_three_readers_agree(store, "t", rows("a", range(2)))


def test_replace_partitions_rejects_a_non_partition_column(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    with pytest.raises(StorageError, match="not a partition column"):
        store.replace_partitions("t", frame(spark, []), {"name": ["x"]})


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (lambda df: df.withColumn("level", F.col("level").cast("long")), "column level is bigint"),
        (lambda df: df.drop("name"), "missing columns name"),
        (lambda df: df.withColumn("extra", F.lit(1)), "unexpected columns extra"),
    ],
    ids=["type-change", "missing-column", "extra-column"],
)
def test_schema_mismatch_is_a_clear_error_and_writes_nothing(
    spark: SparkSession, store: DeltaStore, mutation: Any, message: str
) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    before = store.version("t")
    with pytest.raises(SchemaMismatchError, match=message):
        store.append("t", mutation(frame(spark, rows("a", range(2)))))
    assert store.version("t") == before


def test_columns_in_another_order_are_aligned_not_rejected(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    df = frame(spark, rows("a", range(2)))
    store.append("t", df.select(*reversed(df.columns)))
    assert_three_readers_agree(store, "t", rows("a", range(2)))


def test_ensure_refuses_an_existing_table_with_another_schema(store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    other = StructType([*SCHEMA.fields[:-1], StructField("ts", StringType(), True)])
    with pytest.raises(SchemaMismatchError):
        store.ensure("t", other, ["cluster_id"])


def test_a_failed_spark_job_leaves_no_visible_change(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3))))
    before = store.version("t")
    # raise_error fails the job on the executors half-way through writing
    failing = frame(spark, rows("a", range(100))).withColumn(
        "name", F.when(F.col("offset") == 77, F.raise_error(F.lit("boom"))).otherwise(F.col("name"))
    )
    with pytest.raises(Exception, match="boom"):
        store.append("t", failing)
    assert store.version("t") == before
    assert_three_readers_agree(store, "t", rows("a", range(3)))
    if store.backend == "deltars":
        from deltalake import DeltaTable

        live = {p.split("/")[0] for p in DeltaTable(store.path("t")).get_add_actions().column("path").to_pylist()}
        staged = {p.name for p in Path(store.path("t")).iterdir() if p.name.startswith("spark-")}
        assert staged == live, "the failed job's staging folder was not removed"


def test_time_travel_by_version_and_timestamp(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    v1 = store.version("t")
    time.sleep(1.1)
    between = dt.datetime.now(dt.UTC)
    time.sleep(1.1)
    store.overwrite("t", frame(spark, rows("b", range(3))))
    assert content(store.read("t", version=v1)) == sorted(normal(r) for r in rows("a", range(2)))
    assert content(store.read("t", timestamp=between)) == sorted(normal(r) for r in rows("a", range(2)))
    assert content(store.read("t")) == sorted(normal(r) for r in rows("b", range(3)))


def test_history_lists_every_commit_newest_first(spark: SparkSession, store: DeltaStore) -> None:
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(2))))
    store.replace_partitions("t", frame(spark, rows("a", range(1))), {"cluster_id": ["a"]})
    history = store.history("t")
    versions = [int(h["version"]) for h in history]
    assert versions == sorted(versions, reverse=True)
    assert versions[0] == store.version("t") == 2


def test_reading_a_missing_table_is_a_clear_error(store: DeltaStore) -> None:
    with pytest.raises(StorageError, match="does not exist"):
        store.read("nope")


def test_rows_per_partition_are_read_from_the_log(spark: SparkSession, warehouse: Path) -> None:
    """What the latest snapshot holds per partition value, replaced and removed files included, with no Spark job."""
    store = open_store(spark, str(warehouse), backend="deltars")
    store.ensure("t", SCHEMA, ["cluster_id"])
    assert store.rows_per_partition("t", "cluster_id") == {}
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(5))))
    store.append("t", frame(spark, rows("a", range(10, 12))))
    store.replace_partitions("t", frame(spark, rows("b", range(20, 21))), {"cluster_id": ["b"]})
    store.replace_partitions("t", frame(spark, []), {"cluster_id": ["c"]})
    with counting(spark) as jobs:
        counts = store.rows_per_partition("t", "cluster_id")
    assert counts == {"a": 5, "b": 1}
    assert jobs.total == 0
    with pytest.raises(StorageError, match="not a partition column"):
        store.rows_per_partition("t", "name")


def test_partition_files_name_the_live_files_of_each_value_at_a_version(spark: SparkSession, warehouse: Path) -> None:
    """The files a reader opens itself: exactly the rows of each partition value, replaced files left out."""
    import pyarrow.parquet as pq

    store = open_store(spark, str(warehouse), backend="deltars")
    store.ensure("t", SCHEMA, ["cluster_id"])
    assert store.partition_files("t", "cluster_id") == {}
    first = store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(5))))
    store.append("t", frame(spark, rows("a", range(10, 12))))
    store.replace_partitions("t", frame(spark, rows("b", range(20, 21))), {"cluster_id": ["b"]})

    def offsets(files: list[str]) -> list[int]:
        return sorted(o for f in files for o in pq.read_table(f).column("offset").to_pylist())

    files = store.partition_files("t", "cluster_id")
    assert files is not None and set(files) == {"a", "b"}
    assert offsets(files["a"]) == [0, 1, 2, 10, 11]
    assert offsets(files["b"]) == [20]
    then = store.partition_files("t", "cluster_id", version=first)
    assert then is not None and offsets(then["b"]) == [0, 1, 2, 3, 4] and offsets(then["a"]) == [0, 1, 2]
    nullable = StructType([StructField("cluster_id", StringType(), True), StructField("offset", LongType(), False)])
    store.ensure("u", nullable, ["cluster_id"])
    store.append("u", spark.createDataFrame([("a", 1), (None, 2)], nullable))
    assert store.partition_files("u", "cluster_id") is None  # a NULL value's rows: Spark reads them
    with pytest.raises(StorageError, match="not partitioned by name"):
        store.partition_files("t", "name")


def test_a_write_returns_the_version_it_committed_when_another_writer_committed_after_it(
    spark: SparkSession, warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    store = open_store(spark, str(warehouse), backend="deltars")
    store.ensure("t", SCHEMA, ["cluster_id"])
    assert store.append("t", frame(spark, rows("a", range(3)))) == 1
    commit = DeltaTable.create_write_transaction
    other = pa.Table.from_pylist(
        [dict(zip(SCHEMA.names, r, strict=True)) for r in rows("a", range(100, 104))],
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

    def then_another_writer(self: DeltaTable, *args: Any, **kwargs: Any) -> None:
        commit(self, *args, **kwargs)
        write_deltalake(str(warehouse / "t"), other, mode="append", partition_by=["cluster_id"])

    monkeypatch.setattr(DeltaTable, "create_write_transaction", then_another_writer)
    version = store.replace_partitions("t", frame(spark, rows("a", range(10, 12))), {"cluster_id": ["a"]})
    monkeypatch.undo()
    assert (version, store.version("t")) == (2, 3)
    assert store.rows_per_partition("t", "cluster_id", version=version) == {"a": 2}
    assert store.rows_per_partition("t", "cluster_id") == {"a": 6}


def test_rows_per_partition_are_unknown_when_a_file_has_no_row_count(spark: SparkSession, warehouse: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from deltalake import DeltaTable
    from deltalake.transaction import AddAction

    store = open_store(spark, str(warehouse), backend="deltars")
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3))))
    folder = warehouse / "t" / "cluster_id=b"
    folder.mkdir()
    data = pa.table({"offset": pa.array([1], pa.int64())})
    pq.write_table(data, folder / "part-0.parquet")
    table = DeltaTable(str(warehouse / "t"))
    action = AddAction(
        path="cluster_id=b/part-0.parquet",
        size=(folder / "part-0.parquet").stat().st_size,
        partition_values={"cluster_id": "b"},
        modification_time=int(time.time() * 1000),
        data_change=True,
        stats=None,
    )
    table.create_write_transaction([action], mode="append", schema=table.schema(), partition_by=["cluster_id"])
    assert store.rows_per_partition("t", "cluster_id") is None


def test_deltars_refuses_tables_with_deletion_vectors(spark: SparkSession, warehouse: Path) -> None:
    import pyarrow as pa
    from deltalake import write_deltalake

    path = warehouse / "dv"
    write_deltalake(
        str(path),
        pa.table({"a": [1, 2]}),
        configuration={"delta.enableDeletionVectors": "true"},
    )
    log = sorted((path / "_delta_log").glob("*.json"))[0]
    protocol = [json.loads(line) for line in log.read_text().splitlines() if '"protocol"' in line]
    if "deletionVectors" not in json.dumps(protocol):
        pytest.skip("this delta-rs release does not write the deletionVectors reader feature")
    store = open_store(spark, str(warehouse), backend="deltars")
    with pytest.raises(UnsupportedTableError, match="deletionVectors"):
        store.read("dv")


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
    assert_three_readers_agree(store, "t", rows("a", range(2)) + rows("b", range(2)))
    store.append("t", frame(spark, rows("c", range(1))), read_version=store.version("t"))  # current: accepted
    assert len(store.read("t").filter(F.col("cluster_id") == "c").collect()) == 1


def test_undo_reverses_one_commit_and_keeps_later_commits_of_others(spark: SparkSession, store: DeltaStore) -> None:
    if store.backend == "native":
        pytest.skip("the native backend cannot undo a commit (ingest then stops with a one-line error)")
    store.ensure("t", SCHEMA, ["cluster_id"])
    store.append("t", frame(spark, rows("a", range(3)) + rows("b", range(2))))
    replaced = store.replace_partitions("t", frame(spark, rows("a", range(10, 12), "new")), {"cluster_id": ["a"]})
    appended = store.append("t", frame(spark, rows("a", range(20, 21), "mine")))
    store.append("t", frame(spark, rows("c", range(1))))  # a later commit of another writer
    store.undo("t", appended)
    store.undo("t", replaced)
    assert_three_readers_agree(store, "t", rows("a", range(3)) + rows("b", range(2)) + rows("c", range(1)))


def test_delta_is_found_as_spark_finds_a_data_source(spark: SparkSession) -> None:
    """The backend's auto-detection asks whether Delta's registered source class loads; Spark's own lookup of
    ``format("delta")`` must agree (here, without Delta's jars: both no; with them: both yes)."""
    jvm = spark._jvm
    try:
        jvm.org.apache.spark.sql.execution.datasources.DataSource.lookupDataSource(
            "delta", spark._jsparkSession.sessionState().conf()
        )
        spark_finds = True
    except Exception:  # py4j's error for Spark's "failed to find the data source"
        spark_finds = False
    assert native_delta_available(spark) is spark_finds
    assert jvm.org.apache.spark.util.Utils.classIsLoadable(
        "org.apache.spark.sql.execution.datasources.v2.parquet.ParquetDataSourceV2"
    )
