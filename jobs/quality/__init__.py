"""The data-quality stage: validate tables with Great Expectations, keep the results, stop on critical failures.

``check(spark, store, stage, frames, ...)`` validates each DataFrame with its table's suite
(``transforms.quality.suites``) through GX's Spark datasource (``jobs.quality.gx``), keeps one row per
expectation for the Delta table ``dq_results`` (a run's rows of every stage are merged in one commit: ``Ledger``),
renders GX Data Docs under ``<warehouse>/dq/data-docs/``, logs failed warnings, and raises ``DataQualityError``
(exit code 2) naming the table, the expectation and the failing row count when a critical expectation fails.

Pipeline call sites: ``check_bronze`` after an ingest (``run``, ``gate``), ``check_silver`` after the state
tables are written and ``check_gold`` after the run's results are written (``audit``, ``run``, ``gate``);
``--no-dq`` skips them. ``kraft-audit dq`` (``jobs.dq``) checks a whole warehouse.

Cost: each table is read twice by GX (a row count, then one aggregate with every unexpected count), once when its
row count is known without a job: from the plan of a frame the run holds as a local relation, or from the commit
the run has just made writing the frame (``written_rows``; both through ``quality_gx.held_row_counts``); the silver
and gold checks take the frames the run wrote, not the tables read back;
cross-row rules are precomputed as flag columns, so a large bronze table is not scanned per expectation.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.quality.gx import CheckResult, GxRunner, prefetch, quiet_gx
from jobs.runtime.holding import held_locally, one_job
from jobs.runtime.progress import stage as progress_stage
from jobs.storage import DeltaStore
from schemas.errors import DataQualityError
from schemas.quality import CRITICAL, DQ_RESULTS, Stage
from transforms.kit.local_frames import local_frame
from transforms.quality.suites import all_suites, suites_for

log = logging.getLogger("kraft_audit")

DQ_TABLE = "dq_results"

__all__ = [
    "DQ_TABLE",
    "DqCounts",
    "Ledger",
    "check",
    "check_bronze",
    "check_gold",
    "check_silver",
    "prefetch",
    "written_rows",
]


@dataclass
class DqCounts:
    """What the data-quality checks of a run found (the run summary's ``dq`` entry)."""

    checked: int = 0
    failed_critical: int = 0
    failed_warning: int = 0
    tables: list[str] = field(default_factory=list)
    data_docs: str | None = None
    critical: list[str] = field(default_factory=list)  # one clause per failed critical expectation

    def __add__(self, other: DqCounts) -> DqCounts:
        return DqCounts(
            checked=self.checked + other.checked,
            failed_critical=self.failed_critical + other.failed_critical,
            failed_warning=self.failed_warning + other.failed_warning,
            tables=[*self.tables, *other.tables],
            data_docs=other.data_docs or self.data_docs,
            critical=[*self.critical, *other.critical],
        )

    def to_json(self) -> dict[str, Any]:
        """The summary JSON entry."""
        return {
            "expectations_checked": self.checked,
            "failed_critical": self.failed_critical,
            "failed_warning": self.failed_warning,
            "tables": self.tables,
            "data_docs": self.data_docs,
        }

    def raise_on_critical(self, where: str) -> None:
        """DataQualityError naming the first failed critical expectations, if any failed."""
        if not self.critical:
            return
        shown = "; ".join(self.critical[:3])
        more = f"; and {len(self.critical) - 3} more" if len(self.critical) > 3 else ""
        docs = f" and {self.data_docs}" if self.data_docs else ""
        raise DataQualityError(f"data quality check failed ({where}): {shown}{more} (details in {DQ_TABLE}{docs})")


def check(
    spark: SparkSession,
    store: DeltaStore,
    stage: Stage,
    frames: Mapping[str, DataFrame],
    *,
    run_id: str,
    command: str,
    run_ts: datetime | None = None,
    raise_on_critical: bool = True,
    scope: Mapping[str, Any] | None = None,
    known_rows: Mapping[str, int] | None = None,
    ledger: Ledger | None = None,
) -> DqCounts:
    """Validate ``frames`` (table name -> DataFrame) with their suites; see the module docstring.

    ``scope`` is recorded in every result row's ``details`` (bronze: the ingest ids checked). ``known_rows``: the
    row counts of some frames, when the caller knows them (GX then runs no Spark job to count them). ``ledger``:
    the run's results not written yet, which this check's join (written by the run when it ends, or here when a
    critical expectation fails); without it the results are written now.

    Raises:
        DataQualityError: a critical expectation failed (raised after ``dq_results`` and the Data Docs are
            written), unless ``raise_on_critical`` is false.
    """
    started = time.monotonic()
    run_ts = run_ts or datetime.now(UTC).replace(microsecond=0)
    suites = all_suites()
    unknown = sorted(set(frames) - set(suites))
    if unknown:
        raise ValueError(f"no data-quality suite for table(s) {', '.join(unknown)}")
    results: list[CheckResult] = []
    with progress_stage(spark, f"checking data quality ({stage}: {len(frames)} tables)"), quiet_gx():
        runner = GxRunner.for_warehouse(store.warehouse)
        with one_job(spark):  # each of GX's one-row aggregates
            for table, df in frames.items():
                known = (known_rows or {}).get(table)
                results.extend(runner.validate(suites[table], df, run_id=run_id, run_ts=run_ts, known_rows=known))
        docs = runner.build_docs()
        own = ledger or Ledger(store, run_id=run_id, run_ts=run_ts, command=command)
        own.add(results, stage=stage, scope=scope or {}, run_ts=run_ts)
        failed_critical = [r for r in results if not r.success and r.spec.criticality == CRITICAL]
        if ledger is None or (failed_critical and raise_on_critical):
            own.write()  # before the run stops: the failures are read from dq_results
    failed_warning = [r for r in results if not r.success and r.spec.criticality != CRITICAL]
    for result in failed_warning:
        log.warning("  data quality warning: %s", result.describe())
    log.info(
        "  %d expectations: %d critical and %d warning failures (%.1fs)",
        len(results),
        len(failed_critical),
        len(failed_warning),
        time.monotonic() - started,
    )
    counts = DqCounts(
        checked=len(results),
        failed_critical=len(failed_critical),
        failed_warning=len(failed_warning),
        tables=list(frames),
        data_docs=docs,
        critical=[r.describe() for r in failed_critical],
    )
    if raise_on_critical:
        counts.raise_on_critical(stage)
    return counts


class Ledger:
    """The ``dq_results`` rows of one run's checks, written in one ``MERGE`` (a MERGE is five Spark jobs whatever
    its size: one per run, not one per stage). A run writes it when it ends, before its ``audit_runs`` row; a
    critical failure writes it before the run stops. A run killed before then leaves no rows, as it leaves no
    ``audit_runs`` row: its bronze rows are checked again by the next run (``check_bronze``)."""

    def __init__(self, store: DeltaStore, *, run_id: str, run_ts: datetime, command: str) -> None:
        self.store = store
        self.run_id = run_id
        self.run_ts = run_ts
        self.command = command
        self._rows: list[tuple[object, ...]] = []

    def add(
        self, results: Sequence[CheckResult], *, stage: str, scope: Mapping[str, Any], run_ts: datetime | None = None
    ) -> None:
        """Hold the rows of one stage's results (checked at ``run_ts``, default the ledger's)."""
        self._rows.extend(
            (
                self.run_id,
                run_ts or self.run_ts,
                self.command,
                stage,
                r.table,
                r.spec.check_id,
                r.spec.kind,
                r.spec.column,
                r.spec.criticality,
                r.success,
                r.element_count,
                r.unexpected_count,
                r.spec.description,
                json.dumps({**r.details, **scope}, sort_keys=True, default=str),
            )
            for r in results
        )

    def write(self) -> None:
        """MERGE the rows held (if any) on (run, stage, table, check): a stage checked again in the same run replaces
        its rows, never doubles them."""
        if not self._rows:
            return
        self.store.ensure(DQ_TABLE, DQ_RESULTS)
        rows_df = local_frame(self.store.spark, self._rows, DQ_RESULTS)
        self.store.merge(DQ_TABLE, rows_df, keys=("run_id", "stage", "table_name", "check_id"))
        self._rows = []


# --- pipeline call sites ------------------------------------------------------------------------------------


def check_bronze(
    spark: SparkSession,
    store: DeltaStore,
    *,
    ingest_id: str,
    clusters: Sequence[str],
    run_id: str,
    command: str,
    ledger: Ledger | None = None,
    local_rows: int = 0,
    first_ingest: bool = False,
    written: Mapping[str, DataFrame] | None = None,
) -> DqCounts:
    """After an ingest: the bronze rows it wrote, and those of earlier ingests of these clusters that no finished
    run has checked.

    ``first_ingest``: no bronze table existed when the ingest began, so no earlier ingest is pending (the lookup's
    reads are skipped). ``written``: the ingest's rows of each bronze table held in the driver (``IngestTables``);
    when the ingest is the only one to check, they are checked instead of the tables read back (the rows the tables
    hold under its id are exactly those: Delta wrote them under the same schema).

    ``local_rows`` (``jobs.runtime.holding.local_rows_for`` of the ingest): a table's rows to check are read once and
    held in the driver when there are at most that many (each read of a table just written lists its files, and
    rebuilds its Delta snapshot first; GX reads a frame twice, once when its row count is not known).

    Files skipped as unchanged were checked when they came, but only if that run finished (its ``audit_runs`` row
    is written last): a run killed, or stopped by a critical failure, before it ended leaves its ingest pending, so
    its warnings and failures come back on the next run instead of passing over zero rows.
    """
    pending = [ingest_id] if first_ingest else sorted(pending_ingests(store, clusters) | {ingest_id})
    if written is not None and pending == [ingest_id]:
        frames = {name: written[name] for name in stage_tables("bronze")}
    else:
        frames = {
            name: store.read(name).filter(F.col("cluster_id").isin(list(clusters)) & F.col("ingest_id").isin(pending))
            for name in stage_tables("bronze")
            if store.exists(name)
        }
        if local_rows > 0:
            frames = {name: held_locally(df, local_rows) or df for name, df in frames.items()}
    return check(
        spark,
        store,
        "bronze",
        frames,
        run_id=run_id,
        command=command,
        scope={"ingest_ids": pending},
        ledger=ledger,
    )


class IngestTables(Mapping[str, DataFrame]):
    """An ingest's rows of every bronze table, one frame each (``ingest_rows``), from the frames it wrote
    (``IngestResult.written``): each built on first use and kept, so that the bronze checks and the audit of one
    ``run`` share them (a table written in several frames is collected to the driver once)."""

    def __init__(self, store: DeltaStore, written: Mapping[str, Sequence[DataFrame]], local_rows: int) -> None:
        self._store, self._written, self._local_rows = store, written, local_rows
        self._built: dict[str, DataFrame] = {}

    def __getitem__(self, table: str) -> DataFrame:
        if table not in self._built:
            frames = self._written.get(table, ())
            self._built[table] = ingest_rows(self._store, table, frames, self._local_rows)
        return self._built[table]

    def __iter__(self) -> Iterator[str]:
        return iter(stage_tables("bronze"))

    def __len__(self) -> int:
        return len(stage_tables("bronze"))


def ingest_rows(store: DeltaStore, table: str, frames: Sequence[DataFrame], local_rows: int) -> DataFrame:
    """One ingest's rows of a bronze table from the frames it wrote (none: no rows, with the table's schema), held
    in the driver when they are more than one frame (a union is not one local relation)."""
    if not frames:
        return local_frame(store.spark, [], all_suites()[table].schema)
    rows_df = frames[0]
    for more in frames[1:]:
        rows_df = rows_df.unionByName(more)
    return (held_locally(rows_df, local_rows) or rows_df) if len(frames) > 1 and local_rows > 0 else rows_df


def pending_ingests(store: DeltaStore, clusters: Sequence[str]) -> set[str]:
    """Ingests of these clusters whose bronze rows no finished run has checked (see :func:`check_bronze`)."""
    bronze = [name for name in ("ingested_files", "quarantine", "static_configs") if store.exists(name)]
    if not bronze:
        return set()
    seen_df = None
    for name in bronze:
        ids_df = store.read(name).filter(F.col("cluster_id").isin(list(clusters))).select("ingest_id")
        seen_df = ids_df if seen_df is None else seen_df.unionByName(ids_df)
    assert seen_df is not None
    with one_job(store.spark):
        seen = {r["ingest_id"] for r in seen_df.distinct().collect()}
    return seen - checked_ingests(store)


def checked_ingests(store: DeltaStore) -> set[str]:
    """Ingests whose bronze rows were checked by a run that finished (it has an ``audit_runs`` row)."""
    if not store.exists(DQ_TABLE) or not store.exists("audit_runs"):
        return set()
    finished_df = store.read("audit_runs").select("run_id").distinct()
    ids_df = (
        store.read(DQ_TABLE)
        .filter(F.col("stage") == "bronze")
        .join(finished_df, on="run_id", how="inner")
        .select(F.explode(F.from_json(F.get_json_object("details", "$.ingest_ids"), "array<string>")).alias("id"))
    )
    return {r["id"] for r in ids_df.distinct().collect()}


def check_silver(
    spark: SparkSession,
    store: DeltaStore,
    state: Any,
    *,
    versions: Mapping[str, int],
    run_id: str,
    run_ts: datetime,
    command: str,
    ledger: Ledger | None = None,
) -> DqCounts:
    """After replay: the silver state tables as written for the run's clusters (``state`` holds the frames the run
    wrote; their row counts are read from the commits the writes made, ``versions``)."""
    tables = stage_tables("silver")
    frames = {name: getattr(state, name) for name in tables}
    known = written_rows(store, versions)
    return check(
        spark, store, "silver", frames, run_id=run_id, run_ts=run_ts, command=command, known_rows=known, ledger=ledger
    )


def check_gold(
    spark: SparkSession,
    store: DeltaStore,
    held: Mapping[str, DataFrame],
    *,
    versions: Mapping[str, int],
    run_id: str,
    run_ts: datetime,
    command: str,
    audit_run_df: DataFrame,
    ledger: Ledger | None = None,
) -> DqCounts:
    """After evaluation: the effective configs of the run's clusters, the run's violations, findings and upgrade
    effects, and its ``audit_runs`` row before it is written (the row is written last, after these checks).

    ``held``: the frames the run wrote to these tables, with the tables' columns (the audit holds them), checked
    as they are rather than read back from the tables (at L, 5.8 M effective rows decoded from Parquet again; for a
    small run, a Delta snapshot rebuilt per table); row counts are read from the commits the writes made
    (``versions``) where Delta recorded them.
    """
    frames = {**held, "audit_runs": audit_run_df}
    known = written_rows(store, versions)
    return check(
        spark, store, "gold", frames, run_id=run_id, run_ts=run_ts, command=command, known_rows=known, ledger=ledger
    )


def written_rows(store: DeltaStore, versions: Mapping[str, int]) -> dict[str, int]:
    """The rows each table's write committed at its version (``versions``: table -> the version of the run's own
    commit), from the commit's metrics in the table's log (``DeltaStore.rows_written``: no Spark job). A table whose
    commit does not tell is left out (its rows are counted by the checks)."""
    known: dict[str, int] = {}
    for table, version in versions.items():
        rows = store.rows_written(table, version)
        if rows is not None:
            known[table] = rows
    return known


def combined(before: DqCounts | None, after: dict[str, Any] | None) -> dict[str, Any] | None:
    """A summary's ``dq`` entry with the counts of an earlier stage (``run``: bronze) added."""
    if before is None or after is None:
        return after if before is None else before.to_json()
    later = DqCounts(
        checked=after["expectations_checked"],
        failed_critical=after["failed_critical"],
        failed_warning=after["failed_warning"],
        tables=list(after["tables"]),
        data_docs=after["data_docs"],
    )
    return (before + later).to_json()


def stage_tables(stage: Stage) -> list[str]:
    """The tables a stage checks, in order."""
    return [s.table for s in suites_for(stage)]


def scoped(
    df: DataFrame,
    *,
    clusters: Sequence[str] | None = None,
    run_id: str | None = None,
    ingest_id: str | None = None,
) -> DataFrame:
    """Rows of some clusters, one run or one ingest."""
    if clusters is not None:
        df = df.filter(F.col("cluster_id").isin(list(clusters)))
    if run_id is not None:
        df = df.filter(F.col("run_id") == run_id)
    if ingest_id is not None:
        df = df.filter(F.col("ingest_id") == ingest_id)
    return df
