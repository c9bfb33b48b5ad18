"""#16 item 10: ingests running side by side into one warehouse never store a file's rows twice.

The interleaving is made deterministic: the first ingest is paused at its commit point (the ``ingested_files``
append, after its data commits) while a second ingest runs to the end; then the first one commits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs import ingest
from jobs.ingest_steps import load
from jobs.storage import open_store
from transforms.decode.binary.encode import encode_log_segment

SEGMENT = "00000000000000000000.log"


def _cluster(root: Path, name: str, records: int) -> Path:
    path = root / name / "__cluster_metadata-0" / SEGMENT
    path.parent.mkdir(parents=True)
    config = (4, 0, {"resourceType": 2, "resourceName": "t", "name": "retention.ms", "value": "1000"})
    path.write_bytes(encode_log_segment([config] * records))
    (root / name / "server.properties").write_text("node.id=1\nlog.retention.ms=1000\n", encoding="utf-8")
    return path.parent


def _settings(warehouse: Path, directory: Path, cluster: str) -> ingest.IngestSettings:
    props = str(directory.parent / "server.properties")
    return ingest.IngestSettings(
        inputs=(str(directory),), warehouse=str(warehouse), cluster_id=cluster, static_configs=(props,)
    )


def _pause_at_commit(monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], Any]) -> list[Any]:
    """Run ``meanwhile`` once, just before the first ``ingested_files`` commit; returns its result in a list."""
    real = load.commit_ingested_files
    started: list[bool] = []
    done: list[Any] = []

    def paused(*args: Any, **kwargs: Any) -> None:
        if not started:  # the ingest run meanwhile passes through here too: it goes straight on
            started.append(True)
            done.append(meanwhile())
        real(*args, **kwargs)

    monkeypatch.setattr(load, "commit_ingested_files", paused)
    return done


def _counts(spark: SparkSession, warehouse: Path) -> dict[str, dict[str, int]]:
    store = open_store(spark, str(warehouse))
    return {
        table: {
            r["cluster_id"]: r["n"]
            for r in store.read(table).groupBy("cluster_id").agg(F.count("*").alias("n")).collect()
        }
        for table in ("metadata_records", "ingested_files", "static_configs")
    }


def test_two_ingests_of_the_same_input_store_its_rows_once(
    spark: SparkSession, warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = _cluster(tmp_path, "same", 4)
    settings = _settings(warehouse, directory, "same")
    other = _pause_at_commit(monkeypatch, lambda: ingest.run(spark, settings))
    first = ingest.run(spark, settings)
    second = other[0]
    assert second.files_ingested == 1 and second.records == 4
    # The paused ingest lost the race: its rows were undone and its next attempt found the file unchanged.
    assert first.files_ingested == 0 and first.files_unchanged == 1
    assert _counts(spark, warehouse) == {
        "metadata_records": {"same": 4},
        "ingested_files": {"same": 1},
        "static_configs": {"same": 2},  # node.id and log.retention.ms, once
    }
    history = open_store(spark, str(warehouse)).history("metadata_records")
    assert any("UNDO" in str(commit) for commit in history)


def test_ingests_of_different_clusters_side_by_side_both_commit(
    spark: SparkSession, warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _cluster(tmp_path, "one", 3), _cluster(tmp_path, "two", 5)
    other = _pause_at_commit(monkeypatch, lambda: ingest.run(spark, _settings(warehouse, two, "two")))
    first = ingest.run(spark, _settings(warehouse, one, "one"))
    assert first.files_ingested == 1 and other[0].files_ingested == 1  # a retry at the newer version, no undo
    assert _counts(spark, warehouse) == {
        "metadata_records": {"one": 3, "two": 5},
        "ingested_files": {"one": 1, "two": 1},
        "static_configs": {"one": 2, "two": 2},
    }
    history = open_store(spark, str(warehouse)).history("metadata_records")
    assert not any("UNDO" in str(commit) for commit in history)
