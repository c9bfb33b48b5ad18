"""Parquet files written by Spark's tasks with pyarrow (``jobs.storage.task_files``): every row lands once, in the
file of its partition values, in Spark's directory layout, in row groups of the size asked for."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import LongType, StringType, StructField, StructType

from jobs.storage.task_files import HIVE_NULL, escape_path_name, supported, write_files, write_table

SCHEMA = StructType(
    [
        StructField("a", StringType(), True),
        StructField("n", LongType(), False),
        StructField("b", StringType(), True),
    ]
)


@pytest.mark.parametrize(
    ("value", "directory"),
    [
        # ExternalCatalogUtils.escapePathName: %XX for control characters and "#%'*/:=?\{[]^ (and DEL)
        ("abc-_.9", "abc-_.9"),
        ("a/b", "a%2Fb"),
        ("x=y%z", "x%3Dy%25z"),
        ("q:r#s?t*u", "q%3Ar%23s%3Ft%2Au"),
        ("{[x]}^'\"\\", "%7B%5Bx%5D}%5E%27%22%5C"),
        ("tab\there", "tab%09here"),
        # spaces and non-ASCII letters stay as they are
        ("a b", "a b"),
        ("ünï", "ünï"),
        # NULL and the empty string are Hive's default partition (read back as NULL)
        (None, HIVE_NULL),
        ("", HIVE_NULL),
    ],
)
def test_partition_directories_are_named_as_spark_names_them(value: str | None, directory: str) -> None:
    assert escape_path_name(value) == directory


def test_only_string_partition_columns_are_supported(spark: SparkSession) -> None:
    df = spark.createDataFrame([], SCHEMA)
    assert supported(df, ["a", "b"]) and supported(df, [])
    assert not supported(df, ["n"])
    assert not supported(df, ["missing"])


def _data() -> list[tuple[str | None, int, str | None]]:
    # 23 rows over partitions (a, b), out of order, with NULL and empty values in both columns
    a_values = ["x", None, "y/z", "", "x"]
    b_values = ["1", "2", None]
    return [(a_values[i % 5], i, b_values[i % 3]) for i in range(23)]


def _read_back(root: Path, files: list) -> list[tuple[str | None, int, str | None]]:
    """The rows of the files listed, each with its partition values put back."""
    found = []
    for file in files:
        a, b = file.values
        table = pq.read_table(root / file.path)
        assert table.column_names == ["n"]  # the partition columns are in the path, not the file
        assert pq.read_metadata(root / file.path).num_rows == file.rows == table.num_rows
        assert (root / file.path).stat().st_size == file.size
        assert file.path.split("/")[:-1] == [f"a={escape_path_name(a)}", f"b={escape_path_name(b)}"]
        found += [(a, n, b) for n in table.column("n").to_pylist()]
    return sorted(found, key=lambda r: r[1])


def _expected() -> list[tuple[str | None, int, str | None]]:
    return [(a or None, n, b or None) for a, n, b in _data()]


def test_tasks_write_every_row_once_into_its_partitions_file(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame(_data(), SCHEMA).repartition(3)
    files = write_files(df, str(tmp_path / "t"), ["a", "b"], row_group_rows=2)
    assert _read_back(tmp_path / "t", files) == _expected()
    # one file per partition a task holds: never two files of one partition from the same task, so at most
    # (tasks x partitions) files, at least one per partition
    partitions = {(a or None, b or None) for a, _, b in _data()}
    assert len(partitions) <= len(files) <= 3 * len(partitions)
    # row groups of at most 2 rows
    for file in files:
        meta = pq.read_metadata(tmp_path / "t" / file.path)
        assert all(meta.row_group(i).num_rows <= 2 for i in range(meta.num_row_groups))
        assert meta.num_row_groups >= (file.rows + 1) // 2


def test_one_task_holding_every_row_writes_one_file_per_partition(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame(_data(), SCHEMA).coalesce(1)
    files = write_files(df, str(tmp_path / "t"), ["a", "b"])
    assert _read_back(tmp_path / "t", files) == _expected()
    partitions = {(a or None, b or None) for a, _, b in _data()}
    assert len(files) == len(partitions) == 9  # 3 values of a (NULL and "" are one) x 3 of b, all present
    assert {f.values for f in files} == partitions


def test_unpartitioned_rows_are_one_file_a_task_and_no_rows_no_file(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame(_data(), SCHEMA).repartition(2)
    files = write_files(df, str(tmp_path / "t"), [])
    assert len(files) == 2 and all(f.values == () for f in files)
    rows = sorted(n for f in files for n in pq.read_table(tmp_path / "t" / f.path).column("n").to_pylist())
    assert rows == list(range(23))
    assert write_files(spark.createDataFrame([], SCHEMA), str(tmp_path / "empty"), ["a"]) == []
    assert not (tmp_path / "empty").exists()


def test_rows_the_driver_holds_are_written_in_the_same_layout(tmp_path: Path) -> None:
    table = pa.Table.from_pylist(
        [dict(zip(SCHEMA.names, row, strict=True)) for row in _data()],
        schema=pa.schema([("a", pa.string()), ("n", pa.int64()), ("b", pa.string())]),
    )
    files = write_table(table, str(tmp_path / "t"), ["a", "b"])
    assert _read_back(tmp_path / "t", files) == _expected()
    assert len(files) == len({f.values for f in files})  # sorted first: one file per partition
