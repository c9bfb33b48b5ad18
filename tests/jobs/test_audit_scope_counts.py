"""The audit's scope: records and quarantined rows per cluster, from one aggregate over both tables."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.audit_steps.extract import rows_per_cluster
from jobs.storage import DeltaStore, open_store

pytestmark = pytest.mark.spark

_SCHEMA = "cluster_id string, offset long"
# Cluster a: 3 records and 1 quarantined row; b: only 2 quarantined rows; c: 2 records.
_RECORDS = [("a", 0), ("a", 1), ("a", 2), ("c", 0), ("c", 1)]
_QUARANTINED = [("a", 9), ("b", 0), ("b", 1)]


@pytest.fixture(scope="module")
def store(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> DeltaStore:
    store = open_store(spark, str(tmp_path_factory.mktemp("scope") / "warehouse"))
    for table, data in (("metadata_records", _RECORDS), ("quarantine", _QUARANTINED)):
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
def test_one_aggregate_counts_records_and_quarantined_rows_per_cluster(
    spark: SparkSession, store: DeltaStore, cluster_ids: list[str], expected: dict[str, tuple[int, int]]
) -> None:
    records_df = store.read("metadata_records")
    if cluster_ids:
        records_df = records_df.filter(F.col("cluster_id").isin(cluster_ids))
    assert rows_per_cluster(store, records_df, cluster_ids) == expected
