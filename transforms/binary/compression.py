"""Record batch compression codecs, with Kafka's framings.

The codec is in bits 0-2 of the batch attributes. The KRaft leader writes metadata uncompressed, but a reader
must accept every codec:

* 1 gzip: a standard gzip stream;
* 2 snappy: Kafka writes snappy-java's *xerial stream* framing (``\\x82SNAPPY\\x00``, int32 version,
  int32 compatible version, then blocks of ``[int32 length][raw snappy block]``); bare raw snappy is accepted too;
* 3 lz4: the LZ4 frame format;
* 4 zstd: a standard zstd frame.
"""

from __future__ import annotations

import struct
from typing import Final

import cramjam

NONE: Final = 0
GZIP: Final = 1
SNAPPY: Final = 2
LZ4: Final = 3
ZSTD: Final = 4

CODEC_NAMES: Final[dict[int, str]] = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}

XERIAL_MAGIC: Final = b"\x82SNAPPY\x00"
_XERIAL_HEADER: Final = XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK: Final = 32 * 1024  # snappy-java's default block size
_INT32: Final = struct.Struct(">i")


class DecompressionError(ValueError):
    """A compressed record section could not be decompressed."""


def decompress(codec: int, data: bytes) -> bytes:
    """Decompress the records section of a batch.

    Args:
        codec: The codec id from the batch attributes (1-4).
        data: The compressed bytes (everything after the 61-byte batch header).

    Returns:
        The uncompressed records section.

    Raises:
        DecompressionError: Unknown codec or a corrupt stream; the message never contains payload bytes.
    """
    try:
        if codec == GZIP:
            return bytes(cramjam.gzip.decompress(data))
        if codec == SNAPPY:
            return _snappy_decompress(data)
        if codec == LZ4:
            return bytes(cramjam.lz4.decompress(data))
        if codec == ZSTD:
            return bytes(cramjam.zstd.decompress(data))
    except DecompressionError:
        raise
    except (KeyboardInterrupt, SystemExit, GeneratorExit, MemoryError):
        raise
    # cramjam is Rust: a corrupt stream can surface as a pyo3 PanicException, which is a BaseException.
    except BaseException as exc:
        raise DecompressionError(f"{CODEC_NAMES[codec]} stream is corrupt ({type(exc).__name__})") from None
    raise DecompressionError(f"unknown compression codec {codec}")


def _snappy_decompress(data: bytes) -> bytes:
    """Decode xerial-framed snappy, or a bare raw snappy block when the xerial magic is absent."""
    if not data.startswith(XERIAL_MAGIC):
        return bytes(cramjam.snappy.decompress_raw(data))
    if len(data) < len(_XERIAL_HEADER):
        raise DecompressionError("snappy xerial header is truncated")
    out: list[bytes] = []
    pos = len(_XERIAL_HEADER)
    while pos < len(data):
        if pos + 4 > len(data):
            raise DecompressionError("snappy xerial block length is truncated")
        (size,) = _INT32.unpack_from(data, pos)
        pos += 4
        if size < 0 or pos + size > len(data):
            raise DecompressionError("snappy xerial block is truncated")
        out.append(bytes(cramjam.snappy.decompress_raw(data[pos : pos + size])))
        pos += size
    return b"".join(out)


def compress(codec: int, data: bytes) -> bytes:
    """Compress a records section the way Kafka's producers frame it.

    Args:
        codec: The codec id (0-4); 0 returns ``data`` unchanged.
        data: The uncompressed records section.

    Returns:
        The compressed bytes.

    Raises:
        ValueError: Unknown codec.
    """
    if codec == NONE:
        return data
    if codec == GZIP:
        return bytes(cramjam.gzip.compress(data))
    if codec == SNAPPY:
        blocks = [_XERIAL_HEADER]
        for start in range(0, len(data), _XERIAL_BLOCK):
            block = bytes(cramjam.snappy.compress_raw(data[start : start + _XERIAL_BLOCK]))
            blocks.append(_INT32.pack(len(block)) + block)
        return b"".join(blocks)
    if codec == LZ4:
        return bytes(cramjam.lz4.compress(data))
    if codec == ZSTD:
        return bytes(cramjam.zstd.compress(data))
    raise ValueError(f"unknown compression codec {codec}")
