"""Python's cycle collector is paused around the per-cluster replay and the decoder's batches, and restored after
(``transforms.kit.cycle_collection``): pure Python, no Spark."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pyarrow as pa
import pytest

import transforms.decode.files as decode_files
from transforms.decode.redaction import SensitivityRules
from transforms.kit.cycle_collection import cycle_collection_paused
from transforms.replay import cluster_pass
from transforms.replay.machine import PASS_INPUT


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    with cycle_collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_is_on_again_after_an_error() -> None:
    with pytest.raises(ValueError), cycle_collection_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with cycle_collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_each_decoded_batch_is_built_with_the_collector_paused_and_handed_over_with_it_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []
    original = decode_files.decode_rows

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        yield from original(*args, **kwargs)

    monkeypatch.setattr(decode_files, "decode_rows", recording)
    monkeypatch.setattr(decode_files, "_FLUSH_ROWS", 3)
    # files no descriptor names: one quarantine row each (decode_rows' orphan row)
    files = [(f"/in/unexpected-{i}.log", b"") for i in range(7)]
    sizes = []
    for batch in decode_files.decoded_batches(files, descriptors={}, rules=SensitivityRules(), redaction_key=b"k"):
        assert gc.isenabled()
        sizes.append(batch.num_rows)
    assert sizes == [3, 3, 1]
    assert seen == [False] * 7


def test_a_cluster_is_replayed_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def recording(columns, *, as_of_offset, as_of_time_us):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return {name: [] for name in cluster_pass.OUTPUTS}

    monkeypatch.setattr(cluster_pass, "replay_cluster", recording)
    records = pa.table({name: pa.nulls(1) for name in PASS_INPUT}).append_column("cluster_id", pa.array(["c1"]))
    replayed = cluster_pass._replayer(None, None)(records)
    assert seen == [False]
    assert gc.isenabled()
    assert replayed.num_rows == 0
