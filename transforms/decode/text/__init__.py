"""Pure-Python parsers for text inputs: kafka-dump-log output, JSON lines, server.properties, input kinds.

Nothing here reads files: callers (the ingest job) pass lines, text or the first bytes of a file.
"""

from transforms.decode.text.detect import (
    base_offset_from_name,
    detect_input_kind,
    is_ignored_file,
    snapshot_end_offset_from_name,
    snapshot_epoch_from_name,
)
from transforms.decode.text.dumplog import DumpLogParser, DumpSection, parse_dump_log
from transforms.decode.text.dumplog_sections import dump_header_info, dump_sections, section_at
from transforms.decode.text.jsonlines import data_problems, parse_json_lines
from transforms.decode.text.properties import parse_server_properties

__all__ = [
    "DumpLogParser",
    "DumpSection",
    "base_offset_from_name",
    "data_problems",
    "detect_input_kind",
    "dump_header_info",
    "dump_sections",
    "is_ignored_file",
    "parse_dump_log",
    "parse_json_lines",
    "parse_server_properties",
    "section_at",
    "snapshot_end_offset_from_name",
    "snapshot_epoch_from_name",
]
