"""``finding_rows``: the one place a finding row is shaped (``schemas.gold.FINDING_ROWS``).

Replay, resolution and the upgrade effects each raise their own kinds of finding; they differ in what they say,
not in the row they write, so each passes its columns here and gets ``FINDING_ROWS`` back.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.gold import FINDING_ROWS

__all__ = ["finding_rows"]


def _string(value: str | Column | None) -> Column:
    if value is None:
        return F.lit(None).cast("string")
    return value if isinstance(value, Column) else F.lit(str(value))


def finding_rows(
    df: DataFrame,
    *,
    kind: str | Column,
    message: Column,
    offset: Column | None,
    resource_type: str | Column | None = None,
    resource_name: Column | None = None,
    config_name: Column | None = None,
    blocking: bool = False,
) -> DataFrame:
    """``FINDING_ROWS`` of ``df`` (which must hold ``cluster_id``): one finding per row.

    Args:
        kind: the finding kind (``COVERAGE_GAP``, ...), or a column holding it.
        message: the text the report and the summary show.
        offset: the log offset the finding points at (None: no single record).
        resource_type: a ``ResourceType``, a column, or None for cluster-wide findings.
        resource_name: the resource (``""`` = the cluster default), None for cluster-wide findings.
        config_name: the key, None when the finding is about a whole layer or broker.
        blocking: whether the finding makes the audit's input untrustworthy (``REPLICA_CONFLICT`` only).
    """
    return df.select(
        "cluster_id",
        _string(resource_type).alias("resource_type"),
        _string(resource_name).alias("resource_name"),
        _string(kind).alias("kind"),
        _string(config_name).alias("config_name"),
        message.alias("message"),
        (offset if offset is not None else F.lit(None)).cast("long").alias("offset"),
        F.lit(blocking).alias("is_blocking"),
    ).select(*FINDING_ROWS.fieldNames())
