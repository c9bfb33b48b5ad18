"""Discovery reports a FIFO or a dangling symlink named like a segment (never skips it silently) and never blocks
on a FIFO; ingest quarantines such a path with its reason and finishes the run."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.discover import Discovery, discover_inputs, read_head
from jobs.ingest import IngestSettings, run
from jobs.storage import open_store

SEGMENT = "00000000000000000000.log"


def special_inputs(tmp_path: Path) -> Path:
    """A metadata directory with a FIFO and a dangling symlink, both named like segments, and one good file."""
    log_dir = tmp_path / "c1" / "__cluster_metadata-0"
    log_dir.mkdir(parents=True)
    os.mkfifo(log_dir / SEGMENT)
    (log_dir / "00000000000000000100.log").symlink_to(tmp_path / "gone.log")
    (log_dir / "export.jsonl").write_text('{"offset": 1, "type": "NO_OP_RECORD", "version": 0, "data": {}}\n')
    return tmp_path / "c1"


def discover_without_blocking(inputs: list[str]) -> Discovery:
    """Run discovery in a daemon thread: a blocking open of the FIFO fails the test instead of hanging it."""
    found: list[Discovery] = []
    worker = threading.Thread(target=lambda: found.append(discover_inputs(inputs)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "discovery blocked (opened the FIFO?)"
    return found[0]


def test_a_fifo_and_a_dangling_symlink_named_like_segments_are_reported_not_skipped(tmp_path: Path) -> None:
    root = special_inputs(tmp_path)
    discovery = discover_without_blocking([str(root)])

    by_name = {Path(f.path).name: f for f in discovery.files}
    assert sorted(by_name) == ["00000000000000000000.log", "00000000000000000100.log", "export.jsonl"]
    assert by_name[SEGMENT].input_kind is None
    assert by_name[SEGMENT].skip_reason == "not a regular file: a FIFO (named pipe)"
    assert by_name["00000000000000000100.log"].skip_reason == "dangling symbolic link"
    assert by_name["export.jsonl"].input_kind == "JSON_LINES" and by_name["export.jsonl"].skip_reason is None
    assert [Path(f.path).name for f in discovery.skipped] == [SEGMENT, "00000000000000000100.log"]


def test_a_fifo_given_directly_is_reported_without_blocking(tmp_path: Path) -> None:
    root = special_inputs(tmp_path)
    discovery = discover_without_blocking([str(root / "__cluster_metadata-0" / SEGMENT)])

    (only,) = discovery.files
    assert only.skip_reason == "not a regular file: a FIFO (named pipe)"


def test_read_head_never_blocks_and_reads_only_regular_files(tmp_path: Path) -> None:
    log_dir = special_inputs(tmp_path) / "__cluster_metadata-0"

    assert read_head(str(log_dir / SEGMENT), 80) == b""
    assert read_head(str(log_dir / "00000000000000000100.log"), 80) == b""
    assert read_head(str(log_dir / "export.jsonl"), 10) == b'{"offset":'


@pytest.mark.system
def test_ingest_quarantines_a_fifo_and_a_dangling_symlink_with_their_reason_and_finishes(
    spark: SparkSession, warehouse: Path, tmp_path: Path
) -> None:
    root = special_inputs(tmp_path)
    result = run(spark, IngestSettings(inputs=(str(root),), warehouse=str(warehouse)))

    rows = open_store(spark, str(warehouse)).read("quarantine").collect()
    reasons = sorted((Path(r["source_file"]).name, r["reason"]) for r in rows)
    assert reasons == [
        (SEGMENT, "not a recognised KRaft input: not a regular file: a FIFO (named pipe)"),
        ("00000000000000000100.log", "not a recognised KRaft input: dangling symbolic link"),
    ]
    assert (result.records, result.quarantined) == (1, 2)  # type: ignore[attr-defined]


def test_the_cluster_id_in_meta_properties_is_read_with_properties_line_ends(tmp_path: Path) -> None:
    root = tmp_path / "c1"
    (root / "__cluster_metadata-0").mkdir(parents=True)
    (root / "meta.properties").write_text("version=1\ncluster.id=abc\u2028def\r\nnode.id=1\n", encoding="utf-8")
    (root / "__cluster_metadata-0" / "export.jsonl").write_text("{}\n")

    (only,) = discover_without_blocking([str(root)]).files
    assert only.cluster_id == "abc\u2028def"  # U+2028 does not end a line for Properties.load
