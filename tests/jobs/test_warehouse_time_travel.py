"""``audit --warehouse-version N`` / ``--warehouse-as-of TS``: the bronze tables as the warehouse held them (Delta time
travel), issue 59.

Two ingests into one warehouse: cluster ``first`` (the hand-written JSON-lines cluster of tests/data/e2e), then
cluster ``second`` (the same file under another cluster id). ``metadata_records`` has one version per ingest, so an
audit at the first one's version, or at an instant between the two, reads ``first`` alone; the latest reads both.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from jobs.audit import AuditSettings
from jobs.audit_steps.extract import bronze_versions
from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> tuple[Path, list[int]]:
    tmp = tmp_path_factory.mktemp("time-travel")
    versions = []
    for cluster in ("first", "second"):
        (tmp / cluster).mkdir()
        shutil.copy(DATA / "cluster.jsonl", tmp / cluster / "cluster.jsonl")
        code = cli_main(["ingest", "--input", str(tmp / cluster), "--warehouse", str(tmp / "warehouse"), "-q"])
        assert code == 0
        versions.append(open_store(spark, str(tmp / "warehouse")).version("metadata_records"))
    assert versions[0] < versions[1]
    return tmp, versions


def _audit(tmp: Path, name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    summary = tmp / f"{name}.json"
    args = ["audit", "--target-mv", "4.2", "--warehouse", str(tmp / "warehouse"), "--no-dq", "-q"]
    args += [
        "--no-default-constraints",
        "--constraints",
        str(DATA / "segment-rule.yaml"),
        "--summary-json",
        str(summary),
    ]
    code = cli_main([*args, *extra])
    return code, json.loads(summary.read_text()) if summary.exists() else {}


def test_a_past_version_audits_what_the_warehouse_held_then_and_leaves_the_lifecycle_alone(
    spark: SparkSession, warehouse: tuple[Path, list[int]]
) -> None:
    tmp, versions = warehouse
    store = open_store(spark, str(tmp / "warehouse"))
    status_before = store.version("violation_status") if store.exists("violation_status") else None
    code, summary = _audit(tmp, "at-version", "--warehouse-version", str(versions[0]))
    assert (code, summary["clusters"]) == (0, ["first"])
    status_after = store.version("violation_status") if store.exists("violation_status") else None
    assert status_after == status_before  # a point-in-time audit does not move the current lifecycle


def _settings(tmp: Path, **time_travel: Any) -> AuditSettings:
    return AuditSettings(target_mv="4.2", warehouse=str(tmp / "warehouse"), **time_travel)


def test_each_bronze_table_is_read_at_its_version_of_that_point(
    spark: SparkSession, warehouse: tuple[Path, list[int]]
) -> None:
    tmp, versions = warehouse
    store = open_store(spark, str(tmp / "warehouse"))
    first, second = (store.commit_time("metadata_records", v) for v in versions)
    assert first is not None and second is not None and first < second
    latest = {t: store.version(t) for t in ("metadata_records", "static_configs", "quarantine")}
    assert bronze_versions(store, _settings(tmp)) == latest
    # between the ingests: metadata_records at the first ingest's version, the other tables as they were then
    at_first = bronze_versions(store, _settings(tmp, warehouse_as_of=first))
    assert at_first["metadata_records"] == versions[0]
    assert at_first == {t: store.version_as_of(t, first) for t in latest}
    assert bronze_versions(store, _settings(tmp, warehouse_version=versions[0])) == at_first
    # after the last commit: the latest versions
    assert bronze_versions(store, _settings(tmp, warehouse_as_of=second + timedelta(seconds=1))) == latest
    # the rows Spark reads at those versions: the first cluster alone, then both
    clusters = store.read("metadata_records", version=at_first["metadata_records"]).select("cluster_id").distinct()
    assert sorted(r[0] for r in clusters.collect()) == ["first"]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--warehouse-version", "9999", "--warehouse-version 9999: metadata_records has versions 0 to"),
        ("--warehouse-as-of", "2001-01-01T00:00:00Z", "nothing had been ingested in the warehouse then"),
        ("--warehouse-as-of", "yesterday", "--warehouse-as-of 'yesterday' is not an ISO-8601 instant"),
    ],
)
def test_a_point_the_warehouse_never_had_is_one_line_and_exit_2(
    warehouse: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str], option: str, value: str, message: str
) -> None:
    tmp, _ = warehouse
    code, _ = _audit(tmp, f"bad-{option}-{value[:4]}", option, value)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err
