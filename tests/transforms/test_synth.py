"""The synthetic fleet generator: deterministic, decodable, contiguous, sized as asked, and honest about what it
planted (checked against an independent replay of the decoded files written in this test)."""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest

from jobs.conf_loader import metadata_versions
from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.binary.decode import decode_file
from transforms.binary.encode import encode_log_segment, encode_metadata_record, encode_snapshot
from transforms.synth import (
    METADATA_DIR,
    RELEASES,
    SECRET_MARKER,
    ClusterEncoder,
    ClusterSynth,
    FleetSpec,
    SnapshotCut,
    log_segment_bytes,
    metadata_value,
    partition_record_version,
    plan_cluster,
    plan_fleet,
    register_broker_version,
    release_levels,
    snapshot_bytes,
)

RT_NAMES = {2: "TOPIC", 4: "BROKER", 16: "CLIENT_METRICS", 32: "GROUP"}
INTERNAL = {"__consumer_offsets", "__transaction_state"}
SEGMENT_NAME = re.compile(r"^(\d{20})\.log$")
SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


@functools.cache
def levels() -> tuple[tuple[str, int], ...]:
    return release_levels(metadata_versions())


def spec(**overrides: Any) -> FleetSpec:
    values: dict[str, Any] = {
        "clusters": 8,
        "brokers": 3,
        "topics": 30,
        "partitions": 3,
        "topic_configs": 3,
        "violation_rate": 0.3,
        "seed": 7,
        "segment_records": 97,
    }
    values.update(overrides)
    return FleetSpec(release_levels=levels(), **values)


@dataclass
class Cluster:
    """One generated cluster: its synth (manifest side), files and decoded records."""

    synth: ClusterSynth
    encoder: ClusterEncoder
    files: dict[str, bytes]
    decoded: dict[str, list[DecodedRecord]] = field(default_factory=dict)

    def segments(self) -> list[tuple[int, list[DecodedRecord]]]:
        out = []
        for path, records in sorted(self.decoded.items()):
            match = SEGMENT_NAME.match(path.rpartition("/")[2])
            if match:
                out.append((int(match.group(1)), records))
        return out

    def snapshot(self) -> tuple[int, int, list[DecodedRecord]] | None:
        for path, records in self.decoded.items():
            match = SNAPSHOT_NAME.match(path.rpartition("/")[2])
            if match:
                return int(match.group(1)), int(match.group(2)), records
        return None


def kind_of(path: str) -> tuple[str, int | None] | None:
    name = path.rpartition("/")[2]
    if SEGMENT_NAME.match(name):
        return "LOG_SEGMENT", None
    match = SNAPSHOT_NAME.match(name)
    if match:
        return "SNAPSHOT", int(match.group(1))
    if name == "bootstrap.checkpoint":
        return "BOOTSTRAP_SNAPSHOT", 0
    return None


def generate(fleet: FleetSpec, index: int) -> Cluster:
    synth = ClusterSynth(fleet, plan_cluster(fleet, index))
    encoder = ClusterEncoder(synth)
    cluster = Cluster(synth, encoder, dict(encoder.files()))
    for path, data in cluster.files.items():
        kind = kind_of(path)
        if kind is None:
            continue
        items = list(decode_file(data, kind=kind[0], snapshot_end_offset=kind[1]))
        quarantined = [item for item in items if isinstance(item, QuarantineItem)]
        assert not quarantined, (path, quarantined[:3])
        cluster.decoded[path] = [item for item in items if isinstance(item, DecodedRecord)]
    return cluster


@functools.cache
def fleet(**overrides: Any) -> tuple[Cluster, ...]:
    fleet_spec = spec(**overrides)
    return tuple(generate(fleet_spec, index) for index in range(fleet_spec.clusters))


def default_fleet() -> tuple[Cluster, ...]:
    return fleet()


# ---------------------------------------------------------------------------------------------------------------
# An independent replay of decoded records (transactions, deletes, removals, registrations)
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class State:
    configs: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)
    topics: dict[str, str] = field(default_factory=dict)  # topic id -> name
    partitions: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    brokers: dict[int, dict[str, Any]] = field(default_factory=dict)
    features: dict[str, int] = field(default_factory=dict)

    def topic_by_name(self) -> dict[str, str]:
        return {name: topic_id for topic_id, name in self.topics.items()}

    def replication_factor(self, topic_id: str) -> int:
        return len(self.partitions[(topic_id, 0)]["replicas"])


def replay(records: Iterable[DecodedRecord], state: State | None = None, *, below: int | None = None) -> State:
    state = state or State()
    pending: list[DecodedRecord] | None = None
    for record in records:
        if record.is_control or (below is not None and record.offset >= below):
            continue
        kind = record.record_type
        if pending is not None:
            if kind == "END_TRANSACTION_RECORD":
                for item in pending:
                    apply(state, item)
                pending = None
            elif kind == "ABORT_TRANSACTION_RECORD":
                pending = None
            else:
                pending.append(record)
        elif kind == "BEGIN_TRANSACTION_RECORD":
            pending = []
        else:
            apply(state, record)
    return state


def apply(state: State, record: DecodedRecord) -> None:
    data, kind = record.data, record.record_type
    if kind == "CONFIG_RECORD":
        entries = state.configs.setdefault((data["resourceType"], data["resourceName"]), {})
        if data["value"] is None:
            entries.pop(data["name"], None)
        else:
            entries[data["name"]] = data["value"]
    elif kind == "TOPIC_RECORD":
        state.topics[data["topicId"]] = data["name"]
    elif kind == "REMOVE_TOPIC_RECORD":
        name = state.topics.pop(data["topicId"])
        state.configs.pop((2, name), None)
        for partition_key in [k for k in state.partitions if k[0] == data["topicId"]]:
            del state.partitions[partition_key]
    elif kind == "PARTITION_RECORD":
        state.partitions[(data["topicId"], data["partitionId"])] = dict(data)
    elif kind == "PARTITION_CHANGE_RECORD":
        partition = state.partitions[(data["topicId"], data["partitionId"])]
        for key in ("leader", "isr"):
            if key in data:
                partition[key] = data[key]
    elif kind == "REGISTER_BROKER_RECORD":
        state.brokers[data["brokerId"]] = dict(data)
    elif kind == "BROKER_REGISTRATION_CHANGE_RECORD":
        if data.get("fenced"):
            state.brokers[data["brokerId"]]["fenced"] = data["fenced"] == 1
        if data.get("inControlledShutdown") == 1:
            state.brokers[data["brokerId"]]["inControlledShutdown"] = True
    elif kind == "UNREGISTER_BROKER_RECORD":
        del state.brokers[data["brokerId"]]
    elif kind == "FEATURE_LEVEL_RECORD":
        state.features[data["name"]] = data["featureLevel"]


def nonempty(configs: dict[tuple[int, str], dict[str, str]]) -> dict[tuple[int, str], dict[str, str]]:
    """Kafka drops a resource whose last key was deleted."""
    return {key: entries for key, entries in configs.items() if entries}


def final_state(cluster: Cluster) -> State:
    """Newest snapshot, then the log from its end offset (CONTRACT §4)."""
    snapshot = cluster.snapshot()
    log = [record for _, records in cluster.segments() for record in records]
    if snapshot is None:
        return replay(log)
    end_offset, _, snapshot_records = snapshot
    state = replay(snapshot_records)
    return replay([r for r in log if r.offset >= end_offset], state)


def bad_values(state: State) -> set[tuple[str, str, str, str, str]]:
    """Every known-bad value in effect, as (resource type, resource name, config, value, source)."""
    out = set()
    by_name = state.topic_by_name()
    for (resource_type, name), entries in state.configs.items():
        for key, value in entries.items():
            if resource_type == 2:
                bad = topic_value_is_bad(key, value, state.replication_factor(by_name[name]))
                source = "DYNAMIC_TOPIC_CONFIG"
            elif resource_type == 4:
                bad = broker_value_is_bad(key, value)
                source = "DYNAMIC_DEFAULT_BROKER_CONFIG" if name == "" else "DYNAMIC_BROKER_CONFIG"
            elif resource_type == 32:
                session = int(entries.get("consumer.session.timeout.ms", "45000"))
                bad = key == "consumer.heartbeat.interval.ms" and int(value) >= session
                source = "DYNAMIC_GROUP_CONFIG"
            else:
                bad = key == "interval.ms" and not 100 <= int(value) <= 3_600_000
                source = "DYNAMIC_CLIENT_METRICS_CONFIG"
            if bad:
                out.add((RT_NAMES[resource_type], name, key, value, source))
    for broker, registration in state.brokers.items():
        for entry in registration.get("staticConfigs", []):
            if broker_value_is_bad(entry["name"], entry["value"]):
                out.add(("BROKER", str(broker), entry["name"], entry["value"], "STATIC_BROKER_CONFIG"))
    return out


def list_is_bad(value: str) -> bool:
    elements = value.split(",")
    return "" in elements or len(set(elements)) != len(elements)


def topic_value_is_bad(key: str, value: str, replication_factor: int) -> bool:
    return (
        (key == "segment.bytes" and int(value) < 1024 * 1024)
        or (key == "cleanup.policy" and list_is_bad(value))
        or (key == "min.insync.replicas" and int(value) > replication_factor)
        or key == "message.format.version"
        or (key == "retention.ms" and int(value) < -1)
    )


def broker_value_is_bad(key: str, value: str | None) -> bool:
    if value is None or "password" in key:
        return False
    return (
        (key == "log.segment.bytes" and int(value) < 3 * 1024 * 1024)
        or (key == "message.max.bytes" and int(value) < 0)
        or (key == "num.io.threads" and int(value) < 1)
        or (key == "log.cleanup.policy" and list_is_bad(value))
    )


def planted_key(entry: dict[str, Any]) -> tuple[str, str, str, str, str]:
    return (entry["resource_type"], entry["resource_name"], entry["config"], entry["value"], entry["source"])


# ---------------------------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------------------------


def test_release_levels_are_the_last_iv_of_each_release() -> None:
    assert dict(levels()) == {"3.6": 14, "3.7": 19, "3.8": 20, "3.9": 21, "4.0": 25, "4.1": 27, "4.2": 29, "4.3": 30}


@pytest.mark.parametrize(
    "overrides",
    [{"clusters": 0}, {"brokers": 0}, {"partitions": 0}, {"violation_rate": 1.5}, {"segment_records": 3}],
    ids=["no-clusters", "no-brokers", "no-partitions", "rate-above-one", "tiny-segments"],
)
def test_fleet_spec_rejects_impossible_sizes(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        spec(**overrides)


def test_same_seed_gives_byte_identical_files_and_another_seed_does_not() -> None:
    first = generate(spec(), 2).files
    again = generate(spec(), 2).files
    other = generate(spec(seed=8), 2).files
    assert first == again
    assert set(first) and first != other


def test_clusters_do_not_depend_on_the_fleet_size_or_order() -> None:
    alone = generate(spec(clusters=1), 0).files
    assert generate(spec(clusters=5), 0).files == alone


def test_every_file_decodes_without_quarantine() -> None:
    for cluster in default_fleet():  # generate() asserts zero quarantine for each file
        kinds = Counter(kind[0] for kind in map(kind_of, cluster.decoded) if kind is not None)
        assert kinds["BOOTSTRAP_SNAPSHOT"] == 1 and kinds["SNAPSHOT"] == 1 and kinds["LOG_SEGMENT"] >= 1


def test_fleet_mixes_releases_static_configs_and_lagging_metadata_versions() -> None:
    plans = list(plan_fleet(spec(clusters=100)))
    assert {p.release for p in plans} == set(RELEASES)
    assert 0.35 < sum(p.static_configs for p in plans) / len(plans) < 0.85
    assert any(p.bootstrap_level < p.level for p in plans)
    assert all(p.level == dict(levels())[p.release] for p in plans)


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


def test_snapshot_holds_the_state_of_the_log_before_its_end_offset() -> None:
    with_snapshot = fleet(segment_records=1000)
    without = fleet(segment_records=1000, snapshot=False)
    for snapped, full in zip(with_snapshot, without, strict=True):
        assert full.snapshot() is None
        snapshot = snapped.snapshot()
        assert snapshot is not None
        end_offset, _, snapshot_records = snapshot
        log = [r for _, records in full.segments() for r in records]
        from_snapshot = replay(snapshot_records)
        from_log = replay(log, below=end_offset)
        assert nonempty(from_snapshot.configs) == nonempty(from_log.configs)
        assert from_snapshot.topics == from_log.topics
        assert from_snapshot.brokers == from_log.brokers
        assert from_snapshot.features == from_log.features
        assert {k: (p["leader"], p["isr"]) for k, p in from_snapshot.partitions.items()} == {
            k: (p["leader"], p["isr"]) for k, p in from_log.partitions.items()
        }
        # and the snapshot + the log after it reach the same end state as the whole log
        assert nonempty(final_state(snapped).configs) == nonempty(replay(log).configs)
        assert final_state(snapped).topics == replay(log).topics


def test_log_starts_with_the_bootstrap_transaction_at_the_formatted_level() -> None:
    for cluster in default_fleet():
        plan = cluster.synth.plan
        bootstrap = cluster.decoded["bootstrap.checkpoint"]
        assert bootstrap[1].data == {"name": "metadata.version", "featureLevel": plan.bootstrap_level}
        if cluster.encoder.deleted_segments:
            continue
        records = cluster.segments()[0][1]
        assert records[0].record_type == "LEADER_CHANGE"
        assert records[1].record_type == "BEGIN_TRANSACTION_RECORD"
        assert records[2].data == {"name": "metadata.version", "featureLevel": plan.bootstrap_level}


def test_final_metadata_version_is_the_release_level() -> None:
    for cluster in default_fleet():
        assert final_state(cluster).features["metadata.version"] == cluster.synth.plan.level


def test_size_knobs_are_respected() -> None:
    fleet_spec = spec()
    for cluster in fleet(snapshot=False):
        state = final_state(cluster)
        user_topics = {tid: n for tid, n in state.topics.items() if n not in INTERNAL}
        assert len(user_topics) == fleet_spec.topics
        per_topic = Counter(tid for tid, _ in state.partitions if tid in user_topics)
        assert set(per_topic.values()) == {fleet_spec.partitions}
        assert sorted(state.brokers) == list(range(1, fleet_spec.brokers + 1))
        for topic_id in user_topics:
            assert 1 <= state.replication_factor(topic_id) <= min(3, fleet_spec.brokers)
        # ConfigRecords between a user topic's TopicRecord and its first PartitionRecord = its overrides
        log = [r for _, records in cluster.segments() for r in records]
        created: Counter[str] = Counter()
        current = None
        for record in log:
            if record.record_type == "TOPIC_RECORD":
                current = record.data["name"]
            elif record.record_type == "PARTITION_RECORD":
                current = None
            elif record.record_type == "CONFIG_RECORD" and current is not None:
                created[current] += 1
        assert {created[name] for name in user_topics.values()} == {fleet_spec.topic_configs}


def test_planted_violations_are_exactly_the_bad_values_in_effect() -> None:
    planted_total = 0
    for cluster in default_fleet():
        manifest = {planted_key(p.to_dict()) for p in cluster.synth.violations}
        planted_total += len(manifest)
        assert bad_values(final_state(cluster)) == manifest
    assert planted_total >= 20


def test_planted_kinds_cover_every_layer() -> None:
    sources = Counter(p.source for c in fleet(clusters=30) for p in c.synth.violations)
    assert set(sources) == {
        "DYNAMIC_TOPIC_CONFIG",
        "DYNAMIC_BROKER_CONFIG",
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "STATIC_BROKER_CONFIG",
        "DYNAMIC_GROUP_CONFIG",
        "DYNAMIC_CLIENT_METRICS_CONFIG",
    }


def test_decoys_are_in_the_log_but_not_in_effect() -> None:
    reasons = set()
    for cluster in fleet(snapshot=False):
        state = final_state(cluster)
        log_values = {
            (RT_NAMES[r.data["resourceType"]], r.data["resourceName"], r.data["name"], r.data["value"])
            for _, records in cluster.segments()
            for r in records
            if r.record_type == "CONFIG_RECORD"
        }
        for decoy in cluster.synth.decoys:
            entry = decoy.to_dict()
            reasons.add(entry["reason"])
            key = (entry["resource_type"], entry["resource_name"], entry["config"], entry["value"])
            assert key in log_values
            resource_type = {v: k for k, v in RT_NAMES.items()}[entry["resource_type"]]
            in_effect = state.configs.get((resource_type, entry["resource_name"]), {}).get(entry["config"])
            assert in_effect != entry["value"], entry
            if entry["reason"] in ("topic_removed", "aborted_transaction"):
                assert entry["resource_name"] not in state.topics.values()
    assert reasons == {"topic_removed", "aborted_transaction", "superseded", "deleted"}


def test_secrets_are_planted_as_dynamic_passwords_and_listed_only_by_hash() -> None:
    for cluster in default_fleet():
        state = final_state(cluster)
        assert len(cluster.synth.secrets) == 1
        entry = cluster.synth.secrets[0].to_dict()
        assert entry["value"] == "[redacted]" and entry["marker"] == SECRET_MARKER
        stored = state.configs[(4, entry["resource_name"])][entry["config"]]
        assert stored.startswith(SECRET_MARKER) and "password" in entry["config"]
        assert hashlib.sha256(stored.encode()).hexdigest() == entry["value_sha256"]


def test_violation_rate_zero_plants_nothing_anywhere_in_the_log() -> None:
    for cluster in fleet(violation_rate=0.0, snapshot=False):
        assert not cluster.synth.violations and not cluster.synth.decoys and not cluster.synth.secrets
        log = [r for _, records in cluster.segments() for r in records]
        assert not bad_values(final_state(cluster))
        for record in log:
            if record.record_type == "CONFIG_RECORD" and record.data["value"] is not None:
                assert SECRET_MARKER not in record.data["value"]
                if record.data["resourceType"] == 4:
                    assert not broker_value_is_bad(record.data["name"], record.data["value"])
            if record.record_type == "REGISTER_BROKER_RECORD":
                for entry in record.data.get("staticConfigs", []):
                    assert not broker_value_is_bad(entry["name"], entry["value"])


def test_content_has_the_records_of_a_lived_in_cluster() -> None:
    types: Counter[str] = Counter()
    for cluster in fleet(snapshot=False):
        types.update(r.record_type for _, records in cluster.segments() for r in records)
    for expected in (
        "REGISTER_BROKER_RECORD",
        "BROKER_REGISTRATION_CHANGE_RECORD",
        "UNREGISTER_BROKER_RECORD",
        "TOPIC_RECORD",
        "PARTITION_RECORD",
        "PARTITION_CHANGE_RECORD",
        "CONFIG_RECORD",
        "REMOVE_TOPIC_RECORD",
        "CLIENT_QUOTA_RECORD",
        "PRODUCER_IDS_RECORD",
        "NO_OP_RECORD",
        "BEGIN_TRANSACTION_RECORD",
        "END_TRANSACTION_RECORD",
        "ABORT_TRANSACTION_RECORD",
        "FEATURE_LEVEL_RECORD",
        "LEADER_CHANGE",
    ):
        assert types[expected], expected


def test_record_versions_follow_the_metadata_version_and_static_config_choice() -> None:
    for cluster in fleet(snapshot=False):
        plan = cluster.synth.plan
        log = [r for _, records in cluster.segments() for r in records]
        partitions = {r.record_version for r in log if r.record_type == "PARTITION_RECORD"}
        # topics are created before a lagging cluster finalizes its upgrade (only the aborted one may come after)
        assert partition_record_version(plan.bootstrap_level) in partitions
        assert partitions <= {partition_record_version(plan.bootstrap_level), partition_record_version(plan.level)}
        registrations = [r for r in log if r.record_type == "REGISTER_BROKER_RECORD"]
        if plan.static_configs:
            assert {r.record_version for r in registrations} == {5}
            assert all(r.data["staticConfigs"] for r in registrations)
        else:
            assert {r.record_version for r in registrations} <= {
                register_broker_version(plan.bootstrap_level),
                register_broker_version(plan.level),
            }
            assert not any("staticConfigs" in r.data for r in registrations)
        for registration in registrations:
            features = {f["name"]: f for f in registration.data["features"]}
            assert features["metadata.version"]["maxSupportedVersion"] == plan.level


@pytest.mark.parametrize(
    "overrides",
    [{"brokers": 1, "topics": 0}, {"brokers": 1, "topics": 4, "partitions": 1}, {"topic_configs": 0}],
    ids=["one-broker-no-topics", "one-broker-rf1", "no-topic-configs"],
)
def test_edge_sizes_still_give_decodable_consistent_logs(overrides: dict[str, Any]) -> None:
    fleet_spec = spec(clusters=3, **overrides)
    for index in range(fleet_spec.clusters):
        cluster = generate(fleet_spec, index)
        assert cluster.snapshot() is not None
        manifest = {planted_key(p.to_dict()) for p in cluster.synth.violations}
        assert bad_values(final_state(cluster)) == manifest


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


def test_meta_properties_names_the_cluster() -> None:
    cluster = default_fleet()[0]
    text = cluster.files["meta.properties"].decode("ascii")
    properties = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    assert properties["cluster.id"] == cluster.synth.plan.cluster_id and len(properties["cluster.id"]) == 22
    assert properties["version"] == "1" and properties["node.id"].isdigit()
    logs = [path for path in cluster.files if path.endswith((".log", ".checkpoint")) and path != "bootstrap.checkpoint"]
    assert logs and all(path.startswith(f"{METADATA_DIR}/") for path in logs)
