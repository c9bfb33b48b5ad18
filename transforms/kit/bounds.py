"""What a decoded value must satisfy to be stored in the bronze tables (``schemas.bronze.DECODED_ROWS``).

Offsets, positions and lengths are ``LongType`` (signed 64-bit), leader epochs, apiKeys and versions
``IntegerType`` (signed 32-bit), timestamps ``TimestampType`` (microseconds, years 1 to 9999: what Spark and
Python's ``datetime`` can represent), strings UTF-8 (a lone UTF-16 surrogate, which JSON's ``\\ud800`` escape can
produce, has no UTF-8 form). A decoder checks each value where it produces it, so one out-of-range value costs
one quarantined record, never the file or the run.
"""

from __future__ import annotations

from typing import Final

INT32_MIN: Final = -(1 << 31)
INT32_MAX: Final = (1 << 31) - 1
INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1
# 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in epoch milliseconds: Spark's TimestampType range.
TIMESTAMP_MS_MIN: Final = -62_135_596_800_000
TIMESTAMP_MS_MAX: Final = 253_402_300_799_999
VERSION_MAX: Final = 0x7FFF  # apiKeys and versions are int16 on the wire


def is_int(value: object) -> bool:
    """A JSON/Python integer that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def fits_int32(value: int) -> bool:
    """Storable in an ``IntegerType`` column."""
    return INT32_MIN <= value <= INT32_MAX


def fits_int64(value: int) -> bool:
    """Storable in a ``LongType`` column."""
    return INT64_MIN <= value <= INT64_MAX


def fits_timestamp_ms(value: int) -> bool:
    """An epoch-millisecond timestamp storable in a ``TimestampType`` column."""
    return TIMESTAMP_MS_MIN <= value <= TIMESTAMP_MS_MAX


def is_utf8_encodable(text: str) -> bool:
    """Whether ``text`` has a UTF-8 form (no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable_text(text: str) -> str:
    """``text`` with every lone surrogate written as a ``\\udXXX`` escape, so it always has a UTF-8 form."""
    return text if is_utf8_encodable(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")
