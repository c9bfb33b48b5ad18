"""kraft-audit against what Kafka's own brokers answered (the committed golden fixtures, ``make kafka-fixtures``).

Each fixture is one scenario of ``oracle/scenarios.yaml`` run on one released Kafka (3.7.2 ... 4.4.0): the node's
metadata log, its ``server.properties`` and its DescribeConfigs answers. The expectations are Kafka's answers and the
records its upgrades wrote; nothing here starts Kafka.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from oracle.compare import (
    FIXTURES,
    Comparisons,
    FixtureComparison,
    compare,
    compare_fixture,
    judge,
    refused_keys,
    report,
)
from oracle.fixtures import METADATA_DIR, answers, fixtures
from oracle.requests import report_lines as request_lines
from oracle.upgrades import predicted_changes, report_lines, upgrade_of, write_cut
from schemas.decoded import DecodedRecord
from transforms.decode.binary.decode import decode_file

RELEASES = {"3.7.2", "3.9.1", "4.0.2", "4.1.2", "4.2.0", "4.3.1", "4.4.0"}


@pytest.fixture(scope="module")
def both(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Comparisons:
    return compare(spark, FIXTURES, tmp_path_factory.mktemp("oracle") / "warehouse")


@pytest.fixture(scope="module")
def comparisons(both: Comparisons) -> list[FixtureComparison]:
    return both.fixtures


def test_every_scenario_of_every_release_is_a_fixture_and_is_compared(comparisons: list[FixtureComparison]) -> None:
    assert {c.release for c in comparisons} == RELEASES
    assert len(comparisons) == len(fixtures(FIXTURES)) >= 70
    for c in comparisons:
        if (FIXTURES / c.cluster / METADATA_DIR).is_dir() and c.started:
            assert len(c.pairs) >= 250, c.cluster  # every broker key Kafka describes (285 on 3.7.2), and the topics'
        else:
            assert not c.pairs, c.cluster


def test_every_value_kafka_describes_is_the_effective_value_kraft_audit_resolves(
    comparisons: list[FixtureComparison],
) -> None:
    text = "\n".join(report(comparisons))
    assert not [c.cluster for c in comparisons if not c.agrees], text


def test_a_layer_a_thread_pool_refuses_is_seen_alike_by_kafka_and_kraft_audit(
    comparisons: list[FixtureComparison],
) -> None:
    # num.io.threads 8 -> 32 at the cluster default: DynamicThreadPool refuses the whole layer on every release;
    # Kafka keeps message.max.bytes at its default and names the stored layer as the source.
    for release in RELEASES:
        (c,) = [c for c in comparisons if c.cluster == f"reconfigurable-refuses-layer@{release}"]
        refused = {(p.resource, p.key): p for p in c.pairs if p.verdict == "refused layer"}
        assert refused[("BROKER:1", "message.max.bytes")].kafka == ("1048588", "DYNAMIC_DEFAULT_BROKER_CONFIG")
        assert refused[("BROKER:1", "message.max.bytes")].ours == ("1048588", "DEFAULT_CONFIG")
        assert refused[("TOPIC:oracle-t1", "max.message.bytes")].ours == ("1048588", "DEFAULT_CONFIG")


def test_a_layer_the_network_threads_refuse_is_seen_alike_by_kafka_and_kraft_audit(
    comparisons: list[FixtureComparison],
) -> None:
    # num.network.threads 3 -> 8 at the cluster default: SocketServer's acceptors refuse the whole layer on every
    # release ("Dynamic thread count update validation failed"); message.max.bytes keeps its default
    for release in RELEASES:
        (c,) = [c for c in comparisons if c.cluster == f"network-threads-refuse-layer@{release}"]
        refused = {(p.resource, p.key): p for p in c.pairs if p.verdict == "refused layer"}
        assert refused[("BROKER:1", "num.network.threads")].ours == ("3", "STATIC_BROKER_CONFIG")
        assert refused[("BROKER:1", "message.max.bytes")].ours == ("1048588", "DEFAULT_CONFIG")


def test_a_refused_layer_held_in_the_snapshot_a_4_1_broker_restarts_from_is_applied(
    comparisons: list[FixtureComparison],
) -> None:
    # per-broker {num.io.threads=32, message.max.bytes=2000000} over a static 8, written through the controller and
    # held in a snapshot before a restart: 3.7.2 ... 4.0.2 keep refusing it; 4.1.2 ... 4.4.0 read the snapshot's
    # layers before any reconfigurable exists (KAFKA-17431) and run it, and a topic created after inherits 2000000
    for release in RELEASES:
        (c,) = [c for c in comparisons if c.cluster == f"refused-layer-in-a-snapshot-at-restart@{release}"]
        pairs = {(p.resource, p.key): p for p in c.pairs}
        applied = release >= "4.1"
        topic = pairs[("TOPIC:oracle-t1", "max.message.bytes")]
        assert topic.kafka[0] == ("2000000" if applied else "1048588"), release
        assert topic.ours[0] == topic.kafka[0]
        assert (pairs[("BROKER:1", "num.io.threads")].verdict == "refused layer") is not applied


def test_synonyms_across_three_layers_resolve_as_on_kafkas_brokers(comparisons: list[FixtureComparison]) -> None:
    # static log.retention.hours=48 and log.roll.ms=3600000; a cluster default log.retention.ms=7200000 (with the
    # read-only log.retention.minutes) and a per-broker read-only log.roll.hours, through the controller
    for release in RELEASES:
        (c,) = [c for c in comparisons if c.cluster == f"synonyms-across-layers@{release}"]
        pairs = {(p.resource, p.key): p for p in c.pairs}
        assert pairs[("TOPIC:oracle-t1", "retention.ms")].kafka == ("7200000", "DYNAMIC_DEFAULT_BROKER_CONFIG")
        assert pairs[("TOPIC:oracle-t1", "segment.ms")].kafka == ("3600000", "STATIC_BROKER_CONFIG")
        for key in ("retention.ms", "segment.ms"):
            assert pairs[("TOPIC:oracle-t1", key)].verdict == "equal", release
        # the static hours removed by the dynamic ms: Kafka shows the default with the static layer as its source
        hours = pairs[("BROKER:1", "log.retention.hours")]
        assert (hours.kafka, hours.ours, hours.verdict) == (
            ("168", "STATIC_BROKER_CONFIG"),
            ("168", "DEFAULT_CONFIG"),
            "hidden synonym",
        )
        assert pairs[("BROKER:1", "log.roll.hours")].verdict == "equal"
        # 3.x: the topic's timestamp bound is the broker's static difference (60000)
        bound = pairs[("TOPIC:oracle-t1", "message.timestamp.before.max.ms")]
        if release < "4":
            assert (bound.kafka[0], bound.verdict) == ("60000", "derived"), release
        else:
            assert bound.kafka[0] == bound.ours[0] == "9223372036854775807", release


def test_a_broker_drops_only_the_invalid_value_and_the_per_broker_keys_of_a_layer(
    comparisons: list[FixtureComparison],
) -> None:
    # per-broker {log.cleaner.backoff.ms=soon, message.max.bytes=2000000}; cluster default {ssl.keystore.type,
    # listener.name.plaintext.ssl.keystore.type, num.replica.fetchers=2}; both through the controller
    expected = {
        ("BROKER:1", "log.cleaner.backoff.ms"): ("15000", "DEFAULT_CONFIG"),
        ("BROKER:1", "message.max.bytes"): ("2000000", "DYNAMIC_BROKER_CONFIG"),
        ("BROKER:1", "ssl.keystore.type"): ("JKS", "DEFAULT_CONFIG"),
        ("BROKER:1", "num.replica.fetchers"): ("2", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
        ("TOPIC:oracle-t1", "max.message.bytes"): ("2000000", "DYNAMIC_BROKER_CONFIG"),
    }
    for release in RELEASES:
        (c,) = [c for c in comparisons if c.cluster == f"invalid-and-per-broker-only-keys@{release}"]
        pairs = {(p.resource, p.key): p for p in c.pairs}
        for pair, kafka in expected.items():
            assert (pairs[pair].kafka, pairs[pair].ours) == (kafka, kafka), (release, pair)
        # per-broker {ssl.keystore.type=PKCS12 without a listener prefix, message.max.bytes=2000000}
        (c,) = [c for c in comparisons if c.cluster == f"unprefixed-ssl-key-per-broker@{release}"]
        pairs = {(p.resource, p.key): p for p in c.pairs}
        for pair in [("BROKER:1", "ssl.keystore.type"), ("BROKER:1", "message.max.bytes")]:
            assert (pairs[pair].kafka, pairs[pair].ours) == ((expected[pair],) * 2), (release, pair)


def test_a_4_2_broker_runs_a_list_without_its_repeated_elements(comparisons: list[FixtureComparison]) -> None:
    # static group.coordinator.rebalance.protocols=classic,consumer,classic (KAFKA-19875: 4.2+ de-duplicates)
    for release in RELEASES:
        (c,) = [c for c in comparisons if c.cluster == f"duplicate-list-elements-at-start@{release}"]
        (pair,) = [p for p in c.pairs if p.key == "group.coordinator.rebalance.protocols"]
        expected = "classic,consumer" if release >= "4.2" else "classic,consumer,classic"
        assert (pair.kafka, pair.ours) == ((expected, "STATIC_BROKER_CONFIG"),) * 2, release


def test_an_empty_rebalance_protocol_list_stops_every_release_and_is_an_error_for_kraft_audit(
    comparisons: list[FixtureComparison],
) -> None:
    # added after a clean format: 3.7.2 ... 4.1.2 stop on "Disabling the 'classic' protocol is not supported."
    # (KafkaConfig.groupCoordinatorRebalanceProtocols), 4.2.0+ on KIP-1161's "must not be empty"; the never-started
    # nodes of 3.x ... 4.3 left only their bootstrap checkpoint, which is what kraft-audit audits
    for release in RELEASES:
        (c,) = [c for c in comparisons if c.cluster == f"empty-list-refused-at-start@{release}"]
        assert c.audited and not c.started, release
        assert c.errors, release
        assert all(e.startswith("BROKER:1 group.coordinator.rebalance.protocols ") for e in c.errors), c.errors
        assert c.start_agrees, release


def test_a_static_value_out_of_the_group_coordinators_bounds_stops_kafka_and_is_an_error_for_kraft_audit(
    comparisons: list[FixtureComparison],
) -> None:
    # 4.4.0: group.consumer.assignment.interval.ms above its max fails KafkaConfig's require: in server.properties
    # before format, the format itself is refused (no log to audit); added after format, the node does not start.
    refused_format = answers(FIXTURES / "group-assignment-interval-out-of-bounds@4.4.0")
    assert refused_format["format_ok"] is False
    assert "group.consumer.assignment.interval.ms" in str(refused_format["format_error"])
    (at_start,) = [c for c in comparisons if c.cluster == "group-assignment-interval-out-of-bounds-at-start@4.4.0"]
    assert at_start.audited and not at_start.started
    # the node never registered: kraft-audit judges it on its file (--kafka-version gives its release)
    assert any("group.consumer.assignment.interval.ms" in e for e in at_start.errors), at_start.errors
    # 3.9.1 and 4.2.0 have no such bound: the node starts and kraft-audit reports no error
    for release in ("3.9.1", "4.2.0"):
        (c,) = [c for c in comparisons if c.cluster == f"group-assignment-interval-out-of-bounds-at-start@{release}"]
        assert c.started and c.audited and not c.errors


def test_every_upgrade_writes_what_kraft_audit_predicts_and_kraft_audit_lets_it_pass(both: Comparisons) -> None:
    # 17 upgrades: --metadata on 3.7 / 3.9 and on 4.x with ELR left off, --release-version on 4.0 ... 4.4
    assert len(both.upgrades) >= 17
    assert {(u.upgrade.mode, u.upgrade.fixture.rpartition("@")[2][:1]) for u in both.upgrades} == {
        ("metadata", "3"),
        ("metadata", "4"),
        ("release-version", "4"),
    }
    text = "\n".join(report_lines(both.upgrades))
    assert all(u.agrees for u in both.upgrades), text
    by_fixture = {u.upgrade.fixture: u for u in both.upgrades}
    # Kafka 4.2.0 turned ELR on: the cluster-level value is the controller's server.properties one (3), the
    # per-broker value is deleted; on 4.0.2 the same request carries no ELR, and nothing is written
    elr = by_fixture["elr-with-per-broker-min-isr@4.2.0"]
    assert elr.upgrade.written == {
        ("BROKER", "", "min.insync.replicas", "3"),
        ("BROKER", "1", "min.insync.replicas", None),
    }
    assert elr.upgrade.features["eligible.leader.replicas.version"] == 1
    assert by_fixture["elr-with-per-broker-min-isr@4.0.2"].upgrade.written == set()
    assert by_fixture["elr-metadata-only-upgrade@4.4.0"].upgrade.written == set()


def test_an_upgrade_a_fenced_older_brokers_registration_blocks_is_refused_by_kafka_and_by_kraft_audit(
    both: Comparisons,
) -> None:
    # broker 2 of the previous release registered, then shut down cleanly (fenced): the controller of 3.9.1 ...
    # 4.4.0 refuses the upgrade to its own line, and kraft-audit's audit of the same log blocks it
    refused = {r.fixture: r for r in both.refused_upgrades}
    assert set(refused) == {f"fenced-older-broker-refuses-upgrade@{v}" for v in RELEASES - {"3.7.2"}}
    text = "\n".join(report_lines([], both.refused_upgrades))
    assert all(r.agrees for r in refused.values()), text
    on_3_9 = refused["fenced-older-broker-refuses-upgrade@3.9.1"]
    assert "Broker 2 only supports versions 1-19" in on_3_9.error  # Kafka: 3.7.2's registration
    assert "broker 2 is fenced" in on_3_9.refusals[0] and "levels 1-19" in on_3_9.refusals[0]
    # --release-version also raises group.version, which a 3.9.1 broker does not know: Kafka names that first
    assert "Broker 2 does not support this feature" in refused["fenced-older-broker-refuses-upgrade@4.4.0"].error
    assert "levels 1-21" in refused["fenced-older-broker-refuses-upgrade@4.4.0"].refusals[0]


def test_the_order_of_two_layers_at_a_restart_varies_and_kraft_audit_names_the_key_whose_value_depends_on_it(
    comparisons: list[FixtureComparison],
) -> None:
    # static num.io.threads 8, cluster default 16, per-broker 32 (both through the controller), then a restart:
    # cluster default first runs 32 (kraft-audit's effective value), per-broker first keeps 8 (8 -> 32 is more than
    # twice, and the default's update carries 32 again); each release's one run here chose one or the other
    seen = {}
    for c in comparisons:
        if c.cluster.startswith("restart-order-of-two-thread-pool-layers@"):
            (pair,) = [p for p in c.pairs if (p.resource, p.key) == ("BROKER:1", "num.io.threads")]
            assert pair.ours == ("32", "DYNAMIC_BROKER_CONFIG")
            assert (pair.kafka, pair.verdict) in {
                (("32", "DYNAMIC_BROKER_CONFIG"), "equal"),
                (("8", "DYNAMIC_BROKER_CONFIG"), "either order"),
            }, c.cluster
            seen[c.release] = pair.kafka[0]
    assert set(seen) == RELEASES
    assert set(seen.values()) == {"8", "32"}  # Kafka itself went both ways


def test_a_topic_key_4_0_removed_is_kept_by_4_0_to_4_2_0_and_refuses_the_next_change_after_a_binary_upgrade(
    both: Comparisons, comparisons: list[FixtureComparison]
) -> None:
    # a 3.9.1 node set message.format.version on a topic, then restarted on the release (KAFKA-19851): 4.0.2, 4.1.2
    # and 4.2.0 keep the key (described as a hidden dynamic topic config) and refuse the topic's next change; 4.3.1
    # and 4.4.0 skip it on replay and accept the change
    name = "binary-upgrade-keeps-a-removed-topic-config"
    kept = {"4.0.2", "4.1.2", "4.2.0"}
    for c in comparisons:
        if c.cluster.startswith(name + "@"):
            pairs = {(p.resource, p.key): p for p in c.pairs}
            held = pairs.get(("TOPIC:oracle-t1", "message.format.version"))
            assert (held is not None) == (c.release in kept), c.cluster
            if held is not None:
                assert (held.kafka, held.ours, held.verdict) == (
                    (None, "DYNAMIC_TOPIC_CONFIG"),
                    ("3.0", "DYNAMIC_TOPIC_CONFIG"),
                    "sensitive",
                )
    refused = {r.fixture.rpartition("@")[2]: r for r in both.requests if r.fixture.startswith(name + "@")}
    assert set(refused) == kept
    for r in refused.values():
        assert "Unknown topic config name: message.format.version" in r.error
        assert r.agrees and "Unknown topic config name: message.format.version" in r.flagged_as[0]


def test_every_config_change_kafka_refused_is_flagged_by_simulate(both: Comparisons) -> None:
    # on every release: the log cleaner's and DynamicLogConfig's refusals of the layer a request leaves, a
    # cluster-default change refused because of a stored per-broker layer the broker refuses, and (4.1+) a
    # per-broker min.insync.replicas while ELR is enabled; and a topic's, a group's (4.0+) and a client-metrics
    # subscription's values their validators reject (a topic segment.bytes of 1000 from 4.1 only)
    assert len(both.requests) >= 25 + 18 + 5 + 7  # topics 7 + 7 + 4, groups 4.0.2 … 4.4.0, client metrics 7
    text = "\n".join(request_lines(both.requests))
    assert all(r.agrees for r in both.requests), text
    kinds = {(r.fixture.partition("@")[0], r.resource_type, r.resource_name) for r in both.requests}
    assert kinds == {
        ("log-cleaner-per-broker", "BROKER", "1"),
        ("local-retention-above-total", "BROKER", ""),
        ("refused-per-broker-layer-blocks-cluster-default", "BROKER", ""),
        ("elr-with-per-broker-min-isr", "BROKER", "1"),
        ("refused-topic-group-client-metrics-changes", "TOPIC", "oracle-t1"),
        ("refused-topic-group-client-metrics-changes", "GROUP", "oracle-g1"),
        ("refused-topic-group-client-metrics-changes", "CLIENT_METRICS", "oracle-m1"),
        ("binary-upgrade-keeps-a-removed-topic-config", "TOPIC", "oracle-t1"),
    }
    segment = {r.fixture.rpartition("@")[2] for r in both.requests if "segment.bytes" in r.keys}
    assert segment == {"4.1.2", "4.2.0", "4.3.1", "4.4.0"}  # 3.7.2, 3.9.1 and 4.0.2 accept 1000
    (group,) = [r for r in both.requests if r.fixture.endswith("@4.4.0") and r.resource_type == "GROUP"]
    assert "GROUP 'oracle-g1'" in group.flagged_as[0] and "outside the bounds" in group.flagged_as[0]
    (blocked,) = [r for r in both.requests if r.fixture == "refused-per-broker-layer-blocks-cluster-default@4.4.0"]
    assert "log.cleaner.threads" in blocked.flagged_as[0]  # the stored per-broker layer is what refuses it


def test_the_upgrade_batch_and_the_log_before_it_are_read_from_the_fixture(tmp_path: Path) -> None:
    fixture = FIXTURES / "elr-with-per-broker-min-isr@4.4.0"
    upgrade = upgrade_of(fixture, answers(fixture))
    assert upgrade is not None
    assert (upgrade.mode, upgrade.target) == ("release-version", "4.4")
    assert (
        upgrade.features["metadata.version"]
        == answers(fixture)["features"]["after_upgrade"]["finalized"]["metadata.version"]
    )
    cut = write_cut(fixture, upgrade, tmp_path)
    assert cut.parent.name == "elr-with-per-broker-min-isr@4.4.0.before-upgrade"
    (segment,) = cut.glob("*.log")
    records = [r for r in decode_file(segment.read_bytes(), kind="LOG_SEGMENT") if isinstance(r, DecodedRecord)]
    levels = [r.data["featureLevel"] for r in records if r.data.get("name") == "metadata.version"]
    assert levels == [21]  # 3.9-IV0, as formatted: the upgrade's batch and everything after it are cut
    assert ("min.insync.replicas", "2") in {(r.data.get("name"), r.data.get("value")) for r in records}
    # a fixture that ran no upgrade has none
    plain = FIXTURES / "broker-id-mirrors-node-id@4.4.0"
    assert upgrade_of(plain, answers(plain)) is None


def test_upgrade_effects_rows_read_as_config_records() -> None:
    rows: list[dict[str, Any]] = [
        {"resource_type": "BROKER", "resource_name": "", "config_name": "min.insync.replicas", "operation": "SET",
         "value_after": "3"},
        {"resource_type": "BROKER", "resource_name": "1", "config_name": "min.insync.replicas", "operation": "DELETE",
         "value_after": None},
    ]  # fmt: skip
    assert predicted_changes(rows) == {
        ("BROKER", "", "min.insync.replicas", "3"),
        ("BROKER", "1", "min.insync.replicas", None),
    }


# ---- the classification, on entries shaped as Kafka answers them ----------------------------------------------


_MAX = "9223372036854775807"
_BOUND = "log.message.timestamp.before.max.ms"
_DIFFERENCE = "log.message.timestamp.difference.max.ms"
_HOURS_48 = ["log.retention.ms", "48", "STATIC_BROKER_CONFIG"]


def _row(value: str | None, source: str, synonym: str | None = None, value_set: str | None = None) -> dict:
    return {"value": value, "source": source, "synonym": synonym, "value_set": value_set}


def _entry(value: str | None, source: str, synonyms: list | None = None, sensitive: bool = False) -> dict:
    return {"value": value, "source": source, "sensitive": sensitive, "synonyms": synonyms or []}


@pytest.mark.parametrize(
    ("entry", "rows", "refused", "verdict"),
    [
        (_entry("8", "STATIC_BROKER_CONFIG"), [_row("8", "STATIC_BROKER_CONFIG")], set(), "equal"),
        (_entry("8", "STATIC_BROKER_CONFIG"), [_row("9", "STATIC_BROKER_CONFIG")], set(), "differs"),
        (_entry("8", "STATIC_BROKER_CONFIG"), [_row("8", "DEFAULT_CONFIG")], set(), "differs"),
        (_entry("8", "STATIC_BROKER_CONFIG"), [], set(), "missing"),
        # a 4.3+ clamp: Kafka describes the value set, kraft-audit keeps it in value_set
        (
            _entry("20000", "DYNAMIC_GROUP_CONFIG"),
            [_row("15000", "DYNAMIC_GROUP_CONFIG", value_set="20000")],
            set(),
            "equal",
        ),
        (_entry(None, "DEFAULT_CONFIG", sensitive=True), [_row("[redacted]", "DEFAULT_CONFIG")], set(), "sensitive"),
        (
            _entry(None, "DEFAULT_CONFIG"),
            [_row("604800000", "DEFAULT_CONFIG", synonym="log.retention.hours")],
            set(),
            "derived",
        ),
        (
            _entry(None, "DEFAULT_CONFIG"),
            [_row("604800000", "DEFAULT_CONFIG", synonym="log.retention.ms")],
            set(),
            "differs",
        ),
        (
            _entry("1048588", "DYNAMIC_DEFAULT_BROKER_CONFIG", [["message.max.bytes", "2000000", "x"]]),
            [_row("1048588", "DEFAULT_CONFIG")],
            {"message.max.bytes"},
            "refused layer",
        ),
        (
            _entry("1048588", "DYNAMIC_DEFAULT_BROKER_CONFIG", [["message.max.bytes", "2000000", "x"]]),
            [_row("1048588", "DEFAULT_CONFIG")],
            set(),
            "differs",
        ),
        # a refused layer over a derived value: Kafka shows no value, with the stored layer's source
        (
            _entry(None, "DYNAMIC_DEFAULT_BROKER_CONFIG", [["log.retention.ms", "3600000", "x"]]),
            [_row("604800000", "DEFAULT_CONFIG", synonym="log.retention.hours")],
            {"log.retention.ms"},
            "refused layer",
        ),
        # 3.x timestamp bound falling back to the difference key (synonyms-across-layers@3.7.2): the broker key as
        # configured, the topic key as in use, each with DEFAULT_CONFIG
        (
            _entry(_MAX, "DEFAULT_CONFIG", [[_BOUND, _MAX, "DEFAULT_CONFIG"]]),
            [_row("60000", "STATIC_BROKER_CONFIG", synonym=_DIFFERENCE, value_set=_MAX)],
            set(),
            "derived",
        ),
        (
            _entry("60000", "DEFAULT_CONFIG", [[_BOUND, _MAX, "DEFAULT_CONFIG"]]),
            [_row("60000", "STATIC_BROKER_CONFIG", synonym=_DIFFERENCE, value_set=_MAX)],
            set(),
            "derived",
        ),
        (
            _entry("60000", "DEFAULT_CONFIG", [[_BOUND, _MAX, "DEFAULT_CONFIG"]]),
            [_row("120000", "STATIC_BROKER_CONFIG", synonym=_DIFFERENCE, value_set=_MAX)],
            set(),
            "differs",
        ),
        # the same value inherited from a synonym Kafka lists, named with another source: not derived
        (
            _entry("60000", "DEFAULT_CONFIG", [[_BOUND, "60000", "STATIC_BROKER_CONFIG"]]),
            [_row("60000", "STATIC_BROKER_CONFIG", synonym=_BOUND)],
            set(),
            "differs",
        ),
        # a static synonym removed by a dynamic one (synonyms-across-layers): Kafka's source is the removed layer's
        (
            _entry("168", "STATIC_BROKER_CONFIG", [_HOURS_48, ["log.retention.ms", "168", "DEFAULT_CONFIG"]]),
            [_row("168", "DEFAULT_CONFIG")],
            set(),
            "hidden synonym",
        ),
        (
            _entry("168", "STATIC_BROKER_CONFIG", [_HOURS_48, ["log.retention.ms", "168", "DEFAULT_CONFIG"]]),
            [_row("168", "DYNAMIC_BROKER_CONFIG")],
            set(),
            "differs",
        ),
    ],
)
def test_each_described_entry_is_classified(entry: dict, rows: list, refused: set, verdict: str) -> None:
    assert judge("BROKER:1", "log.retention.ms", entry, rows, refused).verdict == verdict


def test_the_refused_keys_are_read_from_the_findings() -> None:
    findings = [
        {
            "kind": "REJECTED_CONFIG_LAYER",
            "message": "broker 1 does not apply its cluster-default dynamic config layer "
            "(3 keys: message.max.bytes, min.insync.replicas, num.io.threads): it fails ...",
        },
        {"kind": "REJECTED_CONFIG_LAYER", "message": "broker 1 does not apply its per-broker layer (1 key: a.b): ..."},
        {"kind": "IGNORED_DYNAMIC_KEY", "message": "(2 keys: x, y)"},
    ]
    assert refused_keys(findings) == {"message.max.bytes", "min.insync.replicas", "num.io.threads", "a.b"}


def test_the_cluster_default_resource_and_refused_describes_are_not_compared(tmp_path: Path) -> None:
    result = {
        "release": "4.4.0",
        "started": True,
        "describe": {
            "BROKER:": {"num.io.threads": _entry("32", "DYNAMIC_DEFAULT_BROKER_CONFIG")},
            "GROUP:g": {"error_class": "InvalidRequestException", "error_message": "no"},
            "BROKER:1": {"num.io.threads": _entry("8", "STATIC_BROKER_CONFIG")},
        },
    }
    rows: list[dict[str, Any]] = [
        {
            "resource_type": "BROKER",
            "resource_name": "1",
            "config_name": "num.io.threads",
            **_row("8", "STATIC_BROKER_CONFIG"),
        }
    ]
    c = compare_fixture("c", result, rows, [])
    assert [(p.resource, p.key, p.verdict) for p in c.pairs] == [("BROKER:1", "num.io.threads", "equal")]


def test_a_group_no_record_names_is_described_with_defaults_only() -> None:
    result = {
        "release": "4.2.0",
        "started": True,
        "describe": {
            "GROUP:g": {"consumer.session.timeout.ms": _entry("45000", "DEFAULT_CONFIG")},
            "GROUP:h": {"consumer.session.timeout.ms": _entry("50000", "DYNAMIC_GROUP_CONFIG")},
        },
    }
    c = compare_fixture("c", result, [], [])
    assert [(p.resource, p.verdict) for p in c.pairs] == [("GROUP:g", "no record"), ("GROUP:h", "missing")]
