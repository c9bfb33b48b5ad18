"""Input kind from file name and head bytes; offsets announced by file names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from transforms.decode.text.detect import (
    base_offset_from_name,
    detect_input_kind,
    is_ignored_file,
    snapshot_end_offset_from_name,
    snapshot_epoch_from_name,
)

DATA = Path(__file__).resolve().parents[3] / "data" / "text"
REAL_DUMPS = (
    Path(
        os.environ.get(
            "KRAFT_AUDIT_REAL_METADATA", str(Path(__file__).resolve().parents[5] / "shared" / "real-metadata")
        )
    )
    / "text-dumps"
)
# First bytes of a real v2 batch: baseOffset 1, length 133, partitionLeaderEpoch 1, magic 2.
BATCH_HEAD = bytes.fromhex("0000000000000001000000850000000102")


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/m/__cluster_metadata-0/00000000000000000000.log", "LOG_SEGMENT"),
        ("00000000000000012345.log", "LOG_SEGMENT"),
        ("s3a://bucket/fleet/c1/__cluster_metadata-0/00000000000000000100.log", "LOG_SEGMENT"),
        ("C:\\kafka\\meta\\__cluster_metadata-0\\00000000000000000100.log", "LOG_SEGMENT"),
        ("/m/__cluster_metadata-0/00000000000000000200-0000000004.checkpoint", "SNAPSHOT"),
        ("/m/__cluster_metadata-0/bootstrap.checkpoint", "BOOTSTRAP_SNAPSHOT"),
        ("/exports/records.jsonl", "JSON_LINES"),
        ("/exports/records.json", "JSON_LINES"),
    ],
    ids=["segment", "segment-bare", "segment-uri", "segment-windows", "snapshot", "bootstrap", "jsonl", "json"],
)
def test_kind_is_detected_from_the_name(path: str, kind: str) -> None:
    assert detect_input_kind(path, BATCH_HEAD) == kind


@pytest.mark.parametrize(
    "name",
    [
        "00000000000000000000.index",
        "00000000000000000000.timeindex",
        "00000000000000000000.txnindex",
        "00000000000000000000.snapshot",
        "quorum-state",
        "leader-epoch-checkpoint",
        "partition.metadata",
        "meta.properties",
        "00000000000000000200-0000000004.checkpoint.part",
        "00000000000000000200-0000000004.checkpoint.deleted",
        "00000000000000000000.log.deleted",
        "server.properties",
    ],
    ids=[
        "index",
        "timeindex",
        "txnindex",
        "producer-snapshot",
        "quorum-state",
        "leader-epoch-checkpoint",
        "partition-metadata",
        "meta-properties",
        "checkpoint-part",
        "checkpoint-deleted",
        "log-deleted",
        "server-properties",
    ],
)
def test_side_files_are_ignored_even_when_their_content_looks_like_input(name: str) -> None:
    path = "/m/__cluster_metadata-0/" + name

    assert detect_input_kind(path, b"Dumping /x/00000000000000000000.log\n") is None
    assert detect_input_kind(path, b'{"offset": 1}') is None
    assert is_ignored_file(path)


@pytest.mark.parametrize(
    "head",
    [
        b"Dumping /m/__cluster_metadata-0/00000000000000000000.log\nLog starting offset: 0\n",
        b"$ bin/kafka-dump-log.sh --cluster-metadata-decoder --files x.log\nDumping x.log\n",
        b"baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1\n",
        b'| offset: 3005 CreateTime: 1710774451597 keySize: -1 valueSize: 34 payload: {"type":"X"}\n',
        b' payload: {"type":"TOPIC_RECORD","version":0,"data":{}}\n',
        b'| payload: {"type":"TOPIC_RECORD","version":0,"data":{}}\n',
        b"\xef\xbb\xbfDumping /m/bootstrap.checkpoint\n",
    ],
    ids=["dumping", "command-line-first", "batch-line", "record-line", "scala-skip", "java-skip", "bom"],
)
def test_dump_log_text_is_detected_from_content_under_any_name(head: bytes) -> None:
    assert detect_input_kind("/exports/cluster-a.txt", head) == "DUMP_LOG_TEXT"


@pytest.mark.parametrize(
    "head",
    [b'{"offset": 42, "type": "CONFIG_RECORD"}\n', b'  \n{"offset": 1}', b'\xef\xbb\xbf{"offset": 1}'],
    ids=["object", "leading-blank-line", "bom"],
)
def test_json_lines_are_detected_from_content_starting_with_a_brace(head: bytes) -> None:
    assert detect_input_kind("/exports/dump.out", head) == "JSON_LINES"


@pytest.mark.parametrize(
    ("path", "head"),
    [
        ("/logs/server.log", b"[2024-11-21 10:00:00,000] INFO Kafka version: 4.2.0\n"),
        ("/m/0000000000.log", BATCH_HEAD),
        ("/m/00000000000000000200-000000004.checkpoint", BATCH_HEAD),
        ("/exports/notes.txt", b"hello\nworld\n"),
        ("/exports/blob.bin", b"\x00\x01\x02\xff\xfe"),
        ("/exports/empty.txt", b""),
    ],
    ids=["kafka-app-log", "short-segment-name", "nine-digit-epoch", "plain-text", "binary", "empty"],
)
def test_unrecognised_files_are_none_but_not_ignored(path: str, head: bytes) -> None:
    assert detect_input_kind(path, head) is None
    assert not is_ignored_file(path)


@pytest.mark.system
def test_real_dump_log_texts_are_detected_and_metadata_shell_output_is_not() -> None:
    if not REAL_DUMPS.is_dir():
        pytest.skip(f"real dump-log texts not present at {REAL_DUMPS} (set KRAFT_AUDIT_REAL_METADATA)")
    dumps = {
        "apache__kafka__v2.8.0__config-kraft-README__kafka-dump-log.txt": "DUMP_LOG_TEXT",
        "strimzi__strimzi.github.io__2024-03-21-kraft-migration__kafka-dump-log.txt": "DUMP_LOG_TEXT",
        "apache__kafka__v2.8.0__config-kraft-README__kafka-metadata-shell.txt": None,
    }
    got = {name: detect_input_kind(name, (REAL_DUMPS / name).read_bytes()[:4096]) for name in dumps}

    assert got == dumps


@pytest.mark.parametrize(
    "name",
    [
        "scala_4_2_log.txt",
        "scala_4_2_log_skip.txt",
        "java_4_3_log_skip.txt",
        "scala_4_0_multi_file.txt",
        "kafka_3_0_log_skip.txt",
    ],
    ids=["scala", "scala-skip", "java-skip", "multi-file", "kafka-3.0"],
)
def test_hand_written_dumps_are_detected_as_dump_log_text(name: str) -> None:
    assert detect_input_kind(name, (DATA / name).read_bytes()[:4096]) == "DUMP_LOG_TEXT"


@pytest.mark.parametrize(
    ("path", "base", "end", "epoch"),
    [
        ("/m/00000000000000000100.log", 100, None, None),
        ("00000000000000000000.log", 0, None, None),
        ("/m/00000000000000004096-0000000012.checkpoint", None, 4096, 12),
        ("/m/bootstrap.checkpoint", None, None, None),
        ("/m/00000000000000004096-0000000012.checkpoint.part", None, None, None),
        ("/m/00000000000000000100.index", None, None, None),
        ("/m/00000000000000000100.log.deleted", None, None, None),
    ],
    ids=["segment", "segment-zero", "snapshot", "bootstrap", "snapshot-part", "index", "deleted-segment"],
)
def test_offsets_announced_by_file_names(path: str, base: int | None, end: int | None, epoch: int | None) -> None:
    assert base_offset_from_name(path) == base
    assert snapshot_end_offset_from_name(path) == end
    assert snapshot_epoch_from_name(path) == epoch
