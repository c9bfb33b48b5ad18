"""End to end through ``kraft-audit run``: the upgrade's own side effects change what the audit judges.

tests/data/e2e/elr-cluster.jsonl: metadata.version 4.0-IV3 (level 25), no eligible.leader.replicas.version, brokers
1 and 2 with a static ``min.insync.replicas=1``, broker 1 with a per-broker dynamic ``min.insync.replicas=2``
(offset 5), no cluster-level value, topic ``orders`` on both brokers (replication factor 2, no override). The
dedicated controller 3000's server.properties (controller-3000.properties) sets ``min.insync.replicas=3``.

Worked out by hand from confluentinc/kafka 4.2 (FeatureCommand ``upgrade --release-version 4.2`` sends
eligible.leader.replicas.version=1, its default from 4.1-IV0; ConfigurationControlManager.updateFeatures →
maybeGenerateElrSafetyRecords):

* ``--upgrade-with release-version``: the controller writes cluster-level ``min.insync.replicas=3`` (its static
  value; none exists) and deletes broker 1's ``2``. At the target both brokers resolve ``3`` from
  DYNAMIC_DEFAULT_BROKER_CONFIG; ``orders`` inherits 3 > its replication factor 2, so the base rule
  topic-min-isr-not-above-rf fails: exit 1.
* ``--upgrade-with metadata``: nothing else changes; broker 1 keeps ``2`` (DYNAMIC_BROKER_CONFIG), broker 2 ``1``
  (STATIC_BROKER_CONFIG); ``orders`` sees 2 and 1, both ≤ 2: exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"


def run(spark: SparkSession, warehouse: Path, tmp: Path, form: str) -> dict[str, Any]:
    summary = tmp / f"summary-{form}.json"
    code = cli_main(
        [
            "run",
            "--input",
            str(DATA / "elr-cluster.jsonl"),
            "--cluster-id",
            "elr",
            "--static-config",
            f"3000={DATA / 'controller-3000.properties'}",
            "--target-mv",
            "4.2",
            "--upgrade-with",
            form,
            "--no-default-constraints",
            "--constraints",
            str(DATA / "base-rules.yaml"),
            "--warehouse",
            str(warehouse),
            "--summary-json",
            str(summary),
            "-q",
            "--no-dq",
        ]
    )
    result = json.loads(summary.read_text())
    store = open_store(spark, str(warehouse))
    effective = store.read("effective_configs").where(F.col("config_name") == "min.insync.replicas")
    return {
        "code": code,
        "summary": result,
        # effective_configs describes the latest audited state: read right after each run
        "effective": {(r["resource_type"], r["resource_name"]): (r["value"], r["source"]) for r in effective.collect()},
        "effects": [
            r.asDict() for r in store.read("upgrade_effects").where(F.col("run_id") == result["run_id"]).collect()
        ],
        "violations": [
            (r["resource_type"], r["resource_name"], r["constraint_id"], r["value"], r["value_source"])
            for r in store.read("violations").where(F.col("run_id") == result["run_id"]).collect()
        ],
        "findings": [r["kind"] for r in store.read("findings").where(F.col("run_id") == result["run_id"]).collect()],
    }


@pytest.fixture(scope="module")
def runs(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("elr")
    warehouse = tmp / "warehouse"
    out = {form: run(spark, warehouse, tmp, form) for form in ("release-version", "metadata")}
    html, summary = tmp / "report.html", tmp / "report.json"
    run_id = out["release-version"]["summary"]["run_id"]
    args = ["report", "--warehouse", str(warehouse), "--run-id", run_id, "--out", str(html)]
    assert cli_main([*args, "--summary-json", str(summary), "-q"]) == 0
    out["report"] = {"html": html.read_text(), "summary": json.loads(summary.read_text())}
    return out


def test_release_version_predicts_the_generated_cluster_value_and_the_deleted_broker_value(
    runs: dict[str, dict[str, Any]],
) -> None:
    got = runs["release-version"]
    effects = {(e["resource_name"], e["operation"]): e for e in got["effects"]}
    assert sorted(effects) == [("", "SET"), ("1", "DELETE")]
    generated, deleted = effects[("", "SET")], effects[("1", "DELETE")]
    assert (generated["value_before"], generated["value_after"], generated["value_origin"]) == (
        None,
        "3",
        "STATIC_BROKER_CONFIG",
    )
    assert (generated["controller_node_id"], generated["is_assumed"]) == (3000, False)
    assert (deleted["value_before"], deleted["value_after"], deleted["source_offset_before"]) == ("2", None, 5)
    assert {
        (e["target_mv"], e["upgrade_with"], e["feature_level_before"], e["feature_level_after"])
        for e in effects.values()
    } == {("4.2-IV1", "release-version", 0, 1)}
    entry = got["summary"]["upgrade_effects"]
    assert (entry["upgrade_with"], entry["configs_set"], entry["configs_deleted"], entry["assumed_clusters"]) == (
        "release-version",
        1,
        1,
        [],
    )
    assert "ASSUMED_UPGRADE_EFFECT" not in got["findings"]


def test_the_audit_at_the_target_judges_the_state_after_the_effects(runs: dict[str, dict[str, Any]]) -> None:
    after, before = runs["release-version"], runs["metadata"]
    assert after["effective"][("BROKER", "1")] == ("3", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    assert after["effective"][("BROKER", "2")] == ("3", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    assert after["violations"] == [
        ("TOPIC", "orders", "topic-min-isr-not-above-rf", "3", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    ]
    assert (after["code"], after["summary"]["verdict"]) == (1, "fail")
    # --upgrade-with metadata: only metadata.version moves; the per-broker value stays and nothing fails
    assert before["effective"][("BROKER", "1")] == ("2", "DYNAMIC_BROKER_CONFIG")
    assert before["effective"][("BROKER", "2")] == ("1", "STATIC_BROKER_CONFIG")
    assert (before["code"], before["violations"], before["effects"]) == (0, [], [])
    assert before["summary"]["upgrade_effects"] == {
        "upgrade_with": "metadata",
        "configs_set": 0,
        "configs_deleted": 0,
        "assumed_clusters": [],
        "changes": [],
    }


def test_the_report_shows_the_effects_and_rebuilds_the_summary_entry(runs: dict[str, dict[str, Any]]) -> None:
    report = runs["report"]
    assert report["summary"]["upgrade_effects"] == runs["release-version"]["summary"]["upgrade_effects"]
    html = report["html"]
    section = html[html.index('id="upgrade-effects"') : html.index('id="findings"')]
    assert section.count('<tr data-cluster="elr">') == 2
    assert "maybeGenerateElrSafetyRecords" in section and "cluster default" in section
