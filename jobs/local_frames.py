"""Frames of rows the driver built (run rows, data-quality results, ingested-file rows) as local relations.

``spark.createDataFrame`` of Python rows plans them as an RDD: every action over the frame, and every write of it,
is a Spark job. The same rows handed over as an Arrow table become a local relation: the planner folds it like a
``VALUES`` list, and the storage backend writes a frame that only reads local relations without Spark
(``jobs.storage.deltars``: pyarrow, no job). A gate writes several such frames (its ``ingested_files`` rows, a
``dq_results`` batch per tier, its ``audit_runs`` row): each was a Spark write job of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StructType


def local_frame(spark: SparkSession, rows: Sequence[Sequence[Any]], schema: StructType) -> DataFrame:
    """``rows`` (tuples in ``schema``'s field order; maps as dicts, timestamps as aware datetimes) as a frame whose
    plan is a local relation with exactly ``schema``."""
    arrow_schema = to_arrow_schema(schema, timezone="UTC")
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema.fields]
    arrays = [pa.array(list(values), type=field.type) for values, field in zip(columns, arrow_schema, strict=True)]
    return spark.createDataFrame(pa.Table.from_arrays(arrays, schema=arrow_schema), schema=schema)
