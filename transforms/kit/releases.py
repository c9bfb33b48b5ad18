"""Kafka release strings as Columns: the Column twin of ``schemas.kafka_catalog.release_rank``."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

__all__ = ["release_rank_column"]


def release_rank_column(release: Column) -> Column:
    """``major * 1000 + minor`` of a release string such as ``4.2`` or ``4.2.1`` (``"4.2"`` → 4002).

    NULL when the text does not start with two dot-separated integers, never an error: ``try_element_at`` keeps a
    release without a minor part from failing the query under ANSI mode.
    """
    parts = F.split(release, r"\.")
    major = F.try_element_at(parts, F.lit(1)).try_cast("int")
    minor = F.try_element_at(parts, F.lit(2)).try_cast("int")
    return major * 1000 + minor
