"""The replay pass reading each cluster's Parquet files itself (``replay_pass_of_files``) gives the rows of the pass
over the same records read by Spark (``replay_pass``): the audit takes the first when the store's log names the
files, the second otherwise."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import synth
from jobs.ingest import IngestSettings
from jobs.ingest import run as ingest
from jobs.storage import open_store
from synthetic.spec import FleetSpec
from transforms.replay.cluster_pass import replay_pass, replay_pass_of_files


@pytest.fixture(scope="module")
def fleet_warehouse(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two synthetic clusters with a snapshot and a log each, ingested."""
    root = tmp_path_factory.mktemp("pass_of_files")
    fleet = root / "fleet"
    synth.run(FleetSpec(out=str(fleet), clusters=2, brokers=3, topics=6, partitions=2, seed=11, overwrite=True))
    ingest(spark, IngestSettings(inputs=(str(fleet),), warehouse=str(root / "wh")))
    return root / "wh"


def files_by_cluster(df: DataFrame) -> dict[str, list[str]]:
    """The Parquet files of a Delta table's snapshot by ``cluster_id`` partition, as Delta lists them for a scan
    (``inputFiles``: paths in its hive-style partition folders)."""
    found: dict[str, list[str]] = {}
    for uri in df.inputFiles():
        folder = next(part for part in uri.split("/") if part.startswith("cluster_id="))
        path = uri.removeprefix("file:").removeprefix("//")
        found.setdefault(unquote(folder.removeprefix("cluster_id=")), []).append(path)
    return found


def rows(df: DataFrame) -> list[str]:
    return sorted(repr(r) for r in df.collect())


@pytest.mark.parametrize("as_of_offset", [None, 40], ids=["whole-log", "as-of-offset-40"])
def test_reading_the_files_gives_the_rows_of_the_pass_over_the_table(
    spark: SparkSession, fleet_warehouse: Path, as_of_offset: int | None
) -> None:
    store = open_store(spark, str(fleet_warehouse))
    files = files_by_cluster(store.read("metadata_records"))
    assert files is not None and len(files) == 2
    expected = rows(replay_pass(store.read("metadata_records"), as_of_offset=as_of_offset, as_of_time=None))
    got = rows(replay_pass_of_files(store.read("metadata_records"), files, as_of_offset=as_of_offset, as_of_time=None))
    assert len(got) > 50
    assert got == expected


def test_a_file_without_a_later_column_reads_it_as_null_as_spark_does(
    spark: SparkSession, fleet_warehouse: Path, tmp_path: Path
) -> None:
    store = open_store(spark, str(fleet_warehouse))
    files = files_by_cluster(store.read("metadata_records"))
    assert files is not None
    cluster, paths = sorted(files.items())[0]
    older = []
    for i, path in enumerate(paths):  # the cluster's files as written before leader_epoch existed
        table = pq.read_table(path)
        assert "leader_epoch" in table.column_names
        older.append(str(tmp_path / f"older-{i}.parquet"))
        pq.write_table(table.drop_columns(["leader_epoch"]), older[-1])
    records = store.read("metadata_records").where(F.col("cluster_id") == cluster)
    expected = rows(
        replay_pass(records.withColumn("leader_epoch", F.lit(None).cast("int")), as_of_offset=None, as_of_time=None)
    )
    assert rows(replay_pass_of_files(records, {cluster: older}, as_of_offset=None, as_of_time=None)) == expected


@pytest.mark.xfail(
    strict=True,
    reason="#59: the sizing reads the records' plan statistics, which a Delta scan reports otherwise than the "
    "parquet scan of the retired deltars reads; the audit no longer takes this path (the store lists no files)",
)
def test_the_planner_sizes_the_pass_by_its_records_not_by_its_cluster_list(
    spark: SparkSession, fleet_warehouse: Path
) -> None:
    """Sized from the cluster list alone, every later frame looked tiny and was broadcast into joins (the L audit's
    resolution and evaluation 10-20% slower)."""
    store = open_store(spark, str(fleet_warehouse))
    files = files_by_cluster(store.read("metadata_records"))
    assert files is not None
    records = store.read("metadata_records")

    def size(df: DataFrame) -> int:
        return int(str(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))

    assert size(replay_pass_of_files(records, files, as_of_offset=None, as_of_time=None)) >= size(records)
