"""Data quality: the shape of an expectation, and the ``dq_results`` table every check run appends to.

Expectations are declared in ``transforms.quality.suites`` (one suite per table) and run with Great Expectations
by ``jobs.quality``. Each carries a criticality: a failed ``critical`` expectation stops the run (exit 2, see
``schemas.errors.DataQualityError``); a failed ``warning`` is recorded and reported, never fatal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pyspark.sql.types import (
    BooleanType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

Criticality = Literal["critical", "warning"]
CRITICAL: Final = "critical"
WARNING: Final = "warning"

# Pipeline stages, in run order: bronze after ingest, silver after replay, gold after evaluation.
Stage = Literal["bronze", "silver", "gold"]
STAGES: Final[tuple[Stage, ...]] = ("bronze", "silver", "gold")

# Columns the quality transforms add before validation; they never reach a table.
DERIVED_PREFIX: Final = "dq_"


@dataclass(frozen=True)
class Expectation:
    """One Great Expectations expectation with our id and criticality.

    ``kind`` is the GX expectation type in snake case (``expect_column_values_to_be_in_set``); ``kwargs`` are its
    arguments (``column``, ``value_set``, ``min_value``, ...). ``check_id`` is stable across releases and unique
    within its table, so dashboards can follow one check over time. ``description`` says in one sentence what a
    failure means; it is the message users read.
    """

    check_id: str
    kind: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    criticality: Criticality = CRITICAL
    description: str = ""

    @property
    def column(self) -> str | None:
        """The column the expectation reads, if it reads one."""
        column = self.kwargs.get("column")
        return str(column) if column is not None else None

    @property
    def is_row_level(self) -> bool:
        """Whether the expectation judges each row (and so has an unexpected-row count)."""
        return self.kind.startswith("expect_column_value") and "type" not in self.kind


# One row per (run, stage, table, expectation). `table_name` / `column_name` because TABLE and COLUMN are
# reserved words in Spark's ANSI SQL.
DQ_RESULTS: Final = StructType(
    [
        StructField("run_id", StringType(), False),  # the audit run (or the `dq` run) the checks belong to
        StructField("run_ts", TimestampType(), False),  # when this stage's checks started (UTC)
        StructField("command", StringType(), False),  # run, gate, audit or dq
        StructField("stage", StringType(), False),  # bronze | silver | gold
        StructField("table_name", StringType(), False),
        StructField("check_id", StringType(), False),  # stable id, unique within the table
        StructField("expectation", StringType(), False),  # GX expectation type, e.g. expect_column_values_to_be_in_set
        StructField("column_name", StringType(), True),  # null for table-level expectations
        StructField("criticality", StringType(), False),  # critical | warning
        StructField("success", BooleanType(), False),
        StructField("element_count", LongType(), True),  # rows checked (null for schema-level expectations)
        StructField("unexpected_count", LongType(), True),  # rows failing (null for schema-level expectations)
        StructField("description", StringType(), False),
        StructField("details", StringType(), False),  # JSON: observed value, a few failing values, GX arguments
    ]
)
