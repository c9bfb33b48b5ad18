"""A row-at-a-time Python port of the single-key checks: what a user would write instead of the product's
column expressions (a verdict per (row, rule) pair from a Python UDF, like Kafka's ``ConfigDef`` validators).

``verdict`` gives what ``transforms.configdef.checks.check_violation`` gives (the violation code and detail, or
None), from the rule's parameters as the rule table holds them; ``failure`` adds the value's list elements the
remediation reads. Semantics follow ``checks`` (Kafka's parsing: Java ``String.trim``, ``Integer.parseInt`` & co.
for INT/SHORT/LONG, ``Double.parseDouble``'s grammar for the rest, LIST split on ``\\s*,\\s*``), so the peer
does the same work and writes the same violations as the product.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

from schemas.constraints import CompiledCatalog, CompiledConstraint
from transforms.configdef.checks import LIST_KINDS, NUMERIC_TYPES
from transforms.configdef.rule_table import check_rule_rows

_JAVA_INT: Final = re.compile(r"[+-]?[0-9]+")
_JAVA_DOUBLE: Final = re.compile(
    r"[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
    r"|0[xX]([0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)"
)
_JAVA_CLASS: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*")
_LIST_SEPARATOR: Final = re.compile(r"\s*,\s*")
_LEADING_FLAGS: Final = re.compile(r"^\^\(\?:\(\?([imsx]+)\)")
_INT_RANGES: Final = {"INT": 31, "SHORT": 15, "LONG": 63}


def java_trim(value: str) -> str:
    """``String.trim()``: code points <= U+0020 at both ends."""
    return value.strip("".join(chr(c) for c in range(0x21)))


def parse_number(trimmed: str, type_name: str) -> float | None:
    """The value as a float when it parses as ``type_name`` the way Java would, else None."""
    bits = _INT_RANGES.get(type_name)
    if bits is not None:
        if not _JAVA_INT.fullmatch(trimmed):
            return None
        number = int(trimmed)
        return float(number) if -(2**bits) <= number < 2**bits else None
    if not _JAVA_DOUBLE.fullmatch(trimmed):
        return None
    text = trimmed.rstrip("fFdD") if not trimmed.endswith(("NaN", "Infinity")) else trimmed
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "NaN":
        return math.nan
    if body == "Infinity":
        return sign * math.inf
    if body[:2] in ("0x", "0X"):
        return sign * float.fromhex(body)
    return sign * float(body)


def kafka_list(value: str) -> list[str]:
    """ConfigDef LIST parsing: trim, blank → [], else split keeping trailing empty elements."""
    trimmed = java_trim(value)
    return [] if trimmed == "" else _LIST_SEPARATOR.split(trimmed)


Verdict = tuple[str, str | None] | None  # (violation code, detail) when the value fails, None when it passes


class Pair(NamedTuple):
    """One (row, rule) pair as the verdict reads it: the rule's parameters as the rule table holds them
    (``rule_table.check_rule_rows``: kind, lower / upper bound, values, their plain numbers, the anchored pattern, the
    upper-case type), then the row's value, ConfigDef type and sensitivity."""

    kind: str
    num_a: float | None
    num_b: float | None
    values: Sequence[str]
    values_num: Sequence[float]
    pattern: str | None
    rule_type: str | None
    value: str | None
    config_type: str | None
    is_sensitive: bool


def verdict(pair: Pair) -> Verdict:
    """The pair's verdict, what ``checks.check_violation`` gives for it."""
    kind, num_a, num_b, values, values_num, pattern, rule_type, value, config_type, is_sensitive = pair
    if kind == "not_null":
        return ("NULL_VALUE", None) if value is None else None
    if is_sensitive:
        return None
    ctype = (config_type or "").upper()
    typed = rule_type if kind == "type" else config_type  # with_parsed_value's v_num_type
    num_type = typed.upper() if typed is not None else None
    is_list = ctype == "LIST"
    if kind in ("min", "max", "between"):
        if value is None:
            return ("NULL_VALUE", None)
        number = parse_number(java_trim(value), num_type or "")
        if number is None:
            return ("NOT_A_NUMBER", num_type)
        if math.isnan(number):
            return None
        lower = num_a if kind in ("min", "between") else None
        upper = num_b if kind in ("max", "between") else None
        if lower is not None and number < lower:
            return ("BELOW_MIN", None)
        if upper is not None and number > upper:
            return ("ABOVE_MAX", None)
        return None
    if kind in ("in", "not_in"):
        if value is None:
            return ("NULL_VALUE", None) if kind == "in" else None
        if is_list:
            elements = _distinct(kafka_list(value))
            hits = [e for e in elements if (e in values) != (kind == "in")]
            return (("NOT_ALLOWED" if kind == "in" else "FORBIDDEN"), ", ".join(hits)) if hits else None
        trimmed = java_trim(value)
        text = trimmed.lower() if ctype == "BOOLEAN" else trimmed
        hit = text in values
        if not hit and ctype in NUMERIC_TYPES and values_num:
            number = parse_number(trimmed, num_type or "")
            hit = number is not None and number in values_num
        if kind == "in":
            return None if hit else ("NOT_ALLOWED", trimmed)
        return ("FORBIDDEN", trimmed) if hit else None
    if kind == "regex":
        if value is None:
            return ("NULL_VALUE", None)
        compiled = _pattern(pattern or "")
        if is_list:
            return None if all(compiled.search(e) for e in kafka_list(value)) else ("NO_MATCH", None)
        return None if compiled.search(java_trim(value)) else ("NO_MATCH", None)
    if value is None:
        return None
    if kind == "type":
        trimmed = java_trim(value)
        bad = (
            (num_type in NUMERIC_TYPES and parse_number(trimmed, num_type or "") is None)
            or (num_type == "BOOLEAN" and trimmed.lower() not in ("true", "false"))
            or (num_type == "CLASS" and _JAVA_CLASS.fullmatch(trimmed) is None)
        )
        return ("WRONG_TYPE", num_type) if bad else None
    elements = kafka_list(value)
    if kind == "non_empty_list":
        return None if elements else ("EMPTY_LIST", None)
    if kind == "no_duplicates":
        return ("DUPLICATES", None) if len(set(elements)) < len(elements) else None
    if kind == "no_empty_elements":
        return ("EMPTY_ELEMENT", None) if "" in elements else None
    return None


Failure = tuple[str, str | None, list[str] | None] | None  # verdict + the list elements the remediation reads


def failure(pair: Pair) -> Failure:
    """``verdict`` with the value's list elements when the pair fails (``with_parsed_value``'s ``v_elems``: only
    for the list kinds, and for ``in`` / ``not_in`` / ``regex`` on a LIST key), as the remediation reads them."""
    found = verdict(pair)
    if found is None:
        return None
    is_list = (pair.config_type or "").upper() == "LIST"
    needs_elements = pair.kind in LIST_KINDS or (pair.kind in ("in", "not_in", "regex") and is_list)
    return (*found, kafka_list(pair.value) if needs_elements and pair.value is not None else None)


def _distinct(items: list[str]) -> list[str]:
    """The items without repeats, in their first order (Spark's ``array_except`` / ``array_intersect``)."""
    return list(dict.fromkeys(items))


@functools.cache
def _pattern(anchored: str) -> re.Pattern[str]:
    """The rule table's anchored Java pattern in Python: Java scopes a rule's leading inline flag (``(?i)``) to the
    group it sits in, Python only takes it at the start, so it becomes the group's own flag (``^(?i:...)$``)."""
    return re.compile(_LEADING_FLAGS.sub(r"^(?\1:", anchored))


def make_validator(rule: CompiledConstraint) -> Callable[[str | None, str | None, bool], Verdict]:
    """``verdict`` bound to one single-key rule's parameters as the rule table holds them:
    ``(value, config_type, is_sensitive) -> verdict``."""
    catalog = CompiledCatalog(sources=(), rules=(rule,), max_level=0, fingerprint="")
    (row,) = check_rule_rows(catalog)
    params = row[3:10]  # CHECK_RULES_DDL's rule_kind .. rule_type: Pair's first seven fields

    def validate(value: str | None, config_type: str | None, is_sensitive: bool) -> Verdict:
        return verdict(Pair._make((*params, value, config_type, is_sensitive)))

    return validate
