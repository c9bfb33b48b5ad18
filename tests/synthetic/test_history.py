"""A cluster's history: the bootstrap, the sizes asked for, the records of a lived-in cluster at the versions its
metadata.version writes, consistent at edge sizes (checked against an independent replay of the decoded files)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from synthetic.records import partition_record_version, register_broker_version
from tests.synthetic.fleets import INTERNAL, default_fleet, fleet, generate, spec
from tests.synthetic.independent_replay import bad_values, final_state, planted_key


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
