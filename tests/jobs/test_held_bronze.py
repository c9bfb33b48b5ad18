"""``run``'s audit on the bronze rows its ingest holds (#59): when the ingest found no bronze table and made every
commit of the tables an audit reads, their rows held in the driver are those tables' whole content, and the audit
reads them instead of scanning what it just wrote. The audit must then be the audit of the tables as stored; a table
another writer created or wrote first, or one that moved on after the ingest, is read as usual.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from benchmarks.jobcount import counting
from jobs import audit, ingest, quality
from jobs.audit_steps.extract import BRONZE_READ, Scope, extract, held_bronze
from jobs.runtime.holding import local_rows_for
from jobs.storage import DeltaStore, open_store
from schemas import bronze
from transforms.kit.local_frames import local_frame

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"


def _ingest(spark: SparkSession, tmp: Path) -> ingest.IngestResult:
    """The e2e cluster with a cut last line (a quarantined row) and a static file with a malformed escape (a
    quarantined line of its own)."""
    (tmp / "e2e").mkdir()
    lines = (DATA / "cluster.jsonl").read_text().splitlines()
    cut = '{"offset": 25, "type": "CONFIG_RECORD", "data": '
    (tmp / "e2e" / "cluster.jsonl").write_text("\n".join([*lines, cut]) + "\n")
    props = tmp / "server.properties"
    props.write_text("node.id=1\nlog.segment.bytes=1048576\nlog.dirs=\\u12G4\n")
    settings = ingest.IngestSettings(
        inputs=(str(tmp / "e2e"),), warehouse=str(tmp / "warehouse"), static_configs=(f"e2e/1={props}",)
    )
    return ingest.run(spark, settings)


def _held(store: DeltaStore, result: ingest.IngestResult) -> quality.IngestTables:
    """The ingest's rows of each bronze table, as ``run`` hands them to the audit."""
    assert result.written is not None
    return quality.IngestTables(store, result.written, local_rows_for(result.records))


def _settings(warehouse: Path) -> audit.AuditSettings:
    # the default catalog and the e2e segment rule, which fails at 4.4 (tests/data/e2e)
    rules = (str(DATA / "segment-rule.yaml"),)
    return audit.AuditSettings(
        target_mv="4.4", warehouse=str(warehouse), cluster_ids=("e2e",), dq=False, constraints=rules
    )


def _rows(df: DataFrame) -> list[str]:
    return sorted(str(tuple(row)) for row in df.collect())


def _content(scope: Scope) -> tuple[Any, ...]:
    return (_rows(scope.records_df), _rows(scope.static_df), scope.clusters, scope.quarantined, scope.records)


def test_a_first_ingests_held_rows_are_the_tables_whole_content_and_the_audit_reads_them(
    spark: SparkSession, tmp_path: Path
) -> None:
    warehouse = tmp_path / "warehouse"
    result = _ingest(spark, tmp_path)
    assert result.first_ingest and result.written is not None and result.quarantined == 2
    store = open_store(spark, str(warehouse))
    held = held_bronze(result, _held(store, result))
    assert held is not None
    assert held.versions == {table: store.version(table) for table in BRONZE_READ}
    for table in BRONZE_READ:  # the rows held are the rows stored, column for column
        stored = store.read(table)
        assert _rows(held.frames[table].select(*stored.columns)) == _rows(stored), table
    with counting(spark) as on_held:
        from_held = extract(store, _settings(warehouse), held)
    with counting(spark) as on_tables:
        from_tables = extract(store, _settings(warehouse))
    assert _content(from_held) == _content(from_tables)
    assert from_held.quarantined == 2  # the log's cut line and the static file's malformed one
    assert on_held.total < on_tables.total
    # and the whole audit: the same effective rows and violations either way
    outputs = []
    for how in (held, None):
        run = audit.run(spark, _settings(warehouse), held_bronze=how)
        per_run = [
            _rows(store.read(table).where(f"run_id = '{run.run_id}'").drop("run_id", "run_ts"))
            for table in ("violations", "findings")
        ]
        outputs.append([_rows(store.read("effective_configs")), *per_run])  # a state table: this run's rows
    assert outputs[0] == outputs[1]
    assert outputs[0][0] and outputs[0][1]  # effective rows and violations were compared


def test_a_table_moved_on_since_the_ingest_is_read_from_the_warehouse(spark: SparkSession, tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse"
    result = _ingest(spark, tmp_path)
    store = open_store(spark, str(warehouse))
    held = held_bronze(result, _held(store, result))
    assert held is not None
    # another writer's quarantine row for the same cluster, committed after the ingest
    other = store.read("quarantine").limit(1).collect()[0].asDict()
    other.update(source_file="/elsewhere/cluster.jsonl", ingest_id="another")
    open_store(spark, str(warehouse)).append(
        "quarantine", local_frame(spark, [tuple(other[f.name] for f in bronze.QUARANTINE.fields)], bronze.QUARANTINE)
    )
    scope = extract(store, _settings(warehouse), held)
    assert scope.quarantined == 3  # the table as it is now, not the rows held


@pytest.mark.parametrize(
    ("first_ingest", "own", "kept"),
    [
        (True, {0}, True),
        (True, {0, 1}, True),
        (True, {1}, False),  # another writer committed version 0 (created the table) first
        (True, {0, 2}, False),  # another writer committed in between
        (True, set(), False),  # no commit of this ingest
        (False, {0}, False),  # bronze tables existed when the ingest began
    ],
    ids=["created", "created-and-appended", "created-by-another", "another-in-between", "none", "not-first"],
)
def test_held_rows_stand_for_a_table_only_when_the_ingest_made_every_commit_of_it(
    spark: SparkSession, tmp_path: Path, first_ingest: bool, own: set[int], kept: bool
) -> None:
    store = open_store(spark, str(tmp_path / "warehouse"))
    result = ingest.IngestResult(ingest_id="i", written={}, first_ingest=first_ingest)
    result.own_commits = {table: set(own) for table in BRONZE_READ}
    assert (held_bronze(result, quality.IngestTables(store, {}, 100)) is not None) is kept
    # rows held by the executors (``IngestResult.written`` None): nothing to stand for the tables
    assert held_bronze(result, None) is None
