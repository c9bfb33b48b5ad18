"""Expressions that would fail or exhaust the run are refused when the catalog is loaded (pure Python, no Spark)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jobs.conf_loader import constraint_catalog
from schemas.errors import ConfigError
from transforms.configdef.expr_limits import (
    MAX_NESTING,
    Argument,
    Lambda,
    NotLiteral,
    call_problem,
    capturing_groups,
    regex_problem,
    size_problem,
)
from transforms.configdef.expressions import rewrite_casts
from transforms.configdef.functions import precheck_functions

VALUE = NotLiteral()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("(" * 3000 + "value" + ")" * 3000 + " = 'x'", "is 6011 characters long; at most 4000 are allowed"),
        ("(" * 1000 + "1" + ")" * 1000, "nests parentheses or brackets 1000 levels deep; at most 48 are allowed"),
        ("abs(" * 49 + "1" + ")" * 49 + " = 1", "nests parentheses or brackets 49 levels deep; at most 48 are allowed"),
        ("+".join(["1"] * 300) + " > 0", "has 300 operators; at most 200 are allowed"),
        ("length(value) = " + "x" * 4000, "is 4016 characters long; at most 4000 are allowed"),
    ],
    ids=["nested-3000", "nested-1000", "nested-calls", "operator-chain", "long"],
)
def test_expressions_too_large_for_sparks_parser_are_refused_before_spark(text: str, problem: str) -> None:
    assert size_problem(text) == problem
    assert precheck_functions(text) == problem


def test_nesting_inside_literals_does_not_count() -> None:
    assert size_problem("value = '" + "(" * (MAX_NESTING + 10) + "'") is None
    assert size_problem("(" * MAX_NESTING + "1" + ")" * MAX_NESTING + " = 1") is None


def test_a_user_catalog_nested_5000_deep_is_a_one_line_config_error_naming_file_and_id(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    expr = "(" * 5000 + "cast(value as int)" + ")" * 5000 + " > 1"
    path.write_text(f'constraints:\n  - id: too-deep\n    resource: topic\n    configs: [a]\n    expr: "{expr}"\n')
    with pytest.raises(ConfigError) as raised:
        constraint_catalog(str(path))
    message = str(raised.value)
    assert message == f"{path}: constraint too-deep: expr is 10022 characters long; at most 4000 are allowed"
    assert "\n" not in message


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+", "(a*b?)*", "(x{1,3})+", "((ab)*c)*", "(?<n>a+)*", "(a|a)*", "(ab|a)+", "(a|[ab])*", "(\\d|1)+"],
    ids=["plus-plus", "star-star", "range-plus", "nested-groups", "named", "same", "prefix", "class", "escape-class"],
)
def test_regexes_that_backtrack_catastrophically_are_refused(pattern: str) -> None:
    problem = regex_problem(pattern)
    assert problem is not None
    assert problem.startswith(f"pattern {pattern!r} repeats ")
    assert problem.endswith(
        "(catastrophic backtracking); make the repetition possessive (*+, ++) or the group atomic ((?>...))"
    )


@pytest.mark.parametrize(
    "pattern",
    [
        "(a+)++",
        "(?>a+)+",
        "(a|b)*",
        "(\\.|,)+",
        "[a-z]+(,[a-z]+)?",
        "(x{2})*",
        "\\Q(a+)+\\E",
        "[(a+)+]",
        "\\s*,\\s*",
        "",
    ],
    ids=["possessive", "atomic", "distinct", "escaped", "optional", "exact", "quoted", "class", "plain", "empty"],
)
def test_regexes_without_ambiguous_repetition_pass(pattern: str) -> None:
    assert regex_problem(pattern) is None


@pytest.mark.parametrize(
    "pattern",
    ["a", "(a)", "(a)(b(c))", "(?:a)(b)", "(?P<n>a)", "(?=a)(b)", "(?<=a)(b)", "(?<!a)(b)", "\\(a\\)", "[(]a[)]"],
)
def test_capturing_groups_counts_as_a_regex_engine_does(pattern: str) -> None:
    # Python's re (an independent engine) agrees with Java on these; its named-group spelling differs
    assert capturing_groups(pattern.replace("?P<", "?<")) == re.compile(pattern).groups


ACC_TWICE = Lambda(("acc", "x"), {"acc": 2, "x": 0})


@pytest.mark.parametrize(
    ("name", "args", "problem"),
    [
        ("rlike", [VALUE, VALUE], "calls rlike() with a pattern that is not a string literal; write the regex out"),
        (
            "regexp_extract",
            [VALUE, "a(b)", 2],
            "calls regexp_extract() with group 2, but pattern 'a(b)' has 1 capturing group(s)",
        ),
        (
            "regexp_extract",
            [VALUE, "ab"],
            "calls regexp_extract() with group 1, but pattern 'ab' has 0 capturing group(s) (the default group is 1: "
            "pass 0 for the whole match)",
        ),
        (
            "regexp_extract_all",
            [VALUE, "a(b)", VALUE],
            "calls regexp_extract_all() with a group index that is not an integer literal",
        ),
        (
            "regexp_replace",
            [VALUE, "", "xx"],
            "calls regexp_replace() with an empty pattern, which inserts the replacement between every character",
        ),
        (
            "regexp_replace",
            [VALUE, "a", VALUE],
            "calls regexp_replace() with a replacement that is not a string literal",
        ),
        (
            "regexp_replace",
            [VALUE, "a", "x" * 65],
            "calls regexp_replace() with a replacement of 65 characters; at most 64",
        ),
        (
            "regexp_replace",
            [NotLiteral(growth=40), "a", "xx"],
            "nests regexp_replace() around other replacements that together make a text up to 80 times longer; "
            "at most 64",
        ),
        ("replace", [VALUE, ",", VALUE], "calls replace() with a replacement that is not a string literal"),
        (
            "split",
            [VALUE, "(a|a)*"],
            "calls split() with a pattern '(a|a)*' repeats an alternation whose branches can match the same text "
            "(catastrophic backtracking); make the repetition possessive (*+, ++) or the group atomic ((?>...))",
        ),
        (
            "format_string",
            ["%2000000000s", VALUE],
            "calls format_string() with width 2000000000 in '%2000000000s'; at most 1000 is allowed",
        ),
        ("printf", ["%1$.5000f", VALUE], "calls printf() with precision 5000 in '%1$.5000f'; at most 1000 is allowed"),
        ("printf", [VALUE, VALUE], "calls printf() with a format that is not a string literal"),
        (
            "format_number",
            [VALUE, 2000000000],
            "calls format_number() with 2000000000 decimals; at most 1000 are allowed",
        ),
        ("format_number", [VALUE, VALUE], "calls format_number() with a number of decimals that is not a literal"),
        (
            "aggregate",
            [VALUE, "", ACC_TWICE],
            "calls aggregate() whose merge function reads its accumulator acc 2 times; read it once (the result could "
            "double with every element)",
        ),
        (
            "reduce",
            [VALUE, "", ACC_TWICE, Lambda(("acc",), {"acc": 1})],
            "calls reduce() whose merge function reads its accumulator acc 2 times; read it once (the result could "
            "double with every element)",
        ),
    ],
    ids=[
        "pattern-not-literal",
        "group-beyond",
        "default-group-beyond",
        "group-not-literal",
        "empty-pattern",
        "replacement-not-literal",
        "long-replacement",
        "nested-replace",
        "replace-not-literal",
        "catastrophic-split",
        "format-width",
        "printf-precision",
        "format-not-literal",
        "format-number-decimals",
        "format-number-not-literal",
        "aggregate-doubling",
        "reduce-doubling",
    ],
)
def test_calls_that_would_fail_or_exhaust_the_run_are_refused(name: str, args: list[Argument], problem: str) -> None:
    assert call_problem(name, args) == problem


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("regexp_extract", [VALUE, "a(b)", 1]),
        ("regexp_extract", [VALUE, "a(b)"]),
        ("regexp_instr", [VALUE, "ab"]),
        ("regexp_replace", [VALUE, "\\s+", " "]),
        ("regexp_replace", [VALUE, "", ""]),
        ("replace", [NotLiteral(growth=8), ",", "........"]),
        ("format_string", ["%5s=%-10.3f %%", VALUE]),
        ("format_number", [VALUE, "#,###.##"]),
        ("aggregate", [VALUE, "", Lambda(("acc", "x"), {"acc": 1, "x": 2})]),
        ("split", [VALUE, ","]),
    ],
    ids=[
        "group-1",
        "default-group",
        "instr-default-0",
        "replace",
        "empty-pattern-removes-nothing",
        "nested-replace-within-bound",
        "format",
        "format-number",
        "aggregate",
        "split",
    ],
)
def test_ordinary_calls_pass(name: str, args: list[Argument]) -> None:
    assert call_problem(name, args) is None


@pytest.mark.parametrize(
    ("text", "evaluated"),
    [
        ("to_number(value, '999') > 1", "try_to_number(value, '999') > 1"),
        ("TO_BINARY(value, 'hex') is not null", "try_to_binary(value, 'hex') is not null"),
        (
            "try_to_number(value, '9') > 1 and url_decode(value) = 'a'",
            "try_to_number(value, '9') > 1 and try_url_decode(value) = 'a'",
        ),
        ("value = 'to_number(x)'", "value = 'to_number(x)'"),
    ],
    ids=["to-number", "to-binary", "already-try-and-url-decode", "in-literal"],
)
def test_functions_the_data_can_break_are_evaluated_as_their_try_variant(text: str, evaluated: str) -> None:
    assert rewrite_casts(text) == evaluated
