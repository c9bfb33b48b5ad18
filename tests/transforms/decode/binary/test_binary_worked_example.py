"""The worked example of docs/kafka-semantics.md §2.5/§2.6 (real bytes of a Kafka 3.8 bootstrap, codecrafters fixture),
rebuilt byte by byte here, and real kafka-dump-log payload lines used as golden JSON."""

from __future__ import annotations

import base64
import json
import re
import struct

import crc32c
import pytest

from schemas.decoded import DecodedRecord
from schemas.record_types import METADATA_RECORD_API_KEYS
from tests.conftest import REAL_METADATA
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_metadata_record
from transforms.decode.binary.message import METADATA_BODIES


def zigzag(value: int) -> bytes:
    raw = (value << 1) ^ (value >> 63)
    out = bytearray()
    while raw >= 0x80:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)
    return bytes(out)


def record(offset_delta: int, value: bytes) -> bytes:
    """attributes 0, timestamp delta 0, null key, value, no headers; length-prefixed."""
    body = b"\x00" + zigzag(0) + zigzag(offset_delta) + zigzag(-1) + zigzag(len(value)) + value + zigzag(0)
    return zigzag(len(body)) + body


def batch(base_offset: int, timestamp: int, records: list[bytes]) -> bytes:
    after_crc = struct.pack(">hiqqqhii", 0, len(records) - 1, timestamp, timestamp, -1, -1, -1, len(records))
    after_crc += b"".join(records)
    crc = crc32c.crc32c(after_crc)
    return struct.pack(">qiibI", base_offset, len(after_crc) + 9, 1, 2, crc) + after_crc


TOPIC_ID = bytes.fromhex("bfd99e5e3235455281f8d4af1741970c")
DIRECTORY_ID = bytes.fromhex("24973cbadd44cf874445a99619da3400")
FIRST_TIMESTAMP = 0x0191E05AF818
SECOND_TIMESTAMP = 0x0191E05B2D15

BOOTSTRAP_BATCH = batch(
    1,
    FIRST_TIMESTAMP,
    [
        # frame 1, apiKey 23 BeginTransaction v0; no fixed fields; 1 tagged field: tag 0, size 18, "Bootstrap records"
        record(0, bytes.fromhex("011700") + bytes.fromhex("01001212") + b"Bootstrap records"),
        # FeatureLevelRecord: name (compact len 17 = 16 chars), level int16 20, no tags
        record(1, bytes.fromhex("010c00") + b"\x11metadata.version" + bytes.fromhex("001400")),
        record(2, bytes.fromhex("011500") + bytes.fromhex("0000")),  # ZkMigrationState 0, no tags
        record(3, bytes.fromhex("011800") + bytes.fromhex("00")),  # EndTransaction: only the tag count
    ],
)
TOPIC_BATCH = batch(
    34,
    SECOND_TIMESTAMP,
    [
        record(0, bytes.fromhex("010200") + b"\x04foo" + TOPIC_ID + b"\x00"),
        record(
            1,
            bytes.fromhex("010301")  # PartitionRecord v1
            + struct.pack(">i", 0)
            + TOPIC_ID
            + bytes.fromhex("0200000001")  # replicas [1]
            + bytes.fromhex("0200000001")  # isr [1]
            + b"\x01\x01"  # removing [], adding []
            + struct.pack(">iii", 1, 0, 0)  # leader, leaderEpoch, partitionEpoch
            + b"\x02"
            + DIRECTORY_ID
            + b"\x00",
        ),
    ],
)


def _uuid(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_hand_built_batch_matches_the_documented_length_and_crc() -> None:
    assert struct.unpack_from(">i", BOOTSTRAP_BATCH, 8)[0] == 133
    assert struct.unpack_from(">I", BOOTSTRAP_BATCH, 17)[0] == 2660385008
    assert len(BOOTSTRAP_BATCH) + len(TOPIC_BATCH) == 311


def test_worked_example_decodes_to_the_documented_values() -> None:
    items = list(decode_file(BOOTSTRAP_BATCH + TOPIC_BATCH, kind="LOG_SEGMENT"))

    assert all(isinstance(item, DecodedRecord) for item in items)
    got = [(r.offset, r.record_type, r.record_version, r.data) for r in items if isinstance(r, DecodedRecord)]
    assert got == [
        (1, "BEGIN_TRANSACTION_RECORD", 0, {"name": "Bootstrap records"}),
        (2, "FEATURE_LEVEL_RECORD", 0, {"name": "metadata.version", "featureLevel": 20}),
        (3, "ZK_MIGRATION_STATE_RECORD", 0, {"zkMigrationState": 0}),
        (4, "END_TRANSACTION_RECORD", 0, {}),
        (34, "TOPIC_RECORD", 0, {"name": "foo", "topicId": "v9meXjI1RVKB-NSvF0GXDA"}),
        (
            35,
            "PARTITION_RECORD",
            1,
            {
                "partitionId": 0,
                "topicId": "v9meXjI1RVKB-NSvF0GXDA",
                "replicas": [1],
                "isr": [1],
                "removingReplicas": [],
                "addingReplicas": [],
                "leader": 1,
                "leaderEpoch": 0,
                "partitionEpoch": 0,
                "directories": [_uuid(DIRECTORY_ID)],
            },
        ),
    ]
    first, last = items[0], items[-1]
    assert isinstance(first, DecodedRecord) and isinstance(last, DecodedRecord)
    assert (first.batch_base_offset, first.leader_epoch, first.timestamp_ms, first.position) == (
        1,
        1,
        FIRST_TIMESTAMP,
        0,
    )
    assert (last.batch_base_offset, last.timestamp_ms, last.position) == (34, SECOND_TIMESTAMP, 145)
    assert not first.is_control and not first.is_unknown and first.api_key == 23


@pytest.mark.parametrize(
    ("value_hex_tail", "expected_value"),
    [("09" + b"86400000".hex(), "86400000"), ("00", None)],
    ids=["set", "delete-with-null-value"],
)
def test_config_record_example_bytes_decode(value_hex_tail: str, expected_value: str | None) -> None:
    value = bytes.fromhex("010400" + "02" + "04" + b"foo".hex() + "0d" + b"retention.ms".hex() + value_hex_tail + "00")
    items = list(decode_file(batch(7, 0, [record(0, value)]), kind="LOG_SEGMENT"))

    assert len(items) == 1 and isinstance(items[0], DecodedRecord)
    assert items[0].data == {
        "resourceType": 2,
        "resourceName": "foo",
        "name": "retention.ms",
        "value": expected_value,
    }
    assert encode_metadata_record(4, 0, items[0].data) == value


# (type, valueSize) -> bytes missing from the published text (3 endpoints x 4 bytes of host name).
_EDITED_BY_AUTHOR = {("REGISTER_BROKER_RECORD", 308): 12}
_PAYLOAD_LINE = re.compile(r"valueSize: (\d+) .*payload: (\{.*\})\s*$")


def _dump_log_payloads() -> list[tuple[int, str]]:
    """(valueSize, payload JSON) of every complete record line in the real kafka-dump-log text dumps."""
    found = []
    for path in sorted((REAL_METADATA / "text-dumps").rglob("*.txt")):
        for line in path.read_text().splitlines():
            match = _PAYLOAD_LINE.search(line)
            if match and "..." not in match.group(2):
                found.append((int(match.group(1)), match.group(2)))
    return found


@pytest.mark.system
@pytest.mark.parametrize(("value_size", "payload"), _dump_log_payloads(), ids=lambda v: str(v)[:40])
def test_real_dump_log_payload_encodes_to_its_value_size_and_decodes_to_the_same_json(
    value_size: int, payload: str
) -> None:
    parsed = json.loads(payload)
    api_key = METADATA_RECORD_API_KEYS[parsed["type"]]
    value = encode_metadata_record(api_key, parsed["version"], parsed["data"])

    # The Strimzi blog's REGISTER_BROKER_RECORD line is 4 bytes short per endpoint against its own valueSize:
    # the author most likely shortened the host names (namespace) in the text. Everything else is byte-exact.
    edited = _EDITED_BY_AUTHOR.get((parsed["type"], value_size), 0)
    assert len(value) + edited == value_size
    data, unknown = METADATA_BODIES[(api_key, parsed["version"])].read(value, 3)
    assert not unknown
    # Same keys, same order, same rendering as Kafka's Jackson output.
    rendered = json.dumps({"type": parsed["type"], "version": parsed["version"], "data": data}, separators=(",", ":"))
    assert rendered == payload


@pytest.mark.system
def test_real_dump_log_payloads_are_available() -> None:
    if not (REAL_METADATA / "text-dumps").is_dir():
        pytest.skip(f"real text dumps not present under {REAL_METADATA}")
    assert len(_dump_log_payloads()) >= 7
