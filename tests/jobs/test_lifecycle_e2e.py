"""Violation lifecycle and waivers through the CLI: three gate runs over one warehouse (tests/data/e2e).

Run 1 ingests cluster.jsonl: t1's min.insync.replicas above its RF and g1's session timeout above 45000 fail
(lifecycle-rules.yaml). Run 2 ingests the same file with an expired waiver for t1: both persist, the gate still fails
and flags the waiver. Run 3 adds lifecycle-fix.jsonl (g1 set to 30000 at offset 25) with a valid waiver for t1:
g1 is resolved, t1 persists but is waived, and the gate passes.
"""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs import conf_loader, lifecycle
from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"
T1 = ("TOPIC", "t1", "min.insync.replicas", "topic-min-isr-not-above-rf")
G1 = ("GROUP", "g1", "consumer.session.timeout.ms", "group-session-timeout-max")

EXPIRED = """
waivers:
  - id: W-EXP
    scope: {resource_type: topic, resource_name: t1}
    owner: team-a
    reason: expired long ago
    expires: 2020-01-01
"""
VALID = """
waivers:
  - id: W-T1
    scope: {cluster_id: "li*", resource_name: "t?", constraint_id: topic-min-isr-not-above-rf}
    owner: team-b
    reason: RF raised next quarter
    expires: 2999-12-31
"""


def gate(warehouse: Path, tmp: Path, run: int, inputs: list[str], waivers: str | None) -> dict[str, Any]:
    summary, junit = tmp / f"summary-{run}.json", tmp / f"junit-{run}.xml"
    args = ["gate", "--cluster-id", "life", "--target-mv", "4.2", "--no-default-constraints"]
    args += ["--constraints", str(DATA / "lifecycle-rules.yaml"), "--warehouse", str(warehouse), "-q", "--no-dq"]
    args += ["--summary-json", str(summary), "--junit", str(junit)]
    for name in inputs:
        args += ["--input", str(DATA / name)]
    if waivers is not None:
        (tmp / f"waivers-{run}.yaml").write_text(waivers)
        args += ["--waivers", str(tmp / f"waivers-{run}.yaml")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(args)
    return {"code": code, "summary": json.loads(summary.read_text()), "junit": junit, "stdout": out.getvalue()}


@pytest.fixture(scope="module")
def runs(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("lifecycle")
    warehouse = tmp / "warehouse"
    return {
        "warehouse": warehouse,
        1: gate(warehouse, tmp, 1, ["cluster.jsonl"], None),
        2: gate(warehouse, tmp, 2, ["cluster.jsonl"], EXPIRED),
        3: gate(warehouse, tmp, 3, ["cluster.jsonl", "lifecycle-fix.jsonl"], VALID),
    }


def status_rows(spark: SparkSession, warehouse: Path) -> dict[tuple[str, ...], dict[str, Any]]:
    rows = open_store(spark, str(warehouse)).read("violation_status").collect()
    return {(r["resource_type"], r["resource_name"], r["config_name"], r["constraint_id"]): r.asDict() for r in rows}


def run_ts(spark: SparkSession, warehouse: Path, run_id: str) -> Any:
    runs_df = open_store(spark, str(warehouse)).read("audit_runs").filter(F.col("run_id") == run_id)
    return runs_df.collect()[0]["run_ts"]


def test_three_runs_give_first_seen_last_seen_and_resolved(spark: SparkSession, runs: dict[str, Any]) -> None:
    ids = {n: runs[n]["summary"]["run_id"] for n in (1, 2, 3)}
    rows = status_rows(spark, runs["warehouse"])
    assert set(rows) == {T1, G1}
    t1, g1 = rows[T1], rows[G1]
    assert (t1["status"], t1["first_seen_run_id"], t1["last_seen_run_id"], t1["times_seen"]) == (
        "open",
        ids[1],
        ids[3],
        3,
    )
    assert (t1["resolved_run_id"], t1["resolved_ts"]) == (None, None)
    assert (g1["status"], g1["first_seen_run_id"], g1["last_seen_run_id"], g1["resolved_run_id"]) == (
        "resolved",
        ids[1],
        ids[2],
        ids[3],
    )
    assert g1["times_seen"] == 2 and g1["value"] == "50000"
    assert g1["first_seen_ts"] == run_ts(spark, runs["warehouse"], ids[1])
    assert g1["resolved_ts"] == run_ts(spark, runs["warehouse"], ids[3])
    assert {r["applied_run_id"] for r in rows.values()} == {ids[3]}
    assert runs[3]["summary"]["tables"]["violation_status"].endswith("violation_status")


def test_a_valid_waiver_lets_the_gate_pass_and_keeps_the_violation(spark: SparkSession, runs: dict[str, Any]) -> None:
    first, third = runs[1], runs[3]
    assert (first["code"], first["summary"]["verdict"]) == (1, "fail")
    assert (third["code"], third["summary"]["verdict"]) == (0, "pass")
    assert third["summary"]["violations_total"] == 1 and third["summary"]["violations_waived"] == 1
    assert third["summary"]["violations_by_severity"]["error"] == 1
    violations = open_store(spark, str(runs["warehouse"])).read("violations")
    kept = violations.filter(F.col("run_id") == third["summary"]["run_id"]).collect()
    assert [(r["resource_type"], r["resource_name"]) for r in kept] == [("TOPIC", "t1")]
    suites = ET.parse(third["junit"]).getroot()
    assert suites.get("failures") == "0"
    skipped = [s.get("message", "") for s in suites.iter("skipped")]
    assert len(skipped) == 1 and "waived by W-T1 (owner team-b, until 2999-12-31)" in skipped[0]
    assert "SAFE to upgrade" in third["stdout"] and "1 waived" in third["stdout"]
    t1 = status_rows(spark, runs["warehouse"])[T1]
    assert (t1["waived"], t1["waiver_id"], t1["waiver_owner"]) == (True, "W-T1", "team-b")


def test_an_expired_waiver_is_ignored_and_flagged(spark: SparkSession, runs: dict[str, Any]) -> None:
    second = runs[2]
    assert (second["code"], second["summary"]["verdict"], second["summary"]["violations_waived"]) == (1, "fail", 0)
    assert second["summary"]["expired_waivers"] == [{"id": "W-EXP", "owner": "team-a", "expires": "2020-01-01"}]
    assert "expired waiver W-EXP (owner team-a, expired 2020-01-01): ignored" in second["stdout"]
    findings = open_store(spark, str(runs["warehouse"])).read("findings")
    flagged = findings.filter((F.col("run_id") == second["summary"]["run_id"]) & (F.col("kind") == "EXPIRED_WAIVER"))
    messages = [r["message"] for r in flagged.collect()]
    assert len(messages) == 1 and "W-EXP" in messages[0] and "1 violation(s)" in messages[0], messages
    assert ET.parse(second["junit"]).getroot().get("failures") == "2"


def test_applying_the_last_run_again_changes_nothing(spark: SparkSession, runs: dict[str, Any]) -> None:
    warehouse, run_id = runs["warehouse"], runs[3]["summary"]["run_id"]
    store = open_store(spark, str(warehouse))
    before = sorted(map(tuple, store.read("violation_status").collect()))
    waivers_file = next(Path(runs[3]["junit"]).parent.glob("waivers-3.yaml"))
    lifecycle.apply(
        spark,
        store,
        run_id=run_id,
        run_ts=run_ts(spark, warehouse, run_id).replace(tzinfo=UTC),
        target_level=runs[3]["summary"]["target_level"],
        clusters=["life"],
        constraint_ids=[T1[3], G1[3]],
        waivers=conf_loader.waivers([str(waivers_file)]),
    )
    assert sorted(map(tuple, store.read("violation_status").collect())) == before
