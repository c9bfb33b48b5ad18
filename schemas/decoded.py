"""In-memory shapes shared by every decoder (binary, dump-log text, JSON lines).

A decoder turns one input file into a stream of ``DecodedRecord`` and ``QuarantineItem``. Every byte region or
line of the input ends up in exactly one of them (or is a known, non-record line such as a dump-log header), so
nothing is dropped silently. These objects never leave the executor that decoded them: the ingest transform
redacts them and converts them to Arrow rows of the bronze tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

InputKind = Literal["LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT", "DUMP_LOG_TEXT", "JSON_LINES"]

INPUT_KINDS: tuple[InputKind, ...] = ("LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT", "DUMP_LOG_TEXT", "JSON_LINES")


@dataclass(slots=True)
class DecodedRecord:
    """One metadata or control record.

    ``data`` is the record body as kafka-dump-log prints it: schema field names with a lower-case first letter,
    UUIDs as 22-char URL-safe base64, bytes as base64, float64 as float, nested structs as dicts, arrays as
    lists. Tagged fields appear only when present on the wire (or in the text). Unknown tagged fields are kept
    under ``"_unknownTaggedFields": {"<tag>": "<base64>"}``; a body that could not be decoded with any known
    schema (unknown apiKey or version) is kept as ``{"_raw": "<base64 of the body>"}`` with ``is_unknown=True``.
    """

    offset: int  # absolute log offset; for snapshots the offset *inside* the snapshot file
    record_type: str  # UPPER_SNAKE name, e.g. CONFIG_RECORD, or LEADER_CHANGE/SNAPSHOT_HEADER for control records
    api_key: int | None  # metadata apiKey; the control type id for control records; None when not known
    record_version: int | None
    data: dict[str, Any]
    is_control: bool = False
    is_unknown: bool = False
    batch_base_offset: int | None = None
    leader_epoch: int | None = None
    timestamp_ms: int | None = None
    position: int | None = None  # byte position of the batch in a binary file
    line_number: int | None = None  # 1-based line in a text input


@dataclass(slots=True)
class QuarantineItem:
    """An input region, line or record that could not be decoded, with where it was and why."""

    reason: str
    excerpt: str = ""  # short, printable; the ingest transform redacts it again before it is stored
    position: int | None = None  # byte position in a binary file
    length: int | None = None  # bytes covered by this region
    line_number: int | None = None
    offset: int | None = None  # the record or batch offset when known
    extra: dict[str, Any] = field(default_factory=dict)
