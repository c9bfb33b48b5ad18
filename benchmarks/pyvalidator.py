"""A row-at-a-time Python port of the single-key checks: what a user would write instead of the product's
column expressions (per-key validators called from a Python UDF, like Kafka's ``ConfigDef`` validators).

Semantics follow ``transforms.constraints.checks`` (Kafka's parsing: Java ``String.trim``, ``Integer.parseInt``
& co. for INT/SHORT/LONG, ``Double.parseDouble``'s grammar for the rest, LIST split on ``\\s*,\\s*``), so the
peer does the same work and its violation count can be compared with the product's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Final

from schemas.constraints import CompiledConstraint

Validator = Callable[[str | None, str | None, bool], bool]  # (value, config_type, is_sensitive) -> fails

_JAVA_INT: Final = re.compile(r"[+-]?[0-9]+")
_JAVA_DOUBLE: Final = re.compile(
    r"[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
    r"|0[xX]([0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)"
)
_JAVA_CLASS: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*")
_LIST_SEPARATOR: Final = re.compile(r"\s*,\s*")
_INT_RANGES: Final = {"INT": 31, "SHORT": 15, "LONG": 63}
NUMERIC_TYPES: Final = ("INT", "SHORT", "LONG", "DOUBLE")


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


def make_validator(rule: CompiledConstraint) -> Validator:
    """The per-key validator of one single-key rule: ``fails(value, config_type, is_sensitive)``."""
    check = rule.constraint.check
    assert check is not None
    kind = check.kind
    lo = check.min if check.min is not None else (check.between[0] if check.between else None)
    hi = check.max if check.max is not None else (check.between[1] if check.between else None)
    values = set(check.in_ if check.in_ is not None else check.not_in or ())
    numbers = set()
    for v in values:
        parsed = parse_number(v.strip(), "DOUBLE")
        if parsed is not None and not v.strip().startswith(("N", "I", "+N", "-N", "+I", "-I")):
            numbers.add(parsed)
    pattern = re.compile(check.regex) if check.regex is not None else None
    rule_type = check.type.upper() if check.type else None

    def num_type(config_type: str | None) -> str:
        return rule_type if kind == "type" and rule_type else (config_type or "").upper()

    def scalar_hit(trimmed: str, config_type: str | None) -> bool:
        ctype = (config_type or "").upper()
        text = trimmed.lower() if ctype == "BOOLEAN" else trimmed
        if text in values:
            return True
        if ctype in NUMERIC_TYPES and numbers:
            parsed = parse_number(trimmed, ctype)
            return parsed is not None and parsed in numbers
        return False

    def fails(value: str | None, config_type: str | None, is_sensitive: bool) -> bool:
        if kind == "not_null":
            return value is None
        if is_sensitive:
            return False
        is_list = (config_type or "").upper() == "LIST"
        if kind in ("min", "max", "between"):
            if value is None:
                return True
            number = parse_number(java_trim(value), num_type(config_type))
            if number is None:
                return True
            if math.isnan(number):
                return False
            return (lo is not None and number < lo) or (hi is not None and number > hi)
        if kind == "in":
            if value is None:
                return True
            if is_list:
                return any(e not in values for e in kafka_list(value))
            return not scalar_hit(java_trim(value), config_type)
        if kind == "not_in":
            if value is None:
                return False
            if is_list:
                return any(e in values for e in kafka_list(value))
            return scalar_hit(java_trim(value), config_type)
        if kind == "regex":
            assert pattern is not None
            if value is None:
                return True
            if is_list:
                return not all(pattern.fullmatch(e) for e in kafka_list(value))
            return pattern.fullmatch(java_trim(value)) is None
        if value is None:
            return False
        if kind == "type":
            type_name = num_type(config_type)
            trimmed = java_trim(value)
            if type_name in NUMERIC_TYPES:
                return parse_number(trimmed, type_name) is None
            if type_name == "BOOLEAN":
                return trimmed.lower() not in ("true", "false")
            if type_name == "CLASS":
                return _JAVA_CLASS.fullmatch(trimmed) is None
            return False
        elements = kafka_list(value)
        if kind == "non_empty_list":
            return not elements
        if kind == "no_duplicates":
            return len(set(elements)) < len(elements)
        if kind == "no_empty_elements":
            return "" in elements
        return False

    return fails


def validators_by_key(rules: Sequence[CompiledConstraint]) -> dict[tuple[str, str], list[tuple[int, Validator]]]:
    """``(resource_type, config_name) → [(rule_idx, validator), ...]`` for the single-key rules given."""
    table: dict[tuple[str, str], list[tuple[int, Validator]]] = {}
    for rule in rules:
        if rule.constraint.check is None:
            continue
        key = (rule.constraint.resource_type, rule.constraint.keys[0])
        table.setdefault(key, []).append((rule.rule_idx, make_validator(rule)))
    return table
