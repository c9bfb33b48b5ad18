"""Hostile text input, decoder by decoder: lines that used to take quadratic time parse in time linear in their
length; deep nesting, lone surrogates and out-of-range numbers quarantine one line; reasons quote no value;
lines split at ``\\n``, ``\\r\\n`` and a lone ``\\r`` only; detection and properties follow the same rules."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.text.detect import detect_input_kind, snapshot_end_offset_from_name
from transforms.decode.text.dumplog import parse_dump_log
from transforms.decode.text.jsonlines import parse_json_lines
from transforms.decode.text.lines import split_lines
from transforms.decode.text.properties import parse_server_properties
from transforms.decode.text.safejson import MAX_DEPTH, load_json

SECRET = "hunter2-in-a-reason"


def best_of(runs: int, work: Callable[[], object]) -> float:
    """The fastest of ``runs`` timings (the least disturbed by other processes on a shared machine)."""
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        timings.append(time.perf_counter() - start)
    return min(timings)


def parse_one_line(line: str) -> list[DecodedRecord | QuarantineItem]:
    return list(parse_dump_log([line]))


@pytest.mark.parametrize(
    ("hostile", "baseline"),
    [
        ("kafka-dump-log " * 14_000, "kafka-dumps-log " * 13_125),
        ("baseOffset: 0 " + "a" * 60_000, "baseOffset: 0 " + "a " * 30_000),
    ],
    ids=["tool-note-pattern", "batch-field-pattern"],
)
def test_a_long_hostile_dump_log_line_parses_in_linear_time(hostile: str, baseline: str) -> None:
    # Quadratic before: 200 KB of "kafka-dump-log " took ~8 s, 60 KB of one word after "baseOffset: " ~30 s. Linear
    # now: the same order of time as a line of the same length that no pattern backtracks on.
    assert abs(len(hostile) - len(baseline)) < len(hostile) // 10
    hostile_time = best_of(3, lambda: parse_one_line(hostile))
    baseline_time = best_of(3, lambda: parse_one_line(baseline))

    assert hostile_time < 25 * baseline_time + 0.01


def test_a_pasted_command_line_is_still_a_tool_note() -> None:
    lines = [
        "$ bin/kafka-dump-log.sh --cluster-metadata-decoder --files /tmp/00000000000000000000.log",
        "kafka-dump-log x",
    ]
    items = list(parse_dump_log(lines))

    assert [(i.line_number, i.extra["code"]) for i in items if isinstance(i, QuarantineItem)] == [
        (2, "DUMP_UNRECOGNISED_LINE")
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 1500 + "]" * 1500, "too_deep"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "too_deep"),
        ('{"a": "\\ud800"}', "lone_surrogate"),
        ('{"\\udc00": 1}', "lone_surrogate"),
        ("{", "invalid"),
        ("1" * 5000, "invalid"),
    ],
    ids=["1500-levels", "max-depth-plus-one", "lone-surrogate", "lone-surrogate-key", "truncated", "huge-integer"],
)
def test_load_json_reports_every_hostile_text_as_a_problem_never_an_exception(text: str, problem: str) -> None:
    value, found, reason = load_json(text)
    assert (value, found) == (None, problem) and reason


@pytest.mark.parametrize(
    "text",
    ["[" * MAX_DEPTH + "]" * MAX_DEPTH, '{"a": "\\ud83d\\ude00"}', '{"a": "\\\\ud800"}'],
    ids=["max-depth", "surrogate-pair", "escaped-backslash"],
)
def test_load_json_accepts_what_is_storable(text: str) -> None:
    value, problem, reason = load_json(text)
    assert problem is None and reason is None and value is not None


@pytest.mark.parametrize(
    "field",
    [{"timestamp": SECRET}, {"version": SECRET}, {"batchBaseOffset": [SECRET]}, {"leaderEpoch": {"x": SECRET}}],
    ids=["timestamp", "version", "batch-base-offset", "leader-epoch"],
)
def test_a_json_line_reason_names_the_kind_of_a_bad_value_never_the_value(field: dict[str, object]) -> None:
    line = json.dumps({"offset": 1, "type": "NO_OP_RECORD", "data": {}, **field})
    (item,) = parse_json_lines([line])

    assert isinstance(item, QuarantineItem) and item.extra["code"] == "JSON_BAD_FIELD"
    assert SECRET not in item.reason


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "| offset: 7 CreateTime: 0 keySize: -1 valueSize: 5 payload: Error at 7, skipping. " + SECRET,
            "DUMP_RECORD_ERROR",
        ),
        ("Found 3 invalid bytes at the end of " + SECRET, "DUMP_INVALID_BYTES"),
        ('| offset: 7 CreateTime: 0 keySize: -1 valueSize: 5 payload: {"type": "' + SECRET, "DUMP_BAD_JSON"),
    ],
    ids=["error-at-message", "invalid-bytes-file", "bad-json"],
)
def test_a_dump_log_reason_quotes_nothing_of_the_line(line: str, code: str) -> None:
    (item,) = parse_dump_log([line])

    assert isinstance(item, QuarantineItem) and item.extra["code"] == code
    assert SECRET not in item.reason


def test_kafkas_own_unknown_metadata_id_message_is_kept_in_the_reason() -> None:
    line = "| offset: 7 CreateTime: 0 keySize: -1 valueSize: 5 payload: Error at 7, skipping. Unknown metadata id 99"
    (item,) = parse_dump_log([line])

    assert isinstance(item, QuarantineItem) and item.reason.endswith("Unknown metadata id 99")


@pytest.mark.parametrize(
    "header",
    ["Log starting offset: 9223372036854775808", "Snapshot end offset: 9223372036854775808, epoch: 1"],
    ids=["log-start", "snapshot-end"],
)
def test_a_section_header_offset_out_of_range_is_quarantined_not_kept(header: str) -> None:
    (item,) = parse_dump_log([header])
    assert isinstance(item, QuarantineItem) and item.extra["code"] == "DUMP_OUT_OF_RANGE"


def test_a_snapshot_name_whose_offset_exceeds_64_bits_announces_no_offset() -> None:
    assert snapshot_end_offset_from_name("99999999999999999999-0000000001.checkpoint") is None
    assert snapshot_end_offset_from_name("09223372036854775807-0000000001.checkpoint") == 2**63 - 1


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\u2028b\nc", ["a\u2028b", "c"]),
        ("a\x85b\r\nc\n", ["a\x85b", "c"]),
        ("a\rb", ["a", "b"]),
        ("a\rb\r", ["a", "b"]),
        ("a\r\rb", ["a", "", "b"]),
        ("a\r\r\nb", ["a", "", "b"]),
        ("a\n\rb", ["a", "", "b"]),
        ("a\x0bb\x0cc\u2029d", ["a\x0bb\x0cc\u2029d"]),
        ("", []),
        ("\n", [""]),
        ("\r", [""]),
    ],
    ids=[
        "u2028",
        "u0085-crlf",
        "lone-cr",
        "cr-terminated",
        "two-lone-crs",
        "lone-cr-then-crlf",
        "lf-then-lone-cr",
        "vt-ff-u2029",
        "empty",
        "one-blank-line",
        "one-blank-cr-line",
    ],
)
def test_split_lines_splits_at_lf_crlf_and_lone_cr_only(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


def test_detection_reads_head_lines_split_at_newline_only() -> None:
    head = "noise\u2028baseOffset: 0 lastOffset: 0\n".encode()
    assert detect_input_kind("export.txt", head) is None  # "baseOffset" does not start a line here


def test_a_properties_value_with_a_lone_surrogate_quarantines_its_line_only() -> None:
    text = "a=1\nssl.key.password=\\ud800" + SECRET + "\nb=\\ud83d\\ude00\nc=x\u2028y\n"
    properties, quarantined = parse_server_properties(text)

    assert properties == {"a": "1", "b": "\U0001f600", "c": "x\u2028y"}
    assert [(q.line_number, q.extra["code"], q.excerpt) for q in quarantined] == [
        (2, "PROPERTIES_LONE_SURROGATE", "ssl.key.password")
    ]
    assert SECRET not in quarantined[0].reason


def test_detection_finds_a_dump_log_line_in_a_cr_only_head() -> None:
    head = b"$ kafka-dump-log.sh --files x.log\rDumping /x/00000000000000000000.log\rLog starting offset: 0\r"
    assert detect_input_kind("export.txt", head) == "DUMP_LOG_TEXT"
