"""A run setting that one cluster of a fleet may set for itself: ``--kafka-version 4.2`` for every cluster, and
``--kafka-version CLUSTER=4.1.2`` for one (docs/contract.md §2).

``PerCluster(default, overrides)``: the value of the run, and the clusters that have their own. Transforms accept
either a plain value or a ``PerCluster`` (``per_cluster`` makes the second of the first); the Column of a setting is
``transforms.kit.per_cluster.per_cluster_column``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from schemas.metadata_version import MetadataVersion

T = TypeVar("T")
U = TypeVar("U")

__all__ = ["KafkaVersions", "PerCluster", "Targets", "per_cluster"]


@dataclass(frozen=True)
class PerCluster(Generic[T]):
    """A setting's value for the run (``default``) and the clusters with their own (``overrides``, in order)."""

    default: T
    overrides: tuple[tuple[str, T], ...] = ()

    def of(self, cluster_id: str) -> T:
        """The value one cluster takes."""
        return dict(self.overrides).get(cluster_id, self.default)

    @property
    def clusters(self) -> tuple[str, ...]:
        """The clusters with their own value."""
        return tuple(cluster for cluster, _ in self.overrides)

    def values(self, clusters: Iterable[str] | None = None) -> list[T]:
        """The distinct values taken by ``clusters`` (by default: the run's and every override), in order."""
        taken = [self.default, *(v for _, v in self.overrides)] if clusters is None else [self.of(c) for c in clusters]
        distinct: list[T] = []
        for value in taken:
            if value not in distinct:
                distinct.append(value)
        return distinct

    def groups(self) -> list[tuple[T, list[str]]]:
        """The overriding values other than the run's, each with its clusters, in order."""
        grouped: list[tuple[T, list[str]]] = []
        for cluster, value in self.overrides:
            if value == self.default:
                continue
            for known, clusters in grouped:
                if known == value:
                    clusters.append(cluster)
                    break
            else:
                grouped.append((value, [cluster]))
        return grouped

    def map(self, fn: Callable[[T], U]) -> PerCluster[U]:
        """The setting with ``fn`` applied to every value."""
        return PerCluster(fn(self.default), tuple((c, fn(v)) for c, v in self.overrides))


def per_cluster(value: T | PerCluster[T]) -> PerCluster[T]:
    """``value`` as a ``PerCluster`` (a plain value: the run's, no cluster of its own)."""
    return value if isinstance(value, PerCluster) else PerCluster(value)


# ``--kafka-version``: the release every broker runs (None: inferred per broker), for the run and per cluster
KafkaVersions = str | PerCluster[str | None] | None
# ``--target-mv``: the metadata.version audited, for the run and per cluster
Targets = MetadataVersion | PerCluster[MetadataVersion]
