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


COLUMNS = (
    "case_id string, resource_type string, resource_name string, config_name string, value_source string, "
    "scope string, code string, v_elems array<string>, constraint_kind string, rule_bound_a string, "
    "rule_bound_b string, rule_fix_value string, rule_values array<string>, remediation_hint string, "
    "expr_fix_value string, fallback_ok boolean, fallback_value string, fallback_source string, expr_text string, "
    "rule_configs_text string"
)


def _row(case_id: str, rtype: str, name: str, key: str, source: str, scope: str | None, **kw: Any) -> tuple[Any, ...]:
    fields: dict[str, Any] = {
        "code": "BELOW_MIN",
        "v_elems": None,
        "constraint_kind": "min",
        "rule_bound_a": "3145728",
        "rule_bound_b": None,
        "rule_fix_value": None,
        "rule_values": [],
        "remediation_hint": None,
        "expr_fix_value": None,
        "fallback_ok": None,
        "fallback_value": None,
        "fallback_source": None,
        "expr_text": None,
        "rule_configs_text": key,
    }
    assert not set(kw) - set(fields), set(kw) - set(fields)
    fields.update(kw)
    return (case_id, rtype, name, key, source, scope, *fields.values())


EXPR = {"code": "EXPRESSION_FALSE", "constraint_kind": "expr", "rule_bound_a": None}
DELETES = [
    (
        "delete-per-broker-override",
        _row(
            "",
            "BROKER",
            "2",
            "log.segment.bytes",
            "DYNAMIC_BROKER_CONFIG",
            "cluster-wide",
            fallback_ok=True,
            fallback_value="4194304",
            fallback_source="STATIC_BROKER_CONFIG",
        ),
        BASE + "--entity-type brokers --entity-name 2 --delete-config log.segment.bytes (the override is removed; "
        "4194304 from STATIC_BROKER_CONFIG applies and passes)",
        ("2", "dynamic", "DELETE", None),
    ),
    (
        "delete-cluster-default",
        _row(
            "",
            "BROKER",
            "2",
            "log.segment.bytes",
            "DYNAMIC_DEFAULT_BROKER_CONFIG",
            "cluster-wide",
            fallback_ok=True,
            fallback_value="1073741824",
            fallback_source="DEFAULT_CONFIG",
        ),
        BASE + "--entity-type brokers --entity-default --delete-config log.segment.bytes (the override is removed; "
        "1073741824 from DEFAULT_CONFIG applies and passes)",
        ("", "dynamic", "DELETE", None),
    ),
    (
        "delete-topic-override-views-differ",
        _row("", "TOPIC", "t", "segment.bytes", "DYNAMIC_TOPIC_CONFIG", None, fallback_ok=True),
        BASE + "--entity-type topics --entity-name t --delete-config segment.bytes (the override is removed; "
        "the value below it applies and passes)",
        ("t", "dynamic", "DELETE", None),
    ),
    (
        "fallback-fails-so-set",
        _row(
            "",
            "BROKER",
            "2",
            "log.segment.bytes",
            "DYNAMIC_BROKER_CONFIG",
            "cluster-wide",
            fallback_ok=False,
            fallback_value="1000",
            fallback_source="STATIC_BROKER_CONFIG",
        ),
        BASE + "--entity-type brokers --entity-name 2 --add-config log.segment.bytes=3145728 (deleting the "
        "override instead would fall back to 1000 from STATIC_BROKER_CONFIG, which does not pass either)",
        ("2", "dynamic", "SET", "3145728"),
    ),
    (
        "expression-with-derived-fix",
        _row("", "TOPIC", "t1", "min.insync.replicas", "DYNAMIC_TOPIC_CONFIG", None, **EXPR, expr_fix_value="1"),
        BASE + "--entity-type topics --entity-name t1 --add-config min.insync.replicas=1",
        ("t1", "dynamic", "SET", "1"),
    ),
    (
        "expression-without-fix",
        _row(
            "",
            "TOPIC",
            "t1",
            "a",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            **EXPR,
            expr_text="cfg['a'] < cfg['b'] or x",
            rule_configs_text="a, b",
        ),
        "change a, b so that `cfg['a'] < cfg['b'] or x` holds (no single value follows from the expression), e.g. "
        + BASE
        + "--entity-type topics --entity-name t1 --add-config a=<valid value>",
        None,
    ),
]


@pytest.fixture(scope="module")
def remediations(spark: Any) -> dict[str, Any]:
    rows = [_row(case_id, rtype, name, key, source, scope) for case_id, rtype, name, key, source, scope, _, _ in CASES]
    rows.append(
        _row(
            "list-value-in-brackets",
            "TOPIC",
            "t",
            "cleanup.policy",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            code="NOT_ALLOWED",
            v_elems=["compact", "foo", "delete"],
            constraint_kind="in",
            rule_bound_a=None,
            rule_values=["compact", "delete"],
        )
    )
    rows.append(
        _row(
            "no-obvious-value",
            "TOPIC",
            "t",
            "k",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            code="NO_MATCH",
            constraint_kind="regex",
            rule_bound_a=None,
            remediation_hint="Ask the platform team",
        )
    )
    rows.append(
        _row(
            "between-above-takes-upper-bound",
            "TOPIC",
            "t",
            "k",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            code="ABOVE_MAX",
            constraint_kind="between",
            rule_bound_a="1",
            rule_bound_b="17",
        )
    )
    rows.append(
        _row(
            "duplicates-removed",
            "BROKER",
            "1",
            "listeners",
            "STATIC_BROKER_CONFIG",
            "per-broker",
            code="DUPLICATES",
            v_elems=["a", "b", "a"],
            constraint_kind="no_duplicates",
            rule_bound_a=None,
        )
    )
    rows += [(case_id, *row[1:]) for case_id, row, _, _ in DELETES]
    df = spark.createDataFrame(rows, COLUMNS)
    out = (
        df.select("*", fix_value().alias("fix_value"))
        .select("case_id", remediation_text().alias("text"), remediation_change().alias("change"))
        .collect()
    )
    return {r.case_id: r for r in out}


@pytest.mark.parametrize(
    ("case_id", "text", "change"), [(c[0], c[2], c[3]) for c in DELETES], ids=[c[0] for c in DELETES]
)
def test_delete_when_the_fallback_passes_else_set(
    remediations: dict[str, Any], case_id: str, text: str, change: tuple[Any, ...] | None
) -> None:
    row = remediations[case_id]
    assert row.text == text
    got = None if row.change is None else (row.change.resource_name, row.change.layer, row.change.op, row.change.value)
    assert got == change


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


def test_fix_value_of_an_expression_is_its_derived_fix(spark: Any) -> None:
    df = spark.createDataFrame(
        [("EXPRESSION_FALSE", "expr", None), ("EXPRESSION_FALSE", "expr", "3")],
        "code string, constraint_kind string, expr_fix_value string",
    ).select(
        "*",
        F.lit(None).cast("array<string>").alias("v_elems"),
        F.lit(None).cast("string").alias("rule_bound_a"),
        F.lit(None).cast("string").alias("rule_bound_b"),
        F.lit(None).cast("string").alias("rule_fix_value"),
        F.lit(None).cast("array<string>").alias("rule_values"),
    )
    assert [r.v for r in df.select(fix_value().alias("v")).collect()] == [None, "3"]
