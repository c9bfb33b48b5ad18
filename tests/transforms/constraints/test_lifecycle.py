"""The violation lifecycle and waiver matching on tiny DataFrames."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.testing import assertSchemaEqual

from schemas.gold import FINDINGS
from schemas.lifecycle import VIOLATION_STATUS, WAIVERS, Waiver, WaiverScope
from schemas.violations import VIOLATIONS
from transforms.constraints.lifecycle import (
    to_expired_waiver_findings,
    to_violation_status,
    to_waived_violations,
    with_violation_id,
    with_waivers,
)

LEVEL = 32
TS = {f"r{i}": datetime(2025, 3, i, 12, 0, tzinfo=UTC) for i in range(1, 6)}
RULES = ["c-min", "c-expr", "c-other"]


def violation(run_id: str, resource_name: str = "1", **fields: Any) -> tuple[Any, ...]:
    """One VIOLATIONS row of cluster A at level 32: broker 1 log.segment.bytes below min unless overridden."""
    row: dict[str, Any] = {
        "run_id": run_id,
        "run_ts": TS[run_id],
        "cluster_id": "A",
        "target_mv": "4.4-IV1",
        "target_level": LEVEL,
        "current_level": 27,
        "is_downgrade": False,
        "resource_type": "BROKER",
        "resource_name": resource_name,
        "node_id": None,
        "config_name": "log.segment.bytes",
        "value": "1048576",
        "value_source": "STATIC_BROKER_CONFIG",
        "synonym": None,
        "source_offset": None,
        "constraint_id": "c-min",
        "constraint_source": "rules.yaml",
        "constraint_kind": "min",
        "constraint_level": LEVEL,
        "constraint_mv": "4.4-IV1",
        "constraint_origin": "user_mv",
        "constraint_release": None,
        "severity": "error",
        "violation_code": "BELOW_MIN",
        "message": "too small",
        "remediation": "raise it",
        "remediation_change": None,
        "reference": None,
        "affected_topics": 0,
        "new_at_target": True,
        "value_assumed": False,
    }
    unknown = set(fields) - set(row)
    assert not unknown, f"not VIOLATIONS columns: {unknown}"
    row.update(fields)
    return tuple(row[f.name] for f in VIOLATIONS.fields)


def waiver(waiver_id: str, expires: date, **scope: str) -> Waiver:
    return Waiver(id=waiver_id, scope=WaiverScope(**scope), owner="team", reason="known", expires=expires)


class Lifecycle:
    """Applies runs one after the other, like the job does; the status is kept as collected rows (one Spark job per
    run)."""

    def __init__(self, spark: SparkSession, waivers: list[Waiver] | None = None) -> None:
        self.spark = spark
        self.rows: list[Row] = []
        self.waivers = spark.createDataFrame([w.to_row() for w in waivers], WAIVERS) if waivers else None

    @property
    def status(self) -> DataFrame:
        return self.spark.createDataFrame(self.rows, VIOLATION_STATUS)

    def apply(
        self, run_id: str, rows: list[tuple[Any, ...]], *, clusters: tuple[str, ...] = ("A",), level: int = LEVEL
    ) -> list[Row]:
        new_df = to_violation_status(
            self.status,
            self.spark.createDataFrame(rows, VIOLATIONS),
            self.waivers,
            evaluated=RULES,
            run_id=run_id,
            run_ts=TS[run_id],
            target_level=level,
            clusters=clusters,
        )
        assertSchemaEqual(new_df.schema, VIOLATION_STATUS, ignoreNullable=True)
        new_rows = new_df.collect()
        # what replace_partitions does: the audited clusters' rows are replaced, the others kept
        self.rows = sorted(new_rows + [r for r in self.rows if r["cluster_id"] not in clusters])
        return sorted(new_rows)

    def row(self, resource_name: str = "1", cluster_id: str = "A", level: int = LEVEL) -> dict[str, Any]:
        found = [
            r.asDict()
            for r in self.rows
            if (r["resource_name"], r["cluster_id"], r["target_level"]) == (resource_name, cluster_id, level)
        ]
        assert len(found) == 1, found
        return found[0]


def test_appears_persists_is_fixed_and_reappears(spark: SparkSession) -> None:
    life = Lifecycle(spark)
    life.apply("r1", [violation("r1")])
    first = life.row()
    assert (first["status"], first["first_seen_run_id"], first["last_seen_run_id"]) == ("open", "r1", "r1")
    assert (first["times_seen"], first["reopened_count"], first["resolved_run_id"]) == (1, 0, None)
    assert first["first_seen_ts"] == TS["r1"].replace(tzinfo=None)

    life.apply("r2", [violation("r2", value="2097152", message="still too small")])
    second = life.row()
    assert (second["status"], second["first_seen_run_id"], second["last_seen_run_id"]) == ("open", "r1", "r2")
    assert (second["times_seen"], second["value"], second["message"]) == (2, "2097152", "still too small")
    assert second["violation_id"] == first["violation_id"]

    life.apply("r3", [])
    third = life.row()
    assert (third["status"], third["resolved_run_id"], third["last_seen_run_id"]) == ("resolved", "r3", "r2")
    assert third["resolved_ts"] == TS["r3"].replace(tzinfo=None)
    assert (third["times_seen"], third["value"]) == (2, "2097152")

    life.apply("r4", [])
    assert life.row()["resolved_run_id"] == "r3"  # a resolved violation stays resolved at its first absence

    life.apply("r5", [violation("r5")])
    fifth = life.row()
    assert (fifth["status"], fifth["reopened_count"], fifth["times_seen"]) == ("reopened", 1, 3)
    assert (fifth["first_seen_run_id"], fifth["last_seen_run_id"], fifth["resolved_run_id"]) == ("r1", "r5", None)
    assert fifth["applied_run_id"] == "r5"


def test_reapplying_the_same_or_an_older_run_changes_nothing(spark: SparkSession) -> None:
    life = Lifecycle(spark)
    life.apply("r1", [violation("r1"), violation("r1", resource_name="2")])
    life.apply("r2", [violation("r2")])  # broker 2 fixed
    after_r2 = life.rows
    assert life.apply("r2", [violation("r2")]) == after_r2
    assert life.apply("r1", [violation("r1"), violation("r1", resource_name="2")]) == after_r2
    assert (life.row("1")["times_seen"], life.row("2")["status"]) == (2, "resolved")


def test_other_clusters_and_target_levels_keep_their_rows(spark: SparkSession) -> None:
    life = Lifecycle(spark)
    life.apply("r1", [violation("r1", cluster_id="B"), violation("r1")], clusters=("A", "B"))
    life.apply("r1", [violation("r1", target_level=27)], level=27)
    before_b = [r for r in life.rows if r["cluster_id"] == "B"]
    before_a27 = [r for r in life.rows if r["target_level"] == 27]
    assert before_b and before_a27

    new_rows = life.apply("r2", [], clusters=("A",))  # only A audited, at level 32: its violation is fixed

    assert {r["cluster_id"] for r in new_rows} == {"A"}
    assert [r for r in life.rows if r["cluster_id"] == "B"] == before_b
    assert [r for r in life.rows if r["target_level"] == 27] == before_a27
    assert life.row()["status"] == "resolved"
    assert life.row(cluster_id="B")["status"] == "open"


def test_a_constraint_the_run_did_not_evaluate_does_not_resolve(spark: SparkSession) -> None:
    life = Lifecycle(spark)
    life.apply("r1", [violation("r1", constraint_id="c-user-rule")])  # not in RULES: not evaluated by r2
    life.apply("r2", [])
    assert (life.row()["status"], life.row()["last_seen_run_id"]) == ("open", "r1")


def test_node_views_and_null_node_ids_are_distinct_identities_across_runs(spark: SparkSession) -> None:
    life = Lifecycle(spark)
    topic = {"resource_type": "TOPIC", "config_name": "min.insync.replicas", "constraint_id": "c-expr"}
    rows = [violation(run, "t1", **topic) for run in ("r1",)] + [violation("r1", "t1", node_id=2, **topic)]
    life.apply("r1", rows)
    life.apply("r2", [violation("r2", "t1", **topic)])  # the node-2 view no longer fails
    by_node = {r["node_id"]: r.asDict() for r in life.rows}
    assert set(by_node) == {None, 2}
    assert (by_node[None]["status"], by_node[None]["times_seen"]) == ("open", 2)
    assert (by_node[2]["status"], by_node[2]["resolved_run_id"]) == ("resolved", "r2")


def test_duplicate_identities_in_one_run_collapse_to_one_row_preferring_the_error(spark: SparkSession) -> None:
    life = Lifecycle(spark)
    life.apply("r1", [violation("r1", severity="warning", message="w"), violation("r1", message="e")])
    assert (life.row()["severity"], life.row()["message"], len(life.rows)) == ("error", "e", 1)


def test_status_rows_carry_the_active_waiver(spark: SparkSession) -> None:
    waivers = [
        waiver("W-old", date(2025, 3, 1), resource_type="BROKER"),  # expired before r2
        waiver("W-short", date(2025, 6, 1), resource_name="?", cluster_id="A*"),
        waiver("W-long", date(2026, 1, 1), config_name="log.segment.*", resource_type="BROKER"),
        waiver("W-topic", date(2026, 1, 1), resource_type="TOPIC"),
    ]
    life = Lifecycle(spark, waivers)
    life.apply("r2", [violation("r2"), violation("r2", resource_name="10", config_name="num.io.threads")])
    one, ten = life.row("1"), life.row("10")
    assert (one["waived"], one["waiver_id"], one["waiver_expires"]) == (True, "W-long", date(2026, 1, 1))
    assert (ten["waived"], ten["waiver_id"], ten["waiver_owner"]) == (False, None, None)


def test_waiver_matching_of_a_run(spark: SparkSession) -> None:
    rows = [
        violation("r2", "1"),
        violation("r2", "user=alice,client-id=app", resource_type="CLIENT", config_name="x", constraint_id="c-x"),
        violation("r2", "user=alice,client-id=apps", resource_type="CLIENT", config_name="x", constraint_id="c-x"),
        violation("r2", "2", cluster_id="B"),
    ]
    waivers = [
        waiver("W-client", date(2025, 3, 2), resource_name="user=alice,client-id=app"),  # expires on r2's day
        waiver("W-expired", date(2025, 3, 1), cluster_id="*"),
        waiver("W-b", date(2025, 12, 1), cluster_id="B", constraint_id="c-min"),
    ]
    violations_df = spark.createDataFrame(rows, VIOLATIONS)
    waivers_df = spark.createDataFrame([w.to_row() for w in waivers], WAIVERS)
    waived = to_waived_violations(violations_df, waivers_df, run_id="r2", today=TS["r2"].date()).collect()
    assert sorted((r["cluster_id"], r["resource_name"], r["waiver_id"]) for r in waived) == [
        ("A", "user=alice,client-id=app", "W-client"),
        ("B", "2", "W-b"),
    ]
    # the day after, W-client has expired too
    later = to_waived_violations(violations_df, waivers_df, run_id="r2", today=date(2025, 3, 3)).collect()
    assert [r["waiver_id"] for r in later] == ["W-b"]


def test_with_waivers_keeps_rows_and_marks_unmatched_as_not_waived(spark: SparkSession) -> None:
    violations_df = spark.createDataFrame([violation("r1"), violation("r1", "2")], VIOLATIONS).transform(
        with_violation_id
    )
    waivers_df = spark.createDataFrame([waiver("W", date(2025, 12, 1), resource_name="2").to_row()], WAIVERS)
    marked = {r["resource_name"]: r for r in with_waivers(violations_df, waivers_df, today=date(2025, 3, 1)).collect()}
    assert (marked["1"]["waived"], marked["2"]["waived"], marked["2"]["waiver_id"]) == (False, True, "W")
    assert len(marked) == 2


def test_expired_waivers_become_findings_per_audited_cluster(spark: SparkSession) -> None:
    rows = [violation("r2"), violation("r2", "2"), violation("r2", cluster_id="B")]
    waivers = [
        waiver("W-brokers", date(2025, 1, 31), resource_type="BROKER"),
        waiver("W-c", date(2025, 1, 31), cluster_id="C"),  # C not audited: no finding
        waiver("W-active", date(2025, 12, 31), resource_type="BROKER"),
    ]
    findings_df = to_expired_waiver_findings(
        spark.createDataFrame(rows, VIOLATIONS),
        spark.createDataFrame([w.to_row() for w in waivers], WAIVERS),
        clusters=["A", "B", "D"],
        today=TS["r2"].date(),
        run_id="r2",
        run_ts=TS["r2"],
    )
    assertSchemaEqual(findings_df.schema, FINDINGS, ignoreNullable=True)
    found = {r["cluster_id"]: r for r in findings_df.collect()}
    assert set(found) == {"A", "B", "D"}
    assert found["A"]["message"] == (
        "waiver W-brokers (owner team) expired on 2025-01-31 and is ignored: 2 violation(s) of this run match its scope"
    )
    assert "0 violation(s)" in found["D"]["message"]
    assert all(r["kind"] == "EXPIRED_WAIVER" and not r["is_blocking"] for r in found.values())


@pytest.mark.parametrize("name", ["A", "A-1"], ids=["exact", "longer"])
def test_cluster_scope_is_anchored(spark: SparkSession, name: str) -> None:
    violations_df = spark.createDataFrame([violation("r1", cluster_id=name)], VIOLATIONS)
    waivers_df = spark.createDataFrame([waiver("W", date(2025, 12, 1), cluster_id="A").to_row()], WAIVERS)
    waived = to_waived_violations(violations_df, waivers_df, run_id="r1", today=date(2025, 3, 1)).collect()
    assert [r["waiver_id"] for r in waived] == (["W"] if name == "A" else [])
