"""Violation lifecycle across runs (the ``violation_status`` table) and waivers (``--waivers FILE``).

``VIOLATION_STATUS`` holds one row per violation identity — (cluster, target level, resource type, resource name,
node id, config, constraint) — with its state across the audits that evaluated it:

* ``open``: seen in the latest run that evaluated its constraint, never resolved before;
* ``resolved``: absent from a later run of the same cluster and target level that evaluated its constraint;
* ``reopened``: seen again after having been resolved.

A waivers file accepts known violations for a while::

    waivers:
      - id: WVR-101                      # unique across every --waivers file
        scope:                           # any non-empty subset; `*` and `?` are glob wildcards
          cluster_id: prod-*
          resource_type: topic           # BROKER | TOPIC | GROUP | CLIENT_METRICS | CLIENT (case-insensitive)
          resource_name: orders
          constraint_id: topic-min-isr-not-above-rf
          config_name: min.insync.replicas
        owner: team-payments
        reason: RF raised in the Q3 rebalance (JIRA PAY-1234)
        expires: 2026-09-30             # YYYY-MM-DD; the waiver applies through that UTC day

Waived violations stay in ``violations``; they are marked in ``violation_status``, counted in the run summary and
do not make the verdict fail. A waiver past its ``expires`` day is ignored and flagged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator
from pyspark.sql.types import (
    BooleanType,
    DateType,
    IntegerType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from schemas.errors import ConfigError, validation_problems
from schemas.kafka_vocabulary import RESOURCE_TYPES
from schemas.yaml_text import load_user_yaml

STATUS_VALUES: Final = ("open", "resolved", "reopened")
STATUS_OPEN: Final = "open"
STATUS_RESOLVED: Final = "resolved"
STATUS_REOPENED: Final = "reopened"

# The columns that, with cluster_id and target_level, identify a violation across runs.
VIOLATION_KEY: Final = ("resource_type", "resource_name", "node_id", "config_name", "constraint_id")

VIOLATION_STATUS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("target_level", IntegerType(), False),
        StructField("target_mv", StringType(), False),
        # sha-256 of the identity (cluster, level and VIOLATION_KEY): stable across runs, one row per value
        StructField("violation_id", StringType(), False),
        StructField("resource_type", StringType(), False),
        StructField("resource_name", StringType(), False),
        StructField("node_id", IntegerType(), True),  # as in VIOLATIONS: the failing broker view of a topic expression
        StructField("config_name", StringType(), False),
        StructField("constraint_id", StringType(), False),
        StructField("status", StringType(), False),  # one of STATUS_VALUES
        # what the latest run that saw the violation reported (values are already redacted in VIOLATIONS)
        StructField("severity", StringType(), False),
        StructField("value", StringType(), True),
        StructField("message", StringType(), False),
        StructField("remediation", StringType(), True),
        StructField("first_seen_run_id", StringType(), False),
        StructField("first_seen_ts", TimestampType(), False),
        StructField("last_seen_run_id", StringType(), False),
        StructField("last_seen_ts", TimestampType(), False),
        StructField("resolved_run_id", StringType(), True),  # set only while status is resolved
        StructField("resolved_ts", TimestampType(), True),
        StructField("times_seen", IntegerType(), False),  # runs that reported it
        StructField("reopened_count", IntegerType(), False),
        # the active waiver matching the row as of the last applied run (latest expiry wins)
        StructField("waived", BooleanType(), False),
        StructField("waiver_id", StringType(), True),
        StructField("waiver_owner", StringType(), True),
        StructField("waiver_expires", DateType(), True),
        # the last run applied to this cluster and target level: applying it (or an older run) again is a no-op
        StructField("applied_run_id", StringType(), False),
        StructField("applied_run_ts", TimestampType(), False),
    ]
)
VIOLATION_STATUS_PARTITIONS: Final = ("cluster_id",)

# The validated waivers of a run as a DataFrame; scope globs are translated to anchored Java regular expressions
# (null = any value).
WAIVERS: Final = StructType(
    [
        StructField("waiver_id", StringType(), False),
        StructField("cluster_id_regex", StringType(), True),
        StructField("resource_type_regex", StringType(), True),
        StructField("resource_name_regex", StringType(), True),
        StructField("constraint_id_regex", StringType(), True),
        StructField("config_name_regex", StringType(), True),
        StructField("owner", StringType(), False),
        StructField("reason", StringType(), False),
        StructField("expires", DateType(), False),
    ]
)
WAIVER_SCOPE_FIELDS: Final = ("cluster_id", "resource_type", "resource_name", "constraint_id", "config_name")

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def glob_to_regex(pattern: str) -> str:
    """An anchored Java/Spark regular expression matching exactly what the glob ``pattern`` matches.

    ``*`` is any run of characters, ``?`` one character; every other character is literal (escaped with a
    backslash unless it is a letter or digit, which Java's regex syntax allows for any non-alphabetic character).
    """
    parts = []
    for char in pattern:
        if char == "*":
            parts.append(".*")
        elif char == "?":
            parts.append(".")
        elif char.isalnum() and char.isascii():
            parts.append(char)
        elif char.isalpha():
            parts.append(char)  # a non-ASCII letter: escaping it would be an error in Java's syntax
        else:
            parts.append("\\" + char)
    return "^" + "".join(parts) + "$"


class WaiverScope(BaseModel):
    """Which violations a waiver covers: every field given must match (globs allowed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cluster_id: str | None = None
    resource_type: str | None = None
    resource_name: str | None = None
    constraint_id: str | None = None
    config_name: str | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        # broker names are node ids: YAML reads `resource_name: 1` as an int
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("resource_type")
    @classmethod
    def _resource_type(cls, value: str | None) -> str | None:
        if value is None:
            return None
        upper = value.upper()
        if not any(c in upper for c in "*?") and upper not in RESOURCE_TYPES:
            raise ValueError(f"resource_type {value!r} is not one of {', '.join(RESOURCE_TYPES)}")
        return upper

    @model_validator(mode="after")
    def _not_empty(self) -> WaiverScope:
        given = {name: getattr(self, name) for name in WAIVER_SCOPE_FIELDS if getattr(self, name) is not None}
        if not given:
            raise ValueError(f"scope needs at least one of {', '.join(WAIVER_SCOPE_FIELDS)}")
        blank = [name for name, value in given.items() if not value.strip()]
        if blank:
            raise ValueError(f"scope {', '.join(blank)} must not be blank")
        return self


class Waiver(BaseModel):
    """One accepted violation scope, with who accepted it, why, and until when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    scope: WaiverScope
    owner: str
    reason: str
    expires: date

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("expires", mode="before")
    @classmethod
    def _strict_date(cls, value: Any) -> Any:
        # pydantic would read an int as a Unix timestamp and accept datetimes; a waiver date is a calendar day
        if isinstance(value, datetime):
            raise ValueError(f"expires must be a date YYYY-MM-DD, not a date-time ({value.isoformat()})")
        if isinstance(value, date):
            return value
        if isinstance(value, str) and _DATE.fullmatch(value.strip()):
            try:
                return date.fromisoformat(value.strip())
            except ValueError as error:
                raise ValueError(f"expires {value!r} is not a valid date ({error})") from None
        raise ValueError(f"expires must be a date YYYY-MM-DD, got {value!r}")

    @field_validator("id", "owner", "reason")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    def is_expired(self, today: date) -> bool:
        """A waiver applies through its ``expires`` day; after it, it is ignored."""
        return today > self.expires

    def to_row(self) -> tuple[Any, ...]:
        """The waiver as a ``WAIVERS`` row."""
        patterns = [getattr(self.scope, name) for name in WAIVER_SCOPE_FIELDS]
        regexes = [None if p is None else glob_to_regex(p) for p in patterns]
        return (self.id, *regexes, self.owner, self.reason, self.expires)


class WaiverFile(BaseModel):
    """A waivers file: ids unique within it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    waivers: tuple[Waiver, ...] = ()


def parse_waivers(data: Any, source: str) -> WaiverFile:
    """Validate an already-parsed waivers file.

    Raises:
        ConfigError: naming ``source``, the waiver (its id, or ``#n`` when it has none) and the problem.
    """
    if data is None:
        return WaiverFile(source=source)
    if not isinstance(data, Mapping) or set(data) - {"waivers"}:
        raise ConfigError(f"{source}: a waivers file is a mapping with a single `waivers:` list")
    entries = data.get("waivers") or []
    if not isinstance(entries, list):
        raise ConfigError(f"{source}: `waivers` must be a list")
    parsed: list[Waiver] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        name = entry.get("id") if isinstance(entry, Mapping) else None
        where = f"waiver {name}" if name not in (None, "") else f"waiver #{index + 1}"
        try:
            waiver = Waiver.model_validate(entry)
        except ValidationError as exc:
            raise ConfigError(f"{source}: {where}: {validation_problems(exc)}") from None
        if waiver.id in seen:
            raise ConfigError(f"{source}: waiver {waiver.id}: id is defined twice")
        seen.add(waiver.id)
        parsed.append(waiver)
    return WaiverFile(source=source, waivers=tuple(parsed))


def load_waivers_text(text: str, source: str) -> WaiverFile:
    """Parse and validate the text of a waivers file (:func:`load_user_yaml` with dates kept as text: the
    ``expires`` validator parses them and names the waiver, + :func:`parse_waivers`)."""
    return parse_waivers(load_user_yaml(text, source, dates_as_text=True), source)


def merge_waiver_files(files: list[WaiverFile]) -> tuple[Waiver, ...]:
    """The waivers of every file; an id defined in two files is a ConfigError naming both."""
    first_source: dict[str, str] = {}
    merged: list[Waiver] = []
    for waiver_file in files:
        for waiver in waiver_file.waivers:
            if waiver.id in first_source:
                raise ConfigError(
                    f"{first_source[waiver.id]} and {waiver_file.source}: waiver {waiver.id}: id is defined twice"
                )
            first_source[waiver.id] = waiver_file.source
            merged.append(waiver)
    return tuple(merged)


def expired_summary(waivers: tuple[Waiver, ...], today: date) -> list[dict[str, str]]:
    """The expired waivers as the run summary lists them (id, owner, expires), sorted by id."""
    return [
        {"id": w.id, "owner": w.owner, "expires": w.expires.isoformat()}
        for w in sorted(waivers, key=lambda w: w.id)
        if w.is_expired(today)
    ]
