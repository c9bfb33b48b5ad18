"""Stage boundaries of a job: which intermediate frames are computed once and read back from executor storage.

Transforms are pure plans; where their plan reuses a frame they pass it through a ``Keep``
(``transforms.checkpoints``). ``Checkpoints`` is the jobs' ``Keep``: a local checkpoint (executor storage,
memory spilling to disk) per named frame, so later plans read its rows instead of carrying its lineage.

Why a checkpoint and not ``persist``: replay and resolution reuse the same frames many times (every silver table
reads the replay stream, every effective resource type reads the brokers and their layers). Without a cut in the
lineage Spark expands each reuse into a copy of the whole upstream plan: on a 17,000-record real log the
effective-config plan ran the 1 GiB driver out of memory while being planned (also with ``persist``).

The checkpoint is declared lazily (``eager=False``); with adaptive query execution Spark runs the frame's
shuffle stages when a plan over it is first planned, and its final stage with the first action that reads it.
"""

from __future__ import annotations

from collections.abc import Collection

from pyspark import StorageLevel
from pyspark.sql import DataFrame

__all__ = ["Checkpoints", "truncated"]


def truncated(df: DataFrame) -> DataFrame:
    """``df`` behind a lazy local checkpoint (see the module docstring)."""
    return df.localCheckpoint(eager=False, storageLevel=StorageLevel.MEMORY_AND_DISK)


class Checkpoints:
    """A ``Keep`` that checkpoints each named frame once: asked again for the same name, it returns the frame it
    kept (so two plans over the same inputs, e.g. the effective configurations and the resolution findings of one
    state, share their intermediates). Use one instance per set of inputs.

    Args:
        only: the names to checkpoint (others are returned as planned); None = every name.
    """

    def __init__(self, only: Collection[str] | None = None) -> None:
        """Nothing kept yet."""
        self._only = None if only is None else frozenset(only)
        self.kept: dict[str, DataFrame] = {}

    def __call__(self, name: str, df: DataFrame, /) -> DataFrame:
        """The checkpointed ``df`` (the one kept before under ``name``, if any)."""
        if name in self.kept:
            return self.kept[name]
        if self._only is not None and name not in self._only:
            return df
        self.kept[name] = truncated(df)
        return self.kept[name]
