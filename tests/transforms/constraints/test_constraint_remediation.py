"""Remediation at the right scope: per value source and dynamic scope, per resource type (Column functions)."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

from transforms.constraints.remediation import fix_value, remediation_change, remediation_text

pytestmark = pytest.mark.spark

BASE = "kafka-configs.sh --bootstrap-server <bootstrap> --alter "

# (id, resource_type, resource_name, config_name, value_source, scope, expected text, expected (name, layer))
CASES: list[tuple[str, str, str, str, str, str | None, str, tuple[str, str] | None]] = [
    (
        "static-cluster-wide",
        "BROKER",
        "1",
        "log.segment.bytes",
        "STATIC_BROKER_CONFIG",
        "cluster-wide",
        BASE + "--entity-type brokers --entity-default --add-config log.segment.bytes=3145728",
        ("", "dynamic"),
    ),
    (
        "default-cluster-wide",
        "BROKER",
        "1",
        "log.segment.bytes",
        "DEFAULT_CONFIG",
        "cluster-wide",
        BASE + "--entity-type brokers --entity-default --add-config log.segment.bytes=3145728",
        ("", "dynamic"),
    ),
    (
        "static-per-broker",
        "BROKER",
        "2",
        "num.io.threads",
        "STATIC_BROKER_CONFIG",
        "per-broker",
        BASE + "--entity-type brokers --entity-name 2 --add-config num.io.threads=3145728",
        ("2", "dynamic"),
    ),
    (
        "static-read-only",
        "BROKER",
        "3",
        "log.retention.hours",
        "STATIC_BROKER_CONFIG",
        "read-only",
        "set log.retention.hours=3145728 in server.properties of broker 3 and restart it (rolling restart); "
        "log.retention.hours is read-only and cannot be changed dynamically",
        ("3", "static"),
    ),
    (
        "unknown-scope-is-read-only",
        "BROKER",
        "3",
        "x.y",
        "DEFAULT_CONFIG",
        None,
        "set x.y=3145728 in server.properties of broker 3 and restart it (rolling restart); "
        "x.y is read-only and cannot be changed dynamically",
        ("3", "static"),
    ),
    (
        "per-node-dynamic-layer-wins",
        "BROKER",
        "4",
        "log.segment.bytes",
        "DYNAMIC_BROKER_CONFIG",
        "cluster-wide",
        BASE + "--entity-type brokers --entity-name 4 --add-config log.segment.bytes=3145728 (this per-broker dynamic "
        "value overrides the cluster default and server.properties; if those are valid, remove it instead with "
        "--delete-config log.segment.bytes)",
        ("4", "dynamic"),
    ),
    (
        "cluster-default-layer",
        "BROKER",
        "4",
        "log.segment.bytes",
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "per-broker",
        BASE + "--entity-type brokers --entity-default --add-config log.segment.bytes=3145728",
        ("", "dynamic"),
    ),
    (
        "topic",
        "TOPIC",
        "orders",
        "segment.bytes",
        "DYNAMIC_TOPIC_CONFIG",
        None,
        BASE + "--entity-type topics --entity-name orders --add-config segment.bytes=3145728",
        ("orders", "dynamic"),
    ),
    (
        "group",
        "GROUP",
        "payments",
        "consumer.session.timeout.ms",
        "DYNAMIC_GROUP_CONFIG",
        None,
        BASE + "--entity-type groups --entity-name payments --add-config consumer.session.timeout.ms=3145728",
        ("payments", "dynamic"),
    ),
    (
        "client-metrics",
        "CLIENT_METRICS",
        "sub1",
        "interval.ms",
        "DYNAMIC_CLIENT_METRICS_CONFIG",
        None,
        BASE + "--entity-type client-metrics --entity-name sub1 --add-config interval.ms=3145728",
        ("sub1", "dynamic"),
    ),
    (
        "client-user-and-id",
        "CLIENT",
        "user=alice,client-id=app",
        "k",
        "DYNAMIC_CLIENT_CONFIG",
        None,
        BASE + "--entity-type users --entity-name alice --entity-type clients --entity-name app --add-config k=3145728",
        ("user=alice,client-id=app", "dynamic"),
    ),
    (
        "client-default-user",
        "CLIENT",
        "user=<default>",
        "k",
        "DYNAMIC_CLIENT_CONFIG",
        None,
        BASE + "--entity-type users --entity-default --add-config k=3145728",
        ("user=<default>", "dynamic"),
    ),
]


@pytest.fixture(scope="module")
def remediations(spark: Any) -> dict[str, Any]:
    rows = [
        (case_id, rtype, name, key, source, scope, "BELOW_MIN", None, "min", "3145728", None, None, [], None)
        for case_id, rtype, name, key, source, scope, _, _ in CASES
    ]
    rows += [
        (
            "list-value-in-brackets",
            "TOPIC",
            "t",
            "cleanup.policy",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            "NOT_ALLOWED",
            ["compact", "foo", "delete"],
            "in",
            None,
            None,
            None,
            ["compact", "delete"],
            None,
        ),
        (
            "no-obvious-value",
            "TOPIC",
            "t",
            "k",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            "NO_MATCH",
            None,
            "regex",
            None,
            None,
            None,
            [],
            "Ask the platform team",
        ),
        (
            "between-above-takes-upper-bound",
            "TOPIC",
            "t",
            "k",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            "ABOVE_MAX",
            None,
            "between",
            "1",
            "17",
            None,
            [],
            None,
        ),
        (
            "duplicates-removed",
            "BROKER",
            "1",
            "listeners",
            "STATIC_BROKER_CONFIG",
            "per-broker",
            "DUPLICATES",
            ["a", "b", "a"],
            "no_duplicates",
            None,
            None,
            None,
            [],
            None,
        ),
    ]
    df = spark.createDataFrame(
        rows,
        "case_id string, resource_type string, resource_name string, config_name string, value_source string, "
        "scope string, code string, v_elems array<string>, constraint_kind string, rule_bound_a string, "
        "rule_bound_b string, rule_fix_value string, rule_values array<string>, remediation_hint string",
    )
    out = (
        df.select("*", fix_value().alias("fix_value"))
        .select("case_id", remediation_text().alias("text"), remediation_change().alias("change"))
        .collect()
    )
    return {r.case_id: r for r in out}


@pytest.mark.parametrize(("case_id", "text", "target"), [(c[0], c[6], c[7]) for c in CASES], ids=[c[0] for c in CASES])
def test_remediation_scope_follows_source_and_dynamic_scope(
    remediations: dict[str, Any], case_id: str, text: str, target: tuple[str, str] | None
) -> None:
    row = remediations[case_id]
    assert row.text == text
    assert (row.change.resource_name, row.change.layer, row.change.op, row.change.value) == (*target, "SET", "3145728")


def test_list_fix_keeps_allowed_elements_and_brackets_the_value(remediations: dict[str, Any]) -> None:
    row = remediations["list-value-in-brackets"]
    assert row.text.endswith("--add-config cleanup.policy=[compact,delete]")
    assert row.change.value == "compact,delete"


def test_without_a_concrete_value_a_placeholder_and_no_structured_change(remediations: dict[str, Any]) -> None:
    row = remediations["no-obvious-value"]
    assert (
        row.text
        == BASE + "--entity-type topics --entity-name t --add-config k=<valid value>. Hint: Ask the platform team"
    )
    assert row.change is None


@pytest.mark.parametrize(
    ("case_id", "value"),
    [("between-above-takes-upper-bound", "17"), ("duplicates-removed", "a,b")],
    ids=["between-upper", "duplicates"],
)
def test_fix_value_satisfies_the_failing_rule(remediations: dict[str, Any], case_id: str, value: str) -> None:
    assert remediations[case_id].change.value == value


def test_fix_value_is_null_for_expressions(spark: Any) -> None:
    df = spark.createDataFrame(
        [("EXPRESSION_FALSE", "expr")],
        "code string, constraint_kind string",
    ).select(
        "*",
        F.lit(None).cast("array<string>").alias("v_elems"),
        F.lit(None).cast("string").alias("rule_bound_a"),
        F.lit(None).cast("string").alias("rule_bound_b"),
        F.lit(None).cast("string").alias("rule_fix_value"),
        F.lit(None).cast("array<string>").alias("rule_values"),
    )
    assert df.select(fix_value().alias("v")).first().v is None
