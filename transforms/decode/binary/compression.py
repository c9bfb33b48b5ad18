"""Record batch compression codecs, with Kafka's framings.

The codec is in bits 0-2 of the batch attributes. The KRaft leader writes metadata uncompressed, but a reader
must accept every codec:

* 1 gzip: a standard gzip stream;
* 2 snappy: Kafka writes snappy-java's *xerial stream* framing (``\\x82SNAPPY\\x00``, int32 version,
  int32 compatible version, then blocks of ``[int32 length][raw snappy block]``); bare raw snappy is accepted too;
* 3 lz4: the LZ4 frame format;
* 4 zstd: a standard zstd frame.

Decompression is bounded: a few KiB of zstd can declare gigabytes of zeros (or of NoOp records, millions of rows),
and a raw snappy block declares its length up front, so an unbounded ``decompress`` lets one file exhaust the
executor's memory. Output is capped at ``MAX_DECOMPRESSED_BYTES`` per batch, checked before the buffer is
allocated: snappy's declared lengths are read first, the other codecs decompress into a fixed-size buffer (grown
geometrically up to the cap) and fail when it would overflow.
"""

from __future__ import annotations

import struct
from typing import Any, Final

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
# KRaft's writer closes a batch at 8 MiB of records (KafkaRaftClient.MAX_BATCH_SIZE_BYTES), and message.max.bytes
# defaults to 1 MiB: twice the larger is generous for any batch Kafka wrote, and small enough for one executor.
MAX_DECOMPRESSED_BYTES: Final = 16 << 20
_FIRST_BUFFER: Final = 64 << 10  # most compressed metadata batches decompress to far less
_GROWTH: Final = 4


class DecompressionError(ValueError):
    """A compressed record section could not be decompressed."""


class DecompressedTooLargeError(DecompressionError):
    """A compressed record section decompresses to more than the cap."""


def decompress(codec: int, data: bytes, *, limit: int = MAX_DECOMPRESSED_BYTES) -> bytes:
    """Decompress the records section of a batch, refusing to produce more than ``limit`` bytes.

    Args:
        codec: The codec id from the batch attributes (1-4).
        data: The compressed bytes (everything after the 61-byte batch header).
        limit: The most bytes the section may decompress to; never more than about this is allocated.

    Returns:
        The uncompressed records section.

    Raises:
        DecompressedTooLargeError: The section decompresses to more than ``limit`` bytes.
        DecompressionError: Unknown codec or a corrupt stream; the message never contains payload bytes.
    """
    try:
        if codec == GZIP:
            return _bounded(cramjam.gzip, data, limit)
        if codec == SNAPPY:
            return _snappy_decompress(data, limit)
        if codec == LZ4:
            return _bounded(cramjam.lz4, data, limit)
        if codec == ZSTD:
            return _bounded(cramjam.zstd, data, limit)
    except DecompressionError:
        raise
    except (KeyboardInterrupt, SystemExit, GeneratorExit, MemoryError):
        raise
    # cramjam is Rust: a corrupt stream can surface as a pyo3 PanicException, which is a BaseException.
    except BaseException as exc:
        raise DecompressionError(f"{CODEC_NAMES[codec]} stream is corrupt ({type(exc).__name__})") from None
    raise DecompressionError(f"unknown compression codec {codec}")


def _too_large(codec: str, limit: int) -> DecompressedTooLargeError:
    return DecompressedTooLargeError(
        f"{codec} records decompress to more than {limit} bytes (the per-batch cap; Kafka writes at most 8 MiB)"
    )


def _bounded(codec: Any, data: bytes, limit: int) -> bytes:
    """Decompress with a cramjam codec into buffers of at most ``limit`` bytes.

    ``decompress_into`` fails rather than write past its buffer, so the output can never outgrow it. Corrupt
    streams fail the same way; a failure with room left below the limit is retried with a bigger buffer, and at
    the limit the message tells the two apart (a changed message only costs the right reason, never the bound).
    """
    size = min(limit, max(_FIRST_BUFFER, _GROWTH * len(data)))
    while True:
        out = bytearray(size)
        try:
            written = codec.decompress_into(data, out)
        except cramjam.DecompressionError as exc:
            if size < limit:
                size = min(limit, size * _GROWTH)
                continue
            if "whole buffer" in str(exc):
                raise _too_large(codec.__name__.rsplit(".", 1)[-1], limit) from None
            raise
        return bytes(memoryview(out)[:written])


def _raw_snappy(block: bytes, budget: int, limit: int) -> bytes:
    """One raw snappy block, whose declared length is read (and checked against ``budget``) before anything is
    allocated."""
    if cramjam.snappy.decompress_raw_len(block) > budget:
        raise _too_large("snappy", limit)
    return bytes(cramjam.snappy.decompress_raw(block))


def _snappy_decompress(data: bytes, limit: int) -> bytes:
    """Decode xerial-framed snappy, or a bare raw snappy block when the xerial magic is absent."""
    if not data.startswith(XERIAL_MAGIC):
        return _raw_snappy(data, limit, limit)
    if len(data) < len(_XERIAL_HEADER):
        raise DecompressionError("snappy xerial header is truncated")
    out: list[bytes] = []
    total = 0
    pos = len(_XERIAL_HEADER)
    while pos < len(data):
        if pos + 4 > len(data):
            raise DecompressionError("snappy xerial block length is truncated")
        (size,) = _INT32.unpack_from(data, pos)
        pos += 4
        if size < 0 or pos + size > len(data):
            raise DecompressionError("snappy xerial block is truncated")
        block = _raw_snappy(data[pos : pos + size], limit - total, limit)
        out.append(block)
        total += len(block)
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
