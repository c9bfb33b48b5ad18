"""Hostile DECODED_ROWS rows for the Arrow conversion, and an independent oracle of which rows fit the columns."""

from __future__ import annotations

import random
from typing import Any

from schemas.bronze import DECODED_ROWS

INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)
# Microseconds of 0001-01-01T00:00:00 and 9999-12-31T23:59:59.999999 UTC.
TIMESTAMP_US = (-62_135_596_800_000_000, 253_402_300_799_999_999)
_TEXT = ["", "ok", "caf\u00e9", "a\u2028b", "\ud800", "x\udfffy", "\x00", "…" * 50]
_INTS = [0, 1, -1, 2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**30]
_OTHER = [None, True, 1.5, float("nan"), b"raw", [1], {"a": 1}]


def _value(kind: str, rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.7:  # mostly values of the column's kind, some out of range
        if kind == "string":
            return rng.choice(_TEXT)
        if kind == "boolean":
            return rng.choice([True, False])
        if kind == "timestamp":
            return rng.choice([0, 1_732_150_000_000_000, TIMESTAMP_US[1], TIMESTAMP_US[1] + 1, 10**19, -(10**18)])
        return rng.choice(_INTS)
    return rng.choice(_OTHER + _TEXT[:2] + _INTS[:2])


def _kind(data_type: Any) -> str:
    return {"StringType": "string", "BooleanType": "boolean", "TimestampType": "timestamp", "IntegerType": "int32"}.get(
        type(data_type).__name__, "int64"
    )


KINDS = [(_kind(f.dataType), f.nullable) for f in DECODED_ROWS.fields]


def random_row(rng: random.Random) -> tuple[Any, ...]:
    """A row whose row kind is RECORD or QUARANTINE and whose other values are anything, often hostile."""
    values = [_value(kind, rng) if rng.random() < 0.9 else None for kind, _nullable in KINDS]
    values[0] = rng.choice(["RECORD", "QUARANTINE"])
    return tuple(values)


def fits(row: tuple[Any, ...]) -> bool:
    """Whether every value of ``row`` is storable in its DECODED_ROWS column (an oracle independent of the code)."""
    for value, (kind, nullable) in zip(row, KINDS, strict=True):
        if value is None:
            if not nullable:
                return False
            continue
        if kind == "string":
            ok = isinstance(value, str) and not any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
        elif kind == "boolean":
            ok = isinstance(value, bool)
        else:
            low, high = {"int32": INT32, "int64": INT64, "timestamp": TIMESTAMP_US}[kind]
            ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        if not ok:
            return False
    return True
