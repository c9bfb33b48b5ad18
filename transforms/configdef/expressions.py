"""Expression constraints: their text and their ANSI-safe evaluation columns.

``jobs.runtime.expression_check.validate_with_spark`` rejects, when the catalog is loaded, expressions that do not
parse, read unknown fields or are not boolean, and regexes Java does not compile; ``expression_mask_columns`` evaluates
a catalog's distinct expressions (``expression_slots``) as generated mask columns, built under ``ansi_disabled``.
``rewrite_casts``, ``reads_entity_values``, ``paired_by_keys``, ``cfg_keys_read`` and ``code_segments`` read the
expression text (pure Python).

An expression may read ``value`` (the effective value of the rule's first key, a string), ``cfg['key']``
(``map<string,string>`` of the entity's effective values), ``cluster.broker_count`` / ``cluster.rack_count`` /
``cluster.elr_level`` (``eligible.leader.replicas.version`` after the upgrade command), and — for ``resource: topic``
and ``controller_topic`` only — ``topic.partitions``, ``topic.replication_factor``, ``topic.internal``.

**How `cast` never fails the job (both, on purpose):**

1. the expression text is rewritten so that every explicit ``cast(`` outside string literals, quoted
   identifiers and comments becomes ``try_cast(`` — so an explicit cast has ``try_cast`` semantics (``'1.5'``
   as int is NULL) whatever the session's ANSI setting; ``x::type`` casts are rejected at load time because
   they cannot be rewritten reliably; and
2. the projection that evaluates expressions is *built and analysed* with ``spark.sql.ansi.enabled=false``
   (:func:`ansi_disabled`), which also makes the casts Spark inserts implicitly (``cfg['x'] <= 3``) and
   division by zero yield NULL instead of raising (integer overflow wraps around, as in non-ANSI Spark).
   Spark fixes each expression's eval mode when it is constructed and analysed, so the plan keeps the lenient
   mode after the setting is restored (checked by a test that runs the plan with ANSI on). This relies on
   classic (non-Connect) PySpark, where analysis is eager.

An expression that evaluates to NULL is a violation ("could not evaluate"): :func:`expression_mask_columns`
encodes 0 = holds, 1 = false, 2 = NULL.

**What the data can still break is one rule's result, not the run.** Before Spark parses anything, an expression
too long or too deeply nested for its parser is refused (``expr_limits.size_problem``); on the parse tree, calls
whose literal arguments could fail or exhaust the run (regexes, group indexes, format widths, growing
replacements and accumulators: ``expr_limits.call_problem``, regexes compiled by Java) are refused. Functions with
a ``try_`` variant are rewritten to it (:data:`TRY_VARIANTS`), and each outcome is evaluated through
:func:`caught_int`: an exception on one row (a duplicate map key, ``element_at(a, 0)``) is that rule's NULL there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from schemas.constraints import CompiledConstraint
from transforms.configdef.sql_text import code_segments, sql_string, without_comments

__all__ = [
    "EXPR_CHUNK_SIZE",
    "OUTCOME_FALSE",
    "OUTCOME_HOLDS",
    "OUTCOME_NULL",
    "ExpressionSlots",
    "ansi_disabled",
    "caught_int",
    "caught_string",
    "cfg_keys_read",
    "code_segments",
    "embedded",
    "expression_mask_columns",
    "expression_slots",
    "paired_by_keys",
    "reads_entity_values",
    "reads_value",
    "rewrite_casts",
]

OUTCOME_HOLDS: Final = 0
OUTCOME_FALSE: Final = 1
OUTCOME_NULL: Final = 2
EXPR_CHUNK_SIZE: Final = 25  # constraints per generated expression (JIT limit, see ENVIRONMENT.md)

# Functions that raise on a value they cannot read, and their try_ variant (same arguments, NULL instead): the data
# cannot break an expression that calls them.
TRY_VARIANTS: Final = ("cast", "to_number", "to_binary", "url_decode", "parse_json", "variant_get", "validate_utf8")
_CAST = re.compile(rf"({'|'.join(TRY_VARIANTS)})\s*\(", re.IGNORECASE)
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_.$]")


def _rewrite_code(code: str, before: str) -> str:
    out, last = [], 0
    for m in _CAST.finditer(code):
        prev = code[m.start() - 1] if m.start() > 0 else before
        if prev and _IDENT_CHAR.match(prev):  # try_cast(, my_cast(, x.cast(
            continue
        out.append(code[last : m.start()])
        out.append(f"try_{m.group(1).lower()}(")
        last = m.end()
    out.append(code[last:])
    return "".join(out)


def rewrite_casts(text: str) -> str:
    """The expression as evaluated: every explicit ``cast(`` outside literals, quoted identifiers and comments
    rewritten to ``try_cast(`` (and ``to_number(``, ``to_binary(``, ... of :data:`TRY_VARIANTS` to their ``try_``
    variant), and every comment replaced by a space (see :func:`without_comments`)."""
    parts: list[str] = []
    for is_code, segment in code_segments(without_comments(text)):
        before = parts[-1][-1:] if parts else ""
        parts.append(_rewrite_code(segment, before) if is_code else segment)
    return "".join(parts)


def embedded(expr_sql: str) -> str:
    """The expression as it is placed inside generated SQL: parenthesised, on lines of its own.

    Validation analyses exactly this text, so what passes at load time is what the evaluation parses.
    """
    return f"(\n{expr_sql}\n)"


_ENTITY_VALUE_REF = re.compile(r"(?<![\w.$])(cfg|value)(?![\w$])", re.IGNORECASE)


def reads_entity_values(text: str) -> bool:
    """Whether an expression reads ``cfg`` or ``value`` (outside literals and comments).

    Expressions that read only ``topic`` / ``cluster`` facts are evaluated for every entity of their resource;
    the others only for entities holding at least one of their ``configs``.
    """
    return any(is_code and _ENTITY_VALUE_REF.search(seg) for is_code, seg in code_segments(text))


_ENTITY_FACT_REF = re.compile(r"(?<![\w.$])(cfg|value|topic|cluster)(?![\w$])", re.IGNORECASE)


def paired_by_keys(text: str) -> bool:
    """Whether an expression is evaluated only for entities holding at least one of its ``configs``.

    True when it reads ``cfg`` / ``value``, and when it reads no entity fact at all: a constant such as the
    ``true`` that retires a cross-field check from a later level on (KIP-1294 replaces the earlier validator), which
    cannot fail, so pairing it with every entity would only cost work (and force every key into the contexts).
    False for pure topic / cluster policies, which apply to every entity of their resource.
    """
    if reads_entity_values(text):
        return True
    return not any(is_code and _ENTITY_FACT_REF.search(seg) for is_code, seg in code_segments(text))


def has_double_colon_cast(text: str) -> bool:
    return any(is_code and "::" in seg for is_code, seg in code_segments(text))


_CFG_REF = re.compile(r"(?<![\w.$])cfg(?![\w$])", re.IGNORECASE)
_CFG_SUBSCRIPT_OPEN = re.compile(r"(?<![\w.$])cfg\s*\[\s*$", re.IGNORECASE)
_SUBSCRIPT_CLOSE = re.compile(r"^\s*\]")


def cfg_keys_read(text: str) -> frozenset[str] | None:
    """The keys an expression reads through ``cfg['key']`` with a plain string literal.

    Returns None when ``cfg`` is used any other way (a computed key, ``map_keys(cfg)``, an escaped literal), so a
    caller pruning the ``cfg`` map to these keys knows it must not.
    """
    segments = list(code_segments(text))
    keys: set[str] = set()
    for i, (is_code, segment) in enumerate(segments):
        if not is_code:
            continue
        refs = list(_CFG_REF.finditer(segment))
        if not refs:
            continue
        opening = _CFG_SUBSCRIPT_OPEN.search(segment)
        if len(refs) > 1 or opening is None or opening.start() != refs[0].start():
            return None
        literal = segments[i + 1][1] if i + 1 < len(segments) and not segments[i + 1][0] else ""
        after = segments[i + 2][1] if i + 2 < len(segments) else ""
        quoted = len(literal) >= 2 and literal[0] in "'\"" and literal[-1] == literal[0]
        body = literal[1:-1]
        if not quoted or "\\" in body or literal[0] in body or not _SUBSCRIPT_CLOSE.match(after):
            return None
        keys.add(body)
    return frozenset(keys)


@contextmanager
def ansi_disabled(spark: SparkSession) -> Iterator[None]:
    """Build and analyse plans with ANSI off inside the block; the previous setting is restored after."""
    key = "spark.sql.ansi.enabled"
    previous = spark.conf.get(key)
    spark.conf.set(key, "false")
    try:
        yield
    finally:
        spark.conf.set(key, previous if previous is not None else "true")


_VALUE_WORD = re.compile(r"value", re.IGNORECASE)


def reads_value(text: str) -> bool:
    """Whether an expression may read ``value``: the word anywhere in it, quoted or not (an over-approximation:
    such an expression is bound to its rule's first key, which only costs a binding when it does not read it)."""
    return _VALUE_WORD.search(text) is not None


@dataclass(frozen=True)
class ExpressionSlots:
    """Where each expression rule's outcome is computed: one slot per distinct expression of a resource type.

    Rules with the same text on the same resource type share a slot (when the text reads ``value``, also the same
    first key, which ``value`` is bound to), so a slot is evaluated once per entity view whatever the number of
    rules repeating it. Slots are packed into chunks of one resource type, at most ``EXPR_CHUNK_SIZE`` each: a chunk
    is one generated column (the JIT limit, see ENVIRONMENT.md).
    """

    chunks: tuple[tuple[str, tuple[tuple[CompiledConstraint, ...], ...]], ...]  # (resource type, each slot's rules)
    slot_of: Mapping[int, tuple[int, int]]  # rule_idx -> (chunk, position in the chunk)


def expression_slots(rules: Sequence[CompiledConstraint], *, chunk_size: int = EXPR_CHUNK_SIZE) -> ExpressionSlots:
    """The slots of these expression rules, in the order the rules come (pure Python)."""
    by_type: dict[str, dict[tuple[str, str], list[CompiledConstraint]]] = {}
    for rule in rules:
        text = rule.expr_sql or ""
        bound_to = rule.constraint.keys[0] if reads_value(text) else ""
        by_type.setdefault(str(rule.constraint.resource_type), {}).setdefault((text, bound_to), []).append(rule)
    chunks: list[tuple[str, tuple[tuple[CompiledConstraint, ...], ...]]] = []
    slot_of: dict[int, tuple[int, int]] = {}
    for rtype, groups in by_type.items():
        members = list(groups.values())
        for start in range(0, len(members), chunk_size):
            part = members[start : start + chunk_size]
            for position, group in enumerate(part):
                slot_of.update({rule.rule_idx: (len(chunks), position) for rule in group})
            chunks.append((rtype, tuple(tuple(group) for group in part)))
    return ExpressionSlots(chunks=tuple(chunks), slot_of=slot_of)


def caught_int(int_sql: str) -> str:
    """``int_sql`` (an INT) evaluated so that an error raised by any part of it gives NULL, not a failed job.

    Spark SQL has no generic ``try``; ``try_add`` of a DATE and an INT is Spark's ``TryEval`` around the addition,
    which catches every exception its child raises while it is evaluated, the INT's own included (an unclosed regex
    read from the data, ``element_at(a, 0)``, a duplicate map key, a format the value breaks). ``unix_date`` turns the
    date back into the INT. ``TryEval`` catches exceptions, not JVM errors: a stack overflow or exhausted memory still
    fails the task, which is what the load-time limits (``expr_limits``) are for. A test runs a failing expression
    interpreted and through generated code, so a Spark release that changes ``try_add`` is noticed.
    """
    return f"unix_date(try_add(DATE'1970-01-01', {int_sql}))"


def caught_string(string_sql: str) -> str:
    """``string_sql`` (a STRING) evaluated so that an error raised by any part of it gives NULL (``try_to_binary`` is
    ``TryEval`` around the encoding, as :func:`caught_int`)."""
    return f"decode(try_to_binary({string_sql}, 'utf-8'), 'utf-8')"


def _outcome_sql(rule: CompiledConstraint) -> str:
    outcome = f"CAST(NOT {embedded(rule.expr_sql or '')} AS INT)"
    if reads_value(rule.expr_sql or ""):
        # ``value`` is the rule's first key's value: bound as a lambda variable, so it means exactly what a column of
        # that name meant (a lambda of the expression that names its own ``value`` still shadows it).
        first = sql_string(rule.constraint.keys[0])
        outcome = f"element_at(transform(array(try_element_at(cfg, {first})), value -> {outcome}), 1)"
    # an expression that raises on a row is NULL there: "could not evaluate" for that rule, the others go on
    return f"coalesce({caught_int(outcome)}, {OUTCOME_NULL})"


def expression_mask_columns(
    slots: ExpressionSlots, *, needed: Callable[[Sequence[CompiledConstraint]], str | None] = lambda rules: None
) -> list[Column]:
    """One BIGINT column per chunk: the outcomes (``OUTCOME_*``, two bits each, slot ``i`` at bits ``2i``) of its
    expressions for a context row of its resource type, NULL for a row of another type.

    ``needed(rules of a slot)`` may give a SQL condition outside which none of them is judged: the slot is then
    evaluated only where it holds (``OUTCOME_HOLDS`` elsewhere); None evaluates it everywhere. Reads
    ``resource_type`` and the context columns ``cfg``, ``topic``, ``cluster`` and whatever ``needed`` reads (no
    ``value``: each expression reading it is bound to its first key). Build and select these inside
    :func:`ansi_disabled`.
    """
    # Written as SQL text and parsed once per chunk: composing Column objects costs a py4j round trip per node,
    # thousands for a catalog (seconds of driver time per audit).
    columns = []
    for rtype, members in slots.chunks:
        terms = []
        for position, slot_rules in enumerate(members):
            term = f"shiftleft(CAST({_outcome_sql(slot_rules[0])} AS BIGINT), {2 * position})"
            condition = needed(slot_rules)
            terms.append(term if condition is None else f"CASE WHEN {condition} THEN {term} ELSE 0 END")
        columns.append(F.expr(f"CASE WHEN resource_type = {sql_string(rtype)} THEN {' + '.join(terms)} END"))
    return columns
