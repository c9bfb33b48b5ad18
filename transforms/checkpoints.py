"""Local checkpoints: how replay, resolution, evaluation and the what-if compute a reused frame once."""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame

__all__ = ["truncated"]


def truncated(df: DataFrame) -> DataFrame:
    """``df`` behind a local checkpoint (executor storage, memory spilling to disk): later plans read its rows
    instead of carrying its lineage.

    Replay and resolution reuse the same frames many times (every silver table reads the replay stream, every
    effective resource type reads the brokers and their layers). Without this, Spark expands each reuse into a
    copy of the whole upstream plan: on a 17,000-record real log the effective-config plan ran the 1 GiB driver
    out of memory while being planned (also with ``persist``), and replay plus resolution took twice as long.

    The checkpoint is declared lazily (``eager=False``), but with adaptive query execution Spark runs the frame's
    shuffle stages while planning it, so the caller of ``replay_state`` / ``resolve_effective_configs`` pays for
    the shuffles at call time; the final stages run when the caller acts.
    """
    return df.localCheckpoint(eager=False, storageLevel=StorageLevel.MEMORY_AND_DISK)
