"""Structured fixes derived from comparison expressions (pure Python)."""

from __future__ import annotations

import pytest

from schemas.constraints import ExprFix
from transforms.configdef.expr_fixes import derive_fix
from transforms.configdef.expressions import rewrite_casts

ISR = "min.insync.replicas"


@pytest.mark.parametrize(
    ("expr", "first_key", "expected"),
    [
        (
            "cast(cfg['min.insync.replicas'] as int) <= topic.replication_factor",
            ISR,
            ExprFix(key=ISR, value_sql="cast(cast((topic.replication_factor) as bigint) as string)"),
        ),
        (
            "(topic.replication_factor >= CAST(cfg['min.insync.replicas'] AS INT))",
            ISR,
            ExprFix(key=ISR, value_sql="cast(cast((topic.replication_factor) as bigint) as string)"),
        ),
        (
            "cast(cfg['a'] as long) < cast(cfg['b'] as long)",
            "a",
            ExprFix(key="a", value_sql="cast(cast((try_cast(cfg['b'] as long)) - 1 as bigint) as string)"),
        ),
        (
            "cast(value as int) > cluster.broker_count",
            "a",
            ExprFix(key="a", value_sql="cast(cast((cluster.broker_count) + 1 as bigint) as string)"),
        ),
        ("cfg['a'] = 'compact'", "a", ExprFix(key="a", value_sql="cast(('compact') as string)")),
        ("value >= 3", "a", ExprFix(key="a", value_sql="cast((3) as string)")),
    ],
    ids=["le-rf", "flipped-in-parens", "lt-integral", "gt-value-cast", "equals-string", "ge-plain-value"],
)
def test_a_single_comparison_of_the_first_key_gives_its_fix(expr: str, first_key: str, expected: ExprFix) -> None:
    assert derive_fix(rewrite_casts(expr), first_key) == expected


@pytest.mark.parametrize(
    "expr",
    [
        "cast(cfg['a'] as int) <= 3 and cfg['b'] is null",
        "cfg['a'] is null",
        "cast(cfg['a'] as int) <= cast(cfg['a'] as int) * 2",
        "value < 3",
        "cfg['b'] <= 3",
        "cast(cfg['a'] as int) between 1 and 3",
        "size(split(cfg['a'], ',')) <= 3",
        "cfg['a'] <=> 'x'",
        "cfg['a'] != 'x'",
        "cast(cfg['a'] as int) <= 3 or cast(cfg['a'] as int) >= 9",
        "cfg['a'] = 'x <= y'",
    ],
    ids=[
        "conjunction",
        "is-null",
        "bound-reads-the-key",
        "strict-without-integral-type",
        "not-the-first-key",
        "between",
        "function-of-the-key",
        "null-safe-equality",
        "not-equal",
        "disjunction",
        "operator-inside-a-literal-is-text",
    ],
)
def test_anything_else_gives_no_structured_fix(expr: str) -> None:
    fix = derive_fix(rewrite_casts(expr), "a")
    if expr == "cfg['a'] = 'x <= y'":
        assert fix == ExprFix(key="a", value_sql="cast(('x <= y') as string)")
    else:
        assert fix is None
