"""The per-release Kafka config catalogs in conf/kafka: structure, consistency and facts read in Kafka's source.

Pure Python (no Spark). Each fact asserted below was checked in the Kafka source of the release it names
(apache/kafka 3.3-3.8 branch heads, confluentinc/kafka 3.9-4.4 branch heads; see conf/kafka/README.md).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

CATALOG_DIR = Path(__file__).resolve().parents[2] / "conf" / "kafka"
RELEASES = ["3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2", "4.3", "4.4"]
RESOURCES = ("broker", "topic", "group", "client_metrics")
TYPES = {"BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}
VALIDATOR_FIELDS = {
    "at_least": {"min"},
    "between": {"min", "max"},
    "in": {"values", "case_insensitive"},
    "list_in": {"values", "empty_allowed", "null_allowed", "kip1161"},
    "non_duplicate_list": {"empty_allowed", "null_allowed", "kip1161"},
    "non_empty_string": set(),
    "non_null": set(),
    "regex": {"pattern"},
    "custom": {"name", "description"},
}
CONVERTERS = {None, "hours_to_ms", "minutes_to_ms"}


def _rank(release: str) -> tuple[int, int]:
    major, minor = release.split(".")
    return int(major), int(minor)


def since(first: str) -> list[str]:
    return [r for r in RELEASES if _rank(r) >= _rank(first)]


def before(first: str) -> list[str]:
    return [r for r in RELEASES if _rank(r) < _rank(first)]


@functools.cache
def catalog(release: str) -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(CATALOG_DIR / f"{release}.yaml") as fh:
        doc = yaml.load(fh, Loader=loader)
    assert isinstance(doc, dict)
    return doc


def entry(release: str, resource: str, name: str) -> dict[str, Any] | None:
    return next((e for e in catalog(release)[resource] if e["name"] == name), None)


def must(release: str, resource: str, name: str) -> dict[str, Any]:
    e = entry(release, resource, name)
    assert e is not None, f"{release}: {resource} key {name} missing"
    return e


def validators(e: dict[str, Any]) -> list[dict[str, Any]]:
    v = e["validator"]
    return [] if v is None else (v if isinstance(v, list) else [v])


# --- structure -------------------------------------------------------------------------------------------


def test_every_release_has_a_file_and_nothing_else_is_there() -> None:
    files = sorted(p.stem for p in CATALOG_DIR.glob("*.yaml"))
    assert files == sorted(RELEASES)


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_release_file_loads_with_sources_and_nothing_unresolved(release: str) -> None:
    doc = catalog(release)
    assert doc["release"] == release
    src = doc["sources"]
    assert src["repo"] in ("apache/kafka", "confluentinc/kafka")
    assert re.fullmatch(r"[0-9a-f]{40}", src["commit"])
    assert src["files_read"] and all(isinstance(p, str) and "/" in p for p in src["files_read"])
    assert doc["unresolved"] == []


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_counts_match_entries(release: str) -> None:
    doc = catalog(release)
    assert doc["counts"] == {r: len(doc[r]) for r in RESOURCES}


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_no_duplicate_names(release: str) -> None:
    for resource in RESOURCES:
        names = [e["name"] for e in catalog(release)[resource]]
        assert len(names) == len(set(names)), f"{resource}: duplicates"


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_entries_are_well_formed(release: str) -> None:
    for resource in RESOURCES:
        for e in catalog(release)[resource]:
            where = f"{release} {resource} {e['name']}"
            assert e["type"] in TYPES, where
            assert e["importance"] in ("HIGH", "MEDIUM", "LOW"), where
            assert e["default"] is None or isinstance(e["default"], str), where
            assert "UNRESOLVED" not in repr(e), where
            if e.get("required"):
                assert e["default"] is None, where
            assert bool(e.get("sensitive")) == (e["type"] == "PASSWORD"), where
            if resource == "broker":
                assert e["dynamic"] in ("read-only", "per-broker", "cluster-wide"), where
            else:
                assert "dynamic" not in e, where
            for v in validators(e):
                assert v["kind"] in VALIDATOR_FIELDS, where
                assert VALIDATOR_FIELDS[v["kind"]] <= set(v), where
                if v["kind"] == "custom":
                    assert v["description"] and "UNDESCRIBED" not in v["description"], where


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_synonyms_point_at_defined_keys(release: str) -> None:
    doc = catalog(release)
    broker = {e["name"] for e in doc["broker"]}
    topic = {e["name"] for e in doc["topic"]}
    group = {e["name"] for e in doc["group"]}
    for key, synonyms in doc["topic_synonyms"].items():
        assert key in topic
        assert synonyms
        for s in synonyms:
            assert s["name"] in broker and s["converter"] in CONVERTERS
    assert sorted(topic - set(doc["topic_synonyms"])) == doc["topic_configs_without_server_default"]
    for key, target in doc["group_synonyms"].items():
        assert key in group
        assert target is None or target in broker
    for group_def in doc["broker_synonym_groups"]:
        assert group_def["primary"] == group_def["members"][0]["name"]
        assert all(m["name"] in broker for m in group_def["members"])


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_cross_field_checks_are_well_formed(release: str) -> None:
    doc = catalog(release)
    names = {r: {e["name"] for e in doc[r]} for r in RESOURCES}
    ids = [c["id"] for c in doc["cross_field_checks"]]
    assert len(ids) == len(set(ids))
    for c in doc["cross_field_checks"]:
        assert c["resource"] in ("broker", "topic", "group")
        assert c["id"].startswith(c["resource"] + "-")
        assert c["rule"] and c["source"] and c["kafka_effect"]
        known = names["broker"] | names["topic"] | names["group"]
        assert set(c["keys"]) <= known, c["id"]
        if c["expr"] is not None:
            assert all(k in known for k in re.findall(r"cfg\['([^']+)'\]", c["expr"])), c["id"]


# --- facts read in the source -------------------------------------------------------------------------------


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_log_segment_bytes_minimum(release: str) -> None:
    # KafkaConfig / ServerLogConfigs: atLeast(LegacyRecord.RECORD_OVERHEAD_V0 = 14) up to 3.9,
    # atLeast(1024 * 1024) from 4.0
    expected = 14 if release in before("4.0") else 1048576
    assert must(release, "broker", "log.segment.bytes")["validator"] == {"kind": "at_least", "min": expected}


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_topic_segment_bytes_minimum(release: str) -> None:
    # LogConfig: the topic key keeps atLeast(14) in 4.0 and becomes atLeast(1024 * 1024) in 4.1
    expected = 14 if release in before("4.1") else 1048576
    assert must(release, "topic", "segment.bytes")["validator"] == {"kind": "at_least", "min": expected}


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_cleanup_policy_list_rules(release: str) -> None:
    v = must(release, "topic", "cleanup.policy")["validator"]
    assert v["kind"] == "list_in" and v["values"] == ["compact", "delete"]
    if release in since("4.2"):
        # ValidList.in(String...) = (isEmptyAllowed=true, isNullAllowed=false) under KIP-1161
        assert (v["empty_allowed"], v["null_allowed"], v["kip1161"]) == (True, False, True)
        assert catalog(release)["list_validation"]["dedup_before_validate"] is True
    else:
        assert v["kip1161"] is False
        assert catalog(release)["list_validation"]["kip1161"] is False


def test_message_format_version_removed_in_4_0() -> None:
    assert must("3.9", "topic", "message.format.version")["validator"]["name"] == "MetadataVersionValidator"
    assert entry("4.0", "topic", "message.format.version") is None
    removed = catalog("4.0")["removed_since"]
    assert removed["previous_release"] == "3.9"
    assert "message.format.version" in removed["keys"]["topic"]
    assert "log.message.format.version" in removed["keys"]["broker"]


@pytest.mark.parametrize("release", since("3.6"), ids=since("3.6"))
def test_message_timestamp_after_max_ms_default(release: str) -> None:
    expected = "3600000" if release in since("4.0") else "9223372036854775807"
    assert must(release, "topic", "message.timestamp.after.max.ms")["default"] == expected
    assert must(release, "broker", "log.message.timestamp.after.max.ms")["default"] == expected


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_ssl_keystore_password_is_sensitive_and_listener_scoped(release: str) -> None:
    e = must(release, "broker", "ssl.keystore.password")
    assert e["type"] == "PASSWORD" and e["sensitive"] is True
    assert e["dynamic"] == "per-broker" and e["listener_prefix_required"] is True


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_retention_synonyms_dynamic_scope(release: str) -> None:
    # DynamicLogConfig only holds the primary synonym of each topic config
    assert must(release, "broker", "log.retention.hours")["dynamic"] == "read-only"
    assert must(release, "broker", "log.retention.minutes")["dynamic"] == "read-only"
    assert must(release, "broker", "log.retention.ms")["dynamic"] == "cluster-wide"
    assert catalog(release)["topic_synonyms"]["retention.ms"] == [
        {"name": "log.retention.ms", "converter": None},
        {"name": "log.retention.minutes", "converter": "minutes_to_ms"},
        {"name": "log.retention.hours", "converter": "hours_to_ms"},
    ]


@pytest.mark.parametrize("release", before("4.0"), ids=before("4.0"))
def test_log_message_format_version_not_dynamic(release: str) -> None:
    assert must(release, "broker", "log.message.format.version")["dynamic"] == "read-only"


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_advertised_listeners_dynamic_until_4_0(release: str) -> None:
    expected = "per-broker" if release in before("4.0") else "read-only"
    assert must(release, "broker", "advertised.listeners")["dynamic"] == expected


@pytest.mark.parametrize("release", since("3.5"), ids=since("3.5"))
def test_group_consumer_session_timeout_default(release: str) -> None:
    assert must(release, "broker", "group.consumer.session.timeout.ms")["default"] == "45000"


@pytest.mark.parametrize("release", since("4.0"), ids=since("4.0"))
def test_group_configs_inherit_broker_session_timeout(release: str) -> None:
    assert must(release, "group", "consumer.session.timeout.ms")["default"] == "45000"
    assert catalog(release)["group_synonyms"]["consumer.session.timeout.ms"] == "group.consumer.session.timeout.ms"


@pytest.mark.parametrize("release", before("4.0"), ids=before("4.0"))
def test_no_group_configs_before_4_0(release: str) -> None:
    assert catalog(release)["group"] == [] and catalog(release)["group_synonyms"] == {}


@pytest.mark.parametrize("release", since("3.7"), ids=since("3.7"))
def test_client_metrics_interval_range(release: str) -> None:
    # ClientMetricsConfigs.validate: 100 <= interval.ms <= 3600000 (a code check, ConfigDef has no validator)
    e = must(release, "client_metrics", "interval.ms")
    assert e["default"] == "300000"
    assert [(c["kind"], c["min"], c["max"]) for c in e["code_checks"]] == [("between", 100, 3600000)]


@pytest.mark.parametrize("release", before("3.7"), ids=before("3.7"))
def test_no_client_metrics_before_3_7(release: str) -> None:
    assert catalog(release)["client_metrics"] == []


@pytest.mark.parametrize("release", since("3.8"), ids=since("3.8"))
def test_gzip_level_validator(release: str) -> None:
    # CompressionType.GZIP.levelValidator(): -1 or 1..9
    for resource in ("broker", "topic"):
        e = must(release, resource, "compression.gzip.level")
        assert e["default"] == "-1"
        assert e["validator"] == {"kind": "in", "values": [-1, 1, 2, 3, 4, 5, 6, 7, 8, 9], "case_insensitive": False}


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_metadata_log_segment_bytes_minimum(release: str) -> None:
    expected = 12 if release in before("4.1") else 8388608
    assert must(release, "broker", "metadata.log.segment.bytes")["validator"] == {"kind": "at_least", "min": expected}


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_node_id_and_process_roles_required_from_4_0(release: str) -> None:
    node_id = must(release, "broker", "node.id")
    roles = must(release, "broker", "process.roles")
    if release in since("4.0"):
        assert node_id.get("required") and roles.get("required")
        assert node_id["validator"] == {"kind": "at_least", "min": 0}
    else:
        assert node_id["default"] == "-1" and roles["default"] == ""


@pytest.mark.parametrize("release", since("4.3"), ids=since("4.3"))
def test_cordoned_log_dirs_per_broker(release: str) -> None:
    assert must(release, "broker", "cordoned.log.dirs")["dynamic"] == "per-broker"


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_throttle_rates_are_dynamic_only(release: str) -> None:
    e = must(release, "broker", "leader.replication.throttled.rate")
    assert e["dynamic_only"] is True and e["dynamic"] == "cluster-wide"
    assert e["default"] == "9223372036854775807"


@pytest.mark.parametrize("release", RELEASES, ids=RELEASES)
def test_min_compaction_lag_check_present(release: str) -> None:
    checks = {c["id"]: c for c in catalog(release)["cross_field_checks"]}
    c = checks["topic-min-compaction-lag-le-max"]
    assert c["keys"] == ["min.compaction.lag.ms", "max.compaction.lag.ms"]


@pytest.mark.parametrize("release", since("4.0"), ids=since("4.0"))
def test_group_heartbeat_below_session_checks(release: str) -> None:
    # GroupCoordinatorConfig requires group.consumer.heartbeat.interval.ms < group.consumer.session.timeout.ms
    rules = {c["rule"] for c in catalog(release)["cross_field_checks"] if c["resource"] == "broker"}
    assert "group.consumer.heartbeat.interval.ms < group.consumer.session.timeout.ms" in rules
