"""Instants the transforms stamp or compare: every one is a timezone-aware UTC datetime."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["as_utc"]


def as_utc(moment: datetime) -> datetime:
    """A timezone-aware UTC datetime; a naive one is taken as UTC (the sessions run in UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
