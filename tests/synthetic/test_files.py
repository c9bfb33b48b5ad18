"""A cluster's files: deterministic, decodable, contiguous segments named by base offset, the snapshot named after
its end offset with the segments below it deleted, meta.properties, and the fast encoder's bytes."""

from __future__ import annotations

from collections import Counter
from typing import Any

from synthetic.files import METADATA_DIR
from synthetic.history import ClusterSynth
from synthetic.image import SnapshotCut
from synthetic.plan import plan_cluster
from tests.synthetic.fleets import default_fleet, generate, kind_of, spec
from transforms.decode.binary.encode import encode_log_segment, encode_metadata_record, encode_snapshot
from transforms.decode.binary.encode_fast import log_segment_bytes, metadata_value, snapshot_bytes


def test_same_seed_gives_byte_identical_files_and_another_seed_does_not() -> None:
    first = generate(spec(), 2).files
    again = generate(spec(), 2).files
    other = generate(spec(seed=8), 2).files
    assert first == again
    assert set(first) and first != other


def test_every_file_decodes_without_quarantine() -> None:
    for cluster in default_fleet():  # generate() asserts zero quarantine for each file
        kinds = Counter(kind[0] for kind in map(kind_of, cluster.decoded) if kind is not None)
        assert kinds["BOOTSTRAP_SNAPSHOT"] == 1 and kinds["SNAPSHOT"] == 1 and kinds["LOG_SEGMENT"] >= 1


def test_segment_offsets_are_contiguous_and_named_by_base_offset() -> None:
    for cluster in default_fleet():
        segments = cluster.segments()
        expected = segments[0][0]
        for base_offset, records in segments:
            offsets = [r.offset for r in records]
            assert base_offset == expected == offsets[0]
            assert offsets == list(range(base_offset, base_offset + len(offsets)))
            assert len(offsets) <= 97
            expected = offsets[-1] + 1
        assert all(len(records) == 97 for _, records in segments[:-1])
        assert expected == cluster.encoder.end_offset


def test_snapshot_is_named_after_its_end_offset_and_old_segments_are_deleted() -> None:
    for cluster in default_fleet():
        snapshot = cluster.snapshot()
        assert snapshot is not None
        end_offset, epoch, records = snapshot
        first_base, first_records = cluster.segments()[0]
        # the first kept segment holds the cut; every segment below it was deleted
        assert first_base <= end_offset <= first_records[-1].offset + 1
        assert cluster.encoder.deleted_segments * 97 == first_base
        assert [r.offset for r in records] == list(range(len(records)))
        assert records[0].record_type == "SNAPSHOT_HEADER" and records[-1].record_type == "SNAPSHOT_FOOTER"
        assert {r.leader_epoch for r in records} == {epoch}
    assert any(cluster.encoder.deleted_segments for cluster in default_fleet())


def test_meta_properties_names_the_cluster() -> None:
    cluster = default_fleet()[0]
    text = cluster.files["meta.properties"].decode("ascii")
    properties = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    assert properties["cluster.id"] == cluster.synth.plan.cluster_id and len(properties["cluster.id"]) == 22
    assert properties["version"] == "1" and properties["node.id"].isdigit()
    logs = [path for path in cluster.files if path.endswith((".log", ".checkpoint")) and path != "bootstrap.checkpoint"]
    assert logs and all(path.startswith(f"{METADATA_DIR}/") for path in logs)


def test_fast_encoder_writes_exactly_what_the_generic_writer_writes() -> None:
    fleet_spec = spec(clusters=6, topics=12)
    for index in range(fleet_spec.clusters):
        items = list(ClusterSynth(fleet_spec, plan_cluster(fleet_spec, index)).items())
        records = [item for item in items if not isinstance(item, SnapshotCut)]
        for record in records:
            assert metadata_value(record) == encode_metadata_record(*record), record
        options: dict[str, Any] = {
            "base_offset": 11,
            "leader_epoch": 4,
            "timestamp_ms": 1_700_000_000_000,
            "timestamp_step_ms": 500,
            "records_per_batch": 13,
            "leader_id": 3000,
            "voter_ids": [3000, 3001],
        }
        assert log_segment_bytes(records, **options) == encode_log_segment(records, **options)
        cut = next(item for item in items if isinstance(item, SnapshotCut))
        options = {"epoch": 9, "last_contained_log_timestamp": 5, "timestamp_ms": 5, "records_per_batch": 40}
        assert snapshot_bytes(cut.records, **options) == encode_snapshot(cut.records, **options)
