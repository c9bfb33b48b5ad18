"""The one error hierarchy of kraft-audit.

Every error a user can cause (bad arguments, bad config, unreadable input, a table in the wrong shape) is an
``AuditError``; the CLI turns it into a one-line message on stderr and exit code 2. Anything else is a bug and
keeps its traceback.
"""

from __future__ import annotations


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
