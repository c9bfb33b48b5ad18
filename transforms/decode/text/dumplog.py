"""Parse the text that ``kafka-dump-log.sh --cluster-metadata-decoder`` prints into decoded records.

Line grammar, from ``DumpLogSegments`` (Scala in Kafka ≤ 4.2, Java from 4.3; facts in docs/kafka-semantics.md §3):

* ``Dumping <path>`` opens a section per dumped file; one run may dump several files.
* ``Log starting offset: N`` (``Starting offset: N`` before 3.3), ``Snapshot end offset: O, epoch: E`` or
  ``KRaft bootstrap snapshot`` says what the section's file is.
* Batch line: ``baseOffset: B lastOffset: L count: C ... partitionLeaderEpoch: E ... isControl: b ...
  position: P CreateTime: T size: S magic: 2 compresscodec: none crc: X isvalid: b``.
* Record line: ``| offset: O CreateTime: T keySize: K valueSize: V sequence: -1 headerKeys: []`` followed by
  `` payload: <json>`` for data records, or for control records by `` LeaderChange: {json}`` (4.1+),
  `` SnapshotHeader {json}``, `` SnapshotFooter {json}``, `` KRaftVersion {json}``, `` KRaftVoters {json}``,
  `` controlType: NAME(id)`` (older releases and unknown types) or
  `` endTxnMarker: NAME coordinatorEpoch: N``.
* With ``--skip-record-metadata`` a data record is only `` payload: <json>`` (Scala) or ``| payload: <json>``
  (Java), and a control record is an empty line.
* A payload Kafka could not decode is ``Error at <offset>, skipping. <message>``.
* ``Found N invalid bytes at the end of <file>`` ends a section whose tail is not a valid batch.

Offsets: a record line's own ``offset:`` wins. Without it (``--skip-record-metadata``) the offset is the
batch's ``baseOffset`` plus the record's index within the batch: KRaft batches hold consecutive offsets (the
metadata log is never compacted) and every record prints exactly one line. Without a batch line either, the
line is quarantined because the contract needs an offset. The timestamp of such a record is the batch's
``CreateTime``: the Raft ``BatchBuilder`` writes a timestamp delta of 0 for every record, so each record's
timestamp equals the batch timestamp.

Quarantine: every unusable line gives one ``QuarantineItem`` with ``extra["code"]``: ``DUMP_RECORD_ERROR``
(``Error at``), ``DUMP_INVALID_BYTES`` (with the byte position where the invalid tail starts and its length),
``DUMP_INVALID_BATCH`` (a batch line with ``isvalid: false`` and each of its records: Kafka's log recovery
truncates at such a batch), ``DUMP_NO_OFFSET``, ``DUMP_BAD_JSON`` (not JSON, nested too deep, or a lone surrogate),
``DUMP_BAD_PAYLOAD``, ``DUMP_NO_PAYLOAD``, ``DUMP_LEGACY_BATCH``, ``DUMP_MALFORMED_BATCH`` (also a batch field
outside its bronze column's range), ``DUMP_OUT_OF_RANGE`` (a record's offset or timestamp, or a header's offset,
that no bronze column can hold) and ``DUMP_UNRECOGNISED_LINE``. An unknown record type in a valid payload is kept
as a record with ``is_unknown=True``. Reasons never quote the line (Kafka's ``Error at`` message may quote the
record it could not read); the raw excerpt is redacted by the ingest transform.

Every pattern is anchored or starts at a word boundary, so each line is matched in time linear in its length.

Sections: ``DumpLogParser.sections`` (filled while parsing) and ``dump_sections`` (``dumplog_sections``) describe
each ``Dumping`` section with its line range, kind and announced offsets, so a caller can tell which records are
offsets inside a snapshot (``snapshot_end_offset`` set) and which are log offsets. A line not covered by any section
(text without a ``Dumping`` line, e.g. grep output) belongs to no section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from schemas.decoded import DecodedRecord, InputKind, QuarantineItem
from schemas.record_types import (
    CLIENT_CONFIG_RECORD,
    CONTROL_RECORD_IDS,
    CONTROL_RECORD_TYPES,
    METADATA_RECORD_API_KEYS,
    UNKNOWN_RECORD,
)
from transforms.decode.text.detect import (
    base_offset_from_name,
    detect_input_kind,
    snapshot_end_offset_from_name,
    snapshot_epoch_from_name,
)
from transforms.decode.text.safejson import load_json
from transforms.kit.bounds import INT32_MAX, INT32_MIN, INT64_MAX, TIMESTAMP_MS_MAX, VERSION_MAX, fits_int64, is_int

EXCERPT_CHARS: Final = 120

_DUMPING: Final = re.compile(r"Dumping (?P<path>.+)")
_LOG_START: Final = re.compile(r"(?:Log starting|Starting) offset: (?P<offset>\d+)")
_SNAPSHOT_END: Final = re.compile(r"Snapshot end offset: (?P<offset>\d+), epoch: (?P<epoch>\d+)")
BOOTSTRAP_HEADER: Final = "KRaft bootstrap snapshot"
_INVALID_BYTES: Final = re.compile(r"Found (?P<count>\d+) invalid bytes at the end of (?P<file>.+)")
# \b: a match may only start where a word starts, else findall retries every suffix of a long word (quadratic).
_BATCH_FIELD: Final = re.compile(r"\b(\w+): (\S+)")
_LEGACY_BATCH: Final = re.compile(r"offset: -?\d+ position: \d+ ")
_RECORD: Final = re.compile(
    r"\| ?offset: (?P<offset>-?\d+) (?P<ts_type>\w+): (?P<ts>-?\d+) keySize: -?\d+ valueSize: -?\d+"
    r"(?: sequence: -?\d+ headerKeys: \[[^\]]*\])?(?: isValid: \w+ crc: \d+\}?)?(?P<rest>.*)"
)
# Scala --skip-record-metadata prints " payload:", Java "| payload:"; grep -o output drops the lead.
_PAYLOAD_ONLY: Final = re.compile(r"\s*(?:\| ?)?payload: (?P<payload>.*)")
_REST_PAYLOAD: Final = re.compile(r" (?:key: .*? )?payload: (?P<payload>.*)")
_REST_CONTROL_JSON: Final = re.compile(
    r" (?P<label>LeaderChange:|SnapshotHeader|SnapshotFooter|KRaftVersion|KRaftVoters) (?P<json>\{.*\})\s*"
)
_REST_CONTROL_TYPE: Final = re.compile(r" controlType: (?P<name>\w+)\((?P<id>-?\d+)\)\s*")
_REST_END_TXN: Final = re.compile(r" endTxnMarker: (?P<name>\w+) coordinatorEpoch: (?P<epoch>-?\d+)\s*")
_ERROR_PAYLOAD: Final = re.compile(r"Error at (?:offset )?(?P<offset>-?\d+), skipping\.\s?(?P<message>.*)")
# stderr lines of the tool that end up in the text when it was captured with 2>&1: no records in them.
_TOOL_NOTES: Final = re.compile(
    r"Ignoring unknown file .*|Non-consecutive offsets in .*|\s+-?\d+ is followed by -?\d+\s*"
)
# The command line that produced the dump is often pasted above it (``$ bin/kafka-dump-log.sh ... --files ...``).
# Two searches, not one ``.*kafka-dump-log\s.*--files.*`` fullmatch, which backtracks quadratically on a long
# line repeating "kafka-dump-log ".
_TOOL_COMMAND: Final = re.compile(r"\bkafka-dump-log(?:\.sh|\.bat)?\s")
_FILES_OPTION: Final = re.compile(r"--files\b")
# Kafka's own messages after "Error at N, skipping." that quote nothing of the record; any other message is
# dropped (it may quote the bytes Kafka could not read).
_SAFE_ERROR_MESSAGE: Final = re.compile(r"Unknown metadata id -?\d{1,10}")
_INT64_FIELDS: Final = ("baseOffset", "lastOffset", "position", "size")

_CONTROL_LABELS: Final[dict[str, str]] = {
    "LeaderChange:": "LEADER_CHANGE",
    "SnapshotHeader": "SNAPSHOT_HEADER",
    "SnapshotFooter": "SNAPSHOT_FOOTER",
    "KRaftVersion": "KRAFT_VERSION",
    "KRaftVoters": "KRAFT_VOTERS",
}
_TIMESTAMP_TYPES: Final = frozenset({"CreateTime", "LogAppendTime"})


@dataclass(slots=True)
class DumpSection:
    """One ``Dumping <path>`` section of a dump-log text (one dumped file)."""

    path: str | None  # as printed after "Dumping"; None for text that starts without a Dumping line
    kind: InputKind | None  # LOG_SEGMENT, SNAPSHOT or BOOTSTRAP_SNAPSHOT; None when nothing tells
    first_line: int  # 1-based, the Dumping line (or the first line of the text)
    last_line: int  # 1-based, inclusive
    log_start_offset: int | None = None  # from "Log starting offset: N"
    snapshot_end_offset: int | None = None  # exclusive end offset from "Snapshot end offset: O, epoch: E"
    snapshot_epoch: int | None = None


@dataclass(slots=True)
class _Batch:
    base_offset: int
    last_offset: int
    leader_epoch: int | None
    position: int | None
    timestamp_ms: int | None
    is_control: bool
    is_valid: bool
    line_number: int
    next_index: int = 0


def _excerpt(line: str) -> str:
    return line[:EXCERPT_CHARS]


def _quarantine(line_number: int, line: str, code: str, reason: str, offset: int | None = None) -> QuarantineItem:
    return QuarantineItem(
        reason=reason, excerpt=_excerpt(line), line_number=line_number, offset=offset, extra={"code": code}
    )


def _as_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:  # not a number, or more than 4300 digits (Python's int-parsing limit)
        return None


def _int_in(text: str | None, low: int, high: int) -> int | None:
    """The integer ``text`` spells when it lies in ``low..high``, else None."""
    value = _as_int(text)
    return value if value is not None and low <= value <= high else None


def _is_tool_note(line: str) -> bool:
    if _TOOL_NOTES.fullmatch(line):
        return True
    command = _TOOL_COMMAND.search(line)
    return command is not None and _FILES_OPTION.search(line, command.end()) is not None


class DumpLogParser:
    """Single-pass parser of one dump-log text; ``sections`` is complete once ``parse`` is exhausted."""

    def __init__(self) -> None:
        """Start with no sections and no current batch."""
        self.sections: list[DumpSection] = []
        self._batch: _Batch | None = None
        self._valid_bytes = 0  # end of the last printed batch: where trailing invalid bytes start

    def parse(self, lines: Iterable[str]) -> Iterator[DecodedRecord | QuarantineItem]:
        """Turn dump-log lines into records and quarantine items.

        Args:
            lines: The text's lines, with or without line terminators, in order.

        Yields:
            One ``DecodedRecord`` per record line (data or control) and one ``QuarantineItem`` per line
            that cannot be used, each with its 1-based ``line_number``. Header lines, batch lines, blank
            lines and the tool's stderr notes yield nothing (they are described by ``sections``).
        """
        for line_number, raw in enumerate(lines, start=1):
            line = raw.rstrip("\r\n")
            if line_number == 1:
                line = line.lstrip("\ufeff")
            if self.sections:
                self.sections[-1].last_line = line_number
            yield from self.parse_line(line_number, line)

    def _section(self, line_number: int) -> DumpSection:
        if not self.sections:
            self.sections.append(DumpSection(path=None, kind=None, first_line=line_number, last_line=line_number))
        return self.sections[-1]

    def parse_line(self, line_number: int, line: str) -> Iterator[DecodedRecord | QuarantineItem]:
        """The records and quarantine items of one line (a header line moves the parser to its section)."""
        if not line.strip():
            # Blank lines are control records under --skip-record-metadata, or spacing: nothing to decode.
            return
        if match := _DUMPING.fullmatch(line):
            self._start_section(line_number, match.group("path").strip())
        elif match := _LOG_START.fullmatch(line):
            section = self._section(line_number)
            section.kind = "LOG_SEGMENT"
            section.log_start_offset = _int_in(match.group("offset"), 0, INT64_MAX)
            if section.log_start_offset is None:
                yield _out_of_range(line_number, line, "log starting offset")
        elif match := _SNAPSHOT_END.fullmatch(line):
            section = self._section(line_number)
            section.kind = "SNAPSHOT"
            section.snapshot_end_offset = _int_in(match.group("offset"), 0, INT64_MAX)
            section.snapshot_epoch = _int_in(match.group("epoch"), 0, INT32_MAX)
            if section.snapshot_end_offset is None or section.snapshot_epoch is None:
                yield _out_of_range(line_number, line, "snapshot end offset or epoch")
        elif line.strip() == BOOTSTRAP_HEADER:
            self._section(line_number).kind = "BOOTSTRAP_SNAPSHOT"
        elif line.startswith("baseOffset: "):
            yield from self._parse_batch(line_number, line)
        elif match := _RECORD.fullmatch(line):
            yield self._parse_record(line_number, line, match)
        elif match := _PAYLOAD_ONLY.fullmatch(line):
            yield self._parse_bare_payload(line_number, line, match.group("payload"))
        elif match := _INVALID_BYTES.fullmatch(line.strip()):
            yield self._invalid_bytes(
                line_number, line, _int_in(match.group("count"), 0, INT64_MAX), match.group("file")
            )
        elif _LEGACY_BATCH.match(line):
            yield _quarantine(
                line_number,
                line,
                "DUMP_LEGACY_BATCH",
                "batch line of message format v0/v1; KRaft metadata is always record batch v2",
            )
        elif _is_tool_note(line):
            return
        else:
            yield _quarantine(line_number, line, "DUMP_UNRECOGNISED_LINE", "line is not a kafka-dump-log line shape")

    def _start_section(self, line_number: int, path: str) -> None:
        if self.sections:
            self.sections[-1].last_line = line_number - 1
        kind = detect_input_kind(path, b"")
        self.sections.append(
            DumpSection(
                path=path,
                kind=kind if kind in ("LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT") else None,
                first_line=line_number,
                last_line=line_number,
                log_start_offset=base_offset_from_name(path),
                snapshot_end_offset=snapshot_end_offset_from_name(path),
                snapshot_epoch=snapshot_epoch_from_name(path),
            )
        )
        self._batch = None
        self._valid_bytes = 0

    def _parse_batch(self, line_number: int, line: str) -> Iterator[QuarantineItem]:
        fields = dict(_BATCH_FIELD.findall(line))
        base_offset = _as_int(fields.get("baseOffset"))
        last_offset = _as_int(fields.get("lastOffset"))
        if base_offset is None or last_offset is None or last_offset < base_offset:
            self._batch = None
            yield _quarantine(
                line_number, line, "DUMP_MALFORMED_BATCH", "batch line without usable baseOffset/lastOffset"
            )
            return
        timestamp_ms = next((_as_int(fields[name]) for name in _TIMESTAMP_TYPES if name in fields), None)
        position = _as_int(fields.get("position"))
        size = _as_int(fields.get("size"))
        if problem := _batch_range_problem(fields, timestamp_ms):
            # Its records would carry values no bronze column holds: drop the batch context, keep the records.
            self._batch = None
            yield _quarantine(
                line_number, line, "DUMP_MALFORMED_BATCH", problem, _int_in(fields["baseOffset"], 0, INT64_MAX)
            )
            return
        batch = _Batch(
            base_offset=base_offset,
            last_offset=last_offset,
            leader_epoch=_as_int(fields.get("partitionLeaderEpoch")),
            position=position,
            timestamp_ms=timestamp_ms if timestamp_ms is not None and timestamp_ms >= 0 else None,
            is_control=fields.get("isControl") == "true",
            is_valid=fields.get("isvalid", "true") == "true",
            line_number=line_number,
        )
        self._batch = batch
        if position is not None and size is not None:
            self._valid_bytes = position + size
        if not batch.is_valid:
            # Kafka's log recovery truncates at a batch whose CRC fails, so none of its records count.
            yield QuarantineItem(
                reason="batch CRC check failed (isvalid: false); its records are not applied",
                excerpt=_excerpt(line),
                position=position,
                length=size,
                line_number=line_number,
                offset=base_offset,
                extra={"code": "DUMP_INVALID_BATCH"},
            )

    def _batch_for(self, offset: int) -> _Batch | None:
        batch = self._batch
        if batch is not None and batch.base_offset <= offset <= batch.last_offset:
            return batch
        return None

    def _parse_record(self, line_number: int, line: str, match: re.Match[str]) -> DecodedRecord | QuarantineItem:
        offset = _int_in(match.group("offset"), -INT64_MAX - 1, INT64_MAX)
        timestamp = _as_int(match.group("ts"))
        if offset is None or timestamp is None or timestamp > TIMESTAMP_MS_MAX:
            return _out_of_range(line_number, line, "record offset or timestamp", offset)
        batch = self._batch_for(offset)
        if batch is not None:
            batch.next_index = offset - batch.base_offset + 1
            if not batch.is_valid:
                return self._in_invalid_batch(line_number, line, offset, batch)
        timestamp_ms = timestamp if match.group("ts_type") in _TIMESTAMP_TYPES and timestamp >= 0 else None
        rest = match.group("rest")
        if payload := _REST_PAYLOAD.fullmatch(rest):
            return self._decode_payload(line_number, line, payload.group("payload"), offset, timestamp_ms, batch)
        control = self._decode_control(line_number, line, rest, offset)
        if isinstance(control, DecodedRecord):
            control.timestamp_ms = timestamp_ms
            _place(control, batch)
        return control

    def _parse_bare_payload(self, line_number: int, line: str, payload: str) -> DecodedRecord | QuarantineItem:
        batch = self._batch
        if batch is None:
            if error := _ERROR_PAYLOAD.match(payload):
                error_offset = _int_in(error.group("offset"), -INT64_MAX - 1, INT64_MAX)
                if error_offset is None:
                    return _out_of_range(line_number, line, "offset of the Error at line")
                return self._decode_payload(line_number, line, payload, error_offset, None, None)
            return _quarantine(
                line_number,
                line,
                "DUMP_NO_OFFSET",
                "record printed without offset (--skip-record-metadata) and no batch line before it",
            )
        offset = batch.base_offset + batch.next_index
        batch.next_index += 1
        if offset > batch.last_offset:
            return _quarantine(
                line_number,
                line,
                "DUMP_NO_OFFSET",
                f"more record lines than the batch at line {batch.line_number} holds "
                f"(offsets {batch.base_offset}..{batch.last_offset}); offset unknown",
            )
        if not batch.is_valid:
            return self._in_invalid_batch(line_number, line, offset, batch)
        return self._decode_payload(line_number, line, payload, offset, batch.timestamp_ms, batch)

    @staticmethod
    def _in_invalid_batch(line_number: int, line: str, offset: int, batch: _Batch) -> QuarantineItem:
        return _quarantine(
            line_number,
            line,
            "DUMP_INVALID_BATCH",
            f"record of the batch at line {batch.line_number}, whose CRC check failed (isvalid: false)",
            offset=offset,
        )

    @staticmethod
    def _decode_payload(
        line_number: int,
        line: str,
        payload: str,
        offset: int,
        timestamp_ms: int | None,
        batch: _Batch | None,
    ) -> DecodedRecord | QuarantineItem:
        if error := _ERROR_PAYLOAD.match(payload):
            message = error.group("message")
            shown = message if _SAFE_ERROR_MESSAGE.fullmatch(message) else f"a message of {len(message)} characters"
            return _quarantine(
                line_number,
                line,
                "DUMP_RECORD_ERROR",
                f"kafka-dump-log could not decode the record: {shown}",
                offset=offset,
            )
        parsed, _problem, reason = load_json(payload)
        if reason is not None:
            return _quarantine(line_number, line, "DUMP_BAD_JSON", f"payload is not usable JSON: {reason}", offset)
        if not (
            isinstance(parsed, dict)
            and isinstance(parsed.get("type"), str)
            and is_int(parsed.get("version"))
            and 0 <= parsed["version"] <= VERSION_MAX
            and isinstance(parsed.get("data"), dict)
        ):
            return _quarantine(
                line_number,
                line,
                "DUMP_BAD_PAYLOAD",
                'payload is not {"type": string, "version": 0..32767, "data": object}',
                offset,
            )
        record_type = parsed["type"]
        api_key = METADATA_RECORD_API_KEYS.get(record_type)
        record = DecodedRecord(
            offset=offset,
            record_type=record_type,
            api_key=api_key,
            record_version=parsed["version"],
            data=parsed["data"],
            is_unknown=api_key is None and record_type != CLIENT_CONFIG_RECORD,
            timestamp_ms=timestamp_ms,
            line_number=line_number,
        )
        _place(record, batch)
        return record

    @staticmethod
    def _decode_control(line_number: int, line: str, rest: str, offset: int) -> DecodedRecord | QuarantineItem:
        data: dict[str, Any]
        if match := _REST_CONTROL_JSON.fullmatch(rest):
            record_type = _CONTROL_LABELS[match.group("label")]
            parsed, _problem, reason = load_json(match.group("json"))
            if reason is not None:
                return _quarantine(
                    line_number, line, "DUMP_BAD_JSON", f"control record JSON is not usable: {reason}", offset
                )
            version = parsed.get("version") if isinstance(parsed, dict) else None
            if not isinstance(parsed, dict) or (isinstance(version, int) and not 0 <= version <= VERSION_MAX):
                return _quarantine(
                    line_number,
                    line,
                    "DUMP_BAD_PAYLOAD",
                    "control record JSON is not an object with a version in 0..32767",
                    offset,
                )
            data = parsed
            return DecodedRecord(
                offset=offset,
                record_type=record_type,
                api_key=CONTROL_RECORD_IDS[record_type],
                record_version=version if is_int(version) else None,
                data=data,
                is_control=True,
                line_number=line_number,
            )
        if match := _REST_CONTROL_TYPE.fullmatch(rest):
            type_id = _int_in(match.group("id"), INT32_MIN, INT32_MAX)
            if type_id is None:
                return _out_of_range(line_number, line, "control type id", offset)
            known = CONTROL_RECORD_TYPES.get(type_id)
            # Older releases print only the type; the body is not shown, so data stays empty.
            return DecodedRecord(
                offset=offset,
                record_type=known or UNKNOWN_RECORD,
                api_key=type_id,
                record_version=None,
                data={} if known else {"controlType": match.group("name")},
                is_control=True,
                is_unknown=known is None,
                line_number=line_number,
            )
        if match := _REST_END_TXN.fullmatch(rest):
            name = match.group("name")
            coordinator_epoch = _as_int(match.group("epoch"))
            if coordinator_epoch is None:
                return _out_of_range(line_number, line, "coordinator epoch", offset)
            return DecodedRecord(
                offset=offset,
                record_type=name if name in CONTROL_RECORD_IDS else UNKNOWN_RECORD,
                api_key=CONTROL_RECORD_IDS.get(name),
                record_version=None,
                data={"coordinatorEpoch": coordinator_epoch},
                is_control=True,
                is_unknown=name not in CONTROL_RECORD_IDS,
                line_number=line_number,
            )
        if not rest.strip():
            return _quarantine(
                line_number,
                line,
                "DUMP_NO_PAYLOAD",
                "record line without payload (dumped without --cluster-metadata-decoder?)",
                offset,
            )
        return _quarantine(line_number, line, "DUMP_UNRECOGNISED_LINE", "record line with an unknown tail", offset)

    def _invalid_bytes(self, line_number: int, line: str, count: int | None, file: str) -> QuarantineItem:
        self._batch = None
        # The file name stays in extra (not stored): a reason quotes nothing of the text.
        shown = "a count out of range of" if count is None else str(count)
        return QuarantineItem(
            reason=f"{shown} invalid bytes at the end of the dumped file (not a complete record batch)",
            excerpt=_excerpt(line),
            position=self._valid_bytes,
            length=count,
            line_number=line_number,
            extra={"code": "DUMP_INVALID_BYTES", "file": file.strip()},
        )


def _out_of_range(line_number: int, line: str, what: str, offset: int | None = None) -> QuarantineItem:
    return _quarantine(
        line_number, line, "DUMP_OUT_OF_RANGE", f"{what} is not a number any bronze column can hold", offset
    )


def _batch_range_problem(fields: dict[str, str], timestamp_ms: int | None) -> str | None:
    """Why a batch line's numbers do not fit the bronze columns, or None when they do."""
    for name in _INT64_FIELDS:
        if name in fields and _int_in(fields[name], -INT64_MAX - 1, INT64_MAX) is None:
            return f"batch {name} is not a 64-bit integer"
    epoch = fields.get("partitionLeaderEpoch")
    if epoch is not None and _int_in(epoch, INT32_MIN, INT32_MAX) is None:
        return "batch partitionLeaderEpoch is not a 32-bit integer"
    if timestamp_ms is not None and timestamp_ms > TIMESTAMP_MS_MAX:
        return "batch timestamp is after the year 9999"
    position, size = _as_int(fields.get("position")), _as_int(fields.get("size"))
    if position is not None and size is not None and not fits_int64(position + size):
        return "batch position + size is not a 64-bit integer"
    return None


def _place(record: DecodedRecord, batch: _Batch | None) -> None:
    if batch is not None:
        record.batch_base_offset = batch.base_offset
        record.leader_epoch = batch.leader_epoch
        record.position = batch.position


def parse_dump_log(lines: Iterable[str]) -> Iterator[DecodedRecord | QuarantineItem]:
    """Parse a ``kafka-dump-log.sh --cluster-metadata-decoder`` text (any Kafka 2.8–4.x variant).

    Args:
        lines: The text's lines, with or without line terminators, in order.

    Yields:
        ``DecodedRecord`` per record line and ``QuarantineItem`` per unusable line (see
        ``DumpLogParser.parse``). Use ``DumpLogParser`` directly, or ``dump_sections``, to also learn the
        sections the text announces.
    """
    return DumpLogParser().parse(lines)
