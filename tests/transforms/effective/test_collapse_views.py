"""``collapse_node_views``: one row per entity and key where the hosting brokers agree, one per broker where they
differ, and none for the keys the entity sets itself (``own_keys_df``). ``collapse_cluster_views``: the same rows
for an entity every broker with a view hosts (a group).

Two brokers: both resolve ``a`` to 1; broker 1 resolves ``b`` to 1 and broker 2 to 2. Every entity is hosted by
both, so ``a`` is shared (``node_id`` NULL) and ``b`` is one row per broker, unless the entity sets the key.
"""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from transforms.effective.common import collapse_cluster_views, collapse_node_views, resolved


def _views(spark: SparkSession) -> DataFrame:
    raw_df = spark.createDataFrame(
        [("c1", 1, "a", "1"), ("c1", 2, "a", "1"), ("c1", 1, "b", "1"), ("c1", 2, "b", "2")],
        "cluster_id string, node_id int, config_name string, value string",
    )
    return raw_df.select(
        "cluster_id", "node_id", "config_name", resolved(value=raw_df.value, release_rank=raw_df.node_id).alias("r")
    )


def _hosts(spark: SparkSession, *entities: str) -> DataFrame:
    return spark.createDataFrame(
        [("c1", e, n) for e in entities for n in (1, 2)], "cluster_id string, entity string, node_id int"
    )


def _rows(df: DataFrame) -> set[tuple[Any, ...]]:
    return {(r.entity, r.node_id, r.config_name, r.r.value) for r in df.collect()}


ALL_INHERITED = {(None, "a", "1"), (1, "b", "1"), (2, "b", "2")}


def test_agreeing_brokers_give_one_row_and_differing_brokers_one_each(spark: SparkSession) -> None:
    rows = _rows(collapse_node_views(_hosts(spark, "e"), _views(spark)))
    assert rows == {("e", *row) for row in ALL_INHERITED}


@pytest.mark.parametrize(
    ("own", "expected"),
    [
        ([], ALL_INHERITED),
        (["a"], {(1, "b", "1"), (2, "b", "2")}),  # a shared key the entity sets: no row
        (["b"], {(None, "a", "1")}),  # a per-broker key the entity sets: no row for any broker
        (["a", "b"], set()),
        (["z"], ALL_INHERITED),  # a key no broker view has changes nothing
    ],
)
def test_keys_the_entity_sets_get_no_inherited_row(
    spark: SparkSession, own: list[str], expected: set[tuple[Any, ...]]
) -> None:
    own_df = spark.createDataFrame(
        [("c1", "e", k) for k in own] + [("c1", "other", "a"), ("c2", "e", "b")],  # other entities' keys do not count
        "cluster_id string, entity string, config_name string",
    )
    rows = _rows(collapse_node_views(_hosts(spark, "e", "other"), _views(spark), own_keys_df=own_df))
    assert {row[1:] for row in rows if row[0] == "e"} == expected
    assert {row[1:] for row in rows if row[0] == "other"} == {(1, "b", "1"), (2, "b", "2")}


def test_a_cluster_wide_entity_gets_the_rows_of_its_brokers_views(spark: SparkSession) -> None:
    """Broker 3 of c1 resolves ``a`` to 1 at release rank 0 (brokers 1 and 2: ranks 1 and 2) and has no ``b``; c2's
    one broker has ``b`` only. c1's ``a``: the three views agree, one row taken from the oldest release's view
    (broker 3's); c1's ``b``: one row per broker that has it; c2's ``b``: its only view, shared."""
    extra_df = spark.createDataFrame(
        [("c1", 3, "a", "1", 0), ("c2", 7, "b", "5", 4)],
        "cluster_id string, node_id int, config_name string, value string, rank int",
    ).select(
        "cluster_id", "node_id", "config_name", resolved(value=F.col("value"), release_rank=F.col("rank")).alias("r")
    )
    rows = {
        (r.cluster_id, r.node_id, r.config_name, r.r.value, r.r.release_rank)
        for r in collapse_cluster_views(_views(spark).unionByName(extra_df)).collect()
    }
    assert rows == {
        ("c1", None, "a", "1", 0),
        ("c1", 1, "b", "1", 1),
        ("c1", 2, "b", "2", 2),
        ("c2", None, "b", "5", 4),
    }


def test_a_key_every_view_agrees_on_is_shared_only_when_every_view_has_it(spark: SparkSession) -> None:
    """Brokers 1 and 2 agree on ``c``; broker 3 has ``d`` but not ``c``: ``c`` is per broker, and so is ``d``,
    which only broker 3 has."""
    raw_df = spark.createDataFrame(
        [("c1", 1, "c", "9"), ("c1", 2, "c", "9"), ("c1", 3, "d", "0")],
        "cluster_id string, node_id int, config_name string, value string",
    )
    views_df = raw_df.select("cluster_id", "node_id", "config_name", resolved(value=raw_df.value).alias("r"))
    rows = {(r.node_id, r.config_name) for r in collapse_cluster_views(views_df).collect()}
    assert rows == {(1, "c"), (2, "c"), (3, "d")}
