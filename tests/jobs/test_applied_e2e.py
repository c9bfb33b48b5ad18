"""End to end through ``kraft-audit run``: effective configuration as brokers really apply it.

One run over three clusters (each named after its directory), worked out by hand from Kafka's source.

tests/data/e2e/applied/metadata.jsonl (metadata.version 29 = 4.2-IV1, broker 1 registered with a v5 static
``log.retention.hours=24``; confluentinc/kafka 4.2):

* offset 2, cluster default ``log.segment.bytes=1000``: LogConfig's ``atLeast(1024 * 1024)`` rejects it, so
  ``DynamicBrokerConfig.removeInvalidConfigs`` drops it: broker 1 uses the default 1073741824;
* offsets 3–4, broker 1's layer ``log.retention.ms=0`` + ``num.io.threads=4``: no ConfigDef validator, but
  ``KafkaConfig.validateValues`` requires ``logRetentionTimeMillis >= 1 || == -1``, so the new KafkaConfig fails and
  the broker keeps the layers below: ``log.retention.ms`` = 24 h from the static hours, ``num.io.threads`` = 8;
* offset 7, topic t1 ``message.format.version=2.8``: LogConfig of 4.2 has no such key, ConfigurationDelta.replay
  skips it (KAFKA-19851): no effective row;
* offset 8, subscription sub1 sets only ``metrics``: ClientMetricsConfigs' ``interval.ms`` default 300000 applies;
* the upgrade itself (``--release-version 4.2`` raises eligible.leader.replicas.version to 1): no cluster-level
  ``min.insync.replicas`` and no controller server.properties, so ConfigurationControlManager
  .maybeGenerateElrSafetyRecords would write the default 1, an assumed value (an ASSUMED_UPGRADE_EFFECT finding);
* broker 1's registration carries one static key, so every default it resolves (``num.io.threads`` = 8) is an
  assumed value (``is_assumed``), ``log.retention.ms`` (from the static hours) is not.

tests/data/e2e/applied-3.9/metadata.jsonl (metadata.version 21 = 3.9-IV0, brokers 1 and 2 without static configs):
on 3.9, broker 1's ``log.message.timestamp.difference.max.ms=86400000`` and the topics' difference overrides would
stand in for the timestamp bounds left at Long.MAX_VALUE (confluentinc/kafka 3.9: KafkaConfig.scala
``logMessageTimestampBeforeMaxMs``, LogConfig.java ``getMessageTimestampBeforeMaxMs``; the fallback itself is tested
in tests/transforms/effective/test_applied_values.py). Audited at the 4.2 target, the brokers run 4.2, whose
LogConfig has no difference key (removed in 4.0): the overrides are skipped on replay (KAFKA-19851), the before
bound is its default Long.MAX_VALUE and the after bound 4.0's new default 3600000 (ServerLogConfigs.java) — the
change at 4.0 the upgrade brings.

tests/data/e2e/applied-4.3/metadata.jsonl (metadata.version 29, broker 1 runs 4.3 (registers metadata.version up
to 30) with a v5 static ``group.consumer.min.session.timeout.ms=50000`` and ``group.consumer.session.timeout.ms
=50000``; confluentinc/kafka 4.3: GroupCoordinatorConfig.clampDynamicConfigs, GroupConfig.evaluate):

* offset 2, cluster default ``group.consumer.assignment.interval.ms=20000`` above the default maximum 15000: 4.3
  caps it to 15000 before building the KafkaConfig, so the layer is applied (4.2 would refuse the whole layer);
* offset 3, group g1 ``consumer.session.timeout.ms=46000`` below the broker's minimum 50000: the group uses 50000,
  which ``group-session-at-most-48s`` judges.

tests/data/e2e/applied-static-bound/metadata.jsonl (metadata.version 29, broker 1 runs 4.3 with a v5 static
``group.consumer.assignment.interval.ms=20000``, above the default maximum 15000): the clamp is the dynamic path's
(confluentinc/kafka 4.4 DynamicBrokerConfig.scala ``updateCurrentConfig``); at startup ``KafkaConfig.fromProps`` of
server.properties requires the bound and the node does not start (Kafka 4.4.0 refuses even ``kafka-storage
format``; oracle scenario ``group-assignment-interval-out-of-bounds``): the value stays 20000, not clamped, for the
cross-field rule to judge.

Three clusters of one 4.3 broker each, whose dynamic layer a reconfigurable component refuses whole after a
restart (transforms/effective/reconfigurables.py; the same layers Kafka 3.9.1, 4.2.0 and 4.4.0 refused in the
oracle scenarios named): ``applied-threads``, static ``num.io.threads=8`` and a cluster default of
``num.io.threads=32`` (more than double: DynamicThreadPool) with ``message.max.bytes=2000000``
(``reconfigurable-refuses-layer``); ``applied-cleaner``, a per-broker ``log.cleaner.threads=4`` over the current 1
(LogCleaner) with ``message.max.bytes=2000000`` (``log-cleaner-per-broker``); ``applied-local-retention``, static
``log.local.retention.ms=86400000`` and a cluster default ``log.retention.ms=3600000`` below it (DynamicLogConfig,
``local-retention-above-total``). Each keeps every key of the refused layer at its value below.

The rules (tests/data/e2e/applied-rules.yaml) would fail on the raw values (1000, 0, a set message.format.version);
on what the broker applies only the client-metrics rule fails in cluster ``applied``, on the default it relies on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"
CLUSTERS = (
    "applied",
    "applied-3.9",
    "applied-4.3",
    "applied-static-bound",
    "applied-threads",
    "applied-cleaner",
    "applied-local-retention",
)
MAX = "9223372036854775807"


@pytest.fixture(scope="module")
def run(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("applied")
    summary = tmp / "summary.json"
    code = cli_main(
        [
            "run",
            *[arg for name in CLUSTERS for arg in ("--input", str(DATA / name / "metadata.jsonl"))],
            "--target-mv",
            "4.2",
            "--no-default-constraints",
            "--constraints",
            str(DATA / "applied-rules.yaml"),
            "--warehouse",
            str(tmp / "warehouse"),
            "--summary-json",
            str(summary),
            "-q",
            "--no-dq",
        ]
    )
    run_id = json.loads(summary.read_text())["run_id"]
    store = open_store(spark, str(tmp / "warehouse"))
    effective_rows = store.read("effective_configs").collect()
    effective = {
        (r.resource_type, r.resource_name, r.config_name): (r.value, r.source, r.synonym)
        for r in effective_rows
        if r.cluster_id == "applied"
    }
    applied = {
        (r.cluster_id, r.resource_type, r.resource_name, r.config_name): (
            r.value,
            r.source,
            r.synonym,
            r.value_set,
            r.is_assumed,
        )
        for r in effective_rows
        if r.node_id is None or r.resource_type == "BROKER"
    }
    findings_by_cluster: dict[str, list[tuple[Any, ...]]] = {name: [] for name in CLUSTERS}
    for r in store.read("findings").where(f"run_id = '{run_id}'").collect():
        findings_by_cluster[r.cluster_id].append((r.kind, r.resource_name, r.config_name, r.offset, r.message))
    violations_by_cluster: dict[str, list[tuple[Any, ...]]] = {name: [] for name in CLUSTERS}
    for r in store.read("violations").where(f"run_id = '{run_id}'").collect():
        violations_by_cluster[r.cluster_id].append((r.constraint_id, r.resource_name, r.value, r.value_assumed))
    return {
        "code": code,
        "effective": effective,
        "applied": applied,
        "findings": sorted(findings_by_cluster["applied"]),
        "findings_by_cluster": {k: sorted(v) for k, v in findings_by_cluster.items()},
        "violations": sorted(v[:3] for v in violations_by_cluster["applied"]),
        "violations_by_cluster": {k: sorted(v) for k, v in violations_by_cluster.items()},
    }


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (("BROKER", "1", "log.segment.bytes"), ("1073741824", "DEFAULT_CONFIG", "log.segment.bytes")),
        (("BROKER", "1", "log.retention.ms"), ("86400000", "STATIC_BROKER_CONFIG", "log.retention.hours")),
        (("BROKER", "1", "num.io.threads"), ("8", "DEFAULT_CONFIG", "num.io.threads")),
        (("CLIENT_METRICS", "sub1", "interval.ms"), ("300000", "DEFAULT_CONFIG", "interval.ms")),
    ],
    ids=["rejected-value", "refused-layer", "refused-layer-other-key", "client-metrics-default"],
)
def test_effective_rows(run: dict[str, Any], key: tuple[str, str, str], expected: tuple[str, str, str]) -> None:
    assert run["effective"][key] == expected


def test_skipped_key_has_no_effective_row(run: dict[str, Any]) -> None:
    assert ("TOPIC", "t1", "message.format.version") not in run["effective"]


def test_findings(run: dict[str, Any]) -> None:
    others = [f for f in run["findings"] if f[0] != "COVERAGE_GAP"]
    assert [f[:4] for f in others] == [
        ("ASSUMED_UPGRADE_EFFECT", "", "min.insync.replicas", None),
        ("INVALID_DYNAMIC_CONFIG", "", "log.segment.bytes", 2),
        ("REJECTED_CONFIG_LAYER", "1", None, 4),
        ("SKIPPED_ON_REPLAY", "t1", "message.format.version", 7),
    ]
    assert "log.segment.bytes=1000 is below the minimum 1048576" in others[1][4]
    assert "broker-log-retention-ms-not-zero" in others[2][4]
    gaps = [f[4] for f in run["findings"] if f[0] == "COVERAGE_GAP"]
    assert (
        len(gaps) == 1 and "static configs come only from its RegisterBrokerRecord v5 StaticConfigs (1 keys)" in gaps[0]
    )


def test_only_the_client_metrics_default_violates(run: dict[str, Any]) -> None:
    assert run["violations"] == [("client-metrics-push-at-most-1-minute", "sub1", "300000")]
    assert run["code"] == 1


# --- #14 item 4: values assumed for a partial static layer --------------------------------------------------------


def test_defaults_of_a_partial_static_layer_are_marked_assumed(run: dict[str, Any]) -> None:
    assert run["applied"][("applied", "BROKER", "1", "num.io.threads")][4] is True
    assert run["applied"][("applied", "BROKER", "1", "log.retention.ms")][4] is False


# --- #14 item 7: the 3.6-3.9 timestamp fallback is gone at a 4.x target ----------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            ("BROKER", "1", "log.message.timestamp.before.max.ms"),
            (MAX, "DEFAULT_CONFIG", "log.message.timestamp.before.max.ms", None),
        ),
        (
            ("TOPIC", "t9", "message.timestamp.before.max.ms"),
            (MAX, "DEFAULT_CONFIG", "message.timestamp.before.max.ms", None),
        ),
        (
            ("TOPIC", "t9", "message.timestamp.after.max.ms"),
            ("3600000", "DEFAULT_CONFIG", "message.timestamp.after.max.ms", None),
        ),
    ],
    ids=["broker-before", "topic-before", "topic-after-new-default"],
)
def test_timestamp_bounds_at_a_4x_target_are_their_own_values(
    run: dict[str, Any], key: tuple[str, str, str], expected: tuple[Any, ...]
) -> None:
    assert run["applied"][("applied-3.9", *key)][:4] == expected


def test_difference_overrides_are_skipped_at_a_4x_target(run: dict[str, Any]) -> None:
    skipped = [f[1:4] for f in run["findings_by_cluster"]["applied-3.9"] if f[0] == "SKIPPED_ON_REPLAY"]
    assert skipped == [
        ("t8", "message.timestamp.difference.max.ms", 6),
        ("t9", "message.timestamp.difference.max.ms", 9),
    ]
    assert run["violations_by_cluster"]["applied-3.9"] == []


# --- #14 item 2: the 4.3 clamps -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            ("BROKER", "1", "group.consumer.assignment.interval.ms"),
            ("15000", "DYNAMIC_DEFAULT_BROKER_CONFIG", "group.consumer.assignment.interval.ms", "20000"),
        ),
        (
            ("GROUP", "g1", "consumer.assignment.interval.ms"),
            ("15000", "DYNAMIC_DEFAULT_BROKER_CONFIG", "group.consumer.assignment.interval.ms", "20000"),
        ),
        (
            ("GROUP", "g1", "consumer.session.timeout.ms"),
            ("50000", "DYNAMIC_GROUP_CONFIG", "consumer.session.timeout.ms", "46000"),
        ),
    ],
    ids=["broker-capped-to-max", "group-inherits-capped-value", "group-capped-to-broker-min"],
)
def test_clamped_values(run: dict[str, Any], key: tuple[str, str, str], expected: tuple[Any, ...]) -> None:
    assert run["applied"][("applied-4.3", *key)][:4] == expected


def test_clamps_are_findings_and_the_clamped_layer_is_applied(run: dict[str, Any]) -> None:
    findings = [
        f for f in run["findings_by_cluster"]["applied-4.3"] if f[0] not in ("COVERAGE_GAP", "ASSUMED_UPGRADE_EFFECT")
    ]
    # no REJECTED_CONFIG_LAYER: 4.3 caps the interval before KafkaConfig's interval <= max check
    assert [f[:4] for f in findings] == [
        ("CLAMPED_DYNAMIC_CONFIG", "1", "group.consumer.assignment.interval.ms", 2),
        ("CLAMPED_DYNAMIC_CONFIG", "g1", "consumer.session.timeout.ms", 3),
    ]
    assert "is above group.consumer.max.assignment.interval.ms = 15000: Kafka 4.3 caps it" in findings[0][4]
    assert run["violations_by_cluster"]["applied-4.3"] == [("group-session-at-most-48s", "g1", "50000", False)]


def test_a_static_value_out_of_its_bounds_is_not_clamped_the_broker_does_not_start(run: dict[str, Any]) -> None:
    key = ("applied-static-bound", "BROKER", "1", "group.consumer.assignment.interval.ms")
    assert run["applied"][key][:4] == ("20000", "STATIC_BROKER_CONFIG", "group.consumer.assignment.interval.ms", None)
    kinds = {f[0] for f in run["findings_by_cluster"]["applied-static-bound"]}
    assert "CLAMPED_DYNAMIC_CONFIG" not in kinds
    assert "REJECTED_CONFIG_LAYER" not in kinds


@pytest.mark.parametrize(
    ("cluster", "key", "expected", "reason"),
    [
        ("applied-threads", "num.io.threads", ("8", "STATIC_BROKER_CONFIG"), "reconfigurable-num.io.threads"),
        ("applied-threads", "message.max.bytes", ("1048588", "DEFAULT_CONFIG"), "reconfigurable-num.io.threads"),
        ("applied-cleaner", "log.cleaner.threads", ("1", "STATIC_BROKER_CONFIG"), "reconfigurable-log.cleaner.threads"),
        ("applied-cleaner", "message.max.bytes", ("1048588", "DEFAULT_CONFIG"), "reconfigurable-log.cleaner.threads"),
        (
            "applied-local-retention",
            "log.retention.ms",
            ("604800000", "DEFAULT_CONFIG"),
            "reconfigurable-log.local.retention.ms",
        ),
    ],
)
def test_a_layer_a_reconfigurable_component_refuses_is_not_applied(
    run: dict[str, Any], cluster: str, key: str, expected: tuple[str, str], reason: str
) -> None:
    assert run["applied"][(cluster, "BROKER", "1", key)][:2] == expected
    rejected = [f for f in run["findings_by_cluster"][cluster] if f[0] == "REJECTED_CONFIG_LAYER"]
    assert rejected, run["findings_by_cluster"][cluster]
    assert all(reason in f[4] for f in rejected)
