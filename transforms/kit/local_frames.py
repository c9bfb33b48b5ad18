"""Frames of rows the driver built (rule tables, catalog lookups, run rows, data-quality results) as local relations.

``spark.createDataFrame`` of Python rows checks every value in Python and plans the rows as an RDD of pickled rows:
the planner knows nothing of its size (every join with it shuffles both sides), every scan unpickles the rows in a
Python worker again, and every action over it, every write of it, is a Spark job. The same rows handed over as one
Arrow table become a local relation: its size is known, the planner folds filters and projections over it like a
``VALUES`` list. Building one plans nothing and runs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StructType

__all__ = ["arrow_frame", "local_frame"]


def local_frame(spark: SparkSession, rows: Sequence[Sequence[Any]], schema: StructType | str) -> DataFrame:
    """``rows`` (tuples in ``schema``'s field order; maps as dicts, timestamps as aware datetimes) as a frame whose
    plan is a local relation with exactly ``schema`` (a struct type or its DDL)."""
    struct = _parsed(schema) if isinstance(schema, str) else schema
    arrow_schema = to_arrow_schema(struct, timezone="UTC")
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in struct.fields]
    arrays = [pa.array(list(values), type=field.type) for values, field in zip(columns, arrow_schema, strict=True)]
    return arrow_frame(spark, pa.Table.from_arrays(arrays, schema=arrow_schema), struct)


def arrow_frame(spark: SparkSession, table: pa.Table, schema: StructType) -> DataFrame:
    """``table`` (in the Arrow form of ``schema``, as ``to_arrow_schema`` gives it) as a frame whose plan is a local
    relation with exactly ``schema``."""
    return spark.createDataFrame(table, schema=schema)


def _parsed(ddl: str) -> StructType:
    struct = StructType.fromDDL(ddl)
    if not isinstance(struct, StructType):
        raise TypeError(f"not the DDL of a row: {ddl!r}")
    return struct
