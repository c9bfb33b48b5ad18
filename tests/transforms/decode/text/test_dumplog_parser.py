"""kafka-dump-log text → DecodedRecord / QuarantineItem.

Inputs are the hand-written files under tests/data/text (one per Kafka variant, each line written after
DumpLogSegments' print statements) and the real dumps under ../shared/real-metadata/text-dumps. Expected values
below were read off those files by hand.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.text.dumplog import DumpLogParser, parse_dump_log
from transforms.decode.text.dumplog_sections import dump_header_info, dump_sections, section_at

DATA = Path(__file__).resolve().parents[3] / "data" / "text"
REAL_DUMPS = (
    Path(
        os.environ.get(
            "KRAFT_AUDIT_REAL_METADATA", str(Path(__file__).resolve().parents[5] / "shared" / "real-metadata")
        )
    )
    / "text-dumps"
)

BATCH_LINE = (
    "baseOffset: {base} lastOffset: {last} count: {count} baseSequence: -1 lastSequence: -1 producerId: -1 "
    "producerEpoch: -1 partitionLeaderEpoch: 7 isTransactional: false isControl: {control} "
    "deleteHorizonMs: OptionalLong.empty position: 500 CreateTime: 1700000000000 size: 120 magic: 2 "
    "compresscodec: none crc: 12345 isvalid: {valid}"
)
RECORD_PREFIX = "| offset: {offset} CreateTime: 1700000000000 keySize: -1 valueSize: 30 sequence: -1 headerKeys: []"
CONFIG_PAYLOAD = (
    '{"type":"CONFIG_RECORD","version":0,"data":{"resourceType":2,"resourceName":"t","name":"k","value":"v"}}'
)


def batch(base: int, last: int, *, control: bool = False, valid: bool = True) -> str:
    return BATCH_LINE.format(
        base=base, last=last, count=last - base + 1, control=str(control).lower(), valid=str(valid).lower()
    )


def record(offset: int, tail: str) -> str:
    return RECORD_PREFIX.format(offset=offset) + tail


def read_lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)


def records_of(items: list[DecodedRecord | QuarantineItem]) -> list[DecodedRecord]:
    return [item for item in items if isinstance(item, DecodedRecord)]


def quarantine_of(items: list[DecodedRecord | QuarantineItem]) -> list[QuarantineItem]:
    return [item for item in items if isinstance(item, QuarantineItem)]


def only(items: list[DecodedRecord | QuarantineItem]) -> DecodedRecord | QuarantineItem:
    assert len(items) == 1, items
    return items[0]


# (offset, record_type, is_control, batch_base_offset, leader_epoch, position, timestamp_ms, line_number)
LOG_RECORDS_WITH_METADATA = [
    (100, "LEADER_CHANGE", True, 100, 3, 0, 1732150000000, 4),
    (101, "BEGIN_TRANSACTION_RECORD", False, 101, 3, 98, 1732150000500, 6),
    (102, "CONFIG_RECORD", False, 101, 3, 98, 1732150000500, 7),
    (103, "END_TRANSACTION_RECORD", False, 101, 3, 98, 1732150000500, 8),
    (104, "CONFIG_RECORD", False, 104, 3, 348, 1732150001000, 10),
]
# --skip-record-metadata prints no control records (a blank line) and no per-record offsets.
LOG_RECORDS_SKIPPED_METADATA = LOG_RECORDS_WITH_METADATA[1:]


def summary(record: DecodedRecord) -> tuple[object, ...]:
    return (
        record.offset,
        record.record_type,
        record.is_control,
        record.batch_base_offset,
        record.leader_epoch,
        record.position,
        record.timestamp_ms,
        record.line_number,
    )


@pytest.mark.parametrize("name", ["scala_4_2_log.txt", "java_4_3_log.txt"], ids=["scala-4.2", "java-4.3"])
def test_record_lines_with_metadata_carry_offset_timestamp_and_batch_context(name: str) -> None:
    records = records_of(list(parse_dump_log(read_lines(name))))

    assert [summary(r) for r in records] == LOG_RECORDS_WITH_METADATA


@pytest.mark.parametrize(
    "name",
    ["scala_4_2_log_skip.txt", "java_4_3_log_skip.txt"],
    ids=["scala-4.2-space-payload", "java-4.3-pipe-payload"],
)
def test_skip_record_metadata_derives_offsets_from_batch_base_offset_and_index(name: str) -> None:
    records = records_of(list(parse_dump_log(read_lines(name))))

    assert [summary(r) for r in records] == LOG_RECORDS_SKIPPED_METADATA


@pytest.mark.parametrize(
    ("with_metadata", "skipped"),
    [("scala_4_2_log.txt", "scala_4_2_log_skip.txt"), ("java_4_3_log.txt", "java_4_3_log_skip.txt")],
    ids=["scala", "java"],
)
def test_skip_variant_decodes_the_same_data_records_as_the_full_variant(with_metadata: str, skipped: str) -> None:
    full = [r for r in records_of(list(parse_dump_log(read_lines(with_metadata)))) if not r.is_control]
    skip = records_of(list(parse_dump_log(read_lines(skipped))))

    def key(r: DecodedRecord) -> tuple[object, ...]:
        return (r.offset, r.record_type, r.api_key, r.record_version, r.data, r.timestamp_ms)

    assert [key(r) for r in skip] == [key(r) for r in full]


def test_payload_json_becomes_type_version_data_and_api_key() -> None:
    records = records_of(list(parse_dump_log(read_lines("scala_4_2_log.txt"))))
    config = next(r for r in records if r.offset == 104)

    assert (config.record_type, config.api_key, config.record_version) == ("CONFIG_RECORD", 4, 0)
    assert config.data == {"resourceType": 2, "resourceName": "orders", "name": "retention.ms", "value": "86400000"}
    assert not config.is_unknown


ALL_LOG_VARIANTS = ["scala_4_2_log.txt", "scala_4_2_log_skip.txt", "java_4_3_log.txt", "java_4_3_log_skip.txt"]
ALL_LOG_IDS = ["scala", "scala-skip", "java", "java-skip"]


@pytest.mark.parametrize("name", ALL_LOG_VARIANTS, ids=ALL_LOG_IDS)
def test_error_at_payload_is_quarantined_with_offset_and_kafka_message(name: str) -> None:
    errors = [q for q in quarantine_of(list(parse_dump_log(read_lines(name)))) if q.line_number == 11]

    error = only(list(errors))
    assert isinstance(error, QuarantineItem)
    assert error.extra["code"] == "DUMP_RECORD_ERROR"
    assert error.offset == 105
    assert "Unknown metadata id 99" in error.reason


@pytest.mark.parametrize("name", ALL_LOG_VARIANTS, ids=ALL_LOG_IDS)
def test_found_invalid_bytes_line_is_quarantined_at_the_end_of_the_last_batch(name: str) -> None:
    tail = [q for q in quarantine_of(list(parse_dump_log(read_lines(name)))) if q.line_number == 12]

    item = only(list(tail))
    assert isinstance(item, QuarantineItem)
    assert item.extra["code"] == "DUMP_INVALID_BYTES"
    assert (item.position, item.length) == (348 + 180, 17)
    assert item.extra["file"] == "00000000000000000100.log"


@pytest.mark.parametrize("name", ALL_LOG_VARIANTS, ids=ALL_LOG_IDS)
def test_only_error_and_invalid_bytes_lines_are_quarantined_in_a_clean_dump(name: str) -> None:
    quarantined = quarantine_of(list(parse_dump_log(read_lines(name))))

    assert [q.line_number for q in quarantined] == [11, 12]


@pytest.mark.parametrize(
    ("tail", "record_type", "api_key", "version", "data"),
    [
        (
            ' LeaderChange: {"version":0,"leaderId":2,"voters":[{"voterId":2}],"grantingVoters":[{"voterId":2}]}',
            "LEADER_CHANGE",
            2,
            0,
            {"version": 0, "leaderId": 2, "voters": [{"voterId": 2}], "grantingVoters": [{"voterId": 2}]},
        ),
        (
            ' SnapshotHeader {"version":0,"lastContainedLogTimestamp":1732150499000}',
            "SNAPSHOT_HEADER",
            3,
            0,
            {"version": 0, "lastContainedLogTimestamp": 1732150499000},
        ),
        (' SnapshotFooter {"version":0}', "SNAPSHOT_FOOTER", 4, 0, {"version": 0}),
        (' KRaftVersion {"version":0,"kRaftVersion":1}', "KRAFT_VERSION", 5, 0, {"version": 0, "kRaftVersion": 1}),
        (
            ' KRaftVoters {"version":0,"voters":[{"voterId":1,"voterDirectoryId":"kM3Bf0ZKQ1uJcWq8xXyA2w",'
            '"endpoints":[],"kRaftVersionFeature":{"minSupportedVersion":0,"maxSupportedVersion":1}}]}',
            "KRAFT_VOTERS",
            6,
            0,
            {
                "version": 0,
                "voters": [
                    {
                        "voterId": 1,
                        "voterDirectoryId": "kM3Bf0ZKQ1uJcWq8xXyA2w",
                        "endpoints": [],
                        "kRaftVersionFeature": {"minSupportedVersion": 0, "maxSupportedVersion": 1},
                    }
                ],
            },
        ),
        (" controlType: LEADER_CHANGE(2)", "LEADER_CHANGE", 2, None, {}),
        (" controlType: SNAPSHOT_HEADER(3)", "SNAPSHOT_HEADER", 3, None, {}),
        (" endTxnMarker: COMMIT coordinatorEpoch: 4", "COMMIT", 1, None, {"coordinatorEpoch": 4}),
    ],
    ids=[
        "leader-change-json-4.1+",
        "snapshot-header",
        "snapshot-footer",
        "kraft-version",
        "kraft-voters",
        "leader-change-type-only-pre-4.1",
        "snapshot-header-type-only-pre-3.3",
        "end-txn-marker",
    ],
)
def test_control_record_lines_become_control_records(
    tail: str, record_type: str, api_key: int, version: int | None, data: dict[str, object]
) -> None:
    item = only(list(parse_dump_log([batch(10, 10, control=True), record(10, tail)])))

    assert isinstance(item, DecodedRecord)
    assert (item.record_type, item.api_key, item.record_version, item.data) == (record_type, api_key, version, data)
    assert item.is_control
    assert not item.is_unknown
    assert (item.offset, item.batch_base_offset, item.leader_epoch, item.line_number) == (10, 10, 7, 2)


def test_unknown_control_type_is_kept_as_unknown_control_record() -> None:
    item = only(list(parse_dump_log([record(10, " controlType: UNKNOWN(9)")])))

    assert isinstance(item, DecodedRecord)
    assert (item.record_type, item.api_key, item.is_control, item.is_unknown) == ("UNKNOWN", 9, True, True)


def test_multi_file_dump_yields_records_of_every_section() -> None:
    records = records_of(list(parse_dump_log(read_lines("scala_4_0_multi_file.txt"))))

    assert [(r.line_number, r.offset, r.record_type) for r in records] == [
        (4, 0, "SNAPSHOT_HEADER"),
        (6, 1, "FEATURE_LEVEL_RECORD"),
        (8, 2, "SNAPSHOT_FOOTER"),
        (12, 0, "SNAPSHOT_HEADER"),
        (13, 1, "KRAFT_VERSION"),
        (14, 2, "KRAFT_VOTERS"),
        (16, 3, "FEATURE_LEVEL_RECORD"),
        (17, 4, "CONFIG_RECORD"),
        (19, 5, "SNAPSHOT_FOOTER"),
        (23, 200, "LEADER_CHANGE"),
        (25, 201, "CONFIG_RECORD"),
    ]
    assert records[-1].data["value"] is None  # a config delete keeps its null


def test_multi_file_dump_sections_tell_kind_line_range_and_announced_offsets() -> None:
    parser = DumpLogParser()
    items = list(parser.parse(read_lines("scala_4_0_multi_file.txt")))

    expected = [
        ("/data/meta/__cluster_metadata-0/bootstrap.checkpoint", "BOOTSTRAP_SNAPSHOT", 1, 8, None, None, None),
        ("/data/meta/__cluster_metadata-0/00000000000000000200-0000000004.checkpoint", "SNAPSHOT", 9, 19, None, 200, 4),
        ("/data/meta/__cluster_metadata-0/00000000000000000200.log", "LOG_SEGMENT", 20, 25, 200, None, None),
    ]
    got = [
        (s.path, s.kind, s.first_line, s.last_line, s.log_start_offset, s.snapshot_end_offset, s.snapshot_epoch)
        for s in parser.sections
    ]
    assert got == expected
    assert dump_sections(read_lines("scala_4_0_multi_file.txt")) == parser.sections
    assert quarantine_of(items) == []


def test_section_at_maps_record_lines_to_their_dumped_file() -> None:
    lines = read_lines("scala_4_0_multi_file.txt")
    sections = dump_sections(lines)
    records = records_of(list(parse_dump_log(lines)))

    kinds = [s.kind for r in records if r.line_number is not None and (s := section_at(sections, r.line_number))]
    assert kinds == ["BOOTSTRAP_SNAPSHOT"] * 3 + ["SNAPSHOT"] * 6 + ["LOG_SEGMENT"] * 2
    assert section_at(sections, 99) is None


def test_dump_header_info_reports_snapshot_end_offset_and_epoch() -> None:
    text = [
        "Dumping /m/__cluster_metadata-0/00000000000000004096-0000000012.checkpoint",
        "Snapshot end offset: 4096, epoch: 12",
    ]

    info = dump_header_info(text)

    assert (info["kind"], info["snapshot_end_offset"], info["snapshot_epoch"]) == ("SNAPSHOT", 4096, 12)
    assert info["path"] == "/m/__cluster_metadata-0/00000000000000004096-0000000012.checkpoint"
    assert len(info["sections"]) == 1


def test_dump_header_info_of_grep_output_has_no_section() -> None:
    info = dump_header_info([record(5, " payload: " + CONFIG_PAYLOAD)])

    assert info["kind"] is None
    assert info["sections"] == []


@pytest.mark.parametrize(
    "line",
    [
        "Dumping /x/00000000000000000000.log",
        "Log starting offset: 0",
        "Starting offset: 0",
        "Snapshot end offset: 200, epoch: 4",
        "KRaft bootstrap snapshot",
        "",
        "   ",
        "Ignoring unknown file /x/00000000000000000000.index",
        "Non-consecutive offsets in /x/00000000000000000000.log",
        "  17 is followed by 19",
        batch(0, 1),
    ],
    ids=[
        "dumping",
        "log-starting-offset",
        "starting-offset-pre-3.3",
        "snapshot-end-offset",
        "bootstrap",
        "blank",
        "whitespace",
        "stderr-ignoring",
        "stderr-non-consecutive",
        "stderr-followed-by",
        "batch",
    ],
)
def test_header_batch_and_blank_lines_yield_nothing(line: str) -> None:
    assert list(parse_dump_log([line])) == []


@pytest.mark.parametrize(
    "name", ["kafka_3_0_log.txt", "kafka_3_0_log_skip.txt"], ids=["with-metadata", "skip-record-metadata"]
)
def test_kafka_3_0_dump_with_starting_offset_and_no_delete_horizon_is_parsed(name: str) -> None:
    parser = DumpLogParser()
    items = list(parser.parse(read_lines(name)))

    data = [(r.offset, r.record_type, r.timestamp_ms, r.leader_epoch) for r in records_of(items) if not r.is_control]
    assert data == [(1, "TOPIC_RECORD", 1634000000321, 1), (2, "CONFIG_RECORD", 1634000000321, 1)]
    assert quarantine_of(items) == []
    assert (parser.sections[0].kind, parser.sections[0].log_start_offset) == ("LOG_SEGMENT", 0)


def test_bare_payload_without_batch_line_is_quarantined_for_missing_offset() -> None:
    item = only(list(parse_dump_log([" payload: " + CONFIG_PAYLOAD])))

    assert isinstance(item, QuarantineItem)
    assert item.extra["code"] == "DUMP_NO_OFFSET"
    assert item.offset is None
    assert item.line_number == 1


def test_bare_error_payload_without_batch_line_keeps_the_offset_kafka_printed() -> None:
    item = only(list(parse_dump_log([" payload: Error at 77, skipping. Found 3 byte(s) of garbage"])))

    assert isinstance(item, QuarantineItem)
    assert (item.extra["code"], item.offset) == ("DUMP_RECORD_ERROR", 77)


def test_more_payload_lines_than_batch_count_are_quarantined() -> None:
    lines = [batch(50, 50), " payload: " + CONFIG_PAYLOAD, " payload: " + CONFIG_PAYLOAD]

    items = list(parse_dump_log(lines))

    assert isinstance(items[0], DecodedRecord) and items[0].offset == 50
    assert isinstance(items[1], QuarantineItem)
    assert (items[1].extra["code"], items[1].line_number) == ("DUMP_NO_OFFSET", 3)


def test_a_new_dumping_section_forgets_the_previous_batch() -> None:
    lines = [batch(50, 52), "Dumping /x/00000000000000000000.log", " payload: " + CONFIG_PAYLOAD]

    item = only(list(parse_dump_log(lines)))

    assert isinstance(item, QuarantineItem) and item.extra["code"] == "DUMP_NO_OFFSET"


@pytest.mark.parametrize(
    "record_line",
    [record(60, " payload: " + CONFIG_PAYLOAD), " payload: " + CONFIG_PAYLOAD, "| payload: " + CONFIG_PAYLOAD],
    ids=["with-metadata", "scala-skip", "java-skip"],
)
def test_records_of_a_batch_with_failed_crc_are_quarantined(record_line: str) -> None:
    items = list(parse_dump_log([batch(60, 60, valid=False), record_line]))

    assert all(isinstance(i, QuarantineItem) for i in items)
    assert [(i.line_number, i.offset, i.extra["code"]) for i in quarantine_of(items)] == [
        (1, 60, "DUMP_INVALID_BATCH"),
        (2, 60, "DUMP_INVALID_BATCH"),
    ]


def test_record_line_offset_outside_the_current_batch_gets_no_batch_context() -> None:
    items = list(parse_dump_log([batch(0, 1), record(9, " payload: " + CONFIG_PAYLOAD)]))

    item = only(items)
    assert isinstance(item, DecodedRecord)
    assert (item.offset, item.batch_base_offset, item.leader_epoch, item.position) == (9, None, None, None)
    assert item.timestamp_ms == 1700000000000


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ('{"type":"CONFIG_RECORD","version":0,"data":{"name":"trunc', "DUMP_BAD_JSON"),
        ('{"type":"CONFIG_RECORD","version":0}', "DUMP_BAD_PAYLOAD"),
        ('{"type":"CONFIG_RECORD","version":"0","data":{}}', "DUMP_BAD_PAYLOAD"),
        ("[1,2,3]", "DUMP_BAD_PAYLOAD"),
    ],
    ids=["truncated-json", "no-data", "string-version", "not-an-object"],
)
def test_malformed_payload_is_quarantined_with_offset(payload: str, code: str) -> None:
    item = only(list(parse_dump_log([record(8, " payload: " + payload)])))

    assert isinstance(item, QuarantineItem)
    assert (item.extra["code"], item.offset, item.line_number) == (code, 8, 1)


def test_malformed_control_json_is_quarantined() -> None:
    item = only(list(parse_dump_log([record(3, ' SnapshotHeader {"version":0,')])))

    assert isinstance(item, QuarantineItem)
    assert (item.extra["code"], item.offset) == ("DUMP_UNRECOGNISED_LINE", 3)


def test_broken_control_json_object_is_quarantined_as_bad_json() -> None:
    item = only(list(parse_dump_log([record(3, ' KRaftVersion {"version":0,}')])))

    assert isinstance(item, QuarantineItem)
    assert (item.extra["code"], item.offset) == ("DUMP_BAD_JSON", 3)


def test_unknown_record_type_in_payload_is_kept_as_unknown() -> None:
    payload = '{"type":"SHINY_NEW_RECORD","version":3,"data":{"a":1}}'

    item = only(list(parse_dump_log([record(8, " payload: " + payload)])))

    assert isinstance(item, DecodedRecord)
    assert (item.record_type, item.api_key, item.record_version, item.is_unknown) == ("SHINY_NEW_RECORD", None, 3, True)
    assert item.data == {"a": 1}


def test_record_line_without_payload_is_quarantined() -> None:
    item = only(list(parse_dump_log([record(8, "")])))

    assert isinstance(item, QuarantineItem) and item.extra["code"] == "DUMP_NO_PAYLOAD"


def test_legacy_message_format_batch_line_is_quarantined() -> None:
    line = "offset: 3 position: 0 CreateTime: 1 size: 80 magic: 1 compresscodec: none crc: 1 isvalid: true"

    item = only(list(parse_dump_log([line])))

    assert isinstance(item, QuarantineItem) and item.extra["code"] == "DUMP_LEGACY_BATCH"


def test_unrecognised_line_is_quarantined_with_an_excerpt_of_at_most_120_chars() -> None:
    line = "kubectl exec -it pod -- " + "x" * 300

    item = only(list(parse_dump_log(["Log starting offset: 0", line])))

    assert isinstance(item, QuarantineItem)
    assert (item.extra["code"], item.line_number) == ("DUMP_UNRECOGNISED_LINE", 2)
    assert item.excerpt == line[:120]


def test_crlf_line_endings_and_a_byte_order_mark_are_tolerated() -> None:
    lines = ["\ufeffDumping /x/00000000000000000000.log\r\n", "Log starting offset: 0\r\n", batch(0, 0) + "\r\n"]
    lines.append(record(0, " payload: " + CONFIG_PAYLOAD) + "\r\n")

    item = only(list(parse_dump_log(lines)))

    assert isinstance(item, DecodedRecord) and item.data["value"] == "v"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200), max_size=30))
def test_any_text_parses_without_raising_and_every_item_points_at_a_line(lines: list[str]) -> None:
    items = list(parse_dump_log(lines))

    assert all(1 <= (i.line_number or 0) <= len(lines) for i in items)
    assert all(len(i.excerpt) <= 120 for i in quarantine_of(items))
    assert len(items) <= len(lines)


# ---- real dumps (read in place) -------------------------------------------------------------------------


def real_dump(name: str) -> list[str]:
    path = REAL_DUMPS / name
    if not path.is_file():
        pytest.skip(f"real dump-log text not present at {path} (set KRAFT_AUDIT_REAL_METADATA)")
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.system
def test_real_kafka_2_8_readme_dump_skip_record_metadata() -> None:
    parser = DumpLogParser()
    items = list(parser.parse(real_dump("apache__kafka__v2.8.0__config-kraft-README__kafka-dump-log.txt")))

    records = records_of(items)
    assert [(r.offset, r.record_type) for r in records] == [
        (1, "REGISTER_BROKER_RECORD"),
        (2, "UNFENCE_BROKER_RECORD"),
        (3, "FENCE_BROKER_RECORD"),
        (5, "REGISTER_BROKER_RECORD"),
        (6, "UNFENCE_BROKER_RECORD"),
        (7, "TOPIC_RECORD"),
        (8, "PARTITION_RECORD"),
    ]
    first, topic, partition = records[0], records[5], records[6]
    assert (first.timestamp_ms, first.leader_epoch, first.position, first.line_number) == (1614382632329, 1, 89, 7)
    assert first.data["incarnationId"] == "P3UFsWoNR-erL9PK98YLsA"
    assert records[3].leader_epoch == 2
    assert (topic.data["name"], topic.batch_base_offset, partition.batch_base_offset) == ("foo", 7, 7)
    assert partition.position == 701
    # The shell command the README shows above the output is recognised as such: nothing is quarantined.
    assert quarantine_of(items) == []
    assert (parser.sections[0].kind, parser.sections[0].log_start_offset) == ("LOG_SEGMENT", 0)


@pytest.mark.system
def test_real_strimzi_dump_with_record_metadata() -> None:
    name = "strimzi__strimzi.github.io__2024-03-21-kraft-migration__kafka-dump-log.txt"
    items = list(parse_dump_log(real_dump(name)))

    records = records_of(items)
    assert [r.offset for r in records] == [53, 3004, 3005, 3006, 3007, 3008]
    config = records[2]
    assert config.record_type == "CONFIG_RECORD"
    assert config.data == {"resourceType": 2, "resourceName": "my-topic", "name": "retention.ms", "value": "100000"}
    assert config.timestamp_ms == 1710774451597
    assert records[0].record_version == 3 and records[0].data["brokerId"] == 3
    assert all(r.batch_base_offset is None for r in records)  # the post shows no batch lines
    assert quarantine_of(items) == []  # line 1 is the kubectl command that ran kafka-dump-log.sh


@pytest.mark.parametrize(
    ("name", "offsets"),
    [
        ("unattributed/findstring-id-70821795086__kafka-4.x-course-exercise-8.7.txt", [111]),
        ("unattributed/findstring-id-62462070120__cp-kafka-course-lesson-01.txt", []),
        ("unattributed/findstring-id-71163028908__kafka-4.3.1-course-lab-05.txt", []),
        ("apache__kafka__v2.8.0__config-kraft-README__kafka-metadata-shell.txt", []),
    ],
    ids=["course-4.x-one-full-line", "cp-course-trimmed", "course-4.3.1-grep-o", "metadata-shell-not-a-dump"],
)
@pytest.mark.system
def test_real_grep_excerpts_keep_only_complete_record_lines(name: str, offsets: list[int]) -> None:
    lines = real_dump(name)
    items = list(parse_dump_log(lines))

    assert [r.offset for r in records_of(items)] == offsets
    # every other non-blank line is quarantined, none dropped (the pasted kafka-dump-log command is recognised)
    non_blank = sum(1 for line in lines if line.strip() and not re.search(r"kafka-dump-log(\.sh)?\s.*--files", line))
    assert len(items) == non_blank
