"""Stage boundaries: where a transform's plan reuses a frame, the caller decides how that frame is held.

Transforms are pure plans: they never checkpoint, persist or run an action. Where one of their intermediate frames
is read in several places of the plan they return (the replay stream by every silver frame, the broker layers by
every effective resource type), they pass it through a ``Keep`` the caller gives, named for what it is. The
default, ``as_planned``, keeps the plan as it is (tests, small inputs); a job passes a function that caches or
checkpoints the frames it wants computed once (``jobs.stages``).
"""

from __future__ import annotations

from typing import Protocol

from pyspark.sql import DataFrame

__all__ = ["Keep", "as_planned"]


class Keep(Protocol):
    """How a caller holds a transform's reused intermediate frame ``name`` (returns the frame to plan on)."""

    def __call__(self, name: str, df: DataFrame, /) -> DataFrame:
        """The frame later plans read in place of ``df``."""
        ...


def as_planned(name: str, df: DataFrame, /) -> DataFrame:
    """``df`` itself: the plan is left as it is."""
    return df
