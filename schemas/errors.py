"""The one error hierarchy of kraft-audit.

Every error a user can cause (bad arguments, bad config, unreadable input, a table in the wrong shape) is an
``AuditError``; the CLI turns it into a one-line message on stderr and exit code 2. Anything else is a bug and
keeps its traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class AuditError(Exception):
    """Base class for errors caused by usage, configuration or input (exit code 2)."""

    exit_code: int = 2


class UsageError(AuditError):
    """Bad command-line usage: unknown MV, conflicting options, missing paths."""


class ConfigError(AuditError):
    """Invalid YAML configuration: constraint catalogs, waivers, change files, pipeline settings."""


class InputError(AuditError):
    """Input that cannot be read at all (missing file, unreadable directory)."""


class StorageError(AuditError):
    """A Delta table cannot be read or written as asked."""


class SchemaMismatchError(StorageError):
    """A write whose DataFrame schema differs from the table's schema (never cast silently)."""


class UnsupportedTableError(StorageError):
    """A table needs reader features the active backend does not implement (deletion vectors, column mapping)."""


class DataQualityError(AuditError):
    """A critical data-quality expectation failed; the run stops before writing results."""


def validation_problems(exc: ValidationError) -> str:
    """A pydantic ``ValidationError`` as one line for a ``ConfigError``: ``location: message`` per error, ``; ``-joined.

    The location is the dotted field path (``ops.0.value``), omitted when the error is the model's own; the
    ``Value error, `` prefix pydantic puts on a validator's ``ValueError`` is dropped, so the message reads as the
    validator wrote it.
    """
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)
