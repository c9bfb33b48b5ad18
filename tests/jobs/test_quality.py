"""The data-quality stage end to end: good tables pass, planted bad rows stop `dq` and `run` with exit code 2.

One warehouse is built once by `run` on two clusters: the hand-written e2e cluster (tests/data/e2e/cluster.jsonl)
and a copy of it with one truncated JSON line, which lands in quarantine and fails a warning-level expectation.
Planted-row tests work on copies of that warehouse (Delta logs hold relative paths, so a copy is a valid
warehouse) and check only the stage they plant in.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from benchmarks.jobcount import counting
from jobs import quality
from jobs.audit_steps.tables import RUN_TABLES, STATE_TABLES
from jobs.cli import main as cli_main
from jobs.quality import gx as quality_gx
from jobs.runtime.holding import held_rows, one_job, truncated
from jobs.storage import DeltaStore, open_store
from schemas import gold
from schemas.errors import DataQualityError
from schemas.quality import STAGES
from transforms.quality.suites import all_suites

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"
RULES = ["--no-default-constraints", "--constraints", str(DATA / "base-rules.yaml")]
SECRET = "hunter2-dq-Planted"


def pipeline(warehouse: Path, inputs: list[Path], summary: Path, *extra: str) -> int:
    """`run` at 4.4-IV1 with the e2e base rules; each input's cluster is named after its directory."""
    args = ["run", *(a for path in inputs for a in ("--input", str(path))), "--target-mv", "4.4-IV1"]
    args += [*RULES, "--warehouse", str(warehouse), "--summary-json", str(summary), "-q", *extra]
    return cli_main(args)


def lines_with(directory: Path, edit: Callable[[list[dict[str, Any]]], list[str]]) -> Path:
    """The e2e records, edited, as `<directory>/cluster.jsonl` (cluster id: the directory's name)."""
    records = [json.loads(line) for line in (DATA / "cluster.jsonl").read_text().splitlines()]
    directory.mkdir(parents=True, exist_ok=True)
    out = directory / "cluster.jsonl"
    out.write_text("\n".join(edit(records)) + "\n")
    return out


def truncated_last_line(records: list[dict[str, Any]]) -> list[str]:
    return [*(json.dumps(r) for r in records), '{"offset": 25, "type": "CONFIG_RECORD", "data": ']


@pytest.fixture(scope="module")
def good(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("dq")
    warehouse = tmp / "warehouse"
    summary = tmp / "summary.json"
    warned = lines_with(tmp / "warned", truncated_last_line)
    code = pipeline(warehouse, [DATA / "cluster.jsonl", warned], summary)
    return {"warehouse": warehouse, "code": code, "summary": json.loads(summary.read_text()), "tmp": tmp}


def results(spark: SparkSession, warehouse: Path, **where: str) -> list[dict[str, Any]]:
    df = open_store(spark, str(warehouse)).read("dq_results")
    for column, value in where.items():
        df = df.filter(F.col(column) == value)
    return [r.asDict() for r in df.collect()]


def test_good_tables_pass_a_warning_does_not_stop_the_run_and_every_expectation_is_recorded(
    spark: SparkSession, good: dict[str, Any]
) -> None:
    summary = good["summary"]
    assert good["code"] == 1  # the e2e catalog finds error violations; data quality is fine
    assert summary["clusters"] == ["e2e", "warned"] and summary["records_quarantined"] == 1
    dq = summary["dq"]
    assert (dq["failed_critical"], dq["failed_warning"]) == (0, 1)
    rows = results(spark, good["warehouse"], run_id=summary["run_id"])
    assert len(rows) == dq["expectations_checked"] > 300
    assert {r["stage"] for r in rows} == set(STAGES)
    assert {r["table_name"] for r in rows} == set(all_suites())
    failed = [(r["table_name"], r["check_id"], r["criticality"]) for r in rows if not r["success"]]
    assert failed == [("quarantine", "quarantine_empty", "warning")]
    assert all(r["command"] == "run" and r["criticality"] in ("critical", "warning") for r in rows)
    offsets = [r for r in rows if r["check_id"] == "offsets_increasing"]
    assert len(offsets) == 1 and offsets[0]["unexpected_count"] == 0 and offsets[0]["table_name"] == "metadata_records"
    for row in rows:
        json.loads(row["details"])


def test_every_table_the_audit_writes_has_a_suite() -> None:
    suites = all_suites()
    assert set(STATE_TABLES) <= set(suites)
    assert {"violations", "findings", "audit_runs"} <= set(suites)
    assert set(RUN_TABLES) - set(suites) == {"violations_by_level", "highest_safe_levels"}
    for suite in suites.values():
        ids = [e.check_id for e in suite.expectations]
        assert len(ids) == len(set(ids)), suite.table


def test_data_docs_have_an_index_and_a_page_per_table(good: dict[str, Any]) -> None:
    docs = Path(good["summary"]["dq"]["data_docs"])
    assert docs == good["warehouse"] / "dq" / "data-docs" / "index.html"
    index = docs.read_text()
    for suite in all_suites().values():
        assert f"{suite.stage}.{suite.table}" in index
        pages = list(
            (docs.parent / "validations" / suite.stage / suite.table / good["summary"]["run_id"]).rglob("*.html")
        )
        assert len(pages) == 1, suite.table


def test_dq_command_passes_on_the_good_warehouse(
    spark: SparkSession, good: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copied(good, "dq-good")
    summary = copy.parent / "dq.json"
    code = cli_main(["dq", "--warehouse", str(copy), "--summary-json", str(summary), "-q"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "data quality: " in out and "passed" in out
    dq = json.loads(summary.read_text())["dq"]
    assert (dq["failed_critical"], dq["failed_warning"]) == (0, 1) and len(dq["tables"]) == len(all_suites())
    rows = results(spark, copy, command="dq")
    assert len(rows) == dq["expectations_checked"]
    assert [r["check_id"] for r in rows if not r["success"]] == ["quarantine_empty"]


def copied(good: dict[str, Any], name: str) -> Path:
    target = good["tmp"] / name / "warehouse"
    shutil.copytree(good["warehouse"], target, ignore=shutil.ignore_patterns("dq"))
    return target


def plant(store: DeltaStore, table: str, pick: Callable[[DataFrame], DataFrame], changes: dict[str, Any]) -> None:
    """Append a copy of one existing row with some columns changed."""
    schema = store.schema(table)
    row = {**pick(store.read(table)).limit(1).collect()[0].asDict(), **changes}
    store.append(table, store.spark.createDataFrame([tuple(row[c] for c in schema.names)], schema))


def e2e_rows(df: DataFrame) -> DataFrame:
    return df.filter(F.col("cluster_id") == "e2e")


def latest_run(df: DataFrame) -> DataFrame:
    return df.orderBy(F.col("run_ts").desc())


PLANTED = [
    (
        "bronze",
        "metadata_records",
        lambda df: df.filter(F.col("offset") == 8),
        {"record_type": "BOGUS_RECORD", "line_number": 26, "offset": 25},
        "record_type_known",
    ),
    (
        "bronze",
        "metadata_records",
        lambda df: df.filter(F.col("offset") == 8),
        {"line_number": 26, "offset": 3},
        "offsets_increasing",
    ),
    (
        "silver",
        "dynamic_configs",
        lambda df: df.filter(F.col("resource_type") == "BROKER"),
        {"name": "ssl.keystore.password", "value": SECRET},
        "secrets_redacted",
    ),
    ("gold", "violations", latest_run, {"severity": "fatal", "constraint_id": "planted"}, "severity_allowed"),
]


@pytest.mark.parametrize(
    ("stage", "table", "pick", "changes", "check_id"),
    PLANTED,
    ids=["unknown-record-type", "decreasing-offset", "unredacted-password", "unknown-severity"],
)
def test_dq_exits_2_naming_the_table_the_expectation_and_the_failing_rows(
    spark: SparkSession,
    good: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    stage: str,
    table: str,
    pick: Callable[[DataFrame], DataFrame],
    changes: dict[str, Any],
    check_id: str,
) -> None:
    copy = copied(good, f"planted-{check_id}")
    plant(open_store(spark, str(copy)), table, pick, changes)
    code = cli_main(["dq", "--warehouse", str(copy), "--stage", stage, "-q"])
    captured = capsys.readouterr().err.strip()
    err = captured.splitlines()[-1]  # after the warning lines (bronze: the quarantined line)
    assert code == 2 and "Traceback" not in captured
    assert err.startswith("kraft-audit: error: data quality check failed")
    assert f"{table}: {check_id} (" in err and "failed for 1 of" in err, err
    failed = [r for r in results(spark, copy, command="dq") if not r["success"] and r["criticality"] == "critical"]
    assert [(r["table_name"], r["check_id"], r["unexpected_count"]) for r in failed] == [(table, check_id, 1)]
    assert SECRET not in err + failed[0]["details"]
    for path in (copy / "dq").rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path


def test_a_failed_warning_is_reported_and_does_not_stop_dq(
    spark: SparkSession, good: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copied(good, "warning")
    plant(open_store(spark, str(copy)), "topics", e2e_rows, {"topic_name": "empty", "partitions": 0})
    code = cli_main(["dq", "--warehouse", str(copy), "--stage", "silver"])
    captured = capsys.readouterr()
    assert code == 0
    assert "1 warning(s)" in captured.out
    assert "topics: has_partitions (every topic has a partition) failed for 1 of" in captured.err
    failed = [r for r in results(spark, copy, command="dq") if not r["success"]]
    assert [(r["check_id"], r["criticality"]) for r in failed] == [("has_partitions", "warning")]
    failing_rows = json.loads(failed[0]["details"])["failing_rows"]
    assert failing_rows == [{"cluster_id": "e2e", "topic_name": "empty", "partitions": 0}]


def test_run_stops_with_exit_2_on_decreasing_offsets_and_runs_with_no_dq(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def swap_offsets(records: list[dict[str, Any]]) -> list[str]:
        records[9]["offset"], records[10]["offset"] = records[10]["offset"], records[9]["offset"]
        return [json.dumps(r) for r in records]

    bad = lines_with(tmp_path / "swapped", swap_offsets)
    warehouse = tmp_path / "warehouse"
    code = pipeline(warehouse, [bad], tmp_path / "s1.json")
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err, err
    assert "data quality check failed (bronze): metadata_records: offsets_increasing" in err
    assert "failed for 1 of 25 row(s)" in err and '"offset": 9' in err
    store = open_store(spark, str(warehouse))
    assert not store.exists("brokers")  # the run stopped before replay
    assert not (tmp_path / "s1.json").exists()

    code = pipeline(warehouse, [bad], tmp_path / "s2.json", "--no-dq")
    summary = json.loads((tmp_path / "s2.json").read_text())
    assert code == 1 and "dq" not in summary
    assert not [r for r in results(spark, warehouse) if r["run_id"] == summary["run_id"]]


def test_a_table_missing_a_column_fails_its_schema_checks_instead_of_crashing(
    spark: SparkSession, good: dict[str, Any]
) -> None:
    copy = copied(good, "missing-column")
    store = open_store(spark, str(copy))
    frames = {"ingested_files": store.read("ingested_files").drop("records")}
    with pytest.raises(DataQualityError, match=r"ingested_files: columns \(the table has exactly the columns"):
        quality.check(spark, store, "bronze", frames, run_id="r-missing", command="dq")
    failed = {r["check_id"] for r in results(spark, copy, run_id="r-missing") if not r["success"]}
    assert {"columns", "type:records", "not_null:records", "records_not_negative", "key_unique"} <= failed


def test_empty_tables_pass(spark: SparkSession, good: dict[str, Any]) -> None:
    copy = copied(good, "empty")
    store = open_store(spark, str(copy))
    frames = {name: store.read(name).limit(0) for name in ("metadata_records", "quarantine")}
    counts = quality.check(spark, store, "bronze", frames, run_id="r-empty", command="dq")
    assert (counts.failed_critical, counts.failed_warning) == (0, 0)


def _persisted(spark: SparkSession) -> int:
    """The RDDs persisted in the session but Delta Lake's own cache of each table version's state (which Delta
    names "Delta Table State #<version> - <path>" and manages itself)."""
    rdds = spark.sparkContext._jsc.getPersistentRDDs()
    names = [str(rdds.get(key).name()) for key in rdds.keySet().toArray()]
    return sum(1 for name in names if not name.startswith("Delta Table State"))


def test_a_check_leaves_nothing_persisted_in_the_session(spark: SparkSession, good: dict[str, Any]) -> None:
    """GX's Spark datasource would persist each DataFrame it validates and never release it; the runner's
    datasource does not persist, so a long session (a notebook, a test worker) does not keep every table it ever
    checked."""
    copy = copied(good, "persisted")
    store = open_store(spark, str(copy))
    frames = {name: store.read(name) for name in ("metadata_records", "ingested_files")}
    before = _persisted(spark)
    # a failing expectation too: its second, detailed pass reads the same frame again
    frames["ingested_files"] = frames["ingested_files"].withColumn("records", F.lit(-1).cast("long"))
    counts = quality.check(spark, store, "bronze", frames, run_id="r-persisted", command="dq", raise_on_critical=False)
    assert counts.failed_critical > 0
    assert _persisted(spark) == before
    # a frame the caller persisted itself stays persisted (a table missing a column is checked as it is given)
    own = store.read("quarantine").drop("reason").persist()
    own.count()
    quality.check(spark, store, "bronze", {"quarantine": own}, run_id="r-own", command="dq", raise_on_critical=False)
    assert own.storageLevel.useMemory
    own.unpersist()


def test_the_row_count_of_a_held_frame_costs_no_job_and_gx_judges_it_as_shipped(
    spark: SparkSession, good: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GX counts a table's rows in an aggregate of its own before the unexpected counts: two jobs. A frame a small
    run holds is a local relation, whose rows the plan knows (``held_row_counts``): one job; GX's outcome. So is a
    frame whose rows the caller knows (a large run's frame, counted in the log of the table it was written to)."""
    store = open_store(spark, str(good["warehouse"]))
    suite = all_suites()["ingested_files"]
    read = store.read("ingested_files")
    failing_read = read.withColumn("records", F.lit(-1).cast("long"))  # a critical failure: the detailed pass runs
    held, failing_held = truncated(read, local_rows=1000), truncated(failing_read, local_rows=1000)
    assert held_rows(held) == read.count() > 0 and held_rows(read) is None
    rows = read.count()
    cases = [(held, None), (failing_held, None), (read, None), (failing_read, None), (read, rows), (failing_read, rows)]

    def judged(runner: quality_gx.GxRunner, df: DataFrame, known: int | None) -> tuple[list[tuple[Any, ...]], int]:
        with one_job(spark), counting(spark) as jobs:  # as quality.check runs it
            found = runner.validate(suite, df, run_id="r-held", run_ts=datetime.now(UTC), known_rows=known)
        outcome = [(r.spec.check_id, r.success, r.element_count, r.unexpected_count, r.details) for r in found]
        # the checks' own jobs: Delta Lake lists a table's files for each query over it, in jobs of its own
        delta = sum(n for d, n in jobs.by_description.items() if d and d.startswith("Delta"))
        return outcome, jobs.total - delta

    ours = quality_gx.GxRunner(str(tmp_path / "ours"))
    mine = [judged(ours, df, known) for df, known in cases]
    monkeypatch.setattr(quality_gx, "held_row_counts", contextlib.nullcontext)
    shipped = quality_gx.GxRunner(str(tmp_path / "shipped"))
    theirs = [judged(shipped, df, known) for df, known in cases]
    assert [jobs for _, jobs in mine[::2]] == [1, 2, 1] and [jobs for _, jobs in theirs[::2]] == [2, 2, 2]
    assert all(r[1] for r in mine[0][0]) and not all(r[1] for r in mine[1][0])
    assert [outcome for outcome, _ in mine] == [outcome for outcome, _ in theirs]
    assert {r[2] for outcome, _ in mine for r in outcome if r[2] is not None} == {rows}


def test_the_rows_a_write_committed_are_read_from_its_commit_whatever_was_committed_since(
    spark: SparkSession, tmp_path: Path
) -> None:
    store = open_store(spark, str(tmp_path / "warehouse"))
    df = spark.createDataFrame([("a", 1), ("a", 2), ("b", 3)], "cluster_id string, n long")
    store.ensure("t", df.schema, ["cluster_id"])
    created = store.append("t", df)  # the table's creation with its rows
    replaced = store.replace_partitions("t", df.filter("cluster_id = 'a'"), {"cluster_id": ["a"]})
    later = store.append("t", df.filter("cluster_id = 'b'"))  # another write after the run's
    # each version counts the rows its own commit wrote (Delta's operation metrics), not the table's at the end
    assert quality.written_rows(store, {"t": created}) == {"t": 3}
    assert quality.written_rows(store, {"t": replaced}) == {"t": 2}
    assert quality.written_rows(store, {"t": later}) == {"t": 1}
    # what Spark counts in each version's partitions the write replaced
    assert store.read("t", version=replaced).filter("cluster_id = 'a'").count() == 2
    # a version whose commit cannot be read is left out (its rows are counted by the checks), never taken as 0
    assert quality.written_rows(store, {"t": later + 5}) == {}


def test_a_warehouse_on_an_object_store_leaves_the_counts_to_the_checks(spark: SparkSession) -> None:
    store = DeltaStore(spark, "s3a://bucket/warehouse")
    assert store.rows_written("t", 0) is None


def test_great_expectations_imports_where_main_has_no_file() -> None:
    # `python -c` and pytest-xdist workers have a __main__ without __file__: pyspark.sql.connect, which GX imports,
    # then takes the process for a doctest run and exits 0 when grpc is missing (the job would stop, "successfully").
    code = "from jobs.quality.gx import guard_spark_connect_import as g; g(); import great_expectations; print('ok')"
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo), "GX_ANALYTICS_ENABLED": "False"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr[-2000:]


def test_a_run_killed_before_its_end_leaves_no_run_row_and_its_bronze_checks_come_back(
    spark: SparkSession, good: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """#16 item 11: the audit_runs row is written last, and an ingest whose run did not finish is checked again."""
    copy = copied(good, "killed")
    store = open_store(spark, str(copy))
    killed = good["summary"]["run_id"]
    # What a kill during the gold stage leaves: every table and dq_results row of the run, but no audit_runs row.
    store.overwrite("audit_runs", spark.createDataFrame([], gold.AUDIT_RUNS))
    assert killed in {r["run_id"] for r in results(spark, copy)}
    assert quality.pending_ingests(store, ["e2e", "warned"])  # its ingest is not counted as checked

    real_gold = quality.check_gold

    def gold_before_the_run_row(*args: Any, **kwargs: Any) -> quality.DqCounts:
        assert store.read("audit_runs").filter(F.col("run_id") == kwargs["run_id"]).count() == 0
        return real_gold(*args, **kwargs)

    monkeypatch.setattr(quality, "check_gold", gold_before_the_run_row)
    summary_path = copy.parent / "rerun.json"
    code = pipeline(copy, [DATA / "cluster.jsonl", good["tmp"] / "warned" / "cluster.jsonl"], summary_path)
    summary = json.loads(summary_path.read_text())
    assert code == 1
    assert summary["dq"]["failed_warning"] == 1  # the killed run's quarantined line, checked again (not "success")
    bronze = results(spark, copy, run_id=summary["run_id"], stage="bronze")
    assert [r["check_id"] for r in bronze if not r["success"]] == ["quarantine_empty"]
    assert [r["run_id"] for r in store.read("audit_runs").collect()] == [summary["run_id"]]
    assert quality.pending_ingests(store, ["e2e", "warned"]) == set()
