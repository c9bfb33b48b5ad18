"""Delta table I/O: one engine, delta-spark (``jobs.storage.store``)."""

from __future__ import annotations

from jobs.storage.store import ConcurrentCommitError, DeltaStore, PartitionPredicate, delta_available, open_store
from jobs.storage.table_shape import TABLE_PROPERTIES, table_properties

__all__ = [
    "TABLE_PROPERTIES",
    "ConcurrentCommitError",
    "DeltaStore",
    "PartitionPredicate",
    "delta_available",
    "open_store",
    "table_properties",
]
