"""Record payloads read in Python exactly as Spark reads them, for the replay pass (``transforms.replay.machine``).

Replay runs as one ordered pass per cluster in Python, but its results must not depend on where a payload is read:
each typed field is what Spark's ``from_json(payload, PAYLOAD_DDL[type], {"mode": "PERMISSIVE"})`` gives, and the
normal form that decides whether two replica copies are identical is Spark's ``to_json(try_parse_json(payload))``.
``tests/transforms/replay/test_json_reading.py`` holds both against Spark itself on edge cases.

``from_json`` (Spark 4.x ``JacksonParser``, PERMISSIVE, partial results on):

* a payload that is not a JSON object (after leading whitespace; text after the first value is ignored) reads as
  every field NULL;
* a field of the wrong JSON type reads as NULL and the others are kept; a repeated key keeps the last value that
  converts (a later value that does not convert leaves the earlier one);
* ``int`` / ``long``: an integer token in range; ``double``: any number, or the strings ``NaN``, ``Infinity``,
  ``+Infinity``, ``+INF``, ``-Infinity``, ``-INF``; ``boolean``: ``true`` / ``false``;
* ``string``: a string token as it is; any other token as JSON text the way Jackson copies it (a number token as
  Java prints the parsed number: ``1.50`` → ``1.5``, ``1e2`` → ``100.0``; keys in their order);
* ``array<T>``: an array whose every element converts (else the whole array is NULL); ``struct<...>``: an object,
  field by field as above.

``to_json(try_parse_json(...))`` (Spark's variant): keys sorted, a repeated key anywhere makes the text not JSON;
an integer in the long range as it is; a number without an exponent as a decimal when it fits 38 digits (trailing
zeros dropped, ``-0.0`` → ``0``); other numbers as Java's double (``1e2`` → ``100.0``, an infinite one as the string
``"Infinity"``); ``NaN`` is not JSON.
"""

from __future__ import annotations

import functools
import json
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Final

__all__ = ["NO_VALUE", "Fields", "Spec", "has_raw", "java_double", "normal_form", "parse", "read_fields", "type_spec"]


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its (key, value) pairs in text order (repeated keys kept)."""

    __slots__ = ()


class _Float(str):
    """A JSON number token with a fraction or an exponent, as written."""

    __slots__ = ()


_DECODER: Final = json.JSONDecoder(object_pairs_hook=_Pairs, parse_float=_Float)
_WHITESPACE: Final = " \t\n\r"
_NO_VALUE: Final = object()


def parse(text: str) -> Any:
    """The first JSON value of ``text`` (objects as key/value pairs), or ``_NO_VALUE`` when there is none."""
    try:
        return _DECODER.raw_decode(text.lstrip(_WHITESPACE))[0]
    except (ValueError, RecursionError):
        return _NO_VALUE


# --- Java's text of a double (Double.toString; Jackson's writeNumber(double) and Spark's cast to string) ---


def java_double(value: float) -> str:
    """``Double.toString``: ``100.0``, ``1.0E7``, ``1.0E-4``, ``NaN``, ``-Infinity``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(value))).as_tuple()[1:]
    digits = "".join(map(str, digits_tuple)).rstrip("0") or "0"
    exponent = int(exponent) + len("".join(map(str, digits_tuple))) - len(digits)  # value = digits × 10^exponent
    magnitude = len(digits) + exponent - 1  # the power of ten of the first digit
    if -3 <= magnitude < 7:
        if exponent >= 0:
            return f"{sign}{digits}{'0' * exponent}.0"
        point = len(digits) + exponent
        if point > 0:
            return f"{sign}{digits[:point]}.{digits[point:]}"
        return f"{sign}0.{'0' * -point}{digits}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{magnitude}"


# --- JSON text as Jackson writes it (escapes: \" \\ \b \f \n \r \t, other controls as \\u00XX) ---

_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE: Final = re.compile(r'["\\\x00-\x1f]')


def _quoted(text: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04X}"), text) + '"'


def _literal(value: Any) -> str | None:
    """``null``, ``true`` or ``false`` for those values; None for any other."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return None


def _jackson_number(token: _Float) -> str:
    value = float(token)
    return f'"{java_double(value)}"' if math.isinf(value) or math.isnan(value) else java_double(value)


def _jackson_text(value: Any) -> str:
    """A parsed value as Jackson's ``copyCurrentStructure`` writes it (what ``from_json`` gives a string field)."""
    literal = _literal(value)
    if literal is not None:
        return literal
    if isinstance(value, _Float):
        return _jackson_number(value)
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):  # NaN / Infinity literals
        return f'"{java_double(value)}"'
    if isinstance(value, _Pairs):
        return "{" + ",".join(f"{_quoted(k)}:{_jackson_text(v)}" for k, v in value) + "}"
    return "[" + ",".join(_jackson_text(v) for v in value) + "]"


# --- from_json ---

_LONG: Final = (-(2**63), 2**63 - 1)
_INT: Final = (-(2**31), 2**31 - 1)
_SPECIAL_DOUBLES: Final = {
    "NaN": math.nan,
    "Infinity": math.inf,
    "+Infinity": math.inf,
    "+INF": math.inf,
    "-Infinity": -math.inf,
    "-INF": -math.inf,
}


class _Fail(Exception):
    """A token the field's type cannot take: the field reads as NULL (or keeps an earlier repeated key's value)."""


Spec = Any  # "int" | "long" | "double" | "boolean" | "string" | ("array", Spec) | ("struct", ((name, Spec), ...))
Fields = dict[str, Any]


def _convert(value: Any, spec: Spec) -> Any:
    if value is None:
        return None
    if spec == "string":
        return value if isinstance(value, str) and not isinstance(value, _Float) else _jackson_text(value)
    if spec in ("int", "long"):
        low, high = _INT if spec == "int" else _LONG
        if type(value) is int and low <= value <= high:
            return value
        raise _Fail
    if spec == "double":
        if isinstance(value, _Float) or (type(value) is int) or isinstance(value, float):
            try:
                return float(value)
            except OverflowError:  # an integer beyond the double range
                return math.inf if int(value) > 0 else -math.inf
        if isinstance(value, str) and value in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[value]
        raise _Fail
    if spec == "boolean":
        if value is True or value is False:
            return value
        raise _Fail
    kind, inner = spec
    if kind == "array":
        if isinstance(value, list) and not isinstance(value, _Pairs):
            return [_convert(element, inner) for element in value]
        raise _Fail
    if isinstance(value, _Pairs):
        return _object(value, inner)
    raise _Fail


def _object(pairs: _Pairs, fields: tuple[tuple[str, Spec], ...]) -> Fields:
    specs = _field_specs(fields)
    row: Fields = dict.fromkeys(specs)
    for key, value in pairs:
        spec = specs.get(key)
        if spec is None:
            continue
        kind = type(value)  # the common cases first: a JSON null, a string or an int where one is wanted
        as_it_is = (
            value is None
            or (kind is str and spec == "string")
            or (kind is int and spec == "int" and _INT[0] <= value <= _INT[1])
        )
        if as_it_is:
            row[key] = value
        else:
            try:
                row[key] = _convert(value, spec)
            except _Fail:  # a value that does not convert leaves the field as it was
                continue
    return row


@functools.cache
def _field_specs(fields: tuple[tuple[str, Spec], ...]) -> dict[str, Spec]:
    return dict(fields)


def read_fields(parsed: Any, fields: tuple[tuple[str, Spec], ...]) -> Fields:
    """The typed fields of a parsed payload (``parse``), as ``from_json`` with ``type_spec(ddl)`` reads them."""
    if isinstance(parsed, _Pairs):
        return _object(parsed, fields)
    return dict.fromkeys(name for name, _ in fields)


def type_spec(ddl: str) -> tuple[tuple[str, Spec], ...]:
    """The fields of a ``PAYLOAD_DDL`` struct DDL (``name type, ...``; types: int, long, double, boolean, string,
    ``array<T>``, ``struct<name: T, ...>``)."""
    fields, rest = _fields(ddl.strip(), end="")
    if rest:
        raise ValueError(f"unexpected DDL text: {rest!r}")
    return fields


def _fields(text: str, *, end: str) -> tuple[tuple[tuple[str, Spec], ...], str]:
    fields: list[tuple[str, Spec]] = []
    while text and not text.startswith(end or "\0"):
        match = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:?\s*", text)
        if match is None:
            raise ValueError(f"bad DDL near {text!r}")
        spec, text = _type(text[match.end() :])
        fields.append((match.group(1), spec))
        text = text.lstrip()
        if text.startswith(","):
            text = text[1:].lstrip()
    return tuple(fields), text


def _type(text: str) -> tuple[Spec, str]:
    text = text.lstrip()
    for simple in ("boolean", "double", "string", "long", "int"):
        if text.startswith(simple) and not text[len(simple) : len(simple) + 1].isalnum():
            return simple, text[len(simple) :]
    if text.startswith("array<"):
        inner, rest = _type(text[len("array<") :])
        return ("array", inner), _closing(rest)
    if text.startswith("struct<"):
        fields, rest = _fields(text[len("struct<") :], end=">")
        return ("struct", fields), _closing(rest)
    raise ValueError(f"unknown DDL type near {text!r}")


def _closing(text: str) -> str:
    text = text.lstrip()
    if not text.startswith(">"):
        raise ValueError(f"expected '>' near {text!r}")
    return text[1:]


# --- to_json(try_parse_json(...)) ---


class _NotJson(Exception):
    """A text ``try_parse_json`` gives NULL for."""


_DECIMAL_DIGITS: Final = 38


def _variant_number(token: _Float | int) -> str:
    text = str(token)
    if isinstance(token, int) and _LONG[0] <= token <= _LONG[1]:
        return text
    if "e" not in text and "E" not in text:
        try:
            number = Decimal(text)
        except InvalidOperation:
            number = None
        if number is not None:
            sign, digits, exponent = number.as_tuple()
            scale = -int(exponent)
            if scale <= _DECIMAL_DIGITS and len(digits) <= _DECIMAL_DIGITS:
                return "0" if number == 0 else _plain(sign, digits, int(exponent))
    value = float(token)
    return '"Infinity"' if value == math.inf else '"-Infinity"' if value == -math.inf else java_double(value)


def _plain(sign: int, digits: tuple[int, ...], exponent: int) -> str:
    """BigDecimal's ``stripTrailingZeros().toPlainString()`` of a non-zero decimal (no rounding)."""
    text = "".join(map(str, digits)).lstrip("0")
    stripped = text.rstrip("0")
    exponent += len(text) - len(stripped)
    point = len(stripped) + exponent
    if exponent >= 0:
        plain = stripped + "0" * exponent
    elif point > 0:
        plain = f"{stripped[:point]}.{stripped[point:]}"
    else:
        plain = f"0.{'0' * -point}{stripped}"
    return ("-" if sign else "") + plain


def _variant_text(value: Any) -> str:
    literal = _literal(value)
    if literal is not None:
        return literal
    if isinstance(value, _Float) or (type(value) is int):
        return _variant_number(value)
    if isinstance(value, float):  # NaN / Infinity literals: not JSON to the variant parser
        raise _NotJson
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, _Pairs):
        keys = [k for k, _ in value]
        if len(set(keys)) != len(keys):
            raise _NotJson
        return "{" + ",".join(f"{_quoted(k)}:{_variant_text(v)}" for k, v in sorted(value, key=lambda kv: kv[0])) + "}"
    return "[" + ",".join(_variant_text(v) for v in value) + "]"


def normal_form(text: str) -> str:
    """``coalesce(to_json(try_parse_json(text)), text)``: the text a copy is compared by."""
    value = parse(text)
    if value is _NO_VALUE:
        return text
    try:
        return _variant_text(value)
    except (_NotJson, RecursionError):
        return text


def has_raw(parsed: Any) -> bool:
    """Whether ``get_json_object(payload, '$._raw')`` is not NULL: the decoder kept the record raw."""
    if not isinstance(parsed, _Pairs):
        return False
    return any(key == "_raw" and value is not None for key, value in parsed)


NO_VALUE: Final = _NO_VALUE
