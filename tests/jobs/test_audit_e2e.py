"""End to end through the CLI on a hand-written JSON-lines cluster (tests/data/e2e/cluster.jsonl).

The scenario (comments in the generator are in the file's neighbours): broker 1 has a static 2 MiB
log.segment.bytes; broker 2 was re-registered (its bad static value replaced by 4 MiB) and then got a per-broker
dynamic 1 MiB; broker 3 (bad static value) was unregistered; a cluster default was set and deleted; topic t1 has
RF 1 and min.insync.replicas=2; t2's min.insync.replicas=3 was written in an aborted transaction; topic `gone`
(min.insync.replicas=5) was removed; group g1 has consumer.session.timeout.ms=50000, g2 30000. Expected
violations were worked out by hand from those records.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"
BASE = [
    ("TOPIC", "t1", "min.insync.replicas", "topic-min-isr-not-above-rf"),
    ("GROUP", "g1", "consumer.session.timeout.ms", "group-session-timeout-max"),
]
SEGMENT = [
    ("BROKER", "1", "log.segment.bytes", "broker-log-segment-bytes-3mib"),
    ("BROKER", "2", "log.segment.bytes", "broker-log-segment-bytes-3mib"),
]


def gate(
    warehouse: Path, tmp_path: Path, target: str, *rules: str, remediation_out: Path | None = None
) -> tuple[int, dict[str, Any], Path]:
    summary = tmp_path / f"summary-{target}-{len(list(tmp_path.iterdir()))}.json"
    junit = summary.with_suffix(".xml")
    args = [
        "gate",
        "--input",
        str(DATA / "cluster.jsonl"),
        "--cluster-id",
        "e2e",
        "--target-mv",
        target,
        "--no-default-constraints",
        "--warehouse",
        str(warehouse),
        "--summary-json",
        str(summary),
        "--junit",
        str(junit),
        "-q",
    ]
    for rule in rules:
        args += ["--constraints", str(DATA / rule)]
    if remediation_out is not None:
        args += ["--remediation-out", str(remediation_out)]
    code = cli_main(args)
    return code, json.loads(summary.read_text()), junit


@pytest.fixture(scope="module")
def runs(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One warehouse, the gate at three targets with both catalogs, 4.4-IV1 again, and 4.2 with the MV rule only."""
    tmp = tmp_path_factory.mktemp("e2e")
    warehouse = tmp / "warehouse"
    out: dict[str, Any] = {"warehouse": warehouse}
    for target in ("4.2", "4.4-IV0"):
        out[target] = gate(warehouse, tmp, target, "base-rules.yaml", "segment-rule.yaml")
    plan = tmp / "plan.yaml"
    out["4.4-IV1"] = gate(warehouse, tmp, "4.4-IV1", "base-rules.yaml", "segment-rule.yaml", remediation_out=plan)
    summary = tmp / "simulate.json"
    out["simulate"] = (
        cli_main(
            [
                "simulate",
                "--changes",
                str(plan),
                "--target-mv",
                "4.4-IV1",
                "--no-default-constraints",
                "--constraints",
                str(DATA / "base-rules.yaml"),
                "--constraints",
                str(DATA / "segment-rule.yaml"),
                "--warehouse",
                str(warehouse),
                "--summary-json",
                str(summary),
                "-q",
            ]
        ),
        json.loads(summary.read_text()),
        plan,
    )
    out["again"] = gate(warehouse, tmp, "4.4-IV1", "base-rules.yaml", "segment-rule.yaml")
    out["pass"] = gate(warehouse, tmp, "4.2", "segment-rule.yaml")
    return out


def violations(spark: SparkSession, warehouse: Path, run_id: str) -> dict[tuple[str, str, str, str], Any]:
    rows = open_store(spark, str(warehouse)).read("violations").filter(F.col("run_id") == run_id).collect()
    return {(r["resource_type"], r["resource_name"], r["config_name"], r["constraint_id"]): r for r in rows}


@pytest.mark.parametrize(
    ("target", "expected"),
    [("4.2", BASE), ("4.4-IV0", BASE), ("4.4-IV1", BASE + SEGMENT)],
    ids=["4.2-no-segment-validator", "4.4-IV0-floor-below-registration", "4.4-IV1-segment-validator-applies"],
)
def test_three_targets_give_the_violations_worked_out_by_hand(
    spark: SparkSession, runs: dict[str, Any], target: str, expected: list[tuple[str, str, str, str]]
) -> None:
    code, summary, junit = runs[target]
    assert sorted(violations(spark, runs["warehouse"], summary["run_id"])) == sorted(expected)
    assert code == 1
    assert summary["verdict"] == "fail"
    assert summary["violations_total"] == len(expected)
    assert summary["violations_by_severity"] == {"error": len(expected), "warning": 0}
    suites = ET.parse(junit).getroot()
    assert int(suites.get("failures", "0")) == len(expected)
    assert {case.get("name", "").split(" [")[0] for case in suites.iter("testcase")} == {
        f"{rt} {name} {key}" for rt, name, key, _ in expected
    }


def test_values_sources_and_remediation_follow_precedence(spark: SparkSession, runs: dict[str, Any]) -> None:
    rows = violations(spark, runs["warehouse"], runs["4.4-IV1"][1]["run_id"])
    broker1 = rows[("BROKER", "1", "log.segment.bytes", "broker-log-segment-bytes-3mib")]
    broker2 = rows[("BROKER", "2", "log.segment.bytes", "broker-log-segment-bytes-3mib")]
    assert (broker1["value"], broker1["value_source"]) == ("2097152", "STATIC_BROKER_CONFIG")
    assert (broker2["value"], broker2["value_source"]) == ("1048576", "DYNAMIC_BROKER_CONFIG")
    assert "kafka-configs" in broker2["remediation"] and "--entity-name 2" in broker2["remediation"]
    assert "log.segment.bytes=3145728" in broker1["remediation"]
    assert broker1["new_at_target"] is True and broker1["constraint_level"] == 32
    topic = rows[("TOPIC", "t1", "min.insync.replicas", "topic-min-isr-not-above-rf")]
    assert (topic["value"], topic["value_source"]) == ("2", "DYNAMIC_TOPIC_CONFIG")


def test_the_remediation_plan_clears_what_it_targets_without_introducing_errors(runs: dict[str, Any]) -> None:
    code, summary, plan = runs["simulate"]
    text = plan.read_text()
    assert "log.segment.bytes" in text and "consumer.session.timeout.ms" in text
    cleared = summary["cleared_violations"]
    assert any("BROKER 1 1 log.segment.bytes broker-log-segment-bytes-3mib" in c for c in cleared), (summary, text)
    assert any("BROKER 2 2 log.segment.bytes broker-log-segment-bytes-3mib" in c for c in cleared)
    assert any("GROUP g1" in c for c in cleared)
    assert summary["introduced"] == 0
    # t1's min.insync.replicas > RF comes from an expression rule: no automatic fix is proposed, so it remains
    assert (code, summary["errors_after"]) == (1, 1)


def test_gate_exits_0_when_nothing_blocks(runs: dict[str, Any]) -> None:
    code, summary, junit = runs["pass"]
    assert (code, summary["verdict"], summary["violations_total"]) == (0, "pass", 0)
    assert summary["highest_safe_mv"] == {"e2e": "4.4-IV0"}
    assert int(ET.parse(junit).getroot().get("failures", "1")) == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--target-mv", "9.9"], "unknown metadata.version"),
        (["--target-mv", "4.2", "--constraints", "/nope.yaml"], "not found"),
        (["--target-mv", "4.2", "--as-of-time", "yesterday"], "ISO-8601"),
    ],
    ids=["unknown-mv", "missing-catalog", "bad-as-of-time"],
)
def test_gate_exits_2_with_one_line_on_user_errors(
    warehouse: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str
) -> None:
    code = cli_main(["gate", "--input", str(DATA / "cluster.jsonl"), "--warehouse", str(warehouse), *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and needle in err and "\n" not in err and "Traceback" not in err


def test_running_the_same_audit_twice_gives_the_same_violations(spark: SparkSession, runs: dict[str, Any]) -> None:
    first, second = runs["4.4-IV1"][1]["run_id"], runs["again"][1]["run_id"]
    assert first != second
    store = open_store(spark, str(runs["warehouse"]))
    columns = [c for c in store.read("violations").columns if c not in ("run_id", "run_ts")]

    def rows(run_id: str) -> list[tuple[str, ...]]:
        df = store.read("violations").filter(F.col("run_id") == run_id).select(*columns)
        return sorted(tuple(map(str, r)) for r in df.collect())

    assert rows(first) == rows(second)
