"""Real KRaft files (rjmfernandes/flink-on-prem: one log segment, offsets 0-17026, and snapshots at 7752 and
14926): replaying a snapshot must give the state of replaying the log up to the snapshot's last offset, and the
newest snapshot an as-of bound allows must be chosen. Bronze rows come from ``transforms.decode.binary.decode``."""

from __future__ import annotations

from functools import reduce

import pytest
from pyspark.sql import DataFrame, SparkSession

from jobs.runtime.holding import Checkpoints
from schemas.decoded import DecodedRecord
from schemas.metadata_version import MetadataVersionTable
from tests.conftest import real_metadata_dir
from tests.transforms.replay.bronze_rows import no_static_configs, records
from transforms.replay import ReplayResult, replay_state

pytestmark = pytest.mark.system

DIR = "rjmfernandes__flink-on-prem/data/__cluster_metadata-0"
FILES = {
    "log": ("00000000000000000000.log", "LOG_SEGMENT", None),
    "snap7752": ("00000000000000007752-0000000001.checkpoint", "SNAPSHOT", 7752),
    "snap14926": ("00000000000000014926-0000000001.checkpoint", "SNAPSHOT", 14926),
}


@pytest.fixture(scope="module")
def bronze(spark: SparkSession) -> dict[str, DataFrame]:
    decode = pytest.importorskip("transforms.decode.binary.decode", reason="binary decoder not available")
    base = real_metadata_dir() / DIR
    if not base.is_dir():
        pytest.skip(f"real metadata folder not present: {base}")
    out = {}
    for name, (file, kind, end) in FILES.items():
        decoded = [
            r
            for r in decode.decode_file((base / file).read_bytes(), kind=kind, snapshot_end_offset=end)
            if isinstance(r, DecodedRecord)
        ]
        recs = [
            (
                r.offset,
                r.record_type,
                r.data,
                {
                    "timestamp_ms": r.timestamp_ms,
                    "leader_epoch": r.leader_epoch,
                    "record_version": r.record_version,
                    "is_control": r.is_control,
                    "is_unknown": r.is_unknown,
                },
            )
            for r in decoded
        ]
        frame = records(
            spark, recs, cluster_id="flink", source_file=f"/real/{DIR}/{file}", input_kind=kind, snapshot_end_offset=end
        )
        # Materialised once: a frame made from Python rows is otherwise converted again by every Spark job of every
        # replay below (tens of thousands of rows, a few hundred jobs).
        out[name] = frame.localCheckpoint(eager=True)
    return out


def _state(
    spark: SparkSession, mv: MetadataVersionTable, bronze: dict[str, DataFrame], names: list[str], **kw: object
) -> tuple[ReplayResult, dict[str, set[tuple[object, ...]]]]:
    df = reduce(DataFrame.unionByName, [bronze[n] for n in names])
    state = replay_state(df, no_static_configs(spark), mv_table=mv, keep=Checkpoints(), **kw)  # type: ignore[arg-type]
    facts: dict[str, set[tuple[object, ...]]] = {
        "topics": {
            (r.topic_id, r.topic_name, r.partitions, r.replication_factor, tuple(r.replica_nodes))
            for r in state.topics.collect()
        },
        "configs": {(r.resource_type, r.resource_name, r.name, r.value) for r in state.dynamic_configs.collect()},
        "brokers": {(r.node_id, r.broker_epoch, r.fenced, r.kafka_release) for r in state.brokers.collect()},
        "features": {(r.feature, r.level) for r in state.features.collect()},
    }
    return state, facts


def test_snapshot_equals_log_replayed_to_its_last_offset(
    spark: SparkSession, mv_table: MetadataVersionTable, bronze: dict[str, DataFrame]
) -> None:
    _, from_snapshot = _state(spark, mv_table, bronze, ["snap14926"])
    _, from_log = _state(spark, mv_table, bronze, ["log"], as_of_offset=14925)
    assert len(from_snapshot["configs"]) > 300 and len(from_snapshot["topics"]) == 60
    assert from_snapshot == from_log


@pytest.mark.parametrize(
    ("as_of_offset", "snapshot"),
    [(10_000, 7752), (None, 14926)],
    ids=["as-of-between-snapshots-uses-older", "no-bound-uses-newest"],
)
def test_all_files_replay_like_the_log_alone(
    spark: SparkSession,
    mv_table: MetadataVersionTable,
    bronze: dict[str, DataFrame],
    as_of_offset: int | None,
    snapshot: int,
) -> None:
    state, all_files = _state(spark, mv_table, bronze, ["log", "snap7752", "snap14926"], as_of_offset=as_of_offset)
    _, log_only = _state(spark, mv_table, bronze, ["log"], as_of_offset=as_of_offset)
    assert all_files == log_only
    cluster = state.cluster_state.collect()[0]
    assert cluster.snapshot_end_offset == snapshot
    assert cluster.last_offset == (as_of_offset if as_of_offset is not None else 17026)
    assert state.findings.count() == 0
