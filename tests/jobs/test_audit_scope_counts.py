"""The audit's scope: records and quarantined rows per cluster, from the tables' logs or, when a log cannot tell,
from one aggregate; both give the same counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from benchmarks.jobcount import counting
from jobs.audit import _rows_per_cluster
from jobs.storage import DeltaStore, open_store

pytestmark = pytest.mark.spark

_SCHEMA = "cluster_id string, offset long"


def _warehouse(spark: SparkSession, warehouse: Path) -> DeltaStore:
    """Cluster a: 3 records and 1 quarantined row; b: only 2 quarantined rows; c: 2 records."""
    store = open_store(spark, str(warehouse), backend="deltars")
    records = [("a", 0), ("a", 1), ("a", 2), ("c", 0), ("c", 1)]
    quarantined = [("a", 9), ("b", 0), ("b", 1)]
    for table, data in (("metadata_records", records), ("quarantine", quarantined)):
        df = spark.createDataFrame(data, _SCHEMA)
        store.ensure(table, df.schema, ["cluster_id"])
        store.append(table, df)
    return store


@pytest.mark.parametrize(
    ("cluster_ids", "expected"),
    [
        ([], {"a": (3, 1), "b": (0, 2), "c": (2, 0)}),
        (["a", "b"], {"a": (3, 1), "b": (0, 2)}),
    ],
    ids=["every-cluster", "two-clusters"],
)
def test_the_logs_and_the_aggregate_count_the_same(
    spark: SparkSession,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cluster_ids: list[str],
    expected: dict[str, tuple[int, int]],
) -> None:
    store = _warehouse(spark, tmp_path)
    records_df = store.read("metadata_records")
    if cluster_ids:
        records_df = records_df.filter(F.col("cluster_id").isin(cluster_ids))
    with counting(spark) as jobs:
        from_logs = _rows_per_cluster(store, records_df, cluster_ids)
    assert from_logs == expected
    assert jobs.total == 0
    monkeypatch.setattr(type(store), "rows_per_partition", lambda self, table, column, version=None: None)
    assert _rows_per_cluster(store, records_df, cluster_ids) == expected
