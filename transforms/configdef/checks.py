"""Generic, parametrised single-key checks as Column functions (Kafka ConfigDef parsing semantics).

``with_parsed_value`` adds the parsed value to rows joined with their rule (``v_trim``, ``v_num_type``, ``v_num``,
``v_is_list``, ``v_elems``) and ``check_violation()`` is the verdict: ``struct<code, detail>``, NULL when the row
passes. ``java_trim``, ``kafka_list`` (``array<string>``, NULL for NULL) and ``parse_number`` (a double, NULL when
the value does not parse) are the parsing rules they share.

The rule parameters are *data*: ``check_violation`` is one ``CASE rule_kind`` over a dozen generic checks
reading ``rule_num_a`` / ``rule_num_b`` / ``rule_values`` / ``rule_values_num`` / ``rule_pattern`` /
``rule_type`` from the joined rule row, so the generated code is the same size for 10 or 10,000 constraints.

Input columns (after joining EFFECTIVE_CONFIGS rows to the rule table): ``value`` string, ``config_type``
string (ConfigDef type, NULL when unknown), ``is_sensitive`` boolean, and the rule columns above.

Kafka semantics (docs/kafka-semantics.md §6):

* strings are trimmed like Java's ``String.trim`` (code points <= U+0020);
* INT / SHORT / LONG parse like ``Integer.parseInt`` & co. (optional sign, ASCII digits, in range); DOUBLE and
  unknown types like ``Double.parseDouble`` (decimal, exponent, ``NaN``, ``Infinity``, hex, f/d suffix);
* ``min`` / ``max`` / ``between`` compare as double, inclusive; NULL fails (Kafka's Range rejects null);
  NaN passes (every comparison with NaN is false in Java; Spark orders NaN above all numbers, so it is
  tested explicitly);
* LIST values split on ``\\s*,\\s*`` after trim, keeping trailing empty elements; a blank value is [];
* ``in`` on a LIST key checks every element (so [] passes); ``in`` on a numeric key compares numbers;
  BOOLEAN values compare case-insensitively, everything else case-sensitively;
* sensitive (redacted) values are not checked, except ``not_null``.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

__all__ = ["check_violation", "java_trim", "kafka_list", "parse_number", "with_parsed_value"]

_JAVA_WS_EDGES: Final = r"^[\x00-\x20]+|[\x00-\x20]+$"
_LIST_SEPARATOR: Final = r"\s*,\s*"
_JAVA_INT: Final = r"^[+-]?[0-9]+$"
# Double.parseDouble's grammar (FloatingDecimal): Spark's cast also accepts "inf"/"nan" in any case, Java not.
_JAVA_DOUBLE: Final = (
    r"^[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
    r"|0[xX]([0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)$"
)
_JAVA_CLASS_NAME: Final = r"^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$"
NUMERIC_TYPES: Final = ("INT", "SHORT", "LONG", "DOUBLE")
LIST_KINDS: Final = ("non_empty_list", "no_duplicates", "no_empty_elements")


def java_trim(value: Column) -> Column:
    """``String.trim()``: drop code points <= U+0020 at both ends. NULL stays NULL."""
    return F.regexp_replace(value, _JAVA_WS_EDGES, "")


def kafka_list(value: Column) -> Column:
    """ConfigDef LIST parsing: trim, blank -> [], else split on ``\\s*,\\s*`` keeping trailing empties."""
    trimmed = java_trim(value)
    return (
        F.when(value.isNull(), F.lit(None))
        .when(trimmed == "", F.array().cast("array<string>"))
        .otherwise(F.split(trimmed, _LIST_SEPARATOR, -1))
    )


def parse_number(trimmed: Column, type_name: Column) -> Column:
    """The value as double when it parses as ``type_name`` (INT/SHORT/LONG/DOUBLE; others as DOUBLE), else NULL.

    Never raises: ``try_cast`` after a Java-grammar check, so out-of-range integers are NULL like a Java
    ``NumberFormatException``.
    """
    is_int = trimmed.rlike(_JAVA_INT)
    is_double = trimmed.rlike(_JAVA_DOUBLE)
    return (
        F.when(type_name == "INT", F.when(is_int, trimmed.try_cast("int")))
        .when(type_name == "SHORT", F.when(is_int, trimmed.try_cast("smallint")))
        .when(type_name == "LONG", F.when(is_int, trimmed.try_cast("bigint")))
        .otherwise(F.when(is_double, trimmed.try_cast("double")))
        .cast("double")
    )


def with_parsed_value(df: DataFrame) -> DataFrame:
    """Add ``v_trim``, ``v_num_type``, ``v_num`` (double), ``v_is_list`` and ``v_elems`` (array, only when a
    rule needs the elements; NULL otherwise) to rows joined with their rule. NULL values give NULL parts."""
    kind = F.col("rule_kind")
    v_is_list = F.upper(F.coalesce(F.col("config_type"), F.lit(""))) == "LIST"
    needs_elems = kind.isin(*LIST_KINDS) | (kind.isin("in", "not_in", "regex") & v_is_list)
    v_num_type = F.when(kind == "type", F.upper(F.col("rule_type"))).otherwise(F.upper(F.col("config_type")))
    v_trim = java_trim(F.col("value"))
    return df.select(
        "*",
        v_trim.alias("v_trim"),
        v_num_type.alias("v_num_type"),
        parse_number(v_trim, v_num_type).alias("v_num"),
        v_is_list.alias("v_is_list"),
        F.when(needs_elems, kafka_list(F.col("value"))).alias("v_elems"),
    )


def _fail(code: str, detail: Column | None = None) -> Column:
    return F.struct(
        F.lit(code).alias("code"), (detail if detail is not None else F.lit(None)).cast("string").alias("detail")
    )


def _range_check(lower: Column | None, upper: Column | None) -> Column:
    value_is_null = F.col("value").isNull()
    not_a_number = F.col("v_num").isNull()
    is_nan = F.isnan(F.col("v_num"))
    check = F.when(value_is_null, _fail("NULL_VALUE")).when(not_a_number, _fail("NOT_A_NUMBER", F.col("v_num_type")))
    check = check.when(is_nan, F.lit(None))
    if lower is not None:
        check = check.when(F.col("v_num") < lower, _fail("BELOW_MIN"))
    if upper is not None:
        check = check.when(F.col("v_num") > upper, _fail("ABOVE_MAX"))
    return check


def _scalar_text() -> Column:
    """The trimmed value as compared by `in` / `not_in`: BOOLEAN keys case-insensitively."""
    is_boolean = F.upper(F.coalesce(F.col("config_type"), F.lit(""))) == "BOOLEAN"
    return F.when(is_boolean, F.lower(F.col("v_trim"))).otherwise(F.col("v_trim"))


def _numeric_match() -> Column:
    """The value is a number equal to one of the rule's numeric values (numeric keys only)."""
    is_numeric_key = F.upper(F.coalesce(F.col("config_type"), F.lit(""))).isin(*NUMERIC_TYPES)
    has_number = F.col("v_num").isNotNull() & (F.size(F.col("rule_values_num")) > 0)
    return is_numeric_key & has_number & F.array_contains(F.col("rule_values_num"), F.col("v_num"))


def _in_check() -> Column:
    not_allowed = F.array_except(F.col("v_elems"), F.col("rule_values"))
    scalar_ok = F.array_contains(F.col("rule_values"), _scalar_text()) | _numeric_match()
    return (
        F.when(F.col("value").isNull(), _fail("NULL_VALUE"))
        .when(F.col("v_is_list") & (F.size(not_allowed) > 0), _fail("NOT_ALLOWED", F.array_join(not_allowed, ", ")))
        .when(~F.col("v_is_list") & ~scalar_ok, _fail("NOT_ALLOWED", F.col("v_trim")))
    )


def _not_in_check() -> Column:
    forbidden = F.array_intersect(F.col("v_elems"), F.col("rule_values"))
    scalar_hit = F.array_contains(F.col("rule_values"), _scalar_text()) | _numeric_match()
    return (
        F.when(F.col("value").isNull(), F.lit(None))
        .when(F.col("v_is_list") & (F.size(forbidden) > 0), _fail("FORBIDDEN", F.array_join(forbidden, ", ")))
        .when(~F.col("v_is_list") & scalar_hit, _fail("FORBIDDEN", F.col("v_trim")))
    )


def _regex_check() -> Column:
    pattern = F.col("rule_pattern")
    # Per element of a LIST key; the higher-order function only runs on rows of regex rules on LIST keys.
    all_elements_match = F.forall(F.col("v_elems"), lambda e: F.regexp_like(e, pattern))
    return (
        F.when(F.col("value").isNull(), _fail("NULL_VALUE"))
        .when(F.col("v_is_list") & ~all_elements_match, _fail("NO_MATCH"))
        .when(~F.col("v_is_list") & ~F.regexp_like(F.col("v_trim"), pattern), _fail("NO_MATCH"))
    )


def _type_check() -> Column:
    type_name = F.col("v_num_type")
    bad_number = type_name.isin(*NUMERIC_TYPES) & F.col("v_num").isNull()
    bad_boolean = (type_name == "BOOLEAN") & ~F.lower(F.col("v_trim")).isin("true", "false")
    bad_class = (type_name == "CLASS") & ~F.col("v_trim").rlike(_JAVA_CLASS_NAME)
    return F.when(F.col("value").isNull(), F.lit(None)).when(
        bad_number | bad_boolean | bad_class, _fail("WRONG_TYPE", type_name)
    )


def _list_check(kind: str) -> Column:
    elems = F.col("v_elems")
    # NULL passes every list kind (combine with not_null to forbid it), so KIP-1161's
    # (empty allowed, null allowed) pairs map to independent checks.
    check = F.when(F.col("value").isNull(), F.lit(None))
    if kind == "non_empty_list":
        return check.when(F.size(elems) == 0, _fail("EMPTY_LIST"))
    if kind == "no_duplicates":
        return check.when(F.size(F.array_distinct(elems)) < F.size(elems), _fail("DUPLICATES"))
    return check.when(F.array_contains(elems, ""), _fail("EMPTY_ELEMENT"))


def check_violation() -> Column:
    """``struct<code: string, detail: string>`` when the row's value fails its rule, NULL when it passes.

    Reads the columns added by :func:`with_parsed_value` plus ``rule_kind`` and the rule parameters. Sensitive
    rows pass every kind but ``not_null`` (their value is ``[redacted]``). An unknown ``rule_kind`` passes.
    """
    a, b = F.col("rule_num_a"), F.col("rule_num_b")
    kind = F.col("rule_kind")
    dispatch = (
        F.when(kind == "not_null", F.when(F.col("value").isNull(), _fail("NULL_VALUE")))
        .when(F.col("is_sensitive"), F.lit(None))
        .when(kind == "min", _range_check(a, None))
        .when(kind == "max", _range_check(None, b))
        .when(kind == "between", _range_check(a, b))
        .when(kind == "in", _in_check())
        .when(kind == "not_in", _not_in_check())
        .when(kind == "regex", _regex_check())
        .when(kind == "type", _type_check())
    )
    for list_kind in LIST_KINDS:
        dispatch = dispatch.when(kind == list_kind, _list_check(list_kind))
    return dispatch
