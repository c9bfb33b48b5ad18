"""Crafted binary attacks of issue 58, built from Kafka's batch layout alone (not from the decoder's code):
regions of plausible batch headers that try to starve or slow resynchronisation, and record bombs (small
compressed batches holding very many records)."""

from __future__ import annotations

import random
import struct
from functools import cache

import cramjam

from transforms.decode.binary.batch import encode_record, seal_batch
from transforms.decode.binary.encode import encode_metadata_record

# Resynchronisation's old per-file budget (removed in issue 58): 8 CRC bytes per file byte plus 64 MiB. A
# "drain" region claims lengths adding up to exactly that, so an implementation with such a budget loses the rest.
OLD_BUDGET_PER_BYTE = 8
OLD_BUDGET_ALLOWANCE = 64 << 20
STYLES = ("to_eof", "drain", "chain", "random")
MIN_LENGTH = 49  # the Length of a batch with no records: 61-byte header minus the 12 bytes before Length


def plausible_headers(size: int, *, at: int, file_size: int, style: str, rng: random.Random | None = None) -> bytes:
    """``size`` bytes of batch-header look-alikes (magic 2, codec 0, count 0, a CRC that never matches) to be
    placed at ``at`` in a file of ``file_size`` bytes; each claims a Length that fits the file.

    Styles: ``to_eof`` (every 32 bytes, each reaching the end of the file), ``drain`` (every 32 bytes, lengths
    summing to the old resync budget), ``chain`` (every 64 bytes, each ending exactly where the next starts: a
    successor check passes) and ``random`` (every 32 bytes, random lengths that fit).
    """
    rng = rng or random.Random(0)
    out = bytearray(size)
    stride = 64 if style == "chain" else 32
    remaining = OLD_BUDGET_PER_BYTE * file_size + OLD_BUDGET_ALLOWANCE
    for q in range(0, size - stride + 1, stride):
        to_eof = file_size - (at + q) - 12
        if to_eof < MIN_LENGTH:
            break
        if style == "to_eof":
            length = to_eof
        elif style == "drain":
            length = max(MIN_LENGTH, min(to_eof, remaining + 9))
            remaining = max(0, remaining - (length - 9))
        elif style == "chain":
            length = stride - 12
        else:
            length = rng.randint(MIN_LENGTH, to_eof)
        struct.pack_into(">qii", out, q, rng.randrange(1 << 40), length, 1)
        out[q + 16] = 2
        struct.pack_into(">I", out, q + 17, rng.getrandbits(32))
    return bytes(out)


@cache
def noop_bomb(count: int, codec: int = 4) -> bytes:
    """A batch of ``count`` NoOp records compressed with ``codec`` (1 gzip, 3 lz4, 4 zstd): a few hundred bytes
    for a million rows (every record has offset delta 0: only the number of rows matters here)."""
    section = encode_record(0, 0, None, encode_metadata_record(20, 0, {})) * count
    payload = {1: cramjam.gzip, 3: cramjam.lz4, 4: cramjam.zstd}[codec].compress(section)
    return seal_batch(
        base_offset=1 << 30, leader_epoch=1, timestamp_ms=0, attributes=codec, count=count, payload=bytes(payload)
    )
