"""A fleet's own static files in one run (issue #60): ``--static-config CLUSTER/NODE=PATH`` names the cluster a
``server.properties`` belongs to, so inputs of several clusters can each bring theirs (before, any
``--static-config`` with several clusters was "needs --cluster-id")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.discover import parse_static_config_args
from jobs.ingest import IngestSettings, find_inputs, run
from jobs.storage import open_store
from schemas.errors import UsageError

CLUSTER = Path(__file__).resolve().parents[1] / "data" / "e2e" / "cluster.jsonl"


def _fleet(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """Two clusters (east, west: directories of one JSON-lines file each) and a server.properties for each."""
    for name in ("east", "west"):
        (tmp_path / name).mkdir()
        shutil.copy(CLUSTER, tmp_path / name / "cluster.jsonl")
    east_props, west_props = tmp_path / "east.properties", tmp_path / "west.properties"
    east_props.write_text("node.id=1\nlog.segment.bytes=4194304\n")
    west_props.write_text("log.segment.bytes=8388608\n")
    return tmp_path / "east", tmp_path / "west", east_props, west_props


def test_the_forms_of_a_static_config_argument(tmp_path: Path) -> None:
    props = tmp_path / "s.properties"
    props.write_text("node.id=3\n")
    path = str(props.resolve())
    assert parse_static_config_args([f"east/1={props}", f"east/={props}", f"2={props}", str(props)]) == [
        ("east", 1, path),
        ("east", None, path),
        (None, 2, path),
        (None, None, path),
    ]
    with pytest.raises(UsageError, match="CLUSTER/"):
        parse_static_config_args([f"east/x={props}"])


def test_each_cluster_of_a_fleet_gets_its_own_files(tmp_path: Path) -> None:
    east, west, east_props, west_props = _fleet(tmp_path)
    settings = IngestSettings(
        inputs=(str(east), str(west)),
        warehouse=str(tmp_path / "wh"),
        static_configs=(f"east/={east_props}", f"west/2={west_props}"),
    )
    assert find_inputs(settings).static_configs == (
        ("east", 1, str(east_props.resolve())),
        ("west", 2, str(west_props.resolve())),
    )


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("{west_props}", "needs --cluster-id when the inputs hold several clusters"),
        ("north/1={west_props}", "no input is of cluster 'north'"),
    ],
    ids=["no-cluster-named", "unknown-cluster"],
)
def test_a_static_file_whose_cluster_is_unknown_is_a_usage_error(tmp_path: Path, argument: str, message: str) -> None:
    east, west, _, west_props = _fleet(tmp_path)
    settings = IngestSettings(
        inputs=(str(east), str(west)),
        warehouse=str(tmp_path / "wh"),
        static_configs=(argument.format(west_props=west_props),),
    )
    with pytest.raises(UsageError, match=message):
        find_inputs(settings)


def test_one_ingest_stores_each_clusters_files_and_a_later_one_replaces_only_its_node(
    spark: SparkSession, tmp_path: Path
) -> None:
    east, west, east_props, west_props = _fleet(tmp_path)
    warehouse = tmp_path / "wh"

    def ingest(*static: str) -> None:
        run(spark, IngestSettings(inputs=(str(east), str(west)), warehouse=str(warehouse), static_configs=static))

    ingest(f"east/1={east_props}", f"west/1={west_props}")
    west_props.write_text("log.segment.bytes=16777216\n")
    ingest(f"west/1={west_props}")
    rows = open_store(spark, str(warehouse)).read("static_configs").collect()
    assert sorted((r.cluster_id, r.node_id, r.name, r.value) for r in rows) == [
        ("east", 1, "log.segment.bytes", "4194304"),
        ("east", 1, "node.id", "1"),
        ("west", 1, "log.segment.bytes", "16777216"),
    ]
