"""A table's shape: whether a frame fits a table's schema, the schema Delta's writer gives a table it creates, the
properties it is created with, and which partitions a replaceWhere may name.

Table properties (``table_properties``): deletion vectors off, so that every reader (Spark, delta-rs, DuckDB's
``delta_scan``) reads every table with the plain Parquet files the log lists; a checkpoint every 20 commits (a run
commits once or twice per table; a checkpoint is a Spark job of its own, and reading up to 20 JSON commits is cheap);
Delta's data-skipping statistics (each file's minimum, maximum and null count per column, gathered row by row as the
file is written) only on the columns readers filter on besides the partition column, ``run_id`` and ``ingest_id``,
where Delta's default gathers them on the first 32 columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

from schemas.errors import SchemaMismatchError, StorageError

__all__ = ["TABLE_PROPERTIES", "as_written", "check_predicate", "check_same_schema", "table_properties"]

TABLE_PROPERTIES: dict[str, str] = {
    "delta.enableDeletionVectors": "false",
    "delta.checkpointInterval": "20",
}
# The columns readers filter on besides ``cluster_id`` (the partition column): a run's rows, an ingest's rows.
SKIPPING_COLUMNS = ("run_id", "ingest_id")


def table_properties(schema: StructType) -> dict[str, str]:
    """A new table's properties: ``TABLE_PROPERTIES``, and statistics on its ``SKIPPING_COLUMNS`` only (none when it
    has neither)."""
    skipping = [name for name in SKIPPING_COLUMNS if name in schema.names]
    if not skipping:
        return {**TABLE_PROPERTIES, "delta.dataSkippingNumIndexedCols": "0"}
    return {**TABLE_PROPERTIES, "delta.dataSkippingStatsColumns": ",".join(skipping)}


def check_same_schema(table: str, *, expected: StructType, actual: StructType) -> None:
    """Raise SchemaMismatchError unless both schemas have the same column names and types.

    For a table found in the warehouse (written by an older release of the tool, or by someone else): Delta's own
    schema enforcement judges each write. Nullability and column order are not compared.
    """
    # types compared without their nullability, nested too (Delta stores array and map elements as nullable)
    want = {f.name: f.dataType.simpleString() for f in expected.fields}
    got = {f.name: f.dataType.simpleString() for f in actual.fields}
    problems: list[str] = []
    missing = [n for n in want if n not in got]
    extra = [n for n in got if n not in want]
    if missing:
        problems.append("missing columns " + ", ".join(missing))
    if extra:
        problems.append("unexpected columns " + ", ".join(extra))
    for name, dtype in want.items():
        if name in got and got[name] != dtype:
            problems.append(f"column {name} is {got[name]}, table has {dtype}")
    if problems:
        raise SchemaMismatchError(f"schema mismatch writing {table}: " + "; ".join(problems))


def as_written(schema: StructType) -> StructType:
    """``schema`` as Delta's writer stores it when a write creates the table: every column, nested field, array
    element and map value nullable (a table created with NOT NULL columns would enforce them as constraints)."""
    nullable = _nullable(schema)
    assert isinstance(nullable, StructType)
    return nullable


def _nullable(data_type: DataType) -> DataType:
    """``data_type`` with every nested field, array element and map value nullable."""
    if isinstance(data_type, StructType):
        return StructType([StructField(f.name, _nullable(f.dataType), True, f.metadata) for f in data_type.fields])
    if isinstance(data_type, ArrayType):
        return ArrayType(_nullable(data_type.elementType), True)
    if isinstance(data_type, MapType):
        return MapType(data_type.keyType, _nullable(data_type.valueType), True)
    return data_type


def check_predicate(table: str, where: Mapping[str, Sequence[str]], partition_by: Sequence[str]) -> None:
    """A replaceWhere predicate may only name partition columns and must list at least one value each."""
    if not where:
        raise StorageError(f"replace_partitions on {table} needs a predicate")
    for column, values in where.items():
        if column not in partition_by:
            raise StorageError(f"replace_partitions on {table}: {column} is not a partition column")
        if not values:
            raise StorageError(f"replace_partitions on {table}: no values given for {column}")
