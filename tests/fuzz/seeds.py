"""Random valid inputs for each decoder, with secrets planted in every place issue #16 names.

Each seed knows what a correct decoder must make of it: per text line, the offset of the record it holds (None for
lines that hold no record or that must be quarantined); per binary batch, its records. Planted secrets sit in
records that must be kept (an unknown record type, an unknown resource type, an unknown key, an extra field, raw
bytes, unknown tags) and in lines that must be quarantined (an excerpt or a reason that could quote them).
"""

from __future__ import annotations

import base64
import json
import random
import struct
from dataclasses import dataclass, field
from typing import Any

from schemas.decoded import DecodedRecord
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_log_segment

TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA"
Record = tuple[int, str, Any]


@dataclass
class TextSeed:
    """Lines, and per line the offset of the record it must decode to (None: no record expected)."""

    lines: list[str] = field(default_factory=list)
    expected: list[int | None] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)

    def add(self, line: str, offset: int | None = None) -> None:
        """Append a line and what it must decode to."""
        self.lines.append(line)
        self.expected.append(offset)


@dataclass
class PropertiesSeed:
    """Lines, and per line the ``(key, value)`` it must define (None: a comment, a planted or a bad line)."""

    lines: list[str] = field(default_factory=list)
    expected: list[tuple[str, str] | None] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)


@dataclass
class BinarySeed:
    """A segment, its batches ``(position, size, records)`` and the planted markers."""

    data: bytes
    batches: list[tuple[int, int, list[Record]]]
    markers: list[str]


def _marker(seed: TextSeed | PropertiesSeed | list[str], place: str, rng: random.Random) -> str:
    marker = f"MK{place.upper()}{rng.getrandbits(48):012X}Z"
    (seed if isinstance(seed, list) else seed.markers).append(marker)
    return marker


def _good_record(rng: random.Random, index: int) -> tuple[str, dict[str, Any]]:
    return rng.choice(
        [
            ("NO_OP_RECORD", {}),
            ("TOPIC_RECORD", {"name": f"topic-{index}", "topicId": TOPIC_ID}),
            ("CONFIG_RECORD", {"resourceType": 2, "resourceName": "orders", "name": "retention.ms", "value": "1000"}),
            ("PARTITION_RECORD", {"partitionId": 0, "topicId": TOPIC_ID, "replicas": [1, 2], "isr": [1], "leader": 1}),
            ("FEATURE_LEVEL_RECORD", {"name": "metadata.version", "featureLevel": 20}),
        ]
    )


def _planted_records(seed: TextSeed, rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """Records that must be kept, each holding a secret only redaction can hide."""
    entity = [{"entityType": "user", "entityName": "alice"}]
    return [
        (
            "ConfigRecord",
            {"resourceType": 4, "name": "ssl.keystore.password", "value": _marker(seed, "unknowntype", rng)},
        ),
        (
            "CONFIG_RECORD",
            {"resourceType": 8, "resourceName": "1", "name": "kafka.log", "value": _marker(seed, "rt8", rng)},
        ),
        (
            "CONFIG_RECORD",
            {"resourceType": 99, "resourceName": "x", "name": "retention.ms", "value": _marker(seed, "rt99", rng)},
        ),
        (
            "CONFIG_RECORD",
            {"resourceType": 2, "resourceName": "t", "name": "fuzz.plugin.key", "value": _marker(seed, "unk", rng)},
        ),
        (
            "CONFIG_RECORD",
            {
                "resourceType": 2,
                "resourceName": "t",
                "name": "retention.ms",
                "value": "1",
                "oldValue": _marker(seed, "old", rng),
            },
        ),
        ("CLIENT_CONFIG_RECORD", {"entity": entity, "key": "fuzz.client.key", "value": _marker(seed, "client", rng)}),
        (
            "REGISTER_BROKER_RECORD",
            {
                "brokerId": 1,
                "brokerEpoch": 5,
                "staticConfigs": [{"name": "ssl.key.password", "value": _marker(seed, "static", rng)}],
                "endPoints": [
                    {"name": "P", "host": "h", "port": 9092, "securityProtocol": 0, "x": _marker(seed, "ep", rng)}
                ],
            },
        ),
        ("USER_SCRAM_CREDENTIAL_RECORD", {"name": "alice", "mechanism": 1, "salt": _marker(seed, "salt", rng)}),
    ]


def json_lines_seed(rng: random.Random) -> TextSeed:
    """A JSON-lines export: good records, planted records (kept, redacted) and planted bad lines (quarantined)."""
    seed = TextSeed()
    offset = rng.randrange(1000)
    planted = rng.sample(_planted_records(seed, rng), rng.randint(2, 5))
    bad = rng.sample(_bad_json_lines(seed, rng), rng.randint(1, 3))
    items: list[tuple[str, dict[str, Any]] | str] = [*planted, *bad]
    items += [_good_record(rng, i) for i in range(rng.randint(2, 8))]
    rng.shuffle(items)
    for item in items:
        if isinstance(item, str):
            seed.add(item)
            continue
        record_type, data = item
        extra = {"timestamp": rng.randrange(2**41)} if rng.random() < 0.5 else {}
        seed.add(json.dumps({"offset": offset, "type": record_type, "version": 0, "data": data, **extra}), offset)
        offset += 1
    return seed


def _bad_json_lines(seed: TextSeed, rng: random.Random) -> list[str]:
    pad = "x" * 300
    deep = "[" * 1500 + "]" * 1500
    return [
        # The sensitive name more than 240 characters after the value, and the line cut short.
        f'{{"offset": 1, "type": "CONFIG_RECORD", "data": {{"value": "{_marker(seed, "far", rng)}", "p": "{pad}", '
        '"name": "ssl.keystore.password"',
        json.dumps({"offset": 1, "timestamp": _marker(seed, "badfield", rng), "type": "NO_OP_RECORD", "data": {}}),
        f'{{"offset": 1, "type": "NO_OP_RECORD", "data": {{"v": "{_marker(seed, "surrogate", rng)}\\ud800"}}}}',
        f'{{"offset": 1, "type": "NO_OP_RECORD", "data": {{"v": "{_marker(seed, "deep", rng)}", "d": {deep}}}}}',
        json.dumps({"offset": 2**63, "type": "NO_OP_RECORD", "data": {"v": _marker(seed, "range", rng)}}),
    ]


_BATCH = (
    "baseOffset: {o} lastOffset: {o} count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
    "partitionLeaderEpoch: 3 isTransactional: false isControl: {control} deleteHorizonMs: OptionalLong.empty "
    "position: {position} CreateTime: 1732150000000 size: 80 magic: 2 compresscodec: none crc: {crc} isvalid: true"
)
_RECORD = "| offset: {o} CreateTime: 1732150000000 keySize: {key} valueSize: 12 sequence: -1 headerKeys: []"


def dump_log_seed(rng: random.Random) -> TextSeed:
    """A kafka-dump-log text: a section header, one batch line per record, planted records and planted bad lines."""
    seed = TextSeed()
    seed.add("Dumping /var/lib/kafka/meta/__cluster_metadata-0/00000000000000000000.log")
    seed.add("Log starting offset: 0")
    payloads: list[tuple[str, dict[str, Any]] | str] = [
        *rng.sample(_planted_records(seed, rng), rng.randint(2, 5)),
        *[_good_record(rng, i) for i in range(rng.randint(2, 8))],
    ]
    planted_lines = [
        f"my.unknown.setting={_marker(seed, 'unrecognised', rng)}",
        f"Found 7 invalid bytes at the end of {_marker(seed, 'invalidbytes', rng)}",
        f"ERRORAT {_marker(seed, 'errorat', rng)}",
        f'BADJSON {{"type":"CONFIG_RECORD","version":0,"data":{{"value":"{_marker(seed, "badjson", rng)}"',
        f"CONTROL {_marker(seed, 'controltype', rng)}",
        'VALUEOBJECT {"resourceType":2,"resourceName":"t","name":"retention.ms","value":{"x":"'
        + _marker(seed, "kind", rng)
        + '"}}',
    ]
    payloads += rng.sample(planted_lines, rng.randint(1, 4))
    rng.shuffle(payloads)
    offset, position = 0, 0
    for item in payloads:
        if (isinstance(item, str) and item.startswith("my.unknown")) or (
            isinstance(item, str) and item.startswith("Found")
        ):
            seed.add(item)
            continue
        control = isinstance(item, str) and item.startswith("CONTROL ")
        crc = _marker(seed, "crc", rng) if rng.random() < 0.2 else str(rng.randrange(2**32))
        seed.add(_BATCH.format(o=offset, control=str(control).lower(), position=position, crc=crc))
        head = _RECORD.format(o=offset, key=4 if control else -1)
        if isinstance(item, tuple):
            payload = json.dumps({"type": item[0], "version": 0, "data": item[1]}, separators=(",", ":"))
            seed.add(f"{head} payload: {payload}", offset)
        elif item.startswith("ERRORAT "):
            seed.add(f"{head} payload: Error at {offset}, skipping. {item.removeprefix('ERRORAT ')}")
        elif item.startswith("BADJSON "):
            seed.add(f"{head} payload: {item.removeprefix('BADJSON ')}")
        elif control:
            seed.add(f"{head} controlType: {item.removeprefix('CONTROL ')}(99)", offset)
        else:
            data = item.removeprefix("VALUEOBJECT ")
            seed.add(f'{head} payload: {{"type":"CONFIG_RECORD","version":0,"data":{data}}}', offset)
        offset += 1
        position += 80
    return seed


def properties_seed(rng: random.Random) -> PropertiesSeed:
    """A server.properties: good lines with unique keys, planted secrets, comments and bad lines."""
    seed = PropertiesSeed()
    planted = [
        f"ssl.keystore.password={_marker(seed, 'password', rng)}",
        f"fuzz.unknown.broker.key={_marker(seed, 'unknownkey', rng)}",
        f"listener.name.internal.ssl.key.password={_marker(seed, 'listener', rng)}",
        f"bad.escape=\\uZZ{_marker(seed, 'escape', rng)}",
        f"lone.surrogate=\\ud800{_marker(seed, 'lone', rng)}",
        f'sasl.jaas.config=Plain required password="{_marker(seed, "jaas", rng)}";',
    ]
    good = [(f"fuzz.good.{i}", f"value-{i}") for i in range(rng.randint(2, 8))]
    items: list[tuple[str, str] | str] = [*good, *rng.sample(planted, rng.randint(2, 6)), "# comment", ""]
    rng.shuffle(items)
    for item in items:
        if isinstance(item, tuple):
            seed.lines.append(f"{item[0]}{rng.choice(['=', ' = ', ':', ' '])}{item[1]}")
            seed.expected.append(item)
        else:
            seed.lines.append(item)
            seed.expected.append(None)
    return seed


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def segment_seed(rng: random.Random) -> BinarySeed:
    """A log segment with good and planted records, in batches of 1-3 records, some of them compressed."""
    markers: list[str] = []
    config = {"resourceType": 2, "resourceName": "orders", "name": "retention.ms", "value": "1000"}
    keystore_key = b"\x00\x10ssl.keystore.key" + _marker(markers, "rawversion", rng).encode()
    planted = [
        (
            4,
            0,
            {
                "resourceType": 4,
                "resourceName": "",
                "name": "ssl.keystore.password",
                "value": _marker(markers, "bpw", rng),
            },
        ),
        (4, 0, {"resourceType": 8, "resourceName": "1", "name": "kafka.log", "value": _marker(markers, "brt8", rng)}),
        (4, 0, {"resourceType": 2, "resourceName": "t", "name": "fuzz.key", "value": _marker(markers, "bunk", rng)}),
        (4, 99, {"_raw": _b64(keystore_key)}),
        (99, 0, {"_raw": _b64(struct.pack(">h", 7) + _marker(markers, "rawkey", rng).encode())}),
        (
            2,
            0,
            {
                "name": "t",
                "topicId": TOPIC_ID,
                "_unknownTaggedFields": {"9": _b64(_marker(markers, "tag", rng).encode())},
            },
        ),
    ]
    good = [rng.choice([(20, 0, {}), (2, 0, {"name": "topic", "topicId": TOPIC_ID}), (4, 0, config)]) for _ in range(4)]
    records = [*rng.sample(planted, rng.randint(2, 6)), *good]
    rng.shuffle(records)
    data = encode_log_segment(
        records,
        base_offset=rng.randrange(2**40),
        timestamp_ms=rng.randrange(2**41),
        records_per_batch=rng.randint(1, 3),
        compression=rng.choice([0, 0, 0, 1, 2, 3, 4]),
    )
    return BinarySeed(data, batches_of(data), markers)


def batches_of(data: bytes) -> list[tuple[int, int, list[Record]]]:
    """``(position, size, records)`` of every batch of an intact segment."""
    by_position: dict[int, list[Record]] = {}
    for item in decode_file(data, kind="LOG_SEGMENT"):
        assert isinstance(item, DecodedRecord) and item.position is not None, item
        by_position.setdefault(item.position, []).append((item.offset, item.record_type, item.data))
    return [
        (position, struct.unpack_from(">i", data, position + 8)[0] + 12, records)
        for position, records in sorted(by_position.items())
    ]
