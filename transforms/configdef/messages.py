"""Human violation messages as a Column function.

``violation_message()`` is the sentence of one violation row, never NULL; ``format_number`` renders a rule bound
as users wrote it (``3145728.0`` → ``"3145728"``).

``violation_message`` reads ``config_name``, ``value`` (already redacted), ``code``, ``detail`` and the rule
texts of RULE_INFO (``rule_bound_a``, ``rule_bound_b``, ``rule_values_text``, ``rule_pattern_text``,
``rule_type_text``, ``expr_text``, ``description`` (appended for expressions), ``constraint_mv``,
``reference``), ``resource_type`` and ``node_id`` (named when a topic's or group's broker views differ), e.g.
``log.segment.bytes=1048576 is below the minimum 3145728 required from 4.4-IV1 (KIP-1294)``.
"""

from __future__ import annotations

import math

from pyspark.sql import Column
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import ResourceType

__all__ = ["format_number", "violation_message"]


def format_number(x: float) -> str:
    """A bound as text: integral values without ``.0``; others as Python's shortest repr."""
    if math.isfinite(x) and x == int(x) and abs(x) < 2**63:
        return str(int(x))
    return repr(x)


def _suffix() -> Column:
    since = F.when(F.col("constraint_mv").isNotNull(), F.concat(F.lit(" required from "), F.col("constraint_mv")))
    reference = F.when(F.col("reference").isNotNull(), F.concat(F.lit(" ("), F.col("reference"), F.lit(")")))
    return F.concat(F.coalesce(since, F.lit("")), F.coalesce(reference, F.lit("")))


def _expected() -> Column:
    """What the rule asks for, by its kind (a minimum, a maximum, a range; else "a value"): the sentences of the
    codes that cannot compare a value with a bound (not a number, null) name it."""
    kind = F.col("constraint_kind")
    return F.coalesce(
        F.when(kind == "min", F.concat(F.lit("a minimum of "), F.col("rule_bound_a"))),
        F.when(kind == "max", F.concat(F.lit("a maximum of "), F.col("rule_bound_b"))),
        F.when(
            kind == "between",
            F.concat(F.lit("a value in ["), F.col("rule_bound_a"), F.lit(", "), F.col("rule_bound_b"), F.lit("]")),
        ),
        F.lit("a value"),
    )


def _view() -> Column:
    """`` (on broker N's view)`` for a topic or group row judged in one broker's view, else NULL: a broker row's
    node_id is the broker itself, only topic / group rows have views of several brokers."""
    has_view = F.col("node_id").isNotNull() & (F.col("resource_type") != ResourceType.BROKER)
    return F.when(has_view, F.concat(F.lit(" (on broker "), F.col("node_id"), F.lit("'s view)")))


def violation_message() -> Column:
    """The sentence for one violation row: what is wrong, expected vs actual, and the MV that requires it."""
    key = F.col("config_name")
    shown = F.coalesce(F.col("value"), F.lit("null"))
    key_is_value = F.concat(key, F.lit("="), shown)
    quoted = F.concat(key, F.lit("='"), shown, F.lit("'"))
    code, detail = F.col("code"), F.coalesce(F.col("detail"), F.lit(""))
    # an expression over topic/cluster facts may name a key the entity does not have: no "=null" then
    key_and_value = F.when(F.col("value").isNull(), key).otherwise(key_is_value)
    expected = _expected()
    body = (
        F.when(code == "BELOW_MIN", F.concat(key_is_value, F.lit(" is below the minimum "), F.col("rule_bound_a")))
        .when(code == "ABOVE_MAX", F.concat(key_is_value, F.lit(" is above the maximum "), F.col("rule_bound_b")))
        .when(
            code == "NOT_A_NUMBER",
            F.concat(quoted, F.lit(" is not a number ("), detail, F.lit("), so it fails "), expected),
        )
        .when(code == "NULL_VALUE", F.concat(key, F.lit(" is null, but "), expected, F.lit(" is needed")))
        .when(
            code == "NOT_ALLOWED",
            F.concat(
                key_is_value,
                F.lit(": "),
                detail,
                F.lit(" not in the allowed values ["),
                F.col("rule_values_text"),
                F.lit("]"),
            ),
        )
        .when(
            code == "FORBIDDEN",
            F.concat(
                key_is_value, F.lit(": "), detail, F.lit(" is forbidden (["), F.col("rule_values_text"), F.lit("])")
            ),
        )
        .when(
            code == "NO_MATCH",
            F.concat(key_is_value, F.lit(" does not match the pattern "), F.col("rule_pattern_text")),
        )
        .when(code == "WRONG_TYPE", F.concat(quoted, F.lit(" is not a valid "), F.col("rule_type_text")))
        .when(code == "EMPTY_LIST", F.concat(key, F.lit(" is an empty list; at least one element is needed")))
        .when(code == "DUPLICATES", F.concat(key_is_value, F.lit(" lists an element more than once")))
        .when(code == "EMPTY_ELEMENT", F.concat(key_is_value, F.lit(" has an empty element")))
        .when(
            code == "EXPRESSION_FALSE",
            F.concat(key_and_value, F.lit(": `"), F.col("expr_text"), F.lit("` does not hold")),
        )
        .when(
            code == "COULD_NOT_EVALUATE",
            F.concat(
                F.lit("could not evaluate `"),
                F.col("expr_text"),
                F.lit("` for "),
                key_and_value,
                F.lit(" (a value is missing or does not parse)"),
            ),
        )
        .otherwise(F.concat(key_is_value, F.lit(" violates "), F.col("constraint_id")))
    )
    is_expression = code.isin("EXPRESSION_FALSE", "COULD_NOT_EVALUATE")
    description = F.when(is_expression & F.col("description").isNotNull(), F.concat(F.lit(" — "), F.col("description")))
    return F.concat(body, F.coalesce(_view(), F.lit("")), F.coalesce(description, F.lit("")), _suffix())
