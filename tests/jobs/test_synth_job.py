"""``kraft-audit synth``: the files, their layout and the manifest on disk; determinism across runs and workers;
usage errors. Pure Python (no Spark)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from jobs.cli import main as cli_main
from jobs.discover import discover_inputs
from jobs.synth import main as synth_main
from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.binary.decode import decode_file

SEGMENT = re.compile(r"^\d{20}\.log$")
SNAPSHOT = re.compile(r"^(\d{20})-\d{10}\.checkpoint$")
SMALL = ["--clusters", "3", "--brokers", "2", "--topics", "8", "--partitions", "2", "--segment-records", "60"]


def synth(out: Path, *options: str) -> int:
    return cli_main(["synth", "--out", str(out), *SMALL, *options])


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def decode(path: Path) -> list[DecodedRecord]:
    name = path.name
    match = SNAPSHOT.match(name)
    if SEGMENT.match(name):
        items = list(decode_file(path.read_bytes(), kind="LOG_SEGMENT"))
    elif match:
        items = list(decode_file(path.read_bytes(), kind="SNAPSHOT", snapshot_end_offset=int(match.group(1))))
    else:
        assert name == "bootstrap.checkpoint"
        items = list(decode_file(path.read_bytes(), kind="BOOTSTRAP_SNAPSHOT", snapshot_end_offset=0))
    assert not [item for item in items if isinstance(item, QuarantineItem)], path
    return [item for item in items if isinstance(item, DecodedRecord)]


def test_writes_the_documented_layout_and_a_manifest_that_matches_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fleet"
    assert synth(out, "--violation-rate", "0.3", "--seed", "5") == 0
    summary = capsys.readouterr().out
    assert summary.startswith("synth: wrote 3 cluster(s) (6 brokers, 24 topics, 48 partitions)")
    assert "records/s" in summary and str(out / "manifest.json") in summary
    fleet = manifest(out)
    assert fleet["parameters"]["clusters"] == 3 and fleet["parameters"]["seed"] == 5
    assert fleet["totals"]["bytes"] == sum(len(data) for name, data in tree(out).items() if name != "manifest.json")
    assert {p.name for p in out.iterdir()} == {"manifest.json", *(c["directory"] for c in fleet["clusters"])}
    for cluster in fleet["clusters"]:
        root = out / cluster["directory"]
        meta = dict(line.split("=", 1) for line in (root / "meta.properties").read_text().splitlines() if "=" in line)
        assert meta["cluster.id"] == cluster["cluster_id"] and len(meta["cluster.id"]) == 22
        assert meta["version"] == "1" and int(meta["node.id"]) in cluster["controllers"]
        on_disk = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
        assert on_disk == {f["path"] for f in cluster["files"]}
        records = 0
        for entry in cluster["files"]:
            path = root / entry["path"]
            assert path.stat().st_size == entry["bytes"]
            if entry["kind"] == "META_PROPERTIES":
                continue
            decoded = decode(path)
            assert len(decoded) == entry["records"]
            if entry["kind"] == "LOG_SEGMENT":
                assert path.parent.name == "__cluster_metadata-0" and SEGMENT.match(path.name)
                assert decoded[0].offset == entry["base_offset"] == int(path.stem)
                records += len(decoded)
            elif entry["kind"] == "SNAPSHOT":
                assert SNAPSHOT.match(path.name) and entry["base_offset"] == cluster["snapshot_end_offset"]
        assert records + cluster["deleted_records"] == cluster["log_end_offset"]
        assert cluster["metadata_version"].startswith(cluster["release"] + "-IV")
        assert cluster["violations"] == sum(v["cluster"] == cluster["name"] for v in fleet["violations"])
    assert fleet["violations"] and fleet["decoys"] and len(fleet["secrets"]) == 3
    assert all(s["value"] == "[redacted]" and s["value_sha256"] for s in fleet["secrets"])


def test_discovery_reads_the_cluster_id_from_meta_properties(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    assert synth(out) == 0
    for cluster in manifest(out)["clusters"]:
        found = discover_inputs([str(out / cluster["directory"])])
        kinds = sorted(f.input_kind or "" for f in found.files)
        assert {f.cluster_id for f in found.files} == {cluster["cluster_id"]}
        assert kinds.count("BOOTSTRAP_SNAPSHOT") == 1 and kinds.count("SNAPSHOT") == 1 and "LOG_SEGMENT" in kinds


def test_same_seed_writes_byte_identical_fleets(tmp_path: Path) -> None:
    assert synth(tmp_path / "a", "--seed", "11") == 0
    assert synth(tmp_path / "b", "--seed", "11") == 0
    assert synth(tmp_path / "c", "--seed", "12") == 0
    first = tree(tmp_path / "a")
    assert first == tree(tmp_path / "b")
    assert first != tree(tmp_path / "c")


def test_worker_processes_write_the_same_bytes(tmp_path: Path) -> None:
    assert synth(tmp_path / "one", "--workers", "1") == 0
    assert synth(tmp_path / "two", "--workers", "2") == 0
    assert tree(tmp_path / "one") == tree(tmp_path / "two")


def test_no_snapshot_keeps_the_whole_log_from_offset_zero(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    assert synth(out, "--no-snapshot") == 0
    for cluster in manifest(out)["clusters"]:
        kinds = [f["kind"] for f in cluster["files"]]
        assert "SNAPSHOT" not in kinds and cluster["snapshot_end_offset"] is None
        segments = [f for f in cluster["files"] if f["kind"] == "LOG_SEGMENT"]
        assert segments[0]["base_offset"] == 0 and len(segments) > 1
        assert sum(s["records"] for s in segments) == cluster["log_end_offset"]


def test_violation_rate_zero_lists_nothing(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    assert synth(out, "--violation-rate", "0") == 0
    fleet = manifest(out)
    assert fleet["violations"] == fleet["decoys"] == fleet["secrets"] == []


def test_summary_json_has_counts_and_speed(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    assert synth(tmp_path / "fleet", "--summary-json", str(summary)) == 0
    data = json.loads(summary.read_text())
    assert data["clusters"] == 3 and data["records"] > 0 and data["records_per_second"] > 0
    assert data["records"] == manifest(tmp_path / "fleet")["totals"]["records"]


def test_non_empty_out_needs_overwrite_and_overwrite_only_replaces_a_previous_fleet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fleet"
    assert synth(out) == 0
    assert synth(out) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert synth(out, "--overwrite", "--seed", "3") == 0
    assert manifest(out)["parameters"]["seed"] == 3
    foreign = tmp_path / "other"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    assert synth(foreign, "--overwrite") == 2
    assert (foreign / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "options",
    [["--brokers", "0"], ["--violation-rate", "2"], ["--segment-records", "1"], ["--workers", "-1"]],
    ids=["no-brokers", "rate-above-one", "tiny-segments", "negative-workers"],
)
def test_impossible_sizes_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    assert synth(tmp_path / "fleet", *options) == 2
    assert capsys.readouterr().err.startswith("kraft-audit: error: synth:")


def test_job_main_delegates_to_the_cli(tmp_path: Path) -> None:
    assert synth_main(["--out", str(tmp_path / "fleet"), "--clusters", "1", "--topics", "2"]) == 0
    assert manifest(tmp_path / "fleet")["totals"]["clusters"] == 1
