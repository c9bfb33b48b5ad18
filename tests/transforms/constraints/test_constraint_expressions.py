"""Expression constraints: cast rewriting, load-time validation without a Spark job, ANSI-safe evaluation."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jobs.runtime import expression_check
from jobs.runtime.expression_check import validate_with_spark
from schemas.constraints import CompiledCatalog
from schemas.errors import ConfigError
from transforms.configdef.expressions import (
    OUTCOME_FALSE,
    OUTCOME_HOLDS,
    OUTCOME_NULL,
    expression_mask_columns,
    expression_slots,
    paired_by_keys,
    reads_entity_values,
    rewrite_casts,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cast(value as int) > 1", "try_cast(value as int) > 1"),
        ("CAST (value AS int) > 1", "try_cast(value AS int) > 1"),
        ("try_cast(value as int) > 1", "try_cast(value as int) > 1"),
        ("value = 'cast(x as int)'", "value = 'cast(x as int)'"),
        ('value = "it\'s cast("', 'value = "it\'s cast("'),
        ("`cast(` = 1 -- cast(\ncast(1 as int)", "`cast(` = 1  \ntry_cast(1 as int)"),
        ("/* cast( */ my_cast(1) + broadcast(2)", "  my_cast(1) + broadcast(2)"),
        ("value = 'a''cast(' or cast(value as int) = 1", "value = 'a''cast(' or try_cast(value as int) = 1"),
    ],
    ids=[
        "plain",
        "upper-with-space",
        "already-try",
        "in-literal",
        "in-double-quotes",
        "identifier-and-comment",
        "block-comment-and-other-functions",
        "escaped-quote",
    ],
)
def test_rewrite_casts_only_touches_code(text: str, expected: str) -> None:
    assert rewrite_casts(text) == expected


@pytest.mark.parametrize(
    ("text", "reads"),
    [
        ("topic.partitions <= 10", False),
        ("cast(value as int) > 1", True),
        ("cfg['a'] = 'x'", True),
        ("topic.replication_factor <= cluster.broker_count and 'value' = 'value'", False),
    ],
    ids=["topic-only", "value", "cfg", "value-only-in-literals"],
)
def test_reads_entity_values(text: str, reads: bool) -> None:
    assert reads_entity_values(text) is reads


@pytest.mark.parametrize(
    ("text", "paired"),
    [
        ("topic.partitions <= 10", False),
        ("cluster.broker_count >= 3 -- cfg", False),
        ("cast(value as int) > 1 and topic.internal", True),
        ("true", True),
        ("'topic' = 'topic'", True),
    ],
    ids=["topic-policy", "cluster-policy", "value", "constant", "facts-only-in-literals"],
)
def test_paired_by_keys(text: str, paired: bool) -> None:
    assert paired_by_keys(text) is paired


def _one_expr(resource: str, expr: str) -> str:
    return f'constraints: [{{id: rule-x, resource: {resource}, configs: [a], expr: "{expr}"}}]'


@pytest.mark.parametrize(
    ("resource", "expr", "reason"),
    [
        ("topic", "cast(value as int) >", "does not parse"),
        ("topic", "value ==== 1", "does not parse"),
        ("topic", "topic.partitons > 1", "unknown field"),
        ("topic", "cfg['a'] > nosuchcolumn", "unknown field"),
        ("topic", "no_such_function(value)", "not an allowed SQL function"),
        ("broker", "topic.partitions > 1", "unknown field"),
        ("topic", "cast(value as int) + 1", "must be a boolean condition, it returns int"),
        ("topic", "count(value) > 1", "aggregate or window function"),
        ("topic", "value::int > 1", "uses `::`"),
    ],
    ids=[
        "truncated",
        "bad-operator",
        "misspelt-topic-field",
        "unknown-column",
        "unknown-function",
        "topic-field-on-broker-rule",
        "not-boolean",
        "aggregate",
        "double-colon-cast",
    ],
)
@pytest.mark.spark
def test_invalid_expression_is_rejected_at_load_with_id_and_reason(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], resource: str, expr: str, reason: str
) -> None:
    rules = compile_yaml(**{"team.yaml": _one_expr(resource, expr)})
    with pytest.raises(ConfigError) as info:
        validate_with_spark(rules, spark)
    assert str(info.value).startswith("team.yaml: constraint rule-x: expr")
    assert reason in str(info.value)


@pytest.mark.spark
def test_a_repeated_expression_is_judged_once_per_resource_type_and_reported_by_its_first_rule(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog]
) -> None:
    # valid over topic rows, an unknown field over broker rows: the broker copy must still be refused
    copies = [
        f"{{id: {rid}, resource: {res}, configs: [{key}], expr: 'topic.partitions > 1'}}"
        for rid, res, key in (
            ("t-1", "topic", "a"),
            ("t-2", "topic", "b"),
            ("b-1", "broker", "a"),
            ("b-2", "broker", "b"),
        )
    ]
    with pytest.raises(ConfigError, match=r"^team.yaml: constraint b-1: expr.*unknown field"):
        validate_with_spark(compile_yaml(**{"team.yaml": f"constraints: [{', '.join(copies)}]"}), spark)
    regexes = [
        f"{{id: {rid}, resource: topic, config: {key}, check: {{regex: '{rx}'}}}}"
        for rid, key, rx in (("r-ok", "a", "a+"), ("r-1", "b", "(?P<n>a)"), ("r-2", "c", "(?P<n>a)"))
    ]
    with pytest.raises(ConfigError, match=r"^r.yaml: constraint r-1: regex is not a Java regex"):
        validate_with_spark(compile_yaml(**{"r.yaml": f"constraints: [{', '.join(regexes)}]"}), spark)


@pytest.mark.spark
def test_non_java_regex_is_rejected_at_load(spark: Any, compile_yaml: Callable[..., CompiledCatalog]) -> None:
    # Python accepts (?P<name>...), java.util.regex does not
    rules = compile_yaml(
        **{"r.yaml": "constraints: [{id: rx, resource: topic, config: a, check: {regex: '(?P<n>a)'}}]"}
    )
    with pytest.raises(ConfigError, match=r"^r.yaml: constraint rx: regex is not a Java regex"):
        validate_with_spark(rules, spark)


@pytest.mark.spark
def test_valid_expressions_validate_without_running_a_spark_job(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog]
) -> None:
    rules = compile_yaml(
        """
constraints:
  - id: t
    resource: topic
    configs: [a, b]
    expr: "cast(cfg['a'] as int) <= topic.replication_factor and not topic.internal"
  - {id: b, resource: broker, config: a, expr: "cast(value as int) <= cluster.broker_count + cluster.rack_count"}
  - {id: r, resource: topic, config: a, check: {regex: '[0-9]+:[0-9]+'}}
"""
    )
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup(None))
    validate_with_spark(rules, spark)
    assert set(tracker.getJobIdsForGroup(None)) == before
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"  # restored


@pytest.mark.spark
def test_expressions_never_fail_the_job_even_when_run_with_ansi_on(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], outcomes_of: Callable[..., dict[str, int]]
) -> None:
    # explicit cast of garbage, implicit string->number coercion, division by zero and overflow
    rules = compile_yaml(
        """
constraints:
  - {id: explicit, resource: topic, configs: [a], expr: "cast(cfg['a'] as int) > 0"}
  - {id: implicit, resource: topic, configs: [a], expr: "cfg['a'] > 0"}
  - {id: divide, resource: topic, configs: [a], expr: "1 / 0 > 0"}
  - {id: overflow, resource: topic, configs: [a], expr: "2147483647 + topic.partitions > 0"}
  - {id: holds, resource: topic, configs: [a], expr: "topic.partitions = 3"}
  - {id: is-false, resource: topic, configs: [a], expr: "topic.partitions = 4"}
"""
    )
    validate_with_spark(rules, spark)
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"  # the fixture runs the plan with ANSI on
    outcome = outcomes_of(rules, {"a": "abc"}, (3, 3, False))
    assert outcome == {
        "explicit": OUTCOME_NULL,
        "implicit": OUTCOME_NULL,
        "divide": OUTCOME_NULL,
        "overflow": OUTCOME_FALSE,  # non-ANSI integer arithmetic wraps around
        "holds": OUTCOME_HOLDS,
        "is-false": OUTCOME_FALSE,
    }


@pytest.mark.spark
def test_expression_chunks_hold_at_most_the_chunk_size(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog]
) -> None:
    entries = "\n".join(
        f'  - {{id: e{i}, resource: topic, configs: [a], expr: "topic.partitions > {i}"}}' for i in range(60)
    )
    rules = compile_yaml("constraints:\n" + entries)
    slots = expression_slots(rules.expressions, chunk_size=25)
    assert [len(members) for _, members in slots.chunks] == [25, 25, 10]
    columns = expression_mask_columns(slots)
    assert len(columns) == 3
    assert all(str(c).count("shiftleft") <= 25 for c in columns)


def test_rules_repeating_an_expression_share_its_slot(compile_yaml: Callable[..., CompiledCatalog]) -> None:
    """A text is evaluated once per resource type; one reading ``value`` once per first key it is bound to."""
    rules = compile_yaml(
        """
constraints:
  - {id: t1, resource: topic, configs: [a], expr: "cluster.broker_count > 1"}
  - {id: t2, resource: topic, configs: [b], expr: "cluster.broker_count > 1"}
  - {id: b1, resource: broker, configs: [a], expr: "cluster.broker_count > 1"}
  - {id: v1, resource: topic, configs: [a], expr: "cast(value as int) > 1"}
  - {id: v2, resource: topic, configs: [a, c], expr: "cast(value as int) > 1"}
  - {id: v3, resource: topic, configs: [b], expr: "cast(value as int) > 1"}
"""
    )
    slots = expression_slots(rules.expressions)
    slot = {r.constraint.id: slots.slot_of[r.rule_idx] for r in rules.expressions}
    assert slot["t1"] == slot["t2"]
    assert slot["v1"] == slot["v2"]
    assert len({slot["t1"], slot["b1"], slot["v1"], slot["v3"]}) == 4
    assert [rtype for rtype, _ in slots.chunks] == ["TOPIC", "BROKER"]


@pytest.mark.spark
def test_value_is_the_first_key_of_each_rule_and_a_lambda_may_still_name_its_own(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], outcomes_of: Callable[..., dict[str, int]]
) -> None:
    rules = compile_yaml(
        """
constraints:
  - {id: on-a, resource: topic, configs: [a], expr: "cast(value as int) > 1"}
  - {id: on-b, resource: topic, configs: [b], expr: "cast(value as int) > 1"}
  - {id: on-missing, resource: topic, configs: [m], expr: "cast(value as int) > 1"}
  - {id: shadowed, resource: topic, configs: [b], expr: "exists(array(5, 7), value -> value = 7)"}
  - {id: both, resource: topic, configs: [b], expr: "forall(array(1), x -> cast(value as int) = 0)"}
  - {id: quoted, resource: topic, configs: [a], expr: "cast(`value` as int) = 2"}
"""
    )
    validate_with_spark(rules, spark)
    assert outcomes_of(rules, {"a": "2", "b": "0"}) == {
        "on-a": OUTCOME_HOLDS,
        "on-b": OUTCOME_FALSE,
        "on-missing": OUTCOME_NULL,
        "shadowed": OUTCOME_HOLDS,  # the lambda's own value, not b's
        "both": OUTCOME_HOLDS,  # outside value read inside a lambda
        "quoted": OUTCOME_HOLDS,
    }


def _yaml_expr(expr: str) -> str:
    return "constraints:\n  - id: rule-x\n    resource: topic\n    configs: [a]\n    expr: " + json.dumps(expr) + "\n"


@pytest.mark.parametrize(
    ("expr", "problem"),
    [
        ("(" * 4000 + "value" + ")" * 4000 + " = 'x'", "is 8011 characters long; at most 4000 are allowed"),
        ("value rlike '(unclosed'", "calls rlike() with pattern '(unclosed', which is not a Java regex: "),
        ("value regexp cfg['p']", "calls rlike() with a pattern that is not a string literal"),
        ("regexp_extract(value, 'a(b)', 2) = 'b'", "calls regexp_extract() with group 2, but pattern 'a(b)' has 1"),
        ("regexp_replace(value, 'x*', 'yy') = ''", "calls regexp_replace() with pattern 'x*', which matches the empty"),
        (
            "regexp_replace(upper(regexp_replace(value, '.', '0123456789')), '.', '0123456789') = ''",
            "nests regexp_replace() around other replacements that together make a text up to 100 times longer",
        ),
        ("value rlike '^(a+)+$'", "calls rlike() with a pattern '^(a+)+$' repeats a group that itself repeats"),
        ("length(format_string('%2000000000s', value)) > 0", "calls format_string() with width 2000000000"),
        (
            "aggregate(split(value, ','), '', (acc, x) -> concat(acc, acc)) = ''",
            "calls aggregate() whose merge function reads its accumulator acc 2 times",
        ),
    ],
    ids=[
        "nested-4000",
        "unclosed",
        "pattern-from-data",
        "group-beyond",
        "empty-match",
        "nested-replace",
        "catastrophic",
        "format-width",
        "aggregate-doubling",
    ],
)
@pytest.mark.spark
def test_expressions_that_would_fail_or_exhaust_the_run_are_refused_at_load(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], expr: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as info:
        validate_with_spark(compile_yaml(**{"team.yaml": _yaml_expr(expr)}), spark)
    assert str(info.value).startswith(f"team.yaml: constraint rule-x: expr {problem}")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("codegen", [False, True], ids=["interpreted", "generated-code"])
@pytest.mark.spark
def test_an_expression_that_raises_on_a_row_could_not_be_evaluated_and_the_others_still_are(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], outcomes_of: Callable[..., dict[str, int]], codegen: bool
) -> None:
    # errors Spark raises whatever the ANSI setting: a duplicate map key, index 0, a value to_number cannot read
    rules = compile_yaml(
        """
constraints:
  - {id: duplicate-key, resource: topic, configs: [a], expr: "str_to_map(cfg['a'])['k'] = '1'"}
  - {id: index-zero, resource: topic, configs: [a], expr: "element_at(split(cfg['a'], ','), int(cfg['i'])) = 'x'"}
  - {id: same-index-zero, resource: topic, configs: [a], expr: "element_at(split(cfg['a'], ','), int(cfg['i'])) != ''"}
  - {id: number, resource: topic, configs: [a], expr: "to_number(cfg['a'], '999') > 1"}
  - {id: holds, resource: topic, configs: [a], expr: "length(cfg['a']) > 0"}
  - {id: is-false, resource: topic, configs: [a], expr: "topic.partitions = 4"}
"""
    )
    validate_with_spark(rules, spark)
    keys = ("spark.sql.codegen.wholeStage", "spark.sql.codegen.factoryMode")
    previous = {key: spark.conf.get(key) for key in keys}
    spark.conf.set(keys[0], str(codegen).lower())
    spark.conf.set(keys[1], "FALLBACK" if codegen else "NO_CODEGEN")
    try:
        outcome = outcomes_of(rules, {"a": "k:1,k:2", "i": "0"}, (3, 3, False))
    finally:
        for key, value in previous.items():
            spark.conf.set(key, value)
    assert outcome == {
        "duplicate-key": OUTCOME_NULL,
        "index-zero": OUTCOME_NULL,
        "same-index-zero": OUTCOME_NULL,
        "number": OUTCOME_NULL,
        "holds": OUTCOME_HOLDS,
        "is-false": OUTCOME_FALSE,
    }


@pytest.mark.spark
def test_a_catalog_validated_once_is_not_analysed_again_and_a_failing_one_always_is(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KRAFT_AUDIT_VALIDATION_CACHE", str(tmp_path))
    good = compile_yaml('constraints: [{id: g, resource: topic, configs: [a], expr: "cast(value as int) > 1"}]')
    other = compile_yaml('constraints: [{id: g, resource: topic, configs: [a], expr: "cast(value as int) > 2"}]')
    bad = compile_yaml('constraints: [{id: b, resource: topic, configs: [a], expr: "no_such_field > 1"}]')
    validate_with_spark(good, spark)
    assert len(list(tmp_path.iterdir())) == 1
    analysed: list[int] = []
    analyse = expression_check._validate_batch
    monkeypatch.setattr(
        expression_check, "_validate_batch", lambda rules, df: analysed.append(len(rules)) or analyse(rules, df)
    )
    validate_with_spark(good, spark)  # remembered: Spark is not asked again
    assert analysed == []
    validate_with_spark(other, spark)  # another expression: analysed, then remembered too
    assert analysed == [1] and len(list(tmp_path.iterdir())) == 2
    for _ in range(2):  # a failing catalog is analysed every time and never remembered
        with pytest.raises(ConfigError, match="unknown field"):
            validate_with_spark(bad, spark)
    assert analysed == [1, 1, 1] and len(list(tmp_path.iterdir())) == 2
    monkeypatch.setattr(spark.conf, "get", lambda key, default=None: "true" if "caseSensitive" in key else default)
    marker = expression_check._validated_marker(good, spark)
    assert marker is not None and not marker.exists()  # names resolved case-sensitively: not the same analysis
