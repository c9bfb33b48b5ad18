"""End to end through the CLI on a hand-written JSON-lines cluster (tests/data/e2e/cluster.jsonl).

The scenario (comments in the generator are in the file's neighbours): broker 1 has a static 2 MiB
log.segment.bytes and a static log.retention.hours=24; broker 2 was re-registered (its bad static value replaced by
4 MiB) and then got a per-broker dynamic 1 MiB; broker 3 (bad static value) was unregistered; a cluster default was
set and deleted; topic t1 (replica on broker 1) has RF 1 and min.insync.replicas=2; t2 (replicas on 1 and 2)'s
min.insync.replicas=3 was written in an aborted transaction; topic `gone` (min.insync.replicas=5) was removed;
group g1 has consumer.session.timeout.ms=50000, g2 30000. Expected violations were worked out by hand from those
records.

The remediation plan of the 4.4-IV1 audit is verified with `simulate`: it deletes broker 2's per-broker override
(the static 4 MiB below it passes) and g1's override (the brokers' default 45000 below it passes), sets the
cluster-wide defaults of log.segment.bytes and log.retention.ms, and min.insync.replicas of t1 to its replication
factor (derived from the expression).
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
from schemas.changes import ResourceChange, load_changes_text

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"
BASE = [
    ("TOPIC", "t1", "min.insync.replicas", "topic-min-isr-not-above-rf"),
    ("GROUP", "g1", "consumer.session.timeout.ms", "group-session-timeout-max"),
    ("BROKER", "1", "log.retention.ms", "broker-log-retention-at-least-7-days"),
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
        "--no-dq",  # the data-quality stage has its own tests (tests/jobs/test_quality.py)
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
    assert "log.segment.bytes=3145728" in broker1["remediation"]
    assert broker1["new_at_target"] is True and broker1["constraint_level"] == 32
    assert _change(broker1) == ("BROKER", "", "dynamic", "SET", "log.segment.bytes", "3145728")
    # broker 2's per-broker override hides its valid static value: the fix deletes the override
    assert broker2["remediation"] == (
        "kafka-configs.sh --bootstrap-server '<bootstrap>' --alter --entity-type brokers --entity-name 2 "
        "--delete-config log.segment.bytes  # the override is removed, and 4194304 from STATIC_BROKER_CONFIG "
        "applies and passes"
    )
    assert _change(broker2) == ("BROKER", "2", "dynamic", "DELETE", "log.segment.bytes", None)
    topic = rows[("TOPIC", "t1", "min.insync.replicas", "topic-min-isr-not-above-rf")]
    assert (topic["value"], topic["value_source"]) == ("2", "DYNAMIC_TOPIC_CONFIG")
    assert _change(topic) == ("TOPIC", "t1", "dynamic", "SET", "min.insync.replicas", "1")


def _change(row: Any) -> tuple[Any, ...]:
    c = row["remediation_change"]
    return (c["resource_type"], c["resource_name"], c["layer"], c["op"], c["key"], c["value"])


@pytest.mark.parametrize("target", ["4.2", "4.4-IV0", "4.4-IV1"])
def test_a_rule_on_the_ms_key_sees_the_static_hours_synonym(
    spark: SparkSession, runs: dict[str, Any], target: str
) -> None:
    rows = violations(spark, runs["warehouse"], runs[target][1]["run_id"])
    row = rows[("BROKER", "1", "log.retention.ms", "broker-log-retention-at-least-7-days")]
    assert (row["value"], row["value_source"], row["synonym"], row["source_offset"]) == (
        "86400000",
        "STATIC_BROKER_CONFIG",
        "log.retention.hours",
        None,
    )
    assert row["message"] == "log.retention.ms=86400000 is below the minimum 604800000"
    assert (row["constraint_level"], row["severity"], row["violation_code"]) == (None, "error", "BELOW_MIN")
    # t1 (replica on broker 1) and t2 (replicas on 1 and 2; broker 1's view) inherit it: counted, not repeated
    assert row["affected_topics"] == 2
    assert not [k for k in rows if k[0] == "TOPIC" and k[2] == "retention.ms"]
    assert _change(row) == ("BROKER", "", "dynamic", "SET", "log.retention.ms", "604800000")


def test_the_remediation_plan_clears_what_it_targets_without_introducing_errors(
    spark: SparkSession, runs: dict[str, Any]
) -> None:
    code, summary, plan = runs["simulate"]
    plan_changes = load_changes_text(plan.read_text(), "plan.yaml").changes
    assert {_planned(c) for c in plan_changes} == {
        ("BROKER", "", "dynamic", (("SET", "log.retention.ms", "604800000"), ("SET", "log.segment.bytes", "3145728"))),
        ("BROKER", "2", "dynamic", (("DELETE", "log.segment.bytes", None),)),
        ("TOPIC", "t1", "dynamic", (("SET", "min.insync.replicas", "1"),)),
        # g1's override goes: the group then takes the brokers' group.consumer.session.timeout.ms (45000), which passes
        ("GROUP", "g1", "dynamic", (("DELETE", "consumer.session.timeout.ms", None),)),
    }
    assert {c.cluster_id for c in plan_changes} == {"e2e"}
    assert sorted(summary["cleared_violations"]) == sorted(
        [
            "e2e BROKER 1 1 log.segment.bytes broker-log-segment-bytes-3mib",
            "e2e BROKER 2 2 log.segment.bytes broker-log-segment-bytes-3mib",
            "e2e BROKER 1 1 log.retention.ms broker-log-retention-at-least-7-days",
            "e2e GROUP g1 None consumer.session.timeout.ms group-session-timeout-max",
            "e2e TOPIC t1 None min.insync.replicas topic-min-isr-not-above-rf",
        ]
    ), summary
    assert (code, summary["introduced"], summary["errors_after"]) == (0, 0, 0)
    # configs before/after are re-resolved through the layers, with their sources
    sims = open_store(spark, str(runs["warehouse"])).read("simulations").filter(F.col("run_id") == summary["run_id"])
    by_entity = {(r["resource_type"], r["resource_name"], r["node_id"]): r for r in sims.collect()}
    broker2 = by_entity[("BROKER", "2", 2)]
    assert broker2["configs_before"]["log.segment.bytes"].asDict() == {
        "value": "1048576",
        "source": "DYNAMIC_BROKER_CONFIG",
        "synonym": "log.segment.bytes",
    }
    # the per-broker override is gone; the plan's new cluster default is the layer that now applies
    assert broker2["configs_after"]["log.segment.bytes"].asDict() == {
        "value": "3145728",
        "source": "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "synonym": "log.segment.bytes",
    }
    broker1 = by_entity[("BROKER", "1", 1)]
    assert broker1["configs_before"]["log.retention.ms"]["synonym"] == "log.retention.hours"
    assert broker1["configs_after"]["log.retention.ms"].asDict() == {
        "value": "604800000",
        "source": "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "synonym": "log.retention.ms",
    }
    assert broker1["violations_cleared"] == [
        "broker-log-retention-at-least-7-days on log.retention.ms",
        "broker-log-segment-bytes-3mib on log.segment.bytes",
    ]


def _planned(change: ResourceChange) -> tuple[Any, ...]:
    ops = tuple(sorted((o.op, o.key, o.value) for o in change.ops or ()))
    return (change.resource_type, change.resource_name, change.layer, ops)


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
