"""How a job holds the frames it computes once (jobs.runtime.holding): local relations for small inputs, local
checkpoints otherwise, the same rows either way."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, LongType, MapType, StringType, StructField, StructType, TimestampType

from benchmarks.jobcount import counting
from jobs.runtime.holding import (
    INTERPRETED,
    INTERPRETED_RECORDS,
    LOCAL_ROWS,
    SMALL_INPUT_BYTES,
    SMALL_INPUT_RECORDS,
    SMALL_INPUT_SETTINGS,
    Checkpoints,
    by_cluster,
    held_locally,
    held_rows,
    interpreted,
    interpreted_input,
    local_rows_for,
    one_job,
    plans_for,
    row_count,
    session_settings,
    small_input,
    small_plans,
    truncated,
)
from jobs.storage import open_store
from transforms.kit.checkpoints import as_planned
from transforms.kit.local_frames import local_frame

SCHEMA = StructType(
    [
        StructField("id", LongType(), False),
        StructField("name", StringType(), True),
        StructField("at", TimestampType(), True),
        StructField("tags", ArrayType(StringType()), True),
        StructField("cfg", MapType(StringType(), StringType()), True),
    ]
)
ROWS = [
    (1, "a", datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC), ["x", None], {"k": "v", "n": None}),
    (2, None, None, None, None),
    (3, "c", datetime(1970, 1, 1, tzinfo=UTC), [], {}),
]


def _leaf(df: object) -> str:
    """The class name of the analysed plan's only leaf."""
    plan = df._jdf.queryExecution().analyzed()  # type: ignore[attr-defined]
    leaves = plan.collectLeaves()
    assert leaves.size() == 1
    return str(leaves.apply(0).getClass().getSimpleName())


def test_the_limit_follows_the_input_size() -> None:
    assert local_rows_for(0) == LOCAL_ROWS
    assert local_rows_for(SMALL_INPUT_RECORDS) == LOCAL_ROWS
    assert local_rows_for(SMALL_INPUT_RECORDS + 1) == 0


@pytest.mark.parametrize(
    ("local_rows", "leaf"),
    [(0, "LogicalRDD"), (2, "LogicalRDD"), (3, "LocalRelation"), (LOCAL_ROWS, "LocalRelation")],
    ids=["checkpoint-by-default", "over-the-limit-checkpoint", "at-the-limit-local", "small-local"],
)
def test_a_frame_is_held_as_a_local_relation_up_to_the_limit_with_the_same_rows_and_schema(
    spark: SparkSession, local_rows: int, leaf: str
) -> None:
    planned = spark.createDataFrame(ROWS, SCHEMA).where(F.col("id") > 0)
    held = truncated(planned, local_rows=local_rows)
    assert _leaf(held) == leaf
    assert held.schema == planned.schema
    assert sorted(held.collect()) == sorted(planned.collect())


def test_checkpoints_hold_each_name_once_with_their_limit(spark: SparkSession) -> None:
    keep = Checkpoints(local_rows=10)
    first = keep("rows", spark.createDataFrame(ROWS, SCHEMA))
    assert keep("rows", spark.range(1)) is first
    assert _leaf(first) == "LocalRelation"
    assert _leaf(Checkpoints()("rows", spark.createDataFrame(ROWS, SCHEMA))) == "LogicalRDD"
    only = Checkpoints(only={"rows"}, local_rows=10)
    planned = spark.createDataFrame(ROWS, SCHEMA)
    assert only("other", planned) is planned


def test_a_plan_given_as_a_function_is_built_only_when_its_name_is_not_held(spark: SparkSession) -> None:
    built: list[str] = []

    def plan(name: str) -> Callable[[], DataFrame]:
        def build() -> DataFrame:
            built.append(name)
            return spark.createDataFrame(ROWS, SCHEMA)

        return build

    keep = Checkpoints(only={"rows"}, local_rows=10)
    first = keep("rows", plan("rows"))
    assert keep("rows", plan("rows again")) is first
    assert sorted(first.collect()) == sorted(spark.createDataFrame(ROWS, SCHEMA).collect())
    assert _leaf(first) == "LocalRelation"
    # a name the keep does not hold, and the default keep: the plan is built and left as it is
    assert _leaf(keep("other", plan("other"))) == _leaf(as_planned("rows", plan("as planned"))) == "LogicalRDD"
    assert built == ["rows", "other", "as planned"]


def test_interpreted_sets_both_switches_and_gives_back_what_was_there(spark: SparkSession) -> None:
    conf = spark.conf
    whole_stage, factory = INTERPRETED
    before = {key: conf.get(key, None) for key in INTERPRETED}
    # the outer block gives the session a known state (one switch set, one unset) and takes it back afterwards
    with session_settings(spark, {whole_stage: "true", factory: None}):
        assert (conf.get(whole_stage), conf.get(factory, None)) == ("true", None)
        with interpreted(spark):
            assert (conf.get(whole_stage), conf.get(factory)) == ("false", "NO_CODEGEN")
            assert spark.range(3).selectExpr("sum(id * 2) AS s").collect()[0]["s"] == 6
        assert (conf.get(whole_stage), conf.get(factory, None)) == ("true", None)  # unset again, not its default
        with pytest.raises(ZeroDivisionError), interpreted(spark):
            raise ZeroDivisionError
        assert conf.get(whole_stage) == "true"
        with interpreted(spark, when=False):
            assert conf.get(whole_stage) == "true"
    assert {key: conf.get(key, None) for key in INTERPRETED} == before


def test_small_plans_run_a_join_and_an_aggregate_as_one_job_and_give_the_session_back(spark: SparkSession) -> None:
    conf = spark.conf
    before = {key: conf.get(key, None) for key in SMALL_INPUT_SETTINGS}
    left = spark.createDataFrame([(i, f"k{i % 3}") for i in range(30)], "id long, key string")
    right = spark.createDataFrame([("k0", 10), ("k1", 20), ("k2", 30)], "key string, weight int")

    def totals() -> dict[str, int]:
        # planned where it is built: the broadcast hint is dropped (or kept) when the frame is analysed
        query = left.join(F.broadcast(right), on="key").groupBy("key").agg(F.sum("weight").alias("total"))
        return {r["key"]: r["total"] for r in query.collect()}

    expected = {"k0": 100, "k1": 200, "k2": 300}  # ten ids per key, each joined to its one weight
    with small_plans(spark):
        assert {key: conf.get(key) for key in SMALL_INPUT_SETTINGS} == SMALL_INPUT_SETTINGS
        with counting(spark) as jobs:
            assert totals() == expected
        assert jobs.total == 1  # no broadcast job, no adaptive stage: the action and its shuffles are one job
    assert {key: conf.get(key, None) for key in SMALL_INPUT_SETTINGS} == before
    with small_plans(spark, when=False):
        assert {key: conf.get(key, None) for key in SMALL_INPUT_SETTINGS} == before
    assert totals() == expected  # the same rows with the session's own planning


def test_holding_a_frame_of_several_partitions_is_one_job_with_small_plans(spark: SparkSession) -> None:
    # a narrow plan over a local relation of two partitions: its last stage has two tasks
    frame = spark.createDataFrame([(i, f"k{i % 3}") for i in range(30)], "id long, key string").where(F.col("id") > 3)
    with small_plans(spark), counting(spark) as jobs:
        held = held_locally(frame.select("*", F.rand().alias("r")), 100)  # rand: not folded while planning
    assert held is not None and held.count() == 26
    assert jobs.total == 1  # without trying every partition at once: one job for the first, one for the rest


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        (SMALL_INPUT_RECORDS, SMALL_INPUT_SETTINGS),  # small: no generated code, one partition
        (SMALL_INPUT_RECORDS + 1, INTERPRETED),  # mid-size: no generated code, the session's own partitions
        (INTERPRETED_RECORDS, INTERPRETED),
        (INTERPRETED_RECORDS + 1, {}),  # large: generated code and the session's planning
    ],
)
def test_the_plans_of_an_input_follow_its_size_and_the_session_gets_its_settings_back(
    spark: SparkSession, records: int, expected: dict[str, str]
) -> None:
    conf = spark.conf
    keys = list(SMALL_INPUT_SETTINGS)
    with session_settings(spark, dict.fromkeys(keys, None)):  # every one unset: what plans_for sets is all there is
        with plans_for(spark, records):
            assert {key: conf.get(key, None) for key in keys} == {key: expected.get(key) for key in keys}
            assert spark.range(4).selectExpr("sum(id * 2) AS s").collect()[0]["s"] == 12
        assert {key: conf.get(key, None) for key in keys} == dict.fromkeys(keys)
    assert SMALL_INPUT_RECORDS < INTERPRETED_RECORDS
    assert interpreted_input(INTERPRETED_RECORDS) and not interpreted_input(INTERPRETED_RECORDS + 1)


def test_a_small_input_is_judged_by_records_and_an_ingest_by_bytes() -> None:
    assert small_input(SMALL_INPUT_RECORDS) and not small_input(SMALL_INPUT_RECORDS + 1)
    # about 215 bytes a record of JSON lines (tests/data/e2e): the byte line stands for the same order of records
    assert SMALL_INPUT_RECORDS * 100 < SMALL_INPUT_BYTES < SMALL_INPUT_RECORDS * 400


def test_rows_the_driver_built_are_a_local_relation_with_the_same_rows_and_schema(spark: SparkSession) -> None:
    frame = local_frame(spark, ROWS, SCHEMA)
    assert _leaf(frame) == "LocalRelation"  # the rows are in the plan itself: no input is scanned to produce them
    assert frame.schema == SCHEMA
    assert sorted(frame.collect()) == sorted(spark.createDataFrame(ROWS, SCHEMA).collect())
    empty = local_frame(spark, [], SCHEMA)
    assert _leaf(empty) == "LocalRelation" and empty.schema == SCHEMA and empty.collect() == []


def test_a_collected_aggregate_is_one_job_without_adaptive_execution(spark: SparkSession) -> None:
    frame = spark.range(0, 1000).select((F.col("id") % 7).alias("k"), F.rand().alias("r"))  # rand: not folded
    with counting(spark) as adaptive:
        expected = frame.groupBy("k").count().collect()
    before = spark.conf.get("spark.sql.adaptive.enabled", None)
    with one_job(spark), counting(spark) as single:
        assert sorted(frame.groupBy("k").count().collect()) == sorted(expected)
    assert spark.conf.get("spark.sql.adaptive.enabled", None) == before
    assert (adaptive.total, single.total) == (2, 1)  # the shuffle's map side is no job of its own


def test_the_rows_of_a_held_frame_are_counted_from_its_plan_without_a_job(spark: SparkSession) -> None:
    held = local_frame(spark, ROWS, SCHEMA)
    per_name = Window.partitionBy("name")
    same_rows = held.withColumn("seen", F.count(F.lit(1)).over(per_name)).select("id", "seen").orderBy("id")
    kept = held.filter(F.col("name").isNotNull())  # folded into a local relation of the two rows that pass
    joined = held.join(held.select("id"), "id")  # a join is planned, not folded: its rows are not known
    with counting(spark) as jobs:
        counted = [held_rows(df) for df in (held, same_rows, kept, joined, spark.range(5))]
        assert [row_count(df) for df in (held, same_rows, kept)] == [3, 3, 2]
    assert counted == [3, 3, 2, None, None] and jobs.total == 0
    assert row_count(joined) == 3  # the others by a Spark job, as df.count()


def test_a_large_input_is_written_one_file_per_cluster_and_a_small_one_by_one_task(
    spark: SparkSession, tmp_path: Path
) -> None:
    # three clusters, each spread over all four partitions: Spark's writer opens a file per cluster in each task
    mixed_df = spark.range(0, 120, numPartitions=4).select(
        (F.col("id") % 3).cast("string").alias("cluster_id"), F.col("id").alias("n")
    )
    one_task_df = by_cluster(mixed_df, local_rows=LOCAL_ROWS)  # a small input's frame: written by one task
    assert one_task_df.rdd.getNumPartitions() == 1 and sorted(one_task_df.collect()) == sorted(mixed_df.collect())
    clustered_df = by_cluster(mixed_df, local_rows=0)
    per_task = clustered_df.groupBy(F.spark_partition_id().alias("task")).agg(
        F.collect_set("cluster_id").alias("clusters")
    )
    seen = [c for row in per_task.collect() for c in row["clusters"]]
    assert sorted(seen) == ["0", "1", "2"]  # no cluster is in two tasks
    assert sorted(clustered_df.collect()) == sorted(mixed_df.collect())

    def files_written(df: DataFrame, name: str) -> int:
        store = open_store(spark, str(tmp_path / name))
        store.ensure("t", df.schema, ["cluster_id"])
        store.append("t", df)
        assert store.read("t").count() == 120
        return len(list((tmp_path / name / "t").rglob("*.parquet")))

    assert files_written(mixed_df, "mixed") == 12
    assert files_written(clustered_df, "clustered") == 3
    assert files_written(one_task_df, "one-task") == 3


def test_a_checkpointed_frame_is_computed_when_held_and_keeps_no_lineage(spark: SparkSession) -> None:
    # why: tests/jobs/test_held_lineage.py and the module docstring of jobs.runtime.holding
    planned = spark.range(0, 1000, numPartitions=3).groupBy((F.col("id") % 7).alias("k")).count()
    with counting(spark) as jobs:
        held = truncated(planned, local_rows=0)
    assert jobs.total >= 1  # computed here, not by the first plan that reads it
    leaf = held._jdf.queryExecution().analyzed().collectLeaves().apply(0)
    assert str(leaf.getClass().getSimpleName()) == "LogicalRDD"
    assert leaf.rdd().isCheckpointed()
    assert sorted(held.collect()) == sorted(planned.collect())
