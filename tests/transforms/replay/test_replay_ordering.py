"""Snapshot choice, as-of bounds, replica de-duplication and conflicts, metadata transactions."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import reduce
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.testing import assertDataFrameEqual

from jobs.runtime.holding import LOCAL_ROWS, Checkpoints, session_settings
from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersionTable
from tests.transforms.replay.bronze_rows import (
    abort,
    begin,
    broker_config,
    end,
    feature,
    no_static_configs,
    records,
    register,
    topic,
    topic_config,
)
from transforms.replay import ReplayResult, replay_state
from transforms.replay.cluster_pass import output, replay_pass

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_spark")]

LOG = "/in/c1/__cluster_metadata-0/00000000000000000000.log"
SNAP_10 = "/in/c1/__cluster_metadata-0/00000000000000000010-0000000001.checkpoint"
SNAP_20 = "/in/c1/__cluster_metadata-0/00000000000000000020-0000000001.checkpoint"


def _union(dfs: list[DataFrame]) -> DataFrame:
    return reduce(DataFrame.unionByName, dfs)


def _replay(spark: SparkSession, mv: MetadataVersionTable, *dfs: DataFrame, **kw: object) -> ReplayResult:
    return replay_state(
        _union(list(dfs)), no_static_configs(spark), mv_table=mv, keep=Checkpoints(local_rows=LOCAL_ROWS), **kw
    )  # type: ignore[arg-type]


def _configs(state: ReplayResult) -> dict[tuple[str, str, str], str]:
    return {(r.resource_type, r.resource_name, r.name): r.value for r in state.dynamic_configs.collect()}


def _snapshot(spark: SparkSession, end_offset: int, recs: list, path: str | None = None, **kw: object) -> DataFrame:
    return records(
        spark,
        recs,
        source_file=path or f"/in/c1/__cluster_metadata-0/{end_offset:020d}-0000000001.checkpoint",
        input_kind="SNAPSHOT",
        snapshot_end_offset=end_offset,
        **kw,  # type: ignore[arg-type]
    )


def test_snapshot_then_log_from_its_end_offset(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    snap = _snapshot(spark, 10, [broker_config(0, "", "a", "snap"), broker_config(1, "", "b", "snap")])
    log = records(
        spark,
        [broker_config(5, "", "a", "log-before-snapshot"), broker_config(12, "", "b", "log-after")],
    )
    state = _replay(spark, mv_table, snap, log)
    rows = {r.name: r for r in state.dynamic_configs.collect()}
    assert (rows["a"].value, rows["a"].from_snapshot, rows["a"].source_offset) == ("snap", True, 9)
    assert rows["a"].source_timestamp is None
    assert (rows["b"].value, rows["b"].from_snapshot, rows["b"].source_offset) == ("log-after", False, 12)
    cluster = state.cluster_state.collect()[0]
    assert (cluster.snapshot_end_offset, cluster.last_offset, cluster.records_applied) == (10, 12, 3)


def test_newest_snapshot_wins(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    snap10 = _snapshot(spark, 10, [broker_config(0, "", "a", "ten")])
    snap20 = _snapshot(spark, 20, [broker_config(0, "", "a", "twenty")])
    state = _replay(spark, mv_table, snap10, snap20)
    assert _configs(state) == {("BROKER", "", "a"): "twenty"}


def test_of_two_snapshots_at_one_end_offset_the_later_epoch_is_read_alone(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    """Kafka names a snapshot by its id, OffsetAndEpoch (``%020d-%010d.checkpoint``, raft Snapshots.java), and its
    latest snapshot is the greatest id (KafkaMetadataLog.latestSnapshotId: a TreeMap's last key; OffsetAndEpoch
    compares epochs, then offsets; confluentinc/kafka 4.2 server-common/src/main/java/org/apache/kafka/server/common/
    OffsetAndEpoch.java): two snapshots at one end offset written in different epochs are different snapshots, and
    replay reads the later epoch's alone, not a mix of both position by position."""
    epoch1 = _snapshot(spark, 10, [broker_config(0, "", "a", "epoch-1"), broker_config(1, "", "b", "epoch-1")])
    epoch2_path = "/in/c1/__cluster_metadata-0/00000000000000000010-0000000002.checkpoint"
    epoch2 = _snapshot(spark, 10, [broker_config(0, "", "c", "epoch-2")], path=epoch2_path)
    state = _replay(spark, mv_table, epoch1, epoch2)
    assert _configs(state) == {("BROKER", "", "c"): "epoch-2"}
    assert [f.kind for f in state.findings.collect()] == []  # not copies of one snapshot: no conflict


@pytest.mark.parametrize(
    ("as_of_offset", "expected"),
    [(9, "ten"), (18, "log-15"), (19, "twenty"), (None, "log-25")],
    ids=["older-snapshot-only", "older-snapshot-plus-log", "newer-snapshot-exactly", "no-bound"],
)
def test_as_of_offset_chooses_snapshot_and_stops_log(
    spark: SparkSession, mv_table: MetadataVersionTable, as_of_offset: int | None, expected: str
) -> None:
    snap10 = _snapshot(spark, 10, [broker_config(0, "", "a", "ten")])
    snap20 = _snapshot(spark, 20, [broker_config(0, "", "a", "twenty")])
    log = records(spark, [broker_config(15, "", "a", "log-15"), broker_config(25, "", "a", "log-25")])
    state = _replay(spark, mv_table, snap10, snap20, log, as_of_offset=as_of_offset)
    assert _configs(state) == {("BROKER", "", "a"): expected}


@pytest.mark.parametrize("as_of_time", [None, datetime(2023, 11, 14, 22, 13, 35, tzinfo=UTC)], ids=["no-time", "time"])
def test_the_replay_reads_the_bronze_records_once(
    spark: SparkSession, tmp_path: Path, as_of_time: datetime | None
) -> None:
    """The bounds, the stream and every silver output come from one pass over the records: the bronze table is
    scanned once (at L a scan of 1.8 M records is seconds). Counted in the physical plan without adaptive execution,
    which shows the whole plan."""
    snap10 = _snapshot(spark, 10, [broker_config(0, "", "a", "ten")])
    log = records(spark, [broker_config(15, "", "a", "log-15"), broker_config(25, "", "a", "log-25")])
    path = str(tmp_path / "records")
    _union([snap10, log]).write.parquet(path)
    with session_settings(spark, {"spark.sql.adaptive.enabled": "false"}):
        pass_df = replay_pass(spark.read.parquet(path), as_of_offset=None, as_of_time=as_of_time)
        leaves = pass_df._jdf.queryExecution().executedPlan().collectLeaves()
        names = [str(leaves.apply(i).nodeName()) for i in range(leaves.size())]
        rows = output(pass_df, "cluster").collect()
    assert [n for n in names if n.startswith("Scan")] == ["Scan parquet "], names
    # the log record at offset 25 is stamped 1_700_000_025_000 ms, after the time bound: replay stops before it
    assert [(r.snapshot_end_offset, r.last_offset) for r in rows] == [(10, 25 if as_of_time is None else 15)]


def test_negative_as_of_offset_is_a_usage_error(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    with pytest.raises(UsageError, match="as-of-offset"):
        _replay(spark, mv_table, records(spark, []), as_of_offset=-1)


def test_as_of_time_stops_at_first_later_record_and_keeps_untimed_records_before_it(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    log = records(
        spark,
        [
            broker_config(0, "", "a", "0", timestamp_ms=1_000),
            broker_config(1, "", "b", "untimed", timestamp_ms=None),
            broker_config(2, "", "c", "2", timestamp_ms=3_000),
            broker_config(3, "", "d", "3", timestamp_ms=1_500),  # after the stop: not applied
        ],
    )
    state = _replay(spark, mv_table, log, as_of_time=datetime(1970, 1, 1, 0, 0, 2, tzinfo=UTC))
    assert _configs(state) == {("BROKER", "", "a"): "0", ("BROKER", "", "b"): "untimed"}


def test_bootstrap_snapshot_counts_as_offset_zero(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    boot = records(
        spark,
        [feature(0, "metadata.version", 20), broker_config(1, "", "a", "boot")],
        source_file="/in/c1/bootstrap.checkpoint",
        input_kind="BOOTSTRAP_SNAPSHOT",
    )
    log = records(spark, [broker_config(0, "", "b", "log-0")])
    state = _replay(spark, mv_table, boot, log)
    assert _configs(state) == {("BROKER", "", "a"): "boot", ("BROKER", "", "b"): "log-0"}
    cluster = state.cluster_state.collect()[0]
    assert (cluster.current_level, cluster.snapshot_end_offset) == (20, 0)
    assert state.dynamic_configs.where("name = 'a'").collect()[0].source_offset is None


def test_control_records_never_change_state(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    log = records(
        spark,
        [
            (0, "LEADER_CHANGE", {"version": 0, "leaderId": 1, "voters": [], "grantingVoters": []}),
            (
                1,
                "CONFIG_RECORD",
                {"resourceType": 4, "resourceName": "", "name": "x", "value": "1"},
                {"is_control": True},
            ),
            broker_config(2, "", "y", "2"),
        ],
    )
    state = _replay(spark, mv_table, log)
    assert _configs(state) == {("BROKER", "", "y"): "2"}
    assert state.cluster_state.collect()[0].records_applied == 1


def _silver(state: ReplayResult) -> dict[str, DataFrame]:
    return {
        "brokers": state.brokers,
        "topics": state.topics,
        "dynamic_configs": state.dynamic_configs,
        "features": state.features,
        "cluster_state": state.cluster_state,
        "findings": state.findings,
    }


def _fleet_log(spark: SparkSession, path: str) -> DataFrame:
    return records(
        spark,
        [
            feature(0, "metadata.version", 29),
            register(1, 1),
            topic(2, "orders", "AAAAAAAAAAAAAAAAAAAAAA"),
            topic_config(3, "orders", "retention.ms", "1000"),
            broker_config(4, "", "log.segment.bytes", "2097152"),
        ],
        source_file=path,
    )


def test_three_identical_replica_logs_equal_one(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    one = _replay(spark, mv_table, _fleet_log(spark, "/n1/00.log"))
    three = _replay(
        spark,
        mv_table,
        _fleet_log(spark, "/n1/00.log"),
        _fleet_log(spark, "/n2/00.log"),
        _fleet_log(spark, "/n3/00.log"),
    )
    for name, df in _silver(one).items():
        assertDataFrameEqual(_silver(three)[name], df, checkRowOrder=False), name
    assert three.findings.count() == 0


def test_replaying_twice_gives_identical_tables(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    bronze = _union([_fleet_log(spark, "/n1/00.log"), _fleet_log(spark, "/n2/00.log")])
    first = replay_state(bronze, no_static_configs(spark), mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS))
    second = replay_state(bronze, no_static_configs(spark), mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS))
    for name, df in _silver(first).items():
        assertDataFrameEqual(_silver(second)[name], df, checkRowOrder=False), name


def test_copies_differing_only_in_json_spelling_are_identical(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    a = records(spark, [broker_config(0, "", "a", "1")], source_file="/n1/00.log")
    b = records(
        spark,
        [(0, "CONFIG_RECORD", {"value": "1", "name": "a", "resourceName": "", "resourceType": 4})],
        source_file="/n2/00.jsonl",
        input_kind="JSON_LINES",
    )
    state = _replay(spark, mv_table, a, b)
    assert state.findings.count() == 0
    assert _configs(state) == {("BROKER", "", "a"): "1"}


@pytest.mark.parametrize(
    ("epochs", "expected_value", "expected_file"),
    [((1, 1), "from-n1", "/n1/00.log"), ((1, 2), "from-n2", "/n2/00.log")],
    ids=["same-epoch-first-file-wins", "higher-leader-epoch-wins"],
)
def test_conflicting_copies_apply_one_and_are_reported(
    spark: SparkSession,
    mv_table: MetadataVersionTable,
    epochs: tuple[int, int],
    expected_value: str,
    expected_file: str,
) -> None:
    n1 = records(spark, [broker_config(7, "", "a", "from-n1", leader_epoch=epochs[0])], source_file="/n1/00.log")
    n2 = records(spark, [broker_config(7, "", "a", "from-n2", leader_epoch=epochs[1])], source_file="/n2/00.log")
    state = _replay(spark, mv_table, n2, n1)
    assert _configs(state) == {("BROKER", "", "a"): expected_value}
    findings = state.findings.collect()
    assert [(f.kind, f.offset, f.is_blocking) for f in findings] == [("REPLICA_CONFLICT", 7, True)]
    assert "/n1/00.log, /n2/00.log" in findings[0].message
    assert f"from {expected_file}" in findings[0].message


def test_conflicting_snapshot_copies_are_reported(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    a = _snapshot(spark, 10, [broker_config(0, "", "a", "1")], path="/n1/" + SNAP_10.rsplit("/", 1)[1])
    b = _snapshot(spark, 10, [broker_config(0, "", "a", "2")], path="/n2/" + SNAP_10.rsplit("/", 1)[1])
    state = _replay(spark, mv_table, a, b)
    assert _configs(state) == {("BROKER", "", "a"): "1"}
    assert [(f.kind, f.offset) for f in state.findings.collect()] == [("REPLICA_CONFLICT", 9)]


@pytest.mark.parametrize(
    ("recs", "expected", "finding_kinds"),
    [
        ([begin(0), broker_config(1, "", "a", "1"), end(2)], {"a": "1"}, []),
        ([begin(0), broker_config(1, "", "a", "1"), abort(2), broker_config(3, "", "b", "2")], {"b": "2"}, []),
        (
            [broker_config(0, "", "b", "2"), begin(1), broker_config(2, "", "a", "1")],
            {"b": "2"},
            ["UNTERMINATED_TRANSACTION"],
        ),
        (
            [begin(0), broker_config(1, "", "a", "1"), begin(2), broker_config(3, "", "b", "2"), end(4)],
            {"b": "2"},
            ["UNTERMINATED_TRANSACTION"],
        ),
    ],
    ids=["committed-applies", "aborted-is-discarded", "unterminated-at-end-not-applied", "begin-inside-begin"],
)
def test_metadata_transactions(
    spark: SparkSession,
    mv_table: MetadataVersionTable,
    recs: list,
    expected: dict[str, str],
    finding_kinds: list[str],
) -> None:
    state = _replay(spark, mv_table, records(spark, recs))
    assert {k[2]: v for k, v in _configs(state).items()} == expected
    assert [f.kind for f in state.findings.collect()] == finding_kinds


def test_as_of_offset_inside_a_transaction_leaves_it_unapplied(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    log = records(spark, [broker_config(0, "", "b", "2"), begin(1), broker_config(2, "", "a", "1"), end(3)])
    state = _replay(spark, mv_table, log, as_of_offset=2)
    assert _configs(state) == {("BROKER", "", "b"): "2"}
    finding = state.findings.collect()[0]
    assert (finding.kind, finding.offset) == ("UNTERMINATED_TRANSACTION", 1)
    assert "its 1 records were not applied" in finding.message


def test_undecodable_record_is_skipped_and_reported(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    log = records(
        spark,
        [
            (0, "CONFIG_RECORD", {"_raw": "AAEC"}, {"is_unknown": True, "record_version": 9}),
            broker_config(1, "", "a", "1"),
        ],
    )
    state = _replay(spark, mv_table, log)
    assert _configs(state) == {("BROKER", "", "a"): "1"}
    assert [f.kind for f in state.findings.collect()] == ["UNDECODED_RECORD"]


def test_none_payload_fields_do_not_fail_replay(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    log = records(
        spark,
        [
            (0, "CONFIG_RECORD", {"resourceType": None, "resourceName": None, "name": None, "value": None}),
            (1, "REGISTER_BROKER_RECORD", {"brokerId": None}),
            (2, "TOPIC_RECORD", {"name": None, "topicId": None}),
            (3, "FEATURE_LEVEL_RECORD", {"name": "metadata.version", "featureLevel": "x"}),
            broker_config(4, "", "a", "1"),
        ],
    )
    state = _replay(spark, mv_table, log)
    assert _configs(state) == {("BROKER", "", "a"): "1"}
    assert state.brokers.count() == 0 and state.topics.count() == 0
    assert state.cluster_state.collect()[0].current_level is None


@pytest.mark.parametrize(
    ("as_of_ms", "expected"),
    [(4_000, "early"), (5_500, "snap"), (None, "log")],
    ids=["before-snapshot-time-replays-log-from-start", "after-snapshot-time", "no-bound"],
)
def test_as_of_time_chooses_snapshot_by_its_header_timestamp(
    spark: SparkSession, mv_table: MetadataVersionTable, as_of_ms: int | None, expected: str
) -> None:
    snap = _snapshot(
        spark,
        10,
        [(0, "SNAPSHOT_HEADER", {"version": 0, "lastContainedLogTimestamp": 5_000}), broker_config(1, "", "a", "snap")],
    )
    log = records(
        spark,
        [broker_config(3, "", "a", "early", timestamp_ms=1_000), broker_config(12, "", "a", "log", timestamp_ms=6_000)],
    )
    as_of = None if as_of_ms is None else datetime.fromtimestamp(as_of_ms / 1000, tz=UTC)
    state = _replay(spark, mv_table, snap, log, as_of_time=as_of)
    assert _configs(state) == {("BROKER", "", "a"): expected}
