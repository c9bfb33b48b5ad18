"""The values constant expressions evaluate to, and how Java renders them as strings.

Plain Python values stand for Java ones: ``str``, ``int``, ``float``, ``bool``, ``None`` (null), ``list`` (any
Java/Scala collection), ``dict`` (maps) and ``tuple`` pairs (map entries). The classes here stand for what has no
Python equivalent; :class:`Unresolved` marks an expression the evaluator could not compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "JDK_CONSTS",
    "NO_DEFAULT",
    "ClassRef",
    "DurationValue",
    "EnumRef",
    "EvalError",
    "MethodRef",
    "NoDefault",
    "ObjRef",
    "SynonymRef",
    "TimeUnitValue",
    "Unresolved",
    "java_double",
    "jstr",
    "parse_number",
]


class EvalError(Exception):
    """An expression is outside the constant subset the evaluator understands."""


class NoDefault:
    """``ConfigDef.NO_DEFAULT_VALUE``: the key is required."""

    def __repr__(self) -> str:
        return "NO_DEFAULT_VALUE"


NO_DEFAULT: Final = NoDefault()


@dataclass(frozen=True)
class Unresolved:
    """An expression that could not be evaluated; ``text`` is what it was (for the ``unresolved:`` list)."""

    text: str


@dataclass(frozen=True)
class ClassRef:
    """``X.class`` / ``classOf[X]``: its binary name, and where it is defined when the class was found."""

    fqcn: str
    path: str | None = None  # defining file, when the class was found
    name: str | None = None


@dataclass(frozen=True)
class EnumRef:
    """An enum constant ``cls.name`` defined in ``file``."""

    file: str
    cls: str
    name: str


@dataclass(frozen=True)
class ObjRef:
    """An instance created with ``new X()`` (no arguments); getters returning constants can be evaluated."""

    file: str
    cls: str


@dataclass(frozen=True)
class SynonymRef:
    """``new ConfigSynonym(name[, converter])``: a broker key standing in for a topic key."""

    name: str
    converter: str | None


@dataclass(frozen=True)
class TimeUnitValue:
    """``TimeUnit.X`` (only its conversions ``toMillis`` ... are evaluated)."""

    unit: str


@dataclass(frozen=True)
class DurationValue:
    """``Duration.ofX(n)``, in milliseconds."""

    millis: Any


@dataclass(frozen=True)
class MethodRef:
    """``Type::method``, as an argument of ``map``."""

    text: str


# JDK / Scala library constants that Kafka's defaults use.
JDK_CONSTS: Final[dict[str, Any]] = {
    "Long.MAX_VALUE": 9223372036854775807,
    "Long.MIN_VALUE": -9223372036854775808,
    "Integer.MAX_VALUE": 2147483647,
    "Integer.MIN_VALUE": -2147483648,
    "Short.MAX_VALUE": 32767,
    "Int.MaxValue": 2147483647,
    "Int.MinValue": -2147483648,
    "Long.MaxValue": 9223372036854775807,
    "Short.MaxValue": 32767,
    "Double.MAX_VALUE": 1.7976931348623157e308,
    "Deflater.BEST_SPEED": 1,
    "Deflater.BEST_COMPRESSION": 9,
    "Deflater.DEFAULT_COMPRESSION": -1,
    "ConfigDef.NO_DEFAULT_VALUE": NO_DEFAULT,
    "NO_DEFAULT_VALUE": NO_DEFAULT,
    "StandardCharsets.UTF_8": "UTF-8",
    "Double.MaxValue": 1.7976931348623157e308,
    "Locale.ROOT": "",
}


def parse_number(text: str) -> int | float:
    """A Java/Scala numeric literal (``1_000L``, ``0x7f``, ``0.5d``, ``1e3``) as a Python number."""
    t = text.replace("_", "")
    if t[-1] in "lL":
        t = t[:-1]
    if t.lower().startswith("0x"):
        return int(t, 16)
    if t[-1] in "fFdD" or "." in t or "e" in t.lower():
        return float(t.rstrip("fFdD"))
    return int(t)


def jstr(v: Any) -> str:
    """Java's ``String.valueOf`` for the values the evaluator produces."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return java_double(v)
    if isinstance(v, list):
        return "[" + ", ".join(jstr(x) for x in v) + "]"
    return str(v)


def java_double(v: float) -> str:
    """Java's ``Double.toString``: ``1.0``, ``0.5``, ``1.0E7``, ``1.7976931348623157E308``."""
    if v == int(v) and abs(v) < 1e7:
        return f"{int(v)}.0"
    if 1e-3 <= abs(v) < 1e7:
        return repr(v)
    m, e = f"{v:.17e}".split("e")
    r = repr(v)
    mant = r.split("e")[0] if "e" in r else str(float(m))
    if "." not in mant:
        mant += ".0"
    return f"{mant}E{int(e)}"
