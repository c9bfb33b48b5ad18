"""Expression constraints: load-time validation and ANSI-safe evaluation columns.

``validate_with_spark`` rejects, when the catalog is loaded, expressions that do not parse, read unknown fields
or are not boolean, and regexes Java does not compile; ``expression_mask_columns`` evaluates a catalog's distinct
expressions (``expression_slots``) as generated mask columns, built under ``ansi_disabled``. ``rewrite_casts``,
``reads_entity_values``, ``paired_by_keys``, ``cfg_keys_read`` and ``code_segments`` read the expression text (pure
Python).

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

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType

from schemas.constraints import CompiledCatalog, CompiledConstraint
from schemas.errors import ConfigError
from schemas.evaluation import EXPR_CONTEXT_FIELDS
from schemas.kafka_vocabulary import ResourceType
from transforms.constraints.expr_limits import (
    GROWING,
    REGEX_ARGUMENTS,
    Argument,
    Lambda,
    NotLiteral,
    call_problem,
    regex_problem,
    replacement_factor,
    shown,
    size_problem,
)
from transforms.constraints.functions import DENIED_FUNCTIONS, function_problem
from transforms.constraints.sql_text import code_segments, sql_string, without_comments

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
    "parse_tree_problem",
    "reads_entity_values",
    "reads_value",
    "rewrite_casts",
    "validate_with_spark",
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


def _has_double_colon_cast(text: str) -> bool:
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


# Analysis errors that mean the expression is not evaluated row by row.
_NOT_ROW_LEVEL: Final = frozenset(
    {"MISSING_GROUP_BY", "UNSUPPORTED_GENERATOR.OUTSIDE_SELECT", "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE"}
)


def _context_ddl(resource_type: str) -> str:
    has_topic = resource_type in (ResourceType.TOPIC, ResourceType.CONTROLLER_TOPIC)
    fields = {k: v for k, v in EXPR_CONTEXT_FIELDS.items() if k != "topic" or has_topic}
    return ", ".join(f"{name} {ddl}" for name, ddl in fields.items())


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _where(rule: CompiledConstraint) -> str:
    return f"{rule.source}: constraint {rule.constraint.id}"


def _analysed(rules: Sequence[CompiledConstraint], empty_df: DataFrame) -> DataFrame:
    """Resolve the expressions as columns ``__e<i>`` of one projection (no job runs)."""
    columns = [F.expr(embedded(r.expr_sql or "")).alias(f"__e{i}") for i, r in enumerate(rules)]
    return empty_df.select("*", *columns)


# Nodes of Spark's parse tree (catalyst.analysis) an expression may contain; every other unresolved node (a star, a
# function named by IDENTIFIER(...), an alias, a regex column) is refused.
_UNRESOLVED_NODES: Final = frozenset(
    {"UnresolvedFunction", "UnresolvedAttribute", "UnresolvedExtractValue", "UnresolvedCollation"}
)
# Parsed nodes that read outside the row or take values from outside the catalog.
_FOREIGN_NODES: Final = frozenset(
    {"Exists", "ScalarSubquery", "ListQuery", "InSubquery", "LateralSubquery", "PosParameter", "NamedParameter"}
)
# Analysed classes that must never appear, whatever name reached them (a second line behind the name check).
_FORBIDDEN_CLASSES: Final = frozenset(
    {
        "CallMethodViaReflection",
        "TryReflect",
        "CurrentUser",
        "CurrentDatabase",
        "CurrentCatalog",
        "InputFileName",
        "InputFileBlockStart",
        "InputFileBlockLength",
    }
)
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _name_parts(node: dict[str, Any]) -> list[str]:
    # Spark's toJSON writes a Seq[String] as "[a, b]"; a part that is not a plain name is reported whole.
    text = str(node.get("nameParts", ""))
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    return [part.strip() for part in inner.split(",")]


def parse_tree_problem(spark: SparkSession, expr_sql: str) -> str | None:
    """Why an expression may not run, read from the tree Spark's own parser builds for it; None when it may.

    Every function call must name one function of :data:`functions.ALLOWED_FUNCTIONS` (no qualified or quoted-in
    names, no UDF, no ``IDENTIFIER(...)``); no subquery, parameter marker or star; and no bare name that Spark would
    resolve to a session function (``current_user``). Parsing runs no job and resolves nothing.
    """
    parser = spark._jsparkSession.sessionState().sqlParser()
    try:
        nodes = json.loads(parser.parseExpression(expr_sql).toJSON())
    except PySparkException:
        return None  # does not parse: analysis reports it with Spark's message
    for node in nodes:
        qualified = str(node.get("class", ""))
        name = qualified.rsplit(".", 1)[-1]
        if "plan" in node or name in _FOREIGN_NODES:
            return f"uses {name}: subqueries, table reads and parameters are not allowed in an expression"
        if qualified.startswith("org.apache.spark.sql.catalyst.analysis.") and name not in _UNRESOLVED_NODES:
            return f"uses {name} (e.g. IDENTIFIER(...) or *), which an expression may not"
        if name == "UnresolvedFunction":
            parts = _name_parts(node)
            if len(parts) != 1 or not _PLAIN_NAME.fullmatch(parts[0]):
                return f"calls {'.'.join(parts)}(): write a plain function name"
            if (problem := function_problem(parts[0])) is not None:
                return problem
        if name == "UnresolvedAttribute":
            first = _name_parts(node)[0]
            if first.lower() in DENIED_FUNCTIONS:
                return function_problem(first)
    return _argument_problem(spark, _tree(nodes, 0)[0])


@dataclass(frozen=True)
class _Node:
    """One node of Spark's parse tree (toJSON writes it flat, in pre-order, with each node's number of children)."""

    name: str
    fields: Mapping[str, Any]
    children: tuple[_Node, ...]


def _tree(nodes: Sequence[Mapping[str, Any]], start: int) -> tuple[_Node, int]:
    # as deep as the expression: expr_limits.size_problem keeps it far below Python's recursion limit
    node = nodes[start]
    children, at = [], start + 1
    for _ in range(int(node.get("num-children", 0))):
        child, at = _tree(nodes, at)
        children.append(child)
    return _Node(str(node.get("class", "")).rsplit(".", 1)[-1], node, tuple(children)), at


def _walk(node: _Node) -> Iterator[_Node]:
    yield node
    for child in node.children:
        yield from _walk(child)


def _function_name(node: _Node) -> str:
    return _name_parts(dict(node.fields))[0].lower() if node.name == "UnresolvedFunction" else ""


_INTEGRAL_TYPES: Final = frozenset({"integer", "bigint", "smallint", "tinyint"})


def _argument(node: _Node) -> Argument:
    """An argument as :func:`expr_limits.call_problem` reads it."""
    if node.name == "Literal":
        value, data_type = node.fields.get("value"), node.fields.get("dataType")
        if data_type == "string":
            return str(value)
        if data_type in _INTEGRAL_TYPES:
            return int(str(value))
        if data_type == "null":
            return None
    if node.name == "UnaryMinus" and isinstance(inner := _argument(node.children[0]), int):
        return -inner
    if node.name == "LambdaFunction":
        params = tuple(_name_parts(dict(p.fields))[0] for p in node.children[1:])
        reads: dict[str, int] = {}
        for inner_node in _walk(node.children[0]):
            if inner_node.name == "UnresolvedNamedLambdaVariable":
                variable = _name_parts(dict(inner_node.fields))[0]
                reads[variable] = reads.get(variable, 0) + 1
        return Lambda(params, reads)
    return NotLiteral(_growth(node))


def _growth(node: _Node) -> int:
    """How many times longer than its input the replacement calls of this subtree can make a text."""
    name = _function_name(node)
    if name in GROWING and node.children:
        literals = [_argument(c) if c.name in ("Literal", "UnaryMinus") else NotLiteral() for c in node.children]
        return replacement_factor(name, literals) * _growth(node.children[0])
    return max((_growth(child) for child in node.children), default=1)


def _java_regex_problem(spark: SparkSession, function: str, pattern: str, inserts: bool) -> str | None:
    """What java.util.regex (the regex engine Spark evaluates with) says against a literal pattern; ``inserts``:
    the pattern is replaced by a non-empty text, so an empty match would insert it between characters."""
    try:
        compiled = spark._jvm.java.util.regex.Pattern.compile(pattern)  # type: ignore[union-attr]
    except (PySparkException, Py4JJavaError) as exc:
        return f"calls {function}() with pattern {shown(pattern)}, which is not a Java regex: {_first_line(exc)}"
    if inserts:
        for probe in ("", "a", "ab 1,-"):
            matcher = compiled.matcher(probe)
            while matcher.find():
                if matcher.start() == matcher.end():
                    return (
                        f"calls {function}() with pattern {shown(pattern)}, which matches the empty string and so "
                        "inserts the replacement between characters"
                    )
    return None


def _argument_problem(spark: SparkSession, root: _Node) -> str | None:
    """The first call whose literal arguments may fail or exhaust the run (``expr_limits.call_problem``, regexes
    compiled by Java), or None."""
    for node in _walk(root):
        if node.name == "RLike":
            function = "rlike"
        elif node.name == "UnresolvedFunction":
            function = _function_name(node)
        else:
            continue
        args = [_argument(child) for child in node.children]
        if (problem := call_problem(function, args)) is not None:
            return problem
        for position in REGEX_ARGUMENTS.get(function, ()):
            pattern = args[position] if position < len(args) else None
            inserts = function == "regexp_replace" and len(args) > 2 and args[2] != ""
            if isinstance(pattern, str) and (problem := _java_regex_problem(spark, function, pattern, inserts)):
                return problem
    return None


def _forbidden_class(checked_df: DataFrame) -> str | None:
    found = set(re.findall(r'"class":"[\w.$]*?\.(\w+)"', str(checked_df._jdf.queryExecution().analyzed().toJSON())))
    hit = sorted(found & _FORBIDDEN_CLASSES)
    return hit[0] if hit else None


def _validate_expression(rule: CompiledConstraint, empty_df: DataFrame) -> None:
    """Validate one expression; raises ConfigError with the precise reason."""
    where = _where(rule)
    assert rule.expr_sql is not None
    if _has_double_colon_cast(rule.expr_sql):
        raise ConfigError(f"{where}: expr uses `::`; write cast(x AS type) (it is evaluated as try_cast)")
    if (problem := parse_tree_problem(empty_df.sparkSession, rule.expr_sql)) is not None:
        raise ConfigError(f"{where}: expr {problem}")
    try:
        checked_df = _analysed([rule], empty_df)
    except PySparkException as exc:
        condition = exc.getCondition() or ""
        if condition.startswith("PARSE_"):
            reason = "does not parse"
        elif condition in _NOT_ROW_LEVEL:
            reason = "must be a row-level condition (no aggregate, window, generator or subquery)"
        else:
            reason = "names an unknown field or is invalid"
        raise ConfigError(f"{where}: expr {reason}: {_first_line(exc)}") from None
    _check_result(rule, checked_df, "__e0")
    if (forbidden := _forbidden_class(checked_df)) is not None:
        raise ConfigError(f"{where}: expr resolves to {forbidden}, which an expression may not use")
    if not _is_row_level(checked_df):
        raise ConfigError(f"{where}: expr must be a row-level condition (no aggregate, window, generator or subquery)")


def _check_result(rule: CompiledConstraint, checked_df: DataFrame, column: str) -> None:
    result_type = checked_df.schema[column].dataType
    if not isinstance(result_type, BooleanType):
        raise ConfigError(f"{_where(rule)}: expr must be a boolean condition, it returns {result_type.simpleString()}")


def _is_row_level(checked_df: DataFrame) -> bool:
    # An aggregate, window or generator would change the grain of the evaluation; a subquery could read
    # tables. Resolving the plan runs no Spark job; the node name is read from the analysed JVM plan.
    plan = checked_df._jdf.queryExecution().analyzed()
    return bool(plan.nodeName() == "Project" and "subquery" not in plan.toString().lower())


def _validate_batch(rules: Sequence[CompiledConstraint], empty_df: DataFrame) -> None:
    """Analyse a chunk of expressions in one projection; on any problem, find the culprit one by one.

    Then analyse the chunk the way the evaluation uses it (:func:`expression_mask_columns`), so an expression
    that is valid alone but breaks the generated statement is refused here, not mid-audit.
    """
    spark = empty_df.sparkSession
    for rule in rules:  # before Spark's parser sees it: a deep expression overflows its stack
        if (problem := size_problem(rule.expr_sql or "")) is not None:
            raise ConfigError(f"{_where(rule)}: expr {problem}")
    suspect = any(_has_double_colon_cast(r.expr_sql or "") for r in rules) or any(
        parse_tree_problem(spark, r.expr_sql or "") is not None for r in rules
    )
    row_level = False
    if not suspect:
        try:
            checked_df = _analysed(rules, empty_df)
            row_level = _is_row_level(checked_df) and _forbidden_class(checked_df) is None
        except PySparkException:
            row_level = False
    if not row_level:
        for rule in rules:
            _validate_expression(rule, empty_df)
        return
    for i, rule in enumerate(rules):
        _check_result(rule, checked_df, f"__e{i}")
    _validate_as_evaluated(rules, empty_df)


def _validate_as_evaluated(rules: Sequence[CompiledConstraint], empty_df: DataFrame) -> None:
    """Analyse the generated column of these rules over the evaluation's columns (no job runs)."""
    rtype = str(rules[0].constraint.resource_type)
    context_df = empty_df.drop("value").select("*", F.lit(rtype).alias("resource_type"))
    try:
        context_df.select(*expression_mask_columns(expression_slots(rules, chunk_size=len(rules))))
    except PySparkException as exc:
        ids = ", ".join(r.constraint.id for r in rules)
        raise ConfigError(
            f"{rules[0].source}: constraints {ids}: the generated evaluation does not parse: {_first_line(exc)}"
        ) from None


def _validate_regex(rule: CompiledConstraint, spark: SparkSession) -> None:
    check = rule.constraint.check
    if check is None or check.regex is None:
        return
    try:
        # java.util.regex is what Spark evaluates; Python's `re` accepted it at load time already.
        spark._jvm.java.util.regex.Pattern.compile(check.regex)  # type: ignore[union-attr]
    except (PySparkException, Py4JJavaError) as exc:
        raise ConfigError(
            f"{rule.source}: constraint {rule.constraint.id}: regex is not a Java regex: {_first_line(exc)}"
        ) from None
    if (problem := regex_problem(check.regex)) is not None:
        raise ConfigError(f"{rule.source}: constraint {rule.constraint.id}: regex {problem}")


def validate_with_spark(rules: CompiledCatalog, spark: SparkSession) -> None:
    """Reject expressions that do not parse, name unknown fields or are not boolean; and non-Java regexes.

    Analyses every expression against an empty DataFrame with exactly the context columns (no Spark job runs).

    Raises:
        ConfigError: ``"<file>: constraint <id>: <reason>"`` for the first bad rule.
    """
    # Each distinct expression of a resource type (its context columns) and each distinct regex is analysed once,
    # by its first rule: a rule that repeats one judged already would get the same answer. A bad one is reported
    # by the first rule that has it, as when every rule was analysed. Catalogs repeat them: the default catalog's
    # rules for several releases, a copied rule per key (benchmark catalog of 5,000 rules: 581 expressions, 79
    # distinct; 157 regexes, 15 distinct).
    by_type: dict[str, dict[str, CompiledConstraint]] = {}
    for rule in rules.expressions:
        by_type.setdefault(rule.constraint.resource_type, {}).setdefault(rule.expr_sql or "", rule)
    with ansi_disabled(spark):
        for rtype, distinct in by_type.items():
            expr_rules = list(distinct.values())
            empty_df = spark.createDataFrame([], _context_ddl(rtype))
            for start in range(0, len(expr_rules), EXPR_CHUNK_SIZE):
                _validate_batch(expr_rules[start : start + EXPR_CHUNK_SIZE], empty_df)
    regexes: dict[str, CompiledConstraint] = {}
    for rule in rules.checks:
        check = rule.constraint.check
        if check is not None and check.regex is not None:
            regexes.setdefault(check.regex, rule)
    for rule in regexes.values():
        _validate_regex(rule, spark)


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
