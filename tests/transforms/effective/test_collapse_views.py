"""``collapse_node_views``: one row per entity and key where the hosting brokers agree, one per broker where they
differ, and none for the keys the entity sets itself (``own_keys_df``).

Two brokers: both resolve ``a`` to 1; broker 1 resolves ``b`` to 1 and broker 2 to 2. Every entity is hosted by
both, so ``a`` is shared (``node_id`` NULL) and ``b`` is one row per broker, unless the entity sets the key.
"""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from transforms.effective.common import collapse_node_views, resolved


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
