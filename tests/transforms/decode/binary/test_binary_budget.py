"""Record bombs (issue 58): the rows and decompressed bytes of a file, and of an ingest, are capped; what is past a
cap is one quarantine item with its position, first offset and reason, and nothing before it is lost.

Expected records come from the encoder's known records (offsets ``base + i``); bomb sizes from how they are built.
"""

from __future__ import annotations

from typing import Any

import pytest

from schemas.decoded import DecodedRecord, QuarantineItem
from tests.fuzz.hostile import noop_bomb
from transforms.decode.binary import budget as budget_module
from transforms.decode.binary.budget import DecodeBudget
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_log_segment

from .test_binary_fuzz import assert_regions_tile_the_file

NOOP: tuple[int, int, dict[str, Any]] = (20, 0, {})
BOMB_BASE_OFFSET = 1 << 30  # noop_bomb's base offset


def good(count: int, base: int, per_batch: int = 1) -> bytes:
    return encode_log_segment([NOOP] * count, base_offset=base, records_per_batch=per_batch)


def offsets(items: list[DecodedRecord | QuarantineItem]) -> list[int]:
    return [i.offset for i in items if isinstance(i, DecodedRecord)]


def quarantined(items: list[DecodedRecord | QuarantineItem]) -> list[QuarantineItem]:
    return [i for i in items if isinstance(i, QuarantineItem)]


def test_a_few_kilobytes_of_zstd_batches_no_longer_decode_to_millions_of_rows() -> None:
    # Issue 58's shape: three zstd batches of 1.4 million NoOp records each (under the 16 MiB per-batch cap), a
    # few KB in all, between good uncompressed batches.
    bomb = noop_bomb(1_400_000)
    data = good(3, 0) + bomb * 3 + good(2, 100)
    assert len(data) < 5000
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    assert offsets(items) == [0, 1, 2, 100, 101]
    (refused,) = quarantined(items)
    assert (refused.position, refused.length, refused.offset) == (len(good(3, 0)), 3 * len(bomb), BOMB_BASE_OFFSET)
    assert "decompressed-bytes cap" in refused.reason and refused.extra["budget"] == "decompressed"


def test_a_compressed_batch_within_the_ratio_decodes_and_runs_of_refused_batches_are_one_item_each() -> None:
    small = noop_bomb(1000)  # 11,000 bytes decompressed: within 64 x the file plus 1 MiB
    bomb = noop_bomb(1_400_000)
    data = small + bomb + bomb + good(2, 50) + bomb + good(1, 60)
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert_regions_tile_the_file(data, items)
    assert offsets(items) == [BOMB_BASE_OFFSET] * 1000 + [50, 51, 60]
    runs = [(q.position, q.length) for q in quarantined(items)]
    first_good = len(small) + 2 * len(bomb)
    assert runs == [(len(small), 2 * len(bomb)), (first_good + len(good(2, 50)), len(bomb))]


def test_past_the_file_record_cap_the_rest_of_the_file_is_one_item_with_its_first_offset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(budget_module, "MAX_RECORDS_PER_FILE", 10)
    data = good(30, 500, per_batch=3)  # ten batches of 3 records, offsets 500..529
    items = list(decode_file(data, kind="SNAPSHOT"))

    assert_regions_tile_the_file(data, items)
    assert offsets(items) == list(range(500, 509))  # 3 whole batches; the 4th would make 12 rows
    (rest,) = quarantined(items)  # and no "missing SnapshotFooter" item: the file's end was not decoded
    batch_size = len(data) // 10
    assert (rest.position, rest.length, rest.offset) == (3 * batch_size, 7 * batch_size, 509)
    assert "record cap reached: this file may decode 10 row(s)" in rest.reason
    assert rest.extra == {"region": "batch", "budget": "records"}


def test_an_ingest_record_budget_is_shared_by_its_files() -> None:
    shared = DecodeBudget(records=25)
    first = list(decode_file(good(15, 0, per_batch=5), kind="LOG_SEGMENT", budget=shared))
    second_data = good(15, 100, per_batch=5)
    second = list(decode_file(second_data, kind="LOG_SEGMENT", budget=shared))
    third = list(decode_file(good(1, 200), kind="LOG_SEGMENT", budget=shared))

    assert offsets(first) == list(range(15))
    assert offsets(second) == list(range(100, 110))
    (rest,) = quarantined(second)
    assert (rest.position, rest.offset) == (2 * len(second_data) // 3, 110)
    assert "this ingest" in rest.reason
    assert offsets(third) == [] and [q.offset for q in quarantined(third)] == [200]


def test_an_ingest_decompressed_budget_is_shared_by_its_files() -> None:
    batch = noop_bomb(900)  # 9,900 bytes decompressed
    shared = DecodeBudget(decompressed_bytes=15_000)
    first = list(decode_file(batch, kind="LOG_SEGMENT", budget=shared))
    second = list(decode_file(batch + good(1, 7), kind="LOG_SEGMENT", budget=shared))

    assert len(offsets(first)) == 900
    assert offsets(second) == [7]
    (refused,) = quarantined(second)
    assert (refused.position, refused.length) == (0, len(batch)) and "ingest's decompressed-bytes cap" in refused.reason


def test_the_ingest_ratio_counts_every_file_so_many_tiny_files_cannot_each_claim_the_allowance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(budget_module, "ROW_ALLOWANCE", 1 << 20)  # only the decompressed bytes are looked at here
    batch = noop_bomb(60_000)  # 660,000 bytes decompressed from a few hundred bytes
    shared = DecodeBudget()
    results = [list(decode_file(batch, kind="LOG_SEGMENT", budget=shared)) for _ in range(3)]

    # One allowance (1 MiB) per ingest: the first file fits in it, the second would pass it.
    assert [len(offsets(items)) for items in results] == [60_000, 0, 0]
    assert all("ingest's" in quarantined(items)[0].reason for items in results[1:])


def test_rows_are_capped_at_one_per_input_byte_plus_the_allowance() -> None:
    bomb = noop_bomb(5000)  # about 100 bytes: far more rows than bytes, within the decompressed-bytes cap
    data = good(2, 0) + bomb + good(1, 9)
    items = list(decode_file(data, kind="LOG_SEGMENT"))

    assert len(data) + 1000 < 5000
    assert offsets(items) == [0, 1]
    (rest,) = quarantined(items)
    assert (rest.position, rest.length, rest.offset) == (len(good(2, 0)), len(data) - len(good(2, 0)), 1 << 30)
    assert f"this file may decode {len(data) + 1000} row(s)" in rest.reason
