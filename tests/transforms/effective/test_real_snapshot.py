"""A real KRaft snapshot (rjmfernandes/flink-on-prem, Confluent 7.6 = Kafka 3.6, metadata.version 14) replayed and
resolved end to end.

Bronze rows come from the project's binary decoder (``transforms.decode.binary.decode``). The expected values do not: an
independent minimal reader below walks the raw batches and decodes only ConfigRecords (frame ``01 04 00``,
int8 type, compact strings), and a few values were also checked by hand in the bytes, e.g. at byte 20480
``01 04 00 | 02 | 13 "__consumer_offsets" | 0e "segment.bytes" | 0a "104857600" | 00``.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import yaml
from pyspark.sql import Row, SparkSession

from jobs.runtime.holding import LOCAL_ROWS
from jobs.runtime.lookups import held_catalog_frames
from schemas.decoded import DecodedRecord
from schemas.kafka_catalog import KafkaCatalog, release_catalog_from_document
from schemas.metadata_version import MetadataVersionTable
from tests.conftest import real_metadata_dir
from tests.transforms.replay.bronze_rows import no_static_configs, records

pytestmark = pytest.mark.system

SNAPSHOT = "rjmfernandes__flink-on-prem/data/__cluster_metadata-0/00000000000000014926-0000000001.checkpoint"
CONF_KAFKA = Path(__file__).resolve().parents[3] / "conf" / "kafka"


def _uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    raw, pos = _uvarint(buf, pos)
    return (raw >> 1) ^ -(raw & 1), pos


def _compact_string(buf: bytes, pos: int) -> tuple[str | None, int]:
    length, pos = _uvarint(buf, pos)
    if length == 0:
        return None, pos
    return buf[pos : pos + length - 1].decode(), pos + length - 1


def independent_config_records(data: bytes) -> list[tuple[int, int, str, str, str | None]]:
    """``(offset, resource_type, resource_name, name, value)`` of every ConfigRecord, in file order.

    Only what a ConfigRecord v0 needs: uncompressed v2 batches (asserted), control batches skipped.
    """
    out = []
    pos = 0
    while pos + 61 <= len(data):
        base_offset, length = struct.unpack_from(">qi", data, pos)
        attributes = struct.unpack_from(">h", data, pos + 21)[0]
        count = struct.unpack_from(">i", data, pos + 57)[0]
        assert attributes & 0x07 == 0, "compressed batch: the minimal reader does not decompress"
        rec = pos + 61
        end = pos + 12 + length
        for _ in range(count if not attributes & 0x20 else 0):
            _, rec = _varint(data, rec)  # record length
            rec += 1  # attributes
            _, rec = _varint(data, rec)  # timestamp delta
            offset_delta, rec = _varint(data, rec)
            key_len, rec = _varint(data, rec)
            rec += max(key_len, 0)
            value_len, rec = _varint(data, rec)
            value = data[rec : rec + value_len]
            rec += value_len
            headers, rec = _varint(data, rec)
            assert headers == 0
            frame, api_key, version = value[0], value[1], value[2]
            if (frame, api_key, version) == (1, 4, 0):
                resource_type = struct.unpack_from(">b", value, 3)[0]
                resource_name, p = _compact_string(value, 4)
                name, p = _compact_string(value, p)
                config_value, p = _compact_string(value, p)
                assert resource_name is not None and name is not None
                out.append((base_offset + offset_delta, resource_type, resource_name, name, config_value))
        pos = end
    return out


@pytest.fixture(scope="module")
def snapshot_bytes() -> bytes:
    path = real_metadata_dir() / SNAPSHOT
    if not path.is_file():
        pytest.skip(f"real snapshot not present: {path}")
    return path.read_bytes()


@pytest.fixture(scope="module")
def resolved(
    interpreted_spark: SparkSession, mv_table: MetadataVersionTable, snapshot_bytes: bytes
) -> dict[str, list[Row]]:
    decode = pytest.importorskip("transforms.decode.binary.decode", reason="binary decoder not available")
    from jobs.runtime.holding import Checkpoints
    from transforms.effective import effective_findings, resolve_effective_configs, to_catalog_frames
    from transforms.replay import replay_state

    decoded = [
        r
        for r in decode.decode_file(snapshot_bytes, kind="SNAPSHOT", snapshot_end_offset=14926)
        if isinstance(r, DecodedRecord)
    ]
    recs = [
        (
            r.offset,
            r.record_type,
            r.data,
            {
                "timestamp_ms": r.timestamp_ms,
                "leader_epoch": r.leader_epoch,
                "record_version": r.record_version,
                "is_control": r.is_control,
                "is_unknown": r.is_unknown,
            },
        )
        for r in decoded
    ]
    bronze = records(
        interpreted_spark,
        recs,
        cluster_id="flink-on-prem",
        source_file=f"/real/{SNAPSHOT}",
        input_kind="SNAPSHOT",
        snapshot_end_offset=14926,
    )
    catalog = KafkaCatalog(
        releases=tuple(
            release_catalog_from_document(yaml.load(p.read_text(), Loader=yaml.CSafeLoader), source=p.name)
            for p in sorted(CONF_KAFKA.glob("*.yaml"))
        )
    )
    # held at the stage boundaries the audit job uses (jobs.runtime.holding): the pure plan of a real log is large
    state = replay_state(
        bronze, no_static_configs(interpreted_spark), mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS)
    )
    frames = held_catalog_frames(to_catalog_frames(interpreted_spark, catalog))
    resolution = Checkpoints(local_rows=LOCAL_ROWS)
    return {
        "effective": resolve_effective_configs(state, frames, keep=resolution)
        .where("resource_type = 'TOPIC'")
        .collect(),
        "brokers": state.brokers.collect(),
        "cluster": state.cluster_state.collect(),
        "topics": state.topics.collect(),
        "findings": effective_findings(state, frames, keep=resolution).collect(),
    }


def test_minimal_reader_sees_the_375_topic_config_records(snapshot_bytes: bytes) -> None:
    configs = independent_config_records(snapshot_bytes)
    assert len(configs) == 375
    assert {c[1] for c in configs} == {2}
    assert (269, 2, "__consumer_offsets", "segment.bytes", "104857600") in configs


def test_cluster_state_of_the_snapshot(resolved: dict[str, list[Row]]) -> None:
    cluster = resolved["cluster"][0]
    assert (cluster.current_level, cluster.snapshot_end_offset, cluster.last_offset) == (14, 14926, 14925)
    assert (cluster.broker_count, cluster.topic_count) == (1, 60)
    assert sum(t.partitions for t in resolved["topics"]) == 148
    broker = resolved["brokers"][0]
    assert (broker.node_id, broker.kafka_release, broker.fenced, broker.has_static_configs) == (1, "3.6", False, False)


def test_every_topic_override_matches_the_independent_reader(
    resolved: dict[str, list[Row]], snapshot_bytes: bytes
) -> None:
    expected: dict[tuple[str, str], tuple[str | None, int]] = {}
    for offset, _, topic, name, value in independent_config_records(snapshot_bytes):
        expected[(topic, name)] = (value, offset)
    overrides = {
        (r.resource_name, r.config_name): (r.value, r.source_offset)
        for r in resolved["effective"]
        if r.source == "DYNAMIC_TOPIC_CONFIG"
    }
    # Snapshot records carry the snapshot's position (end offset - 1), not the offset inside the file.
    assert overrides == {key: (value, 14925) for key, (value, _) in expected.items()}


@pytest.mark.parametrize(
    ("topic", "key", "value", "source"),
    [
        ("__consumer_offsets", "segment.bytes", "104857600", "DYNAMIC_TOPIC_CONFIG"),
        ("__consumer_offsets", "cleanup.policy", "compact", "DYNAMIC_TOPIC_CONFIG"),
        ("_confluent-command", "min.insync.replicas", "1", "DYNAMIC_TOPIC_CONFIG"),
        ("orders", "segment.bytes", "1073741824", "DEFAULT_CONFIG"),
        ("orders", "retention.ms", "604800000", "DEFAULT_CONFIG"),
    ],
    ids=["override-hand-read", "override-compact", "override-min-isr", "default-segment", "default-retention"],
)
def test_hand_checked_effective_values(
    resolved: dict[str, list[Row]], topic: str, key: str, value: str, source: str
) -> None:
    rows = [r for r in resolved["effective"] if (r.resource_name, r.config_name) == (topic, key)]
    assert [(r.value, r.source, r.node_id) for r in rows] == [(value, source, None)]


def test_broker_without_static_configs_is_a_coverage_gap(resolved: dict[str, list[Row]]) -> None:
    gaps = [f for f in resolved["findings"] if f.kind == "COVERAGE_GAP"]
    assert [(f.resource_name, f.offset) for f in gaps] == [("1", 14925)]
    assert "read-only configs of Kafka 3.6" in gaps[0].message
