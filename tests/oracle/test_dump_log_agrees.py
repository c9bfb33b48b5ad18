"""kraft-audit's decoders against Kafka's own: every fixture's metadata log as ``kafka-dump-log
--cluster-metadata-decoder`` of the release that wrote it printed it (``dump-log.txt.gz``, ``oracle.dumplog``).

Both of kraft-audit's readers are held to Kafka's text: the binary decoder (``transforms.decode.binary.decode``) must
give the records Kafka printed, field for field (offsets, batch positions, epochs, timestamps, record types, versions
and bodies), and the dump-log parser (``transforms.decode.text.dumplog``) must read Kafka's text back into the same
records. Nothing here starts Kafka or Spark.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from oracle.compare import FIXTURES
from oracle.dumplog import fixture_release, read_dump
from oracle.fixtures import METADATA_DIR, fixtures, log_files
from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.binary.decode import decode_file
from transforms.decode.text.detect import detect_input_kind, snapshot_end_offset_from_name
from transforms.decode.text.dumplog import DumpLogParser

FIELDS = (
    "offset",
    "record_type",
    "api_key",
    "record_version",
    "data",
    "is_control",
    "is_unknown",
    "batch_base_offset",
    "leader_epoch",
    "timestamp_ms",
    "position",
)
# Up to 4.0 Kafka prints a LeaderChange control record of a log segment as `controlType: LEADER_CHANGE(2)`, without
# its body (4.1 prints `LeaderChange: {...}`): the text does not hold the version and body the binary has.
_BODY_NOT_PRINTED = {"record_version", "data"}


def _dumped() -> list[Path]:
    return [f for f in fixtures(FIXTURES) if (f / METADATA_DIR).is_dir()]


def _kind(path: Path) -> str:
    if path.name == "bootstrap.checkpoint":
        return "BOOTSTRAP_SNAPSHOT"
    return "SNAPSHOT" if path.suffix == ".checkpoint" else "LOG_SEGMENT"


def _parsed(lines: list[str]) -> tuple[dict[str, list[DecodedRecord]], list[QuarantineItem], DumpLogParser]:
    parser = DumpLogParser()
    by_file: dict[str, list[DecodedRecord]] = {}
    quarantined = []
    for item in parser.parse(lines):
        if isinstance(item, QuarantineItem):
            quarantined.append(item)
            continue
        assert item.line_number is not None
        section = next(s for s in parser.sections if s.first_line <= item.line_number <= s.last_line)
        by_file.setdefault(str(section.path), []).append(item)
    return by_file, quarantined, parser


def _differences(binary: DecodedRecord, text: DecodedRecord) -> set[str]:
    return {name for name in FIELDS if getattr(binary, name) != getattr(text, name)}


def test_every_fixture_log_has_kafkas_dump() -> None:
    dumped = _dumped()
    assert len(dumped) >= 100
    missing = [f.name for f in dumped if read_dump(f) is None]
    assert not missing, f"run `python -m oracle.dumplog {FIXTURES}` for: {missing}"


@pytest.mark.parametrize("fixture", _dumped(), ids=lambda f: f.name)
def test_kraft_audit_decodes_the_log_as_kafka_dump_log_prints_it(fixture: Path) -> None:
    lines = read_dump(fixture)
    if lines is None:
        pytest.skip(f"{fixture.name} has no dump-log.txt.gz (`python -m oracle.dumplog`)")
    assert detect_input_kind("dump.txt", "\n".join(lines[:5]).encode("utf-8")) == "DUMP_LOG_TEXT"
    by_file, quarantined, parser = _parsed(lines)
    assert not quarantined, quarantined[:3]
    files = log_files(fixture / METADATA_DIR)
    assert [s.path for s in parser.sections] == [f.name for f in files]
    release = tuple(int(part) for part in fixture_release(fixture).split("."))
    not_printed: Counter[str] = Counter()
    for path, section in zip(files, parser.sections, strict=True):
        assert section.kind == _kind(path), path.name
        if section.kind == "SNAPSHOT":
            assert section.snapshot_end_offset == snapshot_end_offset_from_name(path.name), path.name
        binary: list[Any] = list(decode_file(path.read_bytes(), kind=_kind(path)))
        assert all(isinstance(item, DecodedRecord) for item in binary), path.name
        text = by_file.get(path.name, [])
        assert len(text) == len(binary), path.name
        for b, t in zip(binary, text, strict=True):
            differ = _differences(b, t)
            if not differ:
                continue
            # the one thing a release's text may leave out
            old_leader_change = b.record_type == "LEADER_CHANGE" and release < (4, 1) and t.data == {}
            assert old_leader_change and differ <= _BODY_NOT_PRINTED, (path.name, b.offset, sorted(differ), b, t)
            not_printed[b.record_type] += 1
    if release >= (4, 1):
        assert not not_printed
