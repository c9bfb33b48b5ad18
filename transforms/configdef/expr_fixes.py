"""Structured fixes for expression constraints, derived from the expression text (pure Python).

``derive_fix(expr_sql, first_key)`` gives the ``ExprFix`` (``schemas.constraints``) of one expression, or None;
``expression_fix_columns(rules)`` evaluates the derived fixes of a catalog's expressions as generated CASE columns
(build them under ``expressions.ansi_disabled``, like the outcome columns).

An expression whose whole text is one comparison between the rule's first key and a term that does not read that
key — ``cast(cfg['k'] as int) <= topic.replication_factor``, ``cfg['k'] = 'compact'``, ``value >= 3``, either way
round, parentheses allowed — has an obvious fix: set the key to the bound.

==================  =========================================================================
comparison          fix value (the other term, evaluated in the entity's context)
==================  =========================================================================
``k <= t``, ``>=``  ``t`` (the largest / smallest passing value)
``k = t``           ``t``
``k < t``, ``>``    ``t - 1`` / ``t + 1``, only when ``k`` is cast to an integral type
==================  =========================================================================

With an integral cast the value is rendered as an integer (``cast(t as bigint)``), otherwise as ``t``'s string.
Anything else — ``and`` / ``or`` / ``not`` / ``between`` / ``in`` / ``is`` at the top level, several comparisons,
a term reading the key itself — gives no structured fix; the remediation is then a text naming the expression.
A fix that evaluates to NULL (the bound's own inputs are missing) is no fix either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from pyspark.sql import Column
from pyspark.sql import functions as F

from schemas.constraints import CompiledConstraint, ExprFix
from transforms.configdef.expressions import EXPR_CHUNK_SIZE, caught_string, code_segments

__all__ = ["derive_fix", "expression_fix_columns"]

INTEGRAL_TYPES: Final = frozenset({"int", "integer", "bigint", "long", "smallint", "short", "tinyint", "byte"})
_FLIPPED: Final = {"<=": ">=", ">=": "<=", "<": ">", ">": "<", "=": "=", "==": "="}
_BLOCKING_WORDS: Final = re.compile(r"\b(and|or|not|between|in|is|like|rlike|regexp|ilike|case|exists)\b", re.I)
_CFG: Final = r"cfg\s*\[\s*'(?P<key>[^'\\]+)'\s*\]"
_CAST_SIDE: Final = re.compile(
    rf"(?:try_)?cast\s*\(\s*(?:{_CFG}|(?P<value>value))\s+as\s+(?P<type>[A-Za-z]+)\s*\)", re.I
)
_PLAIN_SIDE: Final = re.compile(_CFG, re.I)
_VALUE_SIDE: Final = re.compile(r"value", re.I)


def _masked(text: str) -> str:
    """``text`` with literals, quoted identifiers and comments blanked out (same length)."""
    return "".join(seg if is_code else "_" * len(seg) for is_code, seg in code_segments(text))


def _strip_parens(text: str) -> str:
    """Remove parentheses enclosing the whole expression."""
    while True:
        stripped = text.strip()
        masked = _masked(stripped)
        if not (masked.startswith("(") and masked.endswith(")")):
            return stripped
        depth = 0
        for i, ch in enumerate(masked):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(masked) - 1:
                return stripped  # "(a) < (b)": the first group closes early
        text = stripped[1:-1]


def _top_level_comparison(text: str) -> tuple[str, str, str] | None:
    """(left, operator, right) when ``text`` is exactly one comparison at parenthesis depth 0."""
    masked = _masked(text)
    depth, found = 0, []
    i = 0
    while i < len(masked):
        ch = masked[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in "<>=!":
            op = masked[i : i + 3] if masked[i : i + 3] == "<=>" else masked[i : i + 2]
            if op not in ("<=", ">=", "==", "<>", "!=", "<=>", "=>"):
                op = ch
            found.append((i, op))
            i += len(op)
            continue
        i += 1
    if len(found) != 1 or found[0][1] not in _FLIPPED:
        return None
    at, op = found[0]
    left, right = text[:at], text[at + len(op) :]
    top_level = "".join(c if d == 0 else " " for c, d in zip(masked, _depths(masked), strict=True))
    if _BLOCKING_WORDS.search(top_level):
        return None
    return left.strip(), op, right.strip()


def _depths(masked: str) -> list[int]:
    depths, depth = [], 0
    for ch in masked:
        if ch in ")]":
            depth -= 1
        depths.append(depth)
        if ch in "([":
            depth += 1
    return depths


def _key_side(term: str, first_key: str) -> tuple[bool, str | None] | None:
    """(matched, cast type) when ``term`` is the first key (optionally cast), else None."""
    stripped = _strip_parens(term)
    cast = _CAST_SIDE.fullmatch(stripped)
    if cast and (cast.group("key") == first_key or cast.group("value")):
        return True, cast.group("type").lower()
    plain = _PLAIN_SIDE.fullmatch(stripped)
    if (plain and plain.group("key") == first_key) or _VALUE_SIDE.fullmatch(stripped):
        return True, None
    return None


def _reads_key(term: str, first_key: str) -> bool:
    masked_value = re.search(r"(?<![\w.$])value(?![\w$])", _masked(term), re.I) is not None
    return masked_value or any(m.group("key") == first_key for m in _PLAIN_SIDE.finditer(term))


def derive_fix(expr_sql: str, first_key: str) -> ExprFix | None:
    """The structured fix of an expression (see the module docstring), or None."""
    comparison = _top_level_comparison(_strip_parens(expr_sql))
    if comparison is None:
        return None
    left, op, right = comparison
    side = _key_side(left, first_key)
    bound = right
    if side is None:
        side, bound, op = _key_side(right, first_key), left, _FLIPPED[op]
    if side is None or not bound or _reads_key(bound, first_key):
        return None
    cast_type = side[1]
    integral = cast_type in INTEGRAL_TYPES
    op = _FLIPPED["="] if op == "==" else op
    if op in ("<", ">") and not integral:
        return None
    term = f"({bound})"
    if op == "<":
        term = f"({bound}) - 1"
    elif op == ">":
        term = f"({bound}) + 1"
    value_sql = f"cast(cast({term} as bigint) as string)" if integral else f"cast({term} as string)"
    return ExprFix(key=first_key, value_sql=value_sql)


def expression_fix_columns(rules: Sequence[CompiledConstraint], *, chunk_size: int = EXPR_CHUNK_SIZE) -> list[Column]:
    """The fix value (string) of a row's rule (column ``rule_idx``), NULL for rules without a derivable fix: one
    CASE per chunk of at most ``chunk_size`` rules with a fix, each guarded by its chunk's ``rule_idx`` range. A fix
    that raises on a row is NULL there (no fix), not a failed job. ``coalesce`` the result; build under ANSI off."""
    fixed = sorted((rule.rule_idx, rule.expr_fix.value_sql) for rule in rules if rule.expr_fix is not None)
    columns = []  # SQL text parsed once per chunk (see expressions.expression_mask_columns)
    for start in range(0, len(fixed), chunk_size):
        chunk = fixed[start : start + chunk_size]
        branches = " ".join(
            f"WHEN {rule_idx} THEN {caught_string(f'CAST({value_sql} AS STRING)')}" for rule_idx, value_sql in chunk
        )
        low, high = chunk[0][0], chunk[-1][0]
        columns.append(F.expr(f"CASE WHEN rule_idx BETWEEN {low} AND {high} THEN CASE rule_idx {branches} END END"))
    return columns or [F.lit(None).cast("string")]
