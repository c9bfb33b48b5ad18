"""Ingest end to end: real files, idempotence, changed segments, bad bytes, and secrets that must never land."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from benchmarks.jobcount import counting
from jobs import ingest as ingest_job
from jobs import synth
from jobs.cli import main as cli_main
from jobs.discover import InputFile
from jobs.ingest import IngestSettings, run
from jobs.ingest_steps import hashing as ingest_hashing
from jobs.ingest_steps import load as ingest_load
from jobs.storage import open_store
from schemas.record_types import CONTROL_RECORD_TYPES, METADATA_RECORD_TYPES
from synthetic.spec import FleetSpec
from tests.conftest import real_metadata_dir
from tests.transforms.decode.binary.test_binary_real_files import independent_type_counts
from transforms.decode.binary.encode import encode_log_segment, encode_snapshot

SECRET = "hunter2-Planted-Secret"
SEGMENT = "00000000000000000000.log"


def ingest(spark: SparkSession, warehouse: Path, *inputs: Path, **kwargs: object) -> object:
    settings = IngestSettings(inputs=tuple(str(i) for i in inputs), warehouse=str(warehouse), **kwargs)  # type: ignore[arg-type]
    return run(spark, settings)


def real_inputs() -> list[Path]:
    root = real_metadata_dir()
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name != "text-dumps")


@pytest.mark.system
def test_every_real_binary_file_ingests_without_quarantine_and_counts_match_an_independent_reader(
    spark: SparkSession, warehouse: Path
) -> None:
    result = ingest(spark, warehouse, *real_inputs())
    store = open_store(spark, str(warehouse))
    assert store.read("quarantine").count() == 0
    got = {
        (r["source_file"], r["record_type"]): r["n"]
        for r in store.read("metadata_records")
        .groupBy("source_file", "record_type")
        .count()
        .withColumnRenamed("count", "n")
        .collect()
    }
    expected: dict[tuple[str, str], int] = {}
    files = [p for d in real_inputs() for p in d.rglob("*") if p.suffix in (".log", ".checkpoint")]
    assert len(files) == 87
    for path in files:
        for (is_control, key), n in independent_type_counts(path.read_bytes()).items():
            name = CONTROL_RECORD_TYPES[key] if is_control else METADATA_RECORD_TYPES[key]
            expected[(str(path.resolve()), name)] = n
    assert got == expected
    assert result.records == sum(expected.values())  # type: ignore[attr-defined]


@pytest.mark.system
def test_real_text_dumps_ingest_with_records_and_no_quarantine(spark: SparkSession, warehouse: Path) -> None:
    dumps = sorted((real_metadata_dir() / "text-dumps").glob("*kafka-dump-log.txt"))
    assert dumps, "expected the kafka-dump-log text dumps"
    ingest(spark, warehouse, *dumps, cluster_id="text")
    store = open_store(spark, str(warehouse))
    assert store.read("quarantine").count() == 0
    by_type = Counter(
        {r["record_type"]: r["count"] for r in store.read("metadata_records").groupBy("record_type").count().collect()}
    )
    assert by_type["CONFIG_RECORD"] >= 1
    assert sum(by_type.values()) == 13  # 7 records in the Kafka 2.8 README dump + 6 in the Strimzi post


def copy_cluster(tmp_path: Path, name: str) -> Path:
    src = real_metadata_dir() / name
    dst = tmp_path / "inputs" / name
    shutil.copytree(src, dst)
    return dst


def versions(spark: SparkSession, warehouse: Path) -> dict[str, int]:
    store = open_store(spark, str(warehouse))
    return {t: store.version(t) for t in ("metadata_records", "quarantine", "ingested_files")}


@pytest.mark.system
def test_ingesting_the_same_inputs_again_changes_nothing(spark: SparkSession, warehouse: Path) -> None:
    root = real_metadata_dir() / "Niloufar1171__LDI-POC"
    ingest(spark, warehouse, root)
    before = versions(spark, warehouse)
    rows_before = open_store(spark, str(warehouse)).read("metadata_records").count()
    again = ingest(spark, warehouse, root)
    assert versions(spark, warehouse) == before
    assert again.files_ingested == 0 and again.files_unchanged > 0  # type: ignore[attr-defined]
    assert open_store(spark, str(warehouse)).read("metadata_records").count() == rows_before


@pytest.mark.system
def test_a_newer_segment_adds_only_its_records(spark: SparkSession, warehouse: Path, tmp_path: Path) -> None:
    cluster = copy_cluster(tmp_path, "HastarTara__NE_streaming_project")
    newer = next(cluster.rglob("00000000000000000047.log"))
    parked = tmp_path / "parked.log"
    shutil.move(newer, parked)
    first = ingest(spark, warehouse, cluster)
    shutil.move(parked, newer)
    second = ingest(spark, warehouse, cluster)
    store = open_store(spark, str(warehouse))
    assert second.files_ingested == 1  # type: ignore[attr-defined]
    total = store.read("metadata_records").count()
    assert total == first.records + second.records  # type: ignore[attr-defined]
    assert second.records == sum(independent_type_counts(newer.read_bytes()).values())  # type: ignore[attr-defined]


def test_a_segment_that_grew_replaces_its_old_rows(spark: SparkSession, warehouse: Path, tmp_path: Path) -> None:
    path = tmp_path / "grow" / "__cluster_metadata-0" / SEGMENT
    path.parent.mkdir(parents=True)
    config = (4, 0, {"resourceType": 2, "resourceName": "t", "name": "retention.ms", "value": "1000"})
    path.write_bytes(encode_log_segment([config] * 3))
    ingest(spark, warehouse, path.parent, cluster_id="grow")
    path.write_bytes(encode_log_segment([config] * 5))
    ingest(spark, warehouse, path.parent, cluster_id="grow")
    offsets = [
        r["offset"] for r in open_store(spark, str(warehouse)).read("metadata_records").orderBy("offset").collect()
    ]
    assert offsets == [0, 1, 2, 3, 4]


def test_corrupt_bytes_are_quarantined_and_good_batches_around_them_kept(
    spark: SparkSession, warehouse: Path, tmp_path: Path
) -> None:
    config = (4, 0, {"resourceType": 2, "resourceName": "t", "name": "retention.ms", "value": "1000"})
    good = encode_log_segment([config] * 4, records_per_batch=1)
    batch = len(good) // 4
    data = bytearray(good)
    data[batch + 30] ^= 0xFF  # flip a bit inside the second batch: its CRC no longer matches
    data += b"\x00garbage tail"
    path = tmp_path / "bad" / "__cluster_metadata-0" / SEGMENT
    path.parent.mkdir(parents=True)
    path.write_bytes(bytes(data))
    result = ingest(spark, warehouse, path.parent, cluster_id="bad")
    store = open_store(spark, str(warehouse))
    assert sorted(r["offset"] for r in store.read("metadata_records").collect()) == [0, 2, 3]
    quarantine = store.read("quarantine").orderBy("position").collect()
    assert [q["position"] for q in quarantine] == [batch, len(good)]
    assert all(q["reason"] and q["source_file"] == str(path) for q in quarantine)
    assert result.quarantined == 2  # type: ignore[attr-defined]


def test_a_repaired_segment_takes_its_quarantine_rows_away_and_a_clean_one_commits_no_quarantine(
    spark: SparkSession, warehouse: Path, tmp_path: Path
) -> None:
    config = (4, 0, {"resourceType": 2, "resourceName": "t", "name": "retention.ms", "value": "1000"})
    good = encode_log_segment([config] * 3, records_per_batch=1)
    path = tmp_path / "fix" / "__cluster_metadata-0" / SEGMENT
    path.parent.mkdir(parents=True)
    path.write_bytes(good + b"\x00garbage tail")
    ingest(spark, warehouse, path.parent, cluster_id="fix")
    store = open_store(spark, str(warehouse))
    assert store.read("quarantine").count() == 1
    path.write_bytes(good)  # the same file, repaired: its old quarantine row must go
    ingest(spark, warehouse, path.parent, cluster_id="fix")
    assert store.read("quarantine").count() == 0
    assert store.read("metadata_records").count() == 3
    clean = tmp_path / "clean" / "__cluster_metadata-0" / SEGMENT
    clean.parent.mkdir(parents=True)
    clean.write_bytes(good)
    before = versions(spark, warehouse)
    ingest(spark, warehouse, clean.parent, cluster_id="clean")
    after = versions(spark, warehouse)
    assert after["quarantine"] == before["quarantine"]  # nothing to add and nothing to replace
    assert after["metadata_records"] > before["metadata_records"]
    assert store.read("metadata_records").filter(F.col("cluster_id") == "clean").count() == 3


def test_unrecognised_input_files_are_quarantined_not_dropped(
    spark: SparkSession, warehouse: Path, tmp_path: Path
) -> None:
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "notes.txt").write_text("just some notes\n")
    ingest(spark, warehouse, odd)
    rows = open_store(spark, str(warehouse)).read("quarantine").collect()
    assert [r["reason"].split(" (")[0] for r in rows] == ["not a recognised KRaft input"]


def planted_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """A cluster with the secret in a dynamic ConfigRecord, a v5 static config, a text dump and server.properties."""
    cluster = tmp_path / "secrets"
    log_dir = cluster / "__cluster_metadata-0"
    log_dir.mkdir(parents=True)
    registration = {
        "brokerId": 1,
        "isMigratingZkBroker": False,
        "incarnationId": "AAAAAAAAAAAAAAAAAAAAAA",
        "brokerEpoch": 5,
        "endPoints": [],
        "features": [],
        "rack": None,
        "fenced": False,
        "inControlledShutdown": False,
        "logDirs": [],
        "staticConfigs": [{"name": "ssl.keystore.password", "value": SECRET}],
    }
    records = [
        (4, 0, {"resourceType": 4, "resourceName": "", "name": "ssl.truststore.password", "value": SECRET}),
        (
            4,
            0,
            {
                "resourceType": 4,
                "resourceName": "1",
                "name": "listener.name.internal.ssl.key.password",
                "value": SECRET,
            },
        ),
        (4, 0, {"resourceType": 4, "resourceName": "1", "name": "sasl.jaas.config", "value": f'password="{SECRET}";'}),
        (0, 5, registration),
    ]
    (log_dir / SEGMENT).write_bytes(encode_log_segment(records))
    (cluster / "00000000000000000010-0000000001.checkpoint").write_bytes(encode_snapshot(records[:1]))
    payload = json.dumps(
        {
            "type": "CONFIG_RECORD",
            "version": 0,
            "data": {"resourceType": 4, "resourceName": "", "name": "ssl.keystore.password", "value": SECRET},
        },
        separators=(",", ":"),
    )
    (cluster / "dump.txt").write_text(
        f"Dumping /x/{SEGMENT}\nLog starting offset: 0\n"
        "baseOffset: 7 lastOffset: 7 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
        "partitionLeaderEpoch: 1 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty "
        "position: 0 CreateTime: 1 size: 100 magic: 2 compresscodec: none crc: 1 isvalid: true\n"
        f"| offset: 7 CreateTime: 1 keySize: -1 valueSize: 50 sequence: -1 headerKeys: [] payload: {payload}\n"
        f'| offset: 8 broken {{"name":"ssl.keystore.password","value":"{SECRET}"\n'
    )
    (cluster / "bad.jsonl").write_text(
        f'{{"offset": 1, "type": "CONFIG_RECORD", "data": {{"name": "x.password", "value": "{SECRET}"\n'
    )
    props = tmp_path / "server.properties"
    props.write_text(f"node.id=1\nssl.keystore.password={SECRET}\nlog.segment.bytes=1048576\nbroken\\u12\n")
    return cluster, props


def test_a_planted_password_never_reaches_the_warehouse_the_logs_or_the_summary(
    spark: SparkSession,
    warehouse: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    cluster, props = planted_inputs(tmp_path)
    summary = tmp_path / "summary.json"
    code = cli_main(
        [
            "ingest",
            "--input",
            str(cluster),
            "--static-config",
            str(props),
            "--cluster-id",
            "secrets",
            "--warehouse",
            str(warehouse),
            "--summary-json",
            str(summary),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err + caplog.text
    assert SECRET not in summary.read_text()
    for path in warehouse.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"secret found in {path}"
    store = open_store(spark, str(warehouse))
    for table in ("metadata_records", "quarantine", "static_configs"):
        df = store.read(table)
        text_columns = [f.name for f in df.schema.fields if f.dataType.simpleString() == "string"]
        hits = df.filter(F.concat_ws("|", *[F.coalesce(F.col(c), F.lit("")) for c in text_columns]).contains(SECRET))
        assert hits.count() == 0, table
    static = {r["name"]: r for r in store.read("static_configs").collect()}
    assert static["ssl.keystore.password"]["value"] == "[redacted]"
    assert static["ssl.keystore.password"]["value_hash"].startswith("hmac-sha256:")
    assert static["log.segment.bytes"]["value"] == "1048576"
    payloads = [
        json.loads(r["payload"])
        for r in store.read("metadata_records").filter(F.col("record_type") == "CONFIG_RECORD").collect()
    ]
    assert payloads and all(p["value"] == "[redacted]" and p["valueHash"] for p in payloads)
    assert store.read("quarantine").count() >= 2  # the broken dump line, the broken JSON line, the bad properties line


def test_a_missing_input_is_one_line_and_exit_code_2(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["ingest", "--input", "/nonexistent/path", "--warehouse", str(warehouse)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().count("\n") == 0 and "does not exist" in err


@pytest.mark.parametrize("small", [True, False], ids=["small-one-task", "large-by-cluster"])
def test_each_cluster_lands_in_one_bronze_file_with_the_same_rows_either_way(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small: bool
) -> None:
    fleet = tmp_path / "fleet"
    synth.run(FleetSpec(out=str(fleet), clusters=3, brokers=2, topics=4, partitions=1, seed=3, overwrite=True))
    if not small:  # every input over the line: decoded in several tasks, then gathered by cluster
        monkeypatch.setattr(ingest_job, "SMALL_INPUT_BYTES", 0)
        monkeypatch.setattr(ingest_load, "SMALL_INPUT_BYTES", 0)
    ingest(spark, tmp_path / "wh", fleet)
    table = tmp_path / "wh" / "metadata_records"
    files = Counter(p.parent.name for p in table.rglob("*.parquet"))
    assert len(files) == 3 and set(files.values()) == {1}  # a task writes one file per cluster it holds
    records = open_store(spark, str(tmp_path / "wh")).read("metadata_records")
    by_file = {(r["source_file"], r["offset"], r["record_type"]) for r in records.collect()}
    assert len(by_file) == records.count() > 0
    monkeypatch.undo()
    ingest(spark, tmp_path / "wh2", fleet)  # the session's default path: the same rows
    again = open_store(spark, str(tmp_path / "wh2")).read("metadata_records")
    assert {(r["source_file"], r["offset"], r["record_type"]) for r in again.collect()} == by_file


def test_a_small_input_read_and_decoded_by_the_driver_lands_the_rows_the_executors_land(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every input kind, a corrupt batch, a bad text line and an unrecognised file: the same bronze rows whether the
    driver or the executors decode them, and no Spark job hashes or decodes the driver's."""
    cluster, _props = planted_inputs(tmp_path)
    config = (4, 0, {"resourceType": 2, "resourceName": "t", "name": "retention.ms", "value": "1000"})
    good = encode_log_segment([config] * 3, records_per_batch=1)
    (cluster / "__cluster_metadata-0" / "00000000000000000100.log").write_bytes(good[:40] + b"\xff" + good[41:])
    (cluster / "notes.txt").write_text("just some notes\n")

    with counting(spark) as jobs:
        driver = ingest(spark, tmp_path / "driver", cluster)
    # no job hashes or decodes: every job there is a write of Delta Lake's (or its bookkeeping)
    assert not [d for d in jobs.by_description if d and ("hashing" in d or "decoding" in d)], jobs.by_description
    monkeypatch.setattr(ingest_job, "SMALL_INPUT_BYTES", 0)
    monkeypatch.setattr(ingest_load, "SMALL_INPUT_BYTES", 0)  # every input over the line: read by the executors
    executors = ingest(spark, tmp_path / "executors", cluster)

    def rows(warehouse: Path, table: str) -> list[tuple[object, ...]]:
        df = open_store(spark, str(warehouse)).read(table).drop("ingest_id", "ingested_at")
        return sorted((tuple(r) for r in df.collect()), key=repr)

    for table in ("metadata_records", "quarantine", "ingested_files"):
        assert rows(tmp_path / "driver", table) == rows(tmp_path / "executors", table), table
    quarantined = rows(tmp_path / "driver", "quarantine")
    # the corrupt batch, the broken dump line, the broken JSON line and the unrecognised file
    assert len(quarantined) == driver.quarantined == executors.quarantined == 4  # type: ignore[attr-defined]
    assert driver.records == executors.records > 0  # type: ignore[attr-defined]
    assert driver.records_by_type == executors.records_by_type  # type: ignore[attr-defined]


def test_the_driver_reads_only_regular_files_within_the_limit(tmp_path: Path) -> None:
    """``_read_files`` hands the files to the executors (None) rather than block on a FIFO or hold too much."""
    segment = tmp_path / SEGMENT
    segment.write_bytes(b"x" * 100)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def item(path: Path) -> InputFile:
        return InputFile(
            path=str(path), cluster_id="c", input_kind="LOG_SEGMENT", size_bytes=100, snapshot_end_offset=None
        )

    assert ingest_hashing.read_files([item(segment)], 100) == {str(segment): b"x" * 100}
    assert ingest_hashing.read_files([item(segment)], 99) is None
    assert ingest_hashing.read_files([item(segment), item(fifo)], 1000) is None  # returns at once
    assert ingest_hashing.read_files([item(tmp_path / "gone")], 1000) is None


def test_an_input_over_the_small_line_is_hashed_by_the_driver_and_lands_the_rows_the_executors_hashing_lands(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above ``SMALL_INPUT_BYTES`` the executors decode, but the driver hashes (no hashing job) unless the input is
    over ``DRIVER_HASH_BYTES``; the hashes are each file's sha256, and the bronze tables come out the same."""
    cluster, _props = planted_inputs(tmp_path)
    monkeypatch.setattr(ingest_job, "SMALL_INPUT_BYTES", 0)
    monkeypatch.setattr(ingest_load, "SMALL_INPUT_BYTES", 0)  # every input over the line: decoded by the executors
    with counting(spark) as jobs:
        ingest(spark, tmp_path / "driver", cluster)
    assert not any(d.startswith("hashing") for d in jobs.by_description)
    assert any(d.startswith("decoding") for d in jobs.by_description)
    monkeypatch.setattr(ingest_hashing, "DRIVER_HASH_BYTES", 0)  # and over this line: hashed by the executors too
    with counting(spark) as jobs:
        ingest(spark, tmp_path / "executors", cluster)
    assert any(d.startswith("hashing") for d in jobs.by_description)

    def rows(warehouse: Path, table: str) -> list[tuple[object, ...]]:
        df = open_store(spark, str(warehouse)).read(table).drop("ingest_id", "ingested_at")
        return sorted((tuple(r) for r in df.collect()), key=repr)

    for table in ("metadata_records", "quarantine", "ingested_files"):
        assert rows(tmp_path / "driver", table) == rows(tmp_path / "executors", table), table
    landed = open_store(spark, str(tmp_path / "driver")).read("ingested_files").collect()
    assert len(landed) >= 3
    for row in landed:
        assert row["file_sha256"] == hashlib.sha256(Path(row["source_file"]).read_bytes()).hexdigest()


def test_the_driver_hashes_only_regular_files(tmp_path: Path) -> None:
    """``_hash_in_driver`` hands the input to the executors (None) rather than block on a FIFO or skip a file."""
    segment = tmp_path / SEGMENT
    segment.write_bytes(b"kraft" * 300_000)  # more than one read chunk
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def item(path: Path) -> InputFile:
        return InputFile(
            path=str(path), cluster_id="c", input_kind="LOG_SEGMENT", size_bytes=100, snapshot_end_offset=None
        )

    expected = hashlib.sha256(b"kraft" * 300_000).hexdigest()
    assert ingest_hashing.hash_in_driver([item(segment)]) == {str(segment): expected}
    assert ingest_hashing.hash_in_driver([item(segment), item(fifo)]) is None  # returns at once
    assert ingest_hashing.hash_in_driver([item(tmp_path / "gone")]) is None
