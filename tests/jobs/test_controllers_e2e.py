"""End to end through ``kraft-audit run``: controllers' configuration and the topic keys the active controller enforces.

tests/data/e2e/controllers.jsonl (metadata.version 29 = 4.2-IV1): brokers 1 and 2 registered (v5) with a static
``min.insync.replicas=2`` and ``unclean.leader.election.enable=false``; controllers 3000 and 3001 registered;
topic ``orders`` (replicas 1, 2) without overrides, topic ``audit`` (replicas 2, 1) overriding both keys (``false``
at offset 9, ``2`` at offset 10). Controller 3000's server.properties (controller-unclean-3000.properties) sets
``unclean.leader.election.enable=true`` and leaves ``min.insync.replicas`` at its default; 3001 has no file.

Worked out by hand from confluentinc/kafka 4.2:

* ControllerServer.scala gives a controller the same DynamicBrokerConfig as a broker, so its config resolves like a
  broker's: BROKER ``3000`` ``unclean.leader.election.enable`` = ``true`` (STATIC_BROKER_CONFIG), and
  ``broker-no-unclean-election`` fails on it (the brokers' ``false`` passes);
* ConfigurationControlManager.getTopicConfig → KafkaConfigSchema.resolveEffectiveTopicConfig reads the topic
  override, else the controller's own node record, the cluster default and its own server.properties: for
  ``orders`` the controller uses ``unclean.leader.election.enable=true`` and ``min.insync.replicas=1`` (default),
  for ``audit`` its overrides; the brokers' view of ``orders`` stays ``2`` / ``false``;
* ReplicationControlManager.getTopicEffectiveMinIsr = min(1, replication factor 2) = 1 for ``orders``: the
  controller-view rule fails, while the brokers' view rule ``topic-min-isr-at-least-2`` passes on the same topic;
* the active controller is not in the log: 3001 has no file (and for unclean election would use the default
  ``false``, unlike 3000), so both keys are taken from 3000's view and marked assumed (ASSUMED_CONTROLLER_CONFIG;
  the rows of ``orders``, which has no override, are ``is_assumed`` and the violations on them ``value_assumed``).

``--upgrade-with metadata``: the upgrade writes nothing (tests/jobs/test_upgrade_effects_e2e.py covers that).
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
    tmp = tmp_path_factory.mktemp("controllers")
    summary = tmp / "summary.json"
    code = cli_main(
        [
            "run",
            "--input",
            str(DATA / "controllers.jsonl"),
            "--cluster-id",
            "ctl",
            "--static-config",
            f"3000={DATA / 'controller-unclean-3000.properties'}",
            "--target-mv",
            "4.2",
            "--upgrade-with",
            "metadata",
            "--no-default-constraints",
            "--constraints",
            str(DATA / "controllers-rules.yaml"),
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
        (r.resource_type, r.resource_name, r.node_id, r.config_name): (r.value, r.source, r.source_offset)
        for r in store.read("effective_configs").where("cluster_id = 'ctl'").collect()
    }
    findings = sorted(
        (r.config_name, r.message)
        for r in store.read("findings").where(f"run_id = '{run_id}' and kind = 'ASSUMED_CONTROLLER_CONFIG'").collect()
    )
    violations = sorted(
        (r.constraint_id, r.resource_type, r.resource_name, r.node_id, r.value, r.remediation, r.value_assumed)
        for r in store.read("violations").where(f"run_id = '{run_id}'").collect()
    )
    return {"code": code, "effective": effective, "findings": findings, "violations": violations}


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (("BROKER", "3000", 3000, "unclean.leader.election.enable"), ("true", "STATIC_BROKER_CONFIG", None)),
        (("BROKER", "3000", 3000, "process.roles"), ("controller", "STATIC_BROKER_CONFIG", None)),
        (("BROKER", "1", 1, "unclean.leader.election.enable"), ("false", "STATIC_BROKER_CONFIG", None)),
        (("TOPIC", "orders", None, "min.insync.replicas"), ("2", "STATIC_BROKER_CONFIG", None)),
        (
            ("CONTROLLER_TOPIC", "orders", 3000, "unclean.leader.election.enable"),
            ("true", "STATIC_BROKER_CONFIG", None),
        ),
        (("CONTROLLER_TOPIC", "orders", 3000, "min.insync.replicas"), ("1", "DEFAULT_CONFIG", None)),
        (("CONTROLLER_TOPIC", "audit", 3000, "min.insync.replicas"), ("2", "DYNAMIC_TOPIC_CONFIG", 10)),
    ],
    ids=[
        "controller-own-config",
        "controller-marked-by-process-roles",
        "broker-config",
        "brokers-view-of-topic",
        "controller-view-static",
        "controller-view-default",
        "controller-view-override",
    ],
)
def test_effective_rows(run: dict[str, Any], key: tuple[Any, ...], expected: tuple[Any, ...]) -> None:
    assert run["effective"][key] == expected


def test_a_controller_without_file_has_no_broker_rows(run: dict[str, Any]) -> None:
    assert not [k for k in run["effective"] if k[0] == "BROKER" and k[1] == "3001"]


def test_the_controller_view_is_assumed(run: dict[str, Any]) -> None:
    assert [f[0] for f in run["findings"]] == ["min.insync.replicas", "unclean.leader.election.enable"]
    unclean = run["findings"][1][1]
    assert "taken from controller 3000's view (true from STATIC_BROKER_CONFIG)" in unclean
    assert "controller(s) 3001 have no --static-config" in unclean
    assert "3000=true (STATIC_BROKER_CONFIG), 3001=false (DEFAULT_CONFIG)" in unclean


def test_rules_judge_the_controllers_view(run: dict[str, Any]) -> None:
    got = [v[:5] for v in run["violations"]]
    assert got == [
        ("broker-no-unclean-election", "BROKER", "3000", 3000, "true"),
        ("controller-elr-min-isr-at-least-2", "CONTROLLER_TOPIC", "orders", None, "1"),
        ("controller-no-unclean-election", "CONTROLLER_TOPIC", "orders", 3000, "true"),
    ]
    # the brokers' view of the same topic passes the same kind of rule
    assert not [v for v in run["violations"] if v[0] == "topic-min-isr-at-least-2"]
    fix = {v[0]: v[5] for v in run["violations"]}["controller-no-unclean-election"]
    assert "--entity-type topics --entity-name orders" in fix
    # the controller's view is assumed, so are the values the two controller rules judged; 3000's own file is known
    assert {v[0]: v[6] for v in run["violations"]} == {
        "broker-no-unclean-election": False,
        "controller-elr-min-isr-at-least-2": True,
        "controller-no-unclean-election": True,
    }
    assert run["code"] == 1
