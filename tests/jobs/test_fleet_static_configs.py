"""A fleet's own static files and settings in one run (issue #60): ``--static-config CLUSTER/NODE=PATH`` names the
cluster a ``server.properties`` belongs to, so inputs of several clusters can each bring theirs (before, any
``--static-config`` with several clusters was "needs --cluster-id"); ``--target-mv``, ``--kafka-version`` and
``--upgrade-with`` take ``CLUSTER=VALUE`` for a cluster of its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.discover import parse_static_config_args
from jobs.ingest import IngestSettings, find_inputs, run
from jobs.storage import open_store
from schemas.errors import UsageError
from schemas.per_cluster import PerCluster
from schemas.upgrade_effects import UpgradeWith

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


def _tables(spark: SparkSession, warehouse: Path, cluster: str, run_id: str) -> dict[str, list[tuple[str, ...]]]:
    """One cluster's rows of the tables an audit writes (the run tables': one run's), without run ids and times."""
    store = open_store(spark, str(warehouse))
    out = {}
    for table in ("effective_configs", "violations", "upgrade_effects", "findings", "highest_safe_levels"):
        df = store.read(table).where(F.col("cluster_id") == cluster)
        if "run_id" in df.columns:
            df = df.where(F.col("run_id") == run_id).drop("run_id", "run_ts")
        out[table] = sorted((tuple(str(v) for v in row) for row in df.collect()), key=str)
    return out


def test_a_cluster_audited_at_its_own_target_release_and_form_gets_what_a_run_of_its_own_gives(
    spark: SparkSession, tmp_path: Path
) -> None:
    """`--target-mv 4.2 --target-mv west=4.3-IV0 --kafka-version west=4.3.1 --upgrade-with west=metadata` over east
    and west (copies of one log): west gets the rows an audit of west alone at 4.3-IV0 on 4.3.1 with --metadata
    gives, east those of the run's settings (4.2, release-version, brokers' release inferred). A cluster no input
    holds, named by such an option, is a usage error."""
    from jobs import audit

    east, west, east_props, west_props = _fleet(tmp_path)
    warehouse = tmp_path / "wh"
    static = (f"east/1={east_props}", f"west/1={west_props}")
    run(spark, IngestSettings(inputs=(str(east), str(west)), warehouse=str(warehouse), static_configs=static))
    misspelt = audit.AuditSettings(
        target_mv="4.2", warehouse=str(warehouse), kafka_version=PerCluster(None, (("wets", "4.1"),)), dq=False
    )
    with pytest.raises(UsageError, match="--kafka-version names cluster\\(s\\) this run does not audit: wets"):
        audit.run(spark, misspelt)
    together = audit.AuditSettings(
        target_mv=PerCluster("4.2", (("west", "4.3-IV0"),)),
        warehouse=str(warehouse),
        kafka_version=PerCluster(None, (("west", "4.3.1"),)),
        upgrade_with=PerCluster(UpgradeWith.RELEASE_VERSION, (("west", UpgradeWith.METADATA),)),
        dq=False,
    )
    result = audit.run(spark, together)
    assert result.summary.cluster_targets == {"west": "4.3-IV0"}
    fleet = {cluster: _tables(spark, warehouse, cluster, result.run_id) for cluster in ("east", "west")}
    west_alone = audit.AuditSettings(
        target_mv="4.3-IV0",
        warehouse=str(warehouse),
        cluster_ids=("west",),
        kafka_version="4.3.1",
        upgrade_with=UpgradeWith.METADATA,
        dq=False,
    )
    alone = audit.run(spark, west_alone)
    assert fleet["west"] == _tables(spark, warehouse, "west", alone.run_id)
    # east at the run's settings, west at its own: the two copies of one log were resolved differently
    east_rows, west_rows = (
        {tuple(v for v in row if v != cluster) for row in fleet[cluster]["effective_configs"]}
        for cluster in ("east", "west")
    )
    assert east_rows != west_rows
