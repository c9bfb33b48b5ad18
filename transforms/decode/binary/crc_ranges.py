"""CRC-32C of any byte range of one buffer at a cost bounded by a constant, whatever the range's length.

Resynchronisation must verify a candidate batch at every plausible position, and a crafted candidate can claim a
length reaching the end of the file: verifying each by hashing its range is quadratic in the file size. CRCs
compose instead. For the library's (conditioned) CRC-32C, with ``n = len(B)``::

    crc(A + B) = shift(crc(A), n) ^ crc(B)        shift(v, n) = v * x^(8n) mod P    (GF(2), P = CRC-32C's poly)

so with ``C(x) = crc(data[:x])``, ``crc(data[a:b]) = C(b) ^ shift(C(a), b - a)``. ``C`` is kept at checkpoints
every ``CHECKPOINT_SPACING`` bytes (one pass over the buffer, built the first time a long range is asked for),
and ``C(x)`` is the checkpoint below ``x`` extended by at most ``CHECKPOINT_SPACING`` bytes. ``shift`` multiplies by
``x^(8 * d * 16^j)`` for each non-zero hex digit ``d`` of ``n`` (at place ``j``), each a linear map on 32 bits
applied as four byte-table look-ups (128 tables of 1,024 entries, built once per process in milliseconds).

Cost of ``crc(a, b)``: at most ``DIRECT_MAX`` bytes hashed (a short range directly; a long one as two checkpoint
extensions of at most ``CHECKPOINT_SPACING`` bytes each) plus at most 8 table steps; the checkpoints cost one pass
over the buffer, once. ``bytes_hashed`` counts every byte fed to the hardware CRC, so tests can check the bound.
"""

from __future__ import annotations

from array import array
from typing import Final

import crc32c

CHECKPOINT_SPACING: Final = 4096
# A range this short is hashed directly; a longer one costs two checkpoint extensions (at most the same bytes).
DIRECT_MAX: Final = 2 * CHECKPOINT_SPACING
_POLY: Final = 0x82F63B78  # CRC-32C (Castagnoli), reflected: bit 31 holds x^0, bit 0 holds x^31
_X8: Final = 1 << 23  # x^8, reflected
_NIBBLES: Final = 8  # range lengths below 2^32, taken 4 bits at a time
_crc32c = crc32c.crc32c
# _tables[16 * j + d]: the byte tables of "multiply by x^(8 * d * 16^j) mod P" (d = 0 unused), built on first use.
_tables: list[list[int]] = []


def _times_x(value: int) -> int:
    """``value * x mod P`` (reflected: a right shift, folding x^32 back as P)."""
    return (value >> 1) ^ (_POLY if value & 1 else 0)


def _multiply(a: int, b: int) -> int:
    """``a * b mod P`` for reflected 32-bit polynomials (shift-and-add; only used to build the tables)."""
    product = 0
    for degree in range(32):
        if a & (1 << (31 - degree)):  # the coefficient of x^degree in a
            product ^= b
        b = _times_x(b)
    return product


def _byte_tables(factor: int) -> list[int]:
    """Tables of the linear map ``v -> v * factor mod P`` by byte lane: entry ``256 * lane + byte``, XORed over the
    four lanes of ``v``. Bit ``i`` of ``v`` stands for x^(31 - i), so its product is ``factor`` times x^(31 - i)."""
    by_degree = [factor]
    for _ in range(31):
        by_degree.append(_times_x(by_degree[-1]))
    table = [0] * 1024
    for lane in range(4):
        base = 256 * lane
        for bit in range(8):
            single = by_degree[31 - (8 * lane + bit)]
            step = 1 << bit
            for low in range(step):  # the entries whose highest set bit is this one
                table[base + step + low] = single ^ table[base + low]
    return table


def _shift_tables() -> list[list[int]]:
    if not _tables:
        unit = _X8  # x^(8 * 16^j)
        for _ in range(_NIBBLES):
            power = 1 << 31  # x^0
            for _digit in range(16):
                _tables.append(_byte_tables(power))
                power = _multiply(power, unit)
            unit = power  # x^(8 * 16^(j+1)) = (x^(8 * 16^j))^16
    return _tables


def shift(value: int, length: int) -> int:
    """``value * x^(8 * length) mod P``: the CRC register ``value`` carried over ``length`` zero bytes (as zlib's
    ``crc32_combine`` does), in at most 8 table steps (one per non-zero hex digit of ``length``).

    Args:
        value: A CRC-32C value.
        length: A byte count, 0 <= length < 2^32.

    Returns:
        The shifted value.
    """
    tables = _tables or _shift_tables()
    j = 0
    while length:
        digit = length & 15
        if digit:
            t = tables[j + digit]
            low = t[value & 255] ^ t[256 + ((value >> 8) & 255)]
            value = low ^ t[512 + ((value >> 16) & 255)] ^ t[768 + (value >> 24)]
        length >>= 4
        j += 16
    return value


class RangeCrc:
    """CRC-32C of ranges of one buffer, each at a bounded cost (see the module docstring)."""

    __slots__ = ("_checkpoints", "_data", "_view", "bytes_hashed", "ranges")

    def __init__(self, data: bytes) -> None:
        """An index over ``data``; the checkpoints are built on the first long range."""
        self._data = data
        self._view = memoryview(data)
        self._checkpoints: array[int] | None = None
        self.bytes_hashed = 0  # every byte fed to the hardware CRC: the work, for tests
        self.ranges = 0  # ranges asked for

    def _build(self) -> array[int]:
        view = self._view
        points = array("I", [0])
        running = 0
        for start in range(0, len(view) - CHECKPOINT_SPACING + 1, CHECKPOINT_SPACING):
            running = _crc32c(view[start : start + CHECKPOINT_SPACING], running)
            points.append(running)
        self.bytes_hashed += (len(points) - 1) * CHECKPOINT_SPACING
        self._checkpoints = points
        return points

    def _prefix(self, end: int) -> int:
        """``crc(data[:end])`` from the checkpoint below ``end``: at most ``CHECKPOINT_SPACING`` bytes hashed."""
        points = self._checkpoints if self._checkpoints is not None else self._build()
        index = end // CHECKPOINT_SPACING
        start = index * CHECKPOINT_SPACING
        self.bytes_hashed += end - start
        return int(_crc32c(self._view[start:end], points[index]))

    def crc(self, start: int, end: int) -> int:
        """``crc32c(data[start:end])``, hashing at most ``DIRECT_MAX`` bytes.

        Args:
            start: First byte of the range, 0 <= start <= end.
            end: End of the range (exclusive), at most the buffer's length.

        Returns:
            The CRC-32C of the range.
        """
        self.ranges += 1
        length = end - start
        if length <= DIRECT_MAX:
            self.bytes_hashed += length
            return int(_crc32c(self._view[start:end]))
        return self._prefix(end) ^ shift(self._prefix(start), length)
