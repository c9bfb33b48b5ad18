"""End to end through ``kraft-audit run``: effective configuration as a 4.2 broker really applies it.

tests/data/e2e/applied.jsonl (metadata.version 29 = 4.2-IV1, broker 1 registered with a v5 static
``log.retention.hours=24``), worked out by hand from Kafka's source (confluentinc/kafka 4.2):

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
  .maybeGenerateElrSafetyRecords would write the default 1, an assumed value (an ASSUMED_UPGRADE_EFFECT finding).

The rules (tests/data/e2e/applied-rules.yaml) would fail on the raw values (1000, 0, a set message.format.version);
on what the broker applies only the client-metrics rule fails, on the default it relies on.
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


@pytest.fixture(scope="module")
def run(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("applied")
    summary = tmp / "summary.json"
    code = cli_main(
        [
            "run",
            "--input",
            str(DATA / "applied.jsonl"),
            "--cluster-id",
            "applied",
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
    effective = {
        (r.resource_type, r.resource_name, r.config_name): (r.value, r.source, r.synonym)
        for r in store.read("effective_configs").where("cluster_id = 'applied'").collect()
    }
    findings = sorted(
        (r.kind, r.resource_name, r.config_name, r.offset, r.message)
        for r in store.read("findings").where(f"run_id = '{run_id}'").collect()
    )
    violations = sorted(
        (r.constraint_id, r.resource_name, r.value)
        for r in store.read("violations").where(f"run_id = '{run_id}'").collect()
    )
    return {"code": code, "effective": effective, "findings": findings, "violations": violations}


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
