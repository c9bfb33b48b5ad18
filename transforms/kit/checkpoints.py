"""Stage boundaries: where a transform's plan reuses a frame, the caller decides how that frame is held.

Transforms are pure plans: they never checkpoint, persist or run an action. Where one of their intermediate frames
is read in several places of the plan they return (the replay pass by every silver frame, the broker layers by
every effective resource type), they pass it through a ``Keep`` the caller gives, named for what it is. The
default, ``as_planned``, keeps the plan as it is (tests, small inputs); a job passes a function that caches or
checkpoints the frames it wants computed once (``jobs.runtime.holding``).

A transform may hand its frame to a ``Keep`` as a ``Plan``: the frame, or a function that builds it. A keep that
already holds a frame of that name returns it without calling the function, so a second plan over the same kept
intermediates (the resolution findings, the remediation fallbacks) does not build their plans again only to
discard them. Building a DataFrame is not free in PySpark: every operation is analysed on the spot, and the broker
layers of a small gate took about a second to build each time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pyspark.sql import DataFrame

__all__ = ["Keep", "Plan", "as_planned", "planned"]

Plan = DataFrame | Callable[[], DataFrame]


class Keep(Protocol):
    """How a caller holds a transform's reused intermediate frame ``name`` (returns the frame to plan on)."""

    def __call__(self, name: str, plan: Plan, /) -> DataFrame:
        """The frame later plans read in place of ``plan``'s."""
        ...


def planned(plan: Plan) -> DataFrame:
    """The frame of ``plan`` (built now if ``plan`` is a function)."""
    return plan if isinstance(plan, DataFrame) else plan()


def as_planned(name: str, plan: Plan, /) -> DataFrame:
    """``plan``'s frame itself: the plan is left as it is."""
    return planned(plan)
