"""A per-cluster setting (``schemas.per_cluster``) as a Column: the run's value, or the cluster's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pyspark.sql import Column
from pyspark.sql import functions as F

from schemas.per_cluster import PerCluster, Targets, per_cluster

T = TypeVar("T")

__all__ = ["column_of", "per_cluster_column", "target_level_column", "target_name_column"]


def per_cluster_column(
    setting: T | PerCluster[T], to_column: Callable[[T], Column], *, cluster: Column | None = None
) -> Column:
    """``to_column`` of the value the row's cluster takes (``cluster``: the row's ``cluster_id`` by default).

    A setting without overrides is ``to_column`` of its value, the plan the run-wide setting always had; otherwise a
    ``CASE`` over the clusters with their own value, the run's value for every other cluster.
    """
    values = per_cluster(setting)
    groups = values.groups()
    if not groups:
        return to_column(values.default)
    cluster_id = F.col("cluster_id") if cluster is None else cluster
    chosen: Column | None = None
    for value, clusters in groups:
        matches = cluster_id.isin(clusters)
        chosen = F.when(matches, to_column(value)) if chosen is None else chosen.when(matches, to_column(value))
    assert chosen is not None
    return chosen.otherwise(to_column(values.default))


def column_of(value: int | Column) -> Column:
    """A value that is the same for every row (a literal) or a Column already (a per-cluster one)."""
    return value if isinstance(value, Column) else F.lit(value)


def target_level_column(target: Targets) -> Column:
    """The feature level of the metadata.version the row's cluster is audited at (``--target-mv``)."""
    return per_cluster_column(target, lambda mv: F.lit(mv.level).cast("int"))


def target_name_column(target: Targets) -> Column:
    """The name of the metadata.version the row's cluster is audited at (``4.4-IV2``)."""
    return per_cluster_column(target, lambda mv: F.lit(mv.name))
