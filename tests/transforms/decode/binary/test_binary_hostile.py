"""Hostile binary input: decompression bombs are refused before their output is allocated, under the per-batch cap
and under the file's decompressed-bytes budget. (Crafted plausible headers: test_binary_resync.)"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import cramjam
import pytest

from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.binary.batch import encode_record, seal_batch
from transforms.decode.binary.budget import DecodeBudget
from transforms.decode.binary.compression import (
    GZIP,
    LZ4,
    MAX_DECOMPRESSED_BYTES,
    SNAPPY,
    ZSTD,
    DecompressedTooLargeError,
    compress,
    decompress,
)
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_log_segment, encode_metadata_record

from .test_binary_fuzz import assert_regions_tile_the_file

REPO = Path(__file__).resolve().parents[4]
GOOD = encode_log_segment([(20, 0, {}), (20, 0, {})], base_offset=100, records_per_batch=1)


def zstd_rle_frame(total: int) -> bytes:
    """A zstd frame of ``total`` zero bytes made of RLE blocks (4 bytes per 128 KiB): a bomb built without ever
    holding its output."""
    frame = bytearray(b"\x28\xb5\x2f\xfd")  # magic 0xFD2FB528, little-endian
    frame += bytes([0x00, 7 << 3])  # no content size, no checksum; window 2^(10+7) = 128 KiB
    remaining = total
    while remaining:
        size = min(128 << 10, remaining)
        remaining -= size
        header = int(remaining == 0) | (1 << 1) | (size << 3)  # last-block flag, block type RLE, block size
        frame += header.to_bytes(3, "little") + b"\x00"
    return bytes(frame)


def noop_records_zstd(count: int) -> bytes:
    """``count`` NoOp records (offset delta 0: only the size matters here), zstd-compressed."""
    record = encode_record(0, 0, None, encode_metadata_record(20, 0, {}))
    return bytes(cramjam.zstd.compress(record * count))


# A raw snappy block (no xerial magic) whose varint header declares 2^32-1 bytes: 67 bytes in all.
SNAPPY_4GB = b"\xff\xff\xff\xff\x0f" + b"\x00" * 62


def compressed_batch(codec: int, payload: bytes, count: int = 1) -> bytes:
    return seal_batch(base_offset=10, leader_epoch=1, timestamp_ms=0, attributes=codec, count=count, payload=payload)


BOMBS = {
    "zstd-zeros-3.1GB": (ZSTD, zstd_rle_frame(3_100_000_000)),
    "zstd-noop-records": (ZSTD, noop_records_zstd(2_000_000)),
    "snappy-raw-4GB": (SNAPPY, SNAPPY_4GB),
}


@pytest.mark.parametrize(("codec", "payload"), list(BOMBS.values()), ids=list(BOMBS))
def test_a_decompression_bomb_batch_is_quarantined_with_the_file_budget_and_its_neighbours_decode(
    codec: int, payload: bytes
) -> None:
    bomb = compressed_batch(codec, payload)
    data = GOOD + bomb + GOOD
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    assert [i.offset for i in items if isinstance(i, DecodedRecord)] == [100, 101, 100, 101]
    (quarantined,) = [i for i in items if isinstance(i, QuarantineItem)]
    assert (quarantined.position, quarantined.length, quarantined.offset) == (len(GOOD), len(bomb), 10)
    assert "file's decompressed-bytes cap" in quarantined.reason and quarantined.extra["budget"] == "decompressed"


@pytest.mark.parametrize(("codec", "payload"), list(BOMBS.values()), ids=list(BOMBS))
def test_with_a_budget_above_the_per_batch_cap_a_bomb_batch_meets_that_cap(codec: int, payload: bytes) -> None:
    bomb = compressed_batch(codec, payload)
    data = GOOD + bomb + GOOD
    items = list(decode_file(data, kind="LOG_SEGMENT", budget=DecodeBudget(allowance=4 * MAX_DECOMPRESSED_BYTES)))

    assert_regions_tile_the_file(data, items)
    assert [i.offset for i in items if isinstance(i, DecodedRecord)] == [100, 101, 100, 101]
    (quarantined,) = [i for i in items if isinstance(i, QuarantineItem)]
    assert (quarantined.position, quarantined.length) == (len(GOOD), len(bomb))
    assert f"more than {MAX_DECOMPRESSED_BYTES} bytes" in quarantined.reason


@pytest.mark.parametrize("codec", [GZIP, SNAPPY, LZ4, ZSTD], ids=["gzip", "snappy", "lz4", "zstd"])
def test_every_codec_decompresses_up_to_the_cap_and_refuses_one_byte_more(codec: int) -> None:
    limit = 1 << 20
    assert decompress(codec, compress(codec, b"\x07" * limit), limit=limit) == b"\x07" * limit
    with pytest.raises(DecompressedTooLargeError):
        decompress(codec, compress(codec, b"\x07" * (limit + 1)), limit=limit)


def test_decompression_bombs_are_refused_before_their_output_is_allocated(tmp_path: Path) -> None:
    # In a child process whose address space is capped a few hundred MiB above what it uses after its imports:
    # decoding allocates only up to the cap, where the unbounded decoder needed gigabytes (or aborted).
    script = textwrap.dedent(
        """
        import resource, sys
        from tests.transforms.decode.binary.test_binary_hostile import BOMBS, GOOD, compressed_batch
        from transforms.decode.binary.decode import decode_file
        from schemas.decoded import QuarantineItem

        batches = {name: compressed_batch(codec, payload) for name, (codec, payload) in BOMBS.items()}
        with open("/proc/self/status") as status:
            vm = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
        limit = vm + (384 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for name, bomb in batches.items():
            items = list(decode_file(GOOD + bomb + GOOD, kind="LOG_SEGMENT"))
            print(name, sum(isinstance(i, QuarantineItem) for i in items), len(items))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:-1] == [f"{name} 1 5" for name in BOMBS]
