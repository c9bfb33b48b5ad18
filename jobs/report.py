"""``kraft-audit report``: one self-contained HTML file about an audit run (the latest by default), with charts.

Extract: the run tables through the storage layer. Transform: ``jobs.reporting.data`` shapes small aggregates.
Load: collect them (a few hundred rows at most, plus the run's violations up to ``--max-violations``), render
with ``jobs.reporting.html`` and write the file atomically.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from jobs.output_files import write_output
from jobs.reporting import data as rd
from jobs.reporting.html import CHARTS, ReportData, render_report
from jobs.reporting.svg import Bar, Cell, Point
from jobs.runtime.entry import run_job_file
from jobs.runtime.session import build_session
from jobs.storage import DeltaStore, open_store
from jobs.summary import RunSummary, write_summary_json
from jobs.upgrade_effects import TABLE as UPGRADE_EFFECTS_TABLE
from jobs.upgrade_effects import summary_entry
from schemas import bronze, gold
from schemas.errors import InputError, UsageError
from schemas.upgrade_effects import UPGRADE_EFFECTS
from schemas.violations import HIGHEST_SAFE_LEVELS, VIOLATIONS, VIOLATIONS_BY_LEVEL

HELP = "write a self-contained HTML report of the latest runs"

log = logging.getLogger("kraft_audit")

MAX_VIOLATIONS = 5000  # rows of the violation table; the charts always count every violation
MAX_FINDINGS = 2000
TREND_RUNS = 50

# table -> schema to use when the table does not exist yet (an audit that wrote no such rows)
TABLES: dict[str, StructType] = {
    "violations": VIOLATIONS,
    "violations_by_level": gold.with_run_columns(VIOLATIONS_BY_LEVEL),
    "highest_safe_levels": gold.with_run_columns(HIGHEST_SAFE_LEVELS),
    "findings": gold.FINDINGS,
    "quarantine": bronze.QUARANTINE,
    UPGRADE_EFFECTS_TABLE: gold.with_run_columns(UPGRADE_EFFECTS),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Report options (docs/contract.md §2)."""
    parser.add_argument("--out", metavar="FILE", help="HTML file to write (default <warehouse>/report.html)")
    parser.add_argument("--run-id", metavar="ID", help="the audit run to report (default: the latest)")
    parser.add_argument(
        "--max-violations",
        type=int,
        default=MAX_VIOLATIONS,
        metavar="N",
        help=f"rows of the violation table, errors first (default {MAX_VIOLATIONS}); charts count all",
    )


@dataclass(frozen=True)
class ReportSettings:
    """What varies per report."""

    warehouse: str
    out: str
    run_id: str | None = None  # None: the newest run
    max_violations: int = MAX_VIOLATIONS


@dataclass(frozen=True)
class ReportResult:
    """The file written and the summary of the run it describes."""

    path: Path
    summary: RunSummary


def settings_from_args(args: argparse.Namespace) -> ReportSettings:
    """Validated settings from parsed arguments (bad values are UsageError, exit 2)."""
    if args.max_violations < 0:
        raise UsageError("--max-violations must be 0 or more")
    return ReportSettings(
        warehouse=args.warehouse,
        out=args.out or default_out(args.warehouse),
        run_id=args.run_id,
        max_violations=args.max_violations,
    )


def execute(args: argparse.Namespace) -> int:
    """CLI entry: write the report and print its path."""
    settings = settings_from_args(args)
    result = run(build_session(master=args.master), settings)
    print(result.path)
    if args.summary_json:
        write_summary_json(args.summary_json, result.summary)
    return 0


def run(spark: SparkSession, settings: ReportSettings) -> ReportResult:
    """Render the report of one run to ``settings.out``.

    Raises:
        InputError: the warehouse has no audit runs, or none with ``run_id``.
    """
    store = open_store(spark, settings.warehouse)
    chosen = _load_run(store, settings.run_id)
    path = _write(store, chosen, settings.out, max_violations=settings.max_violations)
    return ReportResult(path=path, summary=run_summary(store, chosen))


def default_out(warehouse: str) -> str:
    """``<warehouse>/report.html`` for a local (or ``file:``) warehouse."""
    parsed = urlparse(warehouse)
    if parsed.scheme == "file":
        return os.path.join(unquote(parsed.path), "report.html")
    if "://" in warehouse:
        raise UsageError(f"the warehouse {warehouse} is not a local directory: pass --out FILE for the report")
    return os.path.join(warehouse, "report.html")


def write_report(
    spark: SparkSession,
    warehouse: str,
    out: str,
    run_id: str | None = None,
    *,
    max_violations: int = MAX_VIOLATIONS,
) -> Path:
    """Render the report of ``run_id`` (default: the newest run) to ``out``; returns the file written.

    Raises:
        InputError: the warehouse has no audit runs, or none with ``run_id``.
    """
    store = open_store(spark, warehouse)
    return _write(store, _load_run(store, run_id), out, max_violations=max_violations)


def _write(store: DeltaStore, run: dict[str, Any], out: str, *, max_violations: int) -> Path:
    data = collect_report_data(store, run, max_violations=max_violations)
    path = Path(out).expanduser().resolve()
    write_output(path, render_report(data))
    log.info("report of run %s written to %s", run["run_id"], path)
    return path


def _load_run(store: DeltaStore, run_id: str | None) -> dict[str, Any]:
    if not store.exists("audit_runs"):
        raise InputError(f"no audit runs in {store.warehouse}: run `kraft-audit audit` (or `run`) first")
    runs_df = store.read("audit_runs")
    picked_df = rd.filter_run(runs_df, run_id=run_id) if run_id else runs_df
    rows = picked_df.transform(rd.to_latest_run).collect()
    if not rows:
        if run_id:
            raise InputError(f"no audit run {run_id} in {store.path('audit_runs')}")
        raise InputError(f"no audit runs in {store.warehouse}: run `kraft-audit audit` (or `run`) first")
    return rows[0].asDict(recursive=True)


def _read(store: DeltaStore, table: str) -> DataFrame:
    if store.exists(table):
        return store.read(table)
    return store.spark.createDataFrame([], TABLES[table])


def collect_report_data(store: DeltaStore, run: dict[str, Any], *, max_violations: int) -> ReportData:
    """Run the report transforms for one run and collect their results."""
    run_id = run["run_id"]
    violations_df = _read(store, "violations").transform(rd.filter_run, run_id=run_id)
    violations_df = violations_df.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        counts = {
            by: [_bar(r) for r in violations_df.transform(rd.to_violation_counts, by=by).collect()] for by in CHARTS
        }
        total = sum(b.total for b in counts["severity"])
        violations = _rows(violations_df.transform(rd.to_violation_rows).limit(max_violations))
    finally:
        violations_df.unpersist()
    by_level_df = _read(store, "violations_by_level").transform(rd.filter_run, run_id=run_id)
    safe_df = _read(store, "highest_safe_levels").transform(rd.filter_run, run_id=run_id)
    findings_df = _read(store, "findings").transform(rd.filter_run, run_id=run_id)
    runs = _rows(store.read("audit_runs").transform(rd.to_run_trend, last=TREND_RUNS))
    quarantine_df = _read(store, "quarantine").transform(rd.filter_clusters, clusters=list(run["clusters"] or []))
    finding_counts = _rows(findings_df.transform(rd.to_finding_counts))
    return ReportData(
        run=run,
        warehouse=store.warehouse,
        generated_at=datetime.now(UTC),
        counts=counts,
        safe_levels=_rows(safe_df.transform(rd.to_safe_levels)),
        cells=[Cell(**r) for r in _rows(rd.to_readiness_matrix(by_level_df, safe_df))],
        trend=[_point(r, selected=r["run_id"] == run_id) for r in runs],
        runs=runs,
        violations=violations,
        violations_total=total,
        finding_counts=finding_counts,
        findings=_rows(findings_df.transform(rd.to_finding_rows).limit(MAX_FINDINGS)),
        findings_total=sum(int(r["findings"]) for r in finding_counts),
        quarantine=_rows(quarantine_df.transform(rd.to_quarantine_counts)),
        upgrade_effects=_upgrade_effect_rows(store, run_id),
    )


def _upgrade_effect_rows(store: DeltaStore, run_id: str) -> list[dict[str, Any]]:
    """The run's ``upgrade_effects`` rows (a few per cluster), cluster and resource order."""
    effects_df = _read(store, UPGRADE_EFFECTS_TABLE).transform(rd.filter_run, run_id=run_id)
    return _rows(effects_df.orderBy("cluster_id", "resource_type", "resource_name", "config_name"))


def _rows(df: DataFrame) -> list[dict[str, Any]]:
    return [r.asDict(recursive=True) for r in df.collect()]


def _bar(row: Any) -> Bar:
    return Bar(label=row["label"], errors=row["errors"], warnings=row["warnings"], total=row["violations"])


def _point(row: dict[str, Any], *, selected: bool) -> Point:
    ts = row["run_ts"].astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return Point(
        label=ts,
        run_id=row["run_id"],
        target_mv=row["target_mv"],
        errors=row["errors"],
        warnings=row["warnings"],
        verdict=row["verdict"],
        selected=selected,
    )


def run_summary(store: DeltaStore, run: dict[str, Any]) -> RunSummary:
    """docs/contract.md §8's summary of a past run, from its ``audit_runs`` row."""
    errors, warnings = int(run["violations_error"]), int(run["violations_warning"])
    effects = _upgrade_effect_rows(store, run["run_id"])
    tables = {name: store.path(name) for name in ("violations", "violations_by_level", "findings", "audit_runs")}
    return RunSummary(
        run_id=run["run_id"],
        target_mv=run["target_mv"],
        target_level=run["target_level"],
        clusters=list(run["clusters"] or []),
        records_read=int(run["records_read"]),
        records_quarantined=int(run["records_quarantined"]),
        violations_total=errors + warnings,
        violations_by_severity={"error": errors, "warning": warnings},
        highest_safe_mv=dict(run["highest_safe_mv"] or {}),
        verdict=run["verdict"],
        tables=tables,
        downgrade_clusters=list(run["downgrade_clusters"] or []),
        findings_total=int(run["findings"]),
        duration_seconds=int(run["duration_ms"]) / 1000,
        # the command form is stored on the effect rows only: a run that predicted none has no entry
        upgrade_effects=summary_entry(effects[0]["upgrade_with"], effects) if effects else None,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/report.py [--out report.html] [--run-id ID]``."""
    return run_job_file("report", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
