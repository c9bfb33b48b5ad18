"""Python's cycle collector paused around work that allocates many small, acyclic objects.

The per-cluster replay and the per-file decoder build hundreds of thousands of tuples, lists and dicts that live
until their batch is returned. Each allocation burst makes the cycle collector scan every tracked object again,
though none of them is part of a cycle: reference counting frees them all. With the collector paused, one
cluster of the benchmark's L (18,000 records) replays in 75-85 ms instead of 121-131 ms (README, Performance).
Garbage cycles made meanwhile, if any, are collected once the collector runs again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["cycle_collection_paused"]


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause automatic cycle collection inside the block; restore it after (left off if it was off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
