"""Hostile input through the whole per-file decode (``decode_rows`` and the Arrow conversion, in process, no Spark):
a value no bronze column can hold, JSON nested 1,500 levels, or a U+2028 inside a JSON string costs one
quarantined record or line, with its location and a reason; the rest of the file is decoded and converted."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql.pandas.types import to_arrow_schema

from schemas.bronze import DECODED_ROWS
from transforms.decode.binary.encode import encode_log_segment
from transforms.decode.files import FileDescriptor, Row, decode_rows, to_batch
from transforms.decode.redaction import SensitivityRules

SCHEMA = to_arrow_schema(DECODED_ROWS, timezone="UTC")
COLUMNS = [field.name for field in SCHEMA]
KEY = b"k" * 32


def decode(kind: str, content: bytes) -> list[dict[str, Any]]:
    """Rows of one file as dicts, after the Arrow conversion the executors do (which must not raise)."""
    descriptors = {"f": FileDescriptor("f", "/in/f", "c1", kind, "sha")}
    rows = list(decode_rows("f", content, descriptors, SensitivityRules(), KEY))
    batch = to_batch(rows, SCHEMA)
    assert batch.num_rows == len(rows)
    return batch.to_pylist()


def records(rows: list[dict[str, Any]]) -> list[int]:
    return [r["offset"] for r in rows if r["row_kind"] == "RECORD"]


def quarantined(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["row_kind"] == "QUARANTINE"]


def json_line(**fields: Any) -> str:
    return json.dumps({"type": "NO_OP_RECORD", "version": 0, "data": {}, **fields})


NOOP: tuple[int, int, dict[str, Any]] = (20, 0, {})


@pytest.mark.parametrize(
    ("segment", "good_offsets", "bad_offset"),
    [
        (encode_log_segment([NOOP], base_offset=990000, timestamp_ms=10**16), [], 990000),
        (encode_log_segment([NOOP], base_offset=990000, timestamp_ms=2**63 - 1), [], 990000),
        (encode_log_segment([NOOP], base_offset=990000, timestamp_ms=-(2**63)), [], 990000),
        (encode_log_segment([NOOP, NOOP], base_offset=2**63 - 1), [2**63 - 1], None),
    ],
    ids=["timestamp-1e16", "timestamp-max-int64", "timestamp-min-int64", "offset-past-int64"],
)
def test_a_binary_record_out_of_column_range_is_quarantined_alone(
    segment: bytes, good_offsets: list[int], bad_offset: int | None
) -> None:
    good = encode_log_segment([NOOP, NOOP], base_offset=5, records_per_batch=1)
    rows = decode("LOG_SEGMENT", good + segment + good)

    assert records(rows) == [5, 6, *good_offsets, 5, 6]
    (bad,) = quarantined(rows)
    assert bad["position"] == len(good) and bad["offset"] == bad_offset
    assert "outside" in bad["reason"]


@pytest.mark.parametrize(
    "bad_line",
    [
        json_line(offset=2**63),
        json_line(offset=5, timestamp=2**63),
        json_line(offset=5, timestamp=10**16),
        json_line(offset=5, batchBaseOffset=2**63),
        json_line(offset=5, leaderEpoch=2**31),
        json_line(offset=5, leaderEpoch=-(2**31) - 1),
        '{"offset": 5, "type": "NO_OP_RECORD", "data": {"x": "\\ud800"}}',
        '{"offset": 5, "type": "\\udfff", "data": {}}',
        '{"offset": 5, "type": "NO_OP_RECORD", "data": {"\\ud800": 1}}',
    ],
    ids=[
        "offset-2^63",
        "timestamp-2^63",
        "timestamp-after-9999",
        "batch-base-offset-2^63",
        "leader-epoch-2^31",
        "leader-epoch-below-int32",
        "lone-surrogate-value",
        "lone-surrogate-type",
        "lone-surrogate-key",
    ],
)
def test_a_json_line_out_of_column_range_is_quarantined_alone(bad_line: str) -> None:
    text = "\n".join([json_line(offset=1), bad_line, json_line(offset=9)])
    rows = decode("JSON_LINES", text.encode())

    assert records(rows) == [1, 9]
    (bad,) = quarantined(rows)
    assert bad["line_number"] == 2 and bad["reason"]


DUMP_BATCH = (
    "baseOffset: {base} lastOffset: {last} count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 "
    "producerEpoch: -1 partitionLeaderEpoch: {epoch} isTransactional: false isControl: false "
    "deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: {ts} size: 80 magic: 2 compresscodec: none "
    "crc: 1 isvalid: true"
)
DUMP_RECORD = (
    "| offset: {offset} CreateTime: {ts} keySize: -1 valueSize: 12 sequence: -1 headerKeys: [] payload: "
    '{{"type":"NO_OP_RECORD","version":{version},"data":{{}}}}'
)


def dump(epoch: int = 1, version: int = 0, ts: int = 0, record_ts: int = 0, offset: int | str = 1) -> str:
    return "\n".join(
        [
            DUMP_BATCH.format(base=0, last=1, epoch=epoch, ts=ts),
            DUMP_RECORD.format(offset=0, ts=record_ts, version=0),
            DUMP_RECORD.format(offset=offset, ts=record_ts, version=version),
        ]
    )


@pytest.mark.parametrize(
    ("text", "bad_line", "good_offsets"),
    [
        (dump(epoch=4294967296), 1, [0, 1]),  # the batch line: its records keep their own offsets
        (dump(ts=10**16), 1, [0, 1]),
        (dump(version=99999999999), 3, [0]),
        (dump(record_ts=10**16), None, []),  # both records carry the timestamp
        (dump(offset=2**63), 3, [0]),
        (dump(offset="9" * 5000), 3, [0]),  # past Python's 4300-digit int parsing limit
    ],
    ids=["epoch-2^32", "batch-timestamp", "version-huge", "record-timestamp", "offset-2^63", "offset-5000-digits"],
)
def test_a_dump_log_value_out_of_column_range_is_quarantined_alone(
    text: str, bad_line: int | None, good_offsets: list[int]
) -> None:
    rows = decode("DUMP_LOG_TEXT", text.encode())

    assert records(rows) == good_offsets
    bad = quarantined(rows)
    if bad_line is None:
        assert [q["line_number"] for q in bad] == [2, 3]
    else:
        assert [q["line_number"] for q in bad] == [bad_line]


@pytest.mark.parametrize(
    ("kind", "deep"),
    [
        ("JSON_LINES", '{"offset": 2, "type": "NO_OP_RECORD", "data": {"x": ' + "[" * 1500 + "]" * 1500 + "}}"),
        ("JSON_LINES", '{"offset": 2, "type": "NO_OP_RECORD", "data": {"x": ' + "[" * 200 + "]" * 200 + "}}"),
        (
            "DUMP_LOG_TEXT",
            DUMP_RECORD.format(offset=2, ts=0, version=0).replace("{}}", '{"x":' + "[" * 1500 + "]" * 1500 + "}}"),
        ),
    ],
    ids=["json-1500-levels", "json-200-levels", "dump-log-1500-levels"],
)
def test_deep_nesting_quarantines_the_line_and_keeps_the_rest_of_the_file(kind: str, deep: str) -> None:
    if kind == "JSON_LINES":
        lines = [json_line(offset=1), deep, json_line(offset=3), json_line(offset=4)]
    else:
        lines = [DUMP_RECORD.format(offset=o, ts=0, version=0) if o != 2 else deep for o in (1, 2, 3, 4)]
    rows = decode(kind, "\n".join(lines).encode())

    assert records(rows) == [1, 3, 4]
    assert [r["line_number"] for r in rows if r["row_kind"] == "RECORD"] == [1, 3, 4]
    (bad,) = quarantined(rows)
    assert bad["line_number"] == 2 and "nested deeper" in bad["reason"]


def topic_lines(separator: str) -> bytes:
    """Three JSON lines (CRLF), the second a TopicRecord whose name holds ``separator`` raw, not escaped."""
    topic = {"name": f"a{separator}b", "topicId": "AAAAAAAAAAAAAAAAAAAAAA"}
    text = "\r\n".join([json_line(offset=1), json_line(offset=2, type="TOPIC_RECORD", data=topic), json_line(offset=3)])
    return text.replace(json.dumps(separator)[1:-1], separator).encode()


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"], ids=["U+2028", "U+2029", "U+0085"])
def test_a_line_separator_inside_a_json_string_does_not_split_the_line(separator: str) -> None:
    rows = decode("JSON_LINES", topic_lines(separator))

    assert quarantined(rows) == []
    assert [(r["offset"], r["line_number"]) for r in rows] == [(1, 1), (2, 2), (3, 3)]
    assert json.loads(rows[1]["payload"])["name"] == f"a{separator}b"


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e"], ids=repr)
def test_a_raw_control_character_quarantines_its_one_line_and_shifts_no_line_number(separator: str) -> None:
    # JSON forbids raw control characters in strings: the line is invalid, but it is one line.
    rows = decode("JSON_LINES", topic_lines(separator))

    assert [(r["row_kind"], r["line_number"]) for r in rows] == [("RECORD", 1), ("QUARANTINE", 2), ("RECORD", 3)]


def test_a_raw_lone_cr_inside_a_json_string_is_a_line_end_and_both_halves_are_quarantined() -> None:
    # A lone CR ends a line (issue 58): the broken record's halves are two quarantined lines, the next record is
    # on line 4 as an editor counts it.
    rows = decode("JSON_LINES", topic_lines("\r"))

    assert [(r["row_kind"], r["line_number"]) for r in rows] == [
        ("RECORD", 1),
        ("QUARANTINE", 2),
        ("QUARANTINE", 3),
        ("RECORD", 4),
    ]
    assert all(r["reason"] for r in quarantined(rows))


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"], ids=["CR", "CRLF", "LF"])
@pytest.mark.parametrize("kind", ["JSON_LINES", "DUMP_LOG_TEXT"])
def test_a_text_file_with_any_line_end_keeps_every_record_on_its_line(kind: str, newline: str) -> None:
    if kind == "JSON_LINES":
        lines = [json_line(offset=o) for o in (7, 8, 9)]
    else:
        lines = [DUMP_RECORD.format(offset=o, ts=0, version=0) for o in (7, 8, 9)]
    lines.insert(1, "")  # a blank line counts as a line
    rows = decode(kind, (newline.join(lines) + newline).encode())

    assert quarantined(rows) == []
    assert [(r["offset"], r["line_number"]) for r in rows] == [(7, 1), (8, 3), (9, 4)]


def test_a_cr_only_file_with_a_bad_line_quarantines_that_line_alone() -> None:
    lines = [json_line(offset=1), "{not json", json_line(offset=3)]
    rows = decode("JSON_LINES", "\r".join(lines).encode())

    assert [(r["row_kind"], r["line_number"], r["offset"]) for r in rows] == [
        ("RECORD", 1, 1),
        ("QUARANTINE", 2, None),
        ("RECORD", 3, 3),
    ]


def test_a_line_separator_inside_a_dump_log_payload_does_not_split_the_line() -> None:
    payload = '{"type":"TOPIC_RECORD","version":0,"data":{"name":"a\u2028b\x85c","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}}'
    lines = [DUMP_RECORD.format(offset=o, ts=0, version=0) for o in (1, 2, 3)]
    lines[1] = lines[1].split(" payload: ")[0] + " payload: " + payload
    rows = decode("DUMP_LOG_TEXT", "\n".join(lines).encode())

    assert quarantined(rows) == []
    assert [(r["offset"], r["line_number"]) for r in rows] == [(1, 1), (2, 2), (3, 3)]


def row(**values: Any) -> Row:
    base = {name: None for name in COLUMNS} | {
        "row_kind": "RECORD",
        "cluster_id": "c1",
        "source_file": "/in/f",
        "input_kind": "JSON_LINES",
        "file_sha256": "sha",
        "offset": 1,
        "is_control": False,
        "record_type": "NO_OP_RECORD",
        "payload": "{}",
        "is_unknown": False,
    }
    return tuple((base | values)[name] for name in COLUMNS)


@pytest.mark.parametrize(
    ("bad", "column"),
    [
        (row(offset=2**63), "offset"),
        (row(leader_epoch=2**31), "leader_epoch"),
        (row(timestamp=10**19), "timestamp"),
        (row(timestamp=253_402_300_800_000 * 1000), "timestamp"),  # fits int64, but after the year 9999
        (row(payload='{"x":"\ud800"}'), "payload"),
        (row(api_key="4"), "api_key"),
    ],
    ids=["offset", "leader-epoch", "timestamp-overflow", "timestamp-year-10000", "lone-surrogate", "wrong-type"],
)
def test_a_record_row_no_column_can_hold_becomes_a_quarantine_row_naming_the_column(bad: Row, column: str) -> None:
    rows = [row(offset=0), bad, row(offset=2)]
    out = to_batch(rows, SCHEMA).to_pylist()

    assert [r["row_kind"] for r in out] == ["RECORD", "QUARANTINE", "RECORD"]
    assert out[1]["reason"] == f"record not stored: its {column} fits no bronze column"
    assert out[1]["source_file"] == "/in/f"


def test_a_quarantine_row_no_column_can_hold_keeps_its_place_with_escaped_text_and_null_numbers() -> None:
    bad = row(row_kind="QUARANTINE", offset=None, length=2**64, reason="bad \ud800 line", excerpt="\udfff")
    out = to_batch([bad], SCHEMA).to_pylist()

    assert out[0]["row_kind"] == "QUARANTINE" and out[0]["length"] is None
    assert out[0]["reason"] == "bad \\ud800 line" and out[0]["excerpt"] == "\\udfff"


def test_the_arrow_conversion_of_good_rows_is_unchanged() -> None:
    rows = [row(offset=i, timestamp=i * 1000) for i in range(3)]
    assert to_batch(rows, SCHEMA).equals(
        pa.RecordBatch.from_pylist([dict(zip(COLUMNS, r, strict=True)) for r in rows], SCHEMA)
    )


def test_the_files_decoded_in_one_call_share_one_record_budget_and_the_rest_is_a_located_quarantine_row() -> None:
    from transforms.decode.binary.budget import DecodeBudget
    from transforms.decode.files import decoded_batches

    segment = encode_log_segment([NOOP] * 6, base_offset=40, records_per_batch=2)
    descriptors = {p: FileDescriptor(p, f"/in/{p}", "c1", "LOG_SEGMENT", "sha") for p in ("a", "b")}
    batches = decoded_batches(
        [("a", segment), ("b", segment)],
        descriptors=descriptors,
        rules=SensitivityRules(),
        redaction_key=KEY,
        budget=DecodeBudget(records=8),
    )
    rows = [row for batch in batches for row in batch.to_pylist()]

    assert [(r["source_file"], r["offset"]) for r in rows if r["row_kind"] == "RECORD"] == [
        ("/in/a", o) for o in range(40, 46)
    ] + [("/in/b", 40), ("/in/b", 41)]
    (rest,) = quarantined(rows)
    assert (rest["source_file"], rest["position"], rest["length"], rest["offset"]) == (
        "/in/b",
        len(segment) // 3,
        2 * len(segment) // 3,
        42,
    )
    assert "record cap reached" in rest["reason"]
