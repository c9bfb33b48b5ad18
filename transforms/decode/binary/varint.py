"""Kafka's variable-length integers.

Two encodings share the 7-bits-per-byte LEB128 layout (high bit = more bytes follow):

* *unsigned varint* (plain LEB128): compact lengths, tag numbers, the metadata value frame;
* *varint / varlong* (zigzag, signed): the fields of a record inside a v2 batch (length, timestamp delta,
  offset delta, key/value lengths, header count).

Readers take ``(buf, pos)`` and return ``(value, new_pos)``; they raise ``IndexError`` when the buffer ends in
the middle of a number and ``ValueError`` when a number is longer than Kafka allows. Callers inline the common
one-byte case and only call these for longer numbers.
"""

from __future__ import annotations

# Kafka rejects varints longer than 5 bytes (int32) and varlongs longer than 10 bytes (int64).
_MAX_VARINT_BYTES = 5
_MAX_VARLONG_BYTES = 10


def read_uvarint(buf: bytes, pos: int, max_bytes: int = _MAX_VARINT_BYTES) -> tuple[int, int]:
    """Read an unsigned LEB128 varint.

    Args:
        buf: The buffer.
        pos: Position of the first byte.
        max_bytes: Longest accepted encoding (5 for int32, 10 for int64).

    Returns:
        The value and the position after it.

    Raises:
        IndexError: The buffer ends inside the number.
        ValueError: The number is longer than ``max_bytes``.
    """
    b = buf[pos]
    if b < 0x80:
        return b, pos + 1
    value = b & 0x7F
    shift = 7
    end = pos + max_bytes
    pos += 1
    while pos < end:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
    raise ValueError("varint is too long")


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """Read a zigzag-encoded signed varint (int32).

    Args:
        buf: The buffer.
        pos: Position of the first byte.

    Returns:
        The signed value and the position after it.
    """
    raw, pos = read_uvarint(buf, pos, _MAX_VARINT_BYTES)
    return (raw >> 1) ^ -(raw & 1), pos


def read_varlong(buf: bytes, pos: int) -> tuple[int, int]:
    """Read a zigzag-encoded signed varlong (int64).

    Args:
        buf: The buffer.
        pos: Position of the first byte.

    Returns:
        The signed value and the position after it.
    """
    raw, pos = read_uvarint(buf, pos, _MAX_VARLONG_BYTES)
    return (raw >> 1) ^ -(raw & 1), pos


# One-byte encodings are by far the most common (lengths < 128, small deltas): precompute them.
_SMALL_UVARINTS = tuple(bytes((i,)) for i in range(128))


def encode_uvarint(value: int) -> bytes:
    """Encode a non-negative integer as an unsigned LEB128 varint.

    Args:
        value: The value, ``>= 0``.

    Returns:
        The encoded bytes.

    Raises:
        ValueError: ``value`` is negative.
    """
    if 0 <= value < 0x80:
        return _SMALL_UVARINTS[value]
    if value < 0:
        raise ValueError("unsigned varint cannot be negative")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_varint(value: int) -> bytes:
    """Encode a signed int32 as a zigzag varint.

    Args:
        value: The value, in the int32 range.

    Returns:
        The encoded bytes.
    """
    return encode_uvarint(((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)


def encode_varlong(value: int) -> bytes:
    """Encode a signed int64 as a zigzag varlong.

    Args:
        value: The value, in the int64 range.

    Returns:
        The encoded bytes.
    """
    return encode_uvarint(((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF)
