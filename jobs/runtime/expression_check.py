"""What only a live Spark session can check of a constraint catalog before an audit uses it: each user expression
parsed and analysed by Spark against an empty frame of its context columns (no job runs) — it must parse, name known
fields, be a boolean row-level condition and reach no forbidden class — and each regex compiled by Java.

Reads Spark's parse tree and analysed plan through the JVM (``_jsparkSession``, ``_jdf``), which is why it lives with
the runtime and not with the pure plans of ``transforms.constraints``.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import logging
import os
import pkgutil
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType

from schemas.constraints import CompiledCatalog, CompiledConstraint
from schemas.errors import ConfigError
from schemas.evaluation import EXPR_CONTEXT_FIELDS
from schemas.kafka_vocabulary import ResourceType
from transforms.configdef.expr_limits import (
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
from transforms.configdef.expressions import (
    EXPR_CHUNK_SIZE,
    ansi_disabled,
    embedded,
    expression_mask_columns,
    expression_slots,
    has_double_colon_cast,
)
from transforms.configdef.functions import DENIED_FUNCTIONS, function_problem

log = logging.getLogger("kraft_audit")

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
    if has_double_colon_cast(rule.expr_sql):
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
    suspect = any(has_double_colon_cast(r.expr_sql or "") for r in rules) or any(
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

    Analyses every expression against an empty DataFrame with exactly the context columns (no Spark job runs). A
    catalog this machine validated before, with the same Spark, Java and checking code, is not analysed again
    (:func:`validation_cache`); a catalog that fails is analysed every time.

    Raises:
        ConfigError: ``"<file>: constraint <id>: <reason>"`` for the first bad rule.
    """
    marker = _validated_marker(rules, spark)
    if marker is not None and marker.is_file():
        return
    _validate_with_spark(rules, spark)
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError as error:  # a read-only home: validated again next time
            log.debug("validation cache not written: %s", error)


def validation_cache() -> Path | None:
    """Where successful validations are remembered: ``KRAFT_AUDIT_VALIDATION_CACHE`` (empty: nowhere), else
    ``$XDG_CACHE_HOME/kraft-audit/validated-catalogs`` (``~/.cache`` by default). One empty file per validated
    catalog, named by the digest of everything the analysis reads."""
    given = os.environ.get("KRAFT_AUDIT_VALIDATION_CACHE")
    if given is not None:
        return Path(given) if given else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kraft-audit" / "validated-catalogs"


def _validated_marker(rules: CompiledCatalog, spark: SparkSession) -> Path | None:
    """The cache file of this catalog's validation: a digest of the rules it reads (every expression and regex
    rule, as compiled), the Spark and Java versions, the session's case sensitivity (analysis resolves names with
    it) and the source of the code that checks (:func:`_checking_code_digest`)."""
    cache_dir = validation_cache()
    if cache_dir is None:
        return None
    try:
        code = _checking_code_digest()
    except (OSError, TypeError) as error:  # sources not shipped (bytecode only): validated every time
        log.debug("validation cache off: %s", error)
        return None
    digest = hashlib.sha256()
    jvm = spark._jvm
    for part in (
        spark.version,
        str(jvm.java.lang.System.getProperty("java.version")),  # type: ignore[union-attr]
        str(spark.conf.get("spark.sql.caseSensitive", "false")),
        code,
    ):
        digest.update(part.encode() + b"\0")
    checked = [r for r in rules.rules if r.constraint.expr is not None or r.constraint.check is not None]
    digest.update(json.dumps([r.model_dump(mode="json") for r in checked], sort_keys=True).encode())
    return cache_dir / digest.hexdigest()


@cache
def _checking_code_digest() -> str:
    """The digest of the source of what decides a validation: this module, the expression rules and limits of
    ``transforms.configdef`` and the schemas of the evaluation's context (read through their loaders, so a
    ``--py-files`` zip works as a checkout does)."""
    import transforms.configdef as configdef

    names = [
        __name__,
        *sorted(f"{configdef.__name__}.{m.name}" for m in pkgutil.iter_modules(configdef.__path__)),
        "schemas.evaluation",
        "schemas.kafka_vocabulary",
        "schemas.constraints",
    ]
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + inspect.getsource(importlib.import_module(name)).encode())
    return digest.hexdigest()


def _validate_with_spark(rules: CompiledCatalog, spark: SparkSession) -> None:
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
