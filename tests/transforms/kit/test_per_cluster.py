"""``per_cluster_column``: a per-cluster setting as a Column (a literal when no cluster has its own)."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from schemas.per_cluster import PerCluster
from transforms.kit.audit_scope import with_release_at_least
from transforms.kit.per_cluster import per_cluster_column

pytestmark = pytest.mark.spark


def test_each_cluster_gets_its_value_and_the_others_the_runs(spark: SparkSession) -> None:
    df = spark.createDataFrame([("eu",), ("us",), ("ap",), (None,)], "cluster_id string")
    setting = PerCluster("4.2", (("eu", "4.1"), ("ap", "4.3"), ("us", "4.2")))
    rows = df.select("cluster_id", per_cluster_column(setting, F.lit).alias("v")).collect()
    assert {r["cluster_id"]: r["v"] for r in rows} == {"eu": "4.1", "us": "4.2", "ap": "4.3", None: "4.2"}


def test_a_run_wide_value_is_a_literal(spark: SparkSession) -> None:
    column = per_cluster_column("4.2", F.lit)
    assert spark.range(1).select(column.alias("v")).first()["v"] == "4.2"
    assert "CASE" not in str(per_cluster_column(PerCluster("4.2", (("eu", "4.2"),)), F.lit))


def test_brokers_are_raised_to_their_clusters_target_release(spark: SparkSession) -> None:
    brokers_df = spark.createDataFrame(
        [("eu", 1, "3.9"), ("eu", 2, "4.3"), ("us", 1, "3.9"), ("us", 2, None)],
        "cluster_id string, node_id int, kafka_release string",
    )
    raised_df = with_release_at_least(brokers_df, release=PerCluster("4.2", (("eu", "4.1"),)))
    assert sorted(tuple(r) for r in raised_df.collect()) == [
        ("eu", 1, "4.1"),
        ("eu", 2, "4.3"),  # newer than its target: kept
        ("us", 1, "4.2"),
        ("us", 2, "4.2"),
    ]
