"""What a ``kafka-dump-log.sh`` text announces about the files it dumped, without decoding its payloads.

The ``Dumping`` sections (``DumpSection``) tell a caller which records are offsets inside a snapshot and which are
log offsets; ``DumpLogParser`` fills the same sections while it parses. These helpers read only the header lines,
so a caller can learn the sections of a text cheaply, or map a record's line back to its section.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from transforms.decode.text.dumplog import BOOTSTRAP_HEADER, DumpLogParser, DumpSection


def dump_sections(lines: Iterable[str]) -> list[DumpSection]:
    """Describe the ``Dumping`` sections of a dump-log text without decoding its payloads.

    Args:
        lines: The text's lines, in order.

    Returns:
        One ``DumpSection`` per ``Dumping`` line, with its 1-based line range, kind (``LOG_SEGMENT``,
        ``SNAPSHOT``, ``BOOTSTRAP_SNAPSHOT`` or None), ``log_start_offset``, ``snapshot_end_offset`` and
        ``snapshot_epoch``; a text without a ``Dumping`` line but with a header line gets one section
        without a path. Empty when nothing announces a file (e.g. grep output).
    """
    parser = DumpLogParser()
    for line_number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n").lstrip("\ufeff")
        if parser.sections:
            parser.sections[-1].last_line = line_number
        if line.startswith(("Dumping ", "Log starting", "Starting offset", "Snapshot end", BOOTSTRAP_HEADER)):
            for _ in parser.parse_line(line_number, line):
                pass
    return parser.sections


def section_at(sections: Iterable[DumpSection], line_number: int) -> DumpSection | None:
    """The section that holds a line.

    Args:
        sections: Sections of one text, from ``dump_sections`` or ``DumpLogParser.sections``.
        line_number: A 1-based line number, e.g. ``DecodedRecord.line_number``.

    Returns:
        The section whose line range contains the line, or None.
    """
    return next((s for s in sections if s.first_line <= line_number <= s.last_line), None)


def dump_header_info(lines: Iterable[str]) -> dict[str, Any]:
    """Summarise what a dump-log text announces about the files it dumped.

    Args:
        lines: The text's lines, in order.

    Returns:
        ``{"kind", "path", "log_start_offset", "snapshot_end_offset", "snapshot_epoch"}`` of the first section
        (all None when there is none) plus ``"sections"``: every section as a dict (see ``DumpSection``).
    """
    sections = dump_sections(lines)
    first = sections[0] if sections else None
    return {
        "kind": first.kind if first else None,
        "path": first.path if first else None,
        "log_start_offset": first.log_start_offset if first else None,
        "snapshot_end_offset": first.snapshot_end_offset if first else None,
        "snapshot_epoch": first.snapshot_epoch if first else None,
        "sections": [asdict(section) for section in sections],
    }
