"""``kraft-audit dq``: run the data-quality expectations on the latest tables of a warehouse.

Extract: the bronze tables as they are, the silver and gold state tables as they are, and the rows of one audit
run (the latest by default) of ``violations``, ``findings`` and ``audit_runs``. Validate them with the
Great Expectations suites (``jobs.quality``). Load: ``dq_results`` rows and Data Docs under
``<warehouse>/dq/data-docs/``. Exit code 0 when no critical expectation failed (warnings are printed), 2 when one
did (the message names the table, the expectation and the failing rows).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import quality
from jobs.output_files import write_output
from jobs.runtime.entry import run_job_file
from jobs.runtime.session import build_session
from jobs.storage import DeltaStore, open_store
from schemas.errors import InputError, UsageError
from schemas.quality import STAGES, Stage

HELP = "run the data-quality expectations (Great Expectations) on a warehouse's tables"

RUN_TABLES = ("violations", "findings", "upgrade_effects", "audit_runs")


@dataclass(frozen=True)
class DqSettings:
    """What varies per ``dq`` run."""

    warehouse: str
    stages: tuple[Stage, ...] = STAGES
    run_id: str | None = None  # the audit run whose violations/findings/audit_runs rows are checked


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """dq options."""
    parser.add_argument(
        "--stage",
        action="append",
        choices=list(STAGES),
        default=[],
        help="check only this stage's tables; repeatable (default: bronze, silver and gold)",
    )
    parser.add_argument("--run-id", metavar="ID", help="the audit run whose gold rows are checked (default: latest)")


def settings_from_args(args: argparse.Namespace) -> DqSettings:
    """Validated settings from parsed arguments."""
    stages: tuple[Stage, ...] = tuple(s for s in STAGES if s in args.stage) or STAGES
    return DqSettings(warehouse=args.warehouse, stages=stages, run_id=args.run_id)


def execute(args: argparse.Namespace) -> int:
    """CLI entry: check, print the counts, write the summary JSON when asked."""
    settings = settings_from_args(args)
    quality.prefetch()
    spark = build_session(master=args.master)
    counts = run(spark, settings)
    print(
        f"data quality: {counts.checked} expectations on {len(counts.tables)} tables passed "
        f"({counts.failed_warning} warning(s))" + (f"; Data Docs: {counts.data_docs}" if counts.data_docs else "")
    )
    if args.summary_json:
        write_output(args.summary_json, json.dumps({"dq": counts.to_json()}, indent=2) + "\n")
    return 0


def run(spark: SparkSession, settings: DqSettings) -> quality.DqCounts:
    """Check every stage's tables, then raise DataQualityError if a critical expectation failed anywhere."""
    store = open_store(spark, settings.warehouse)
    run_id = uuid.uuid4().hex
    run_ts = datetime.now(UTC).replace(microsecond=0)
    audited = _audit_run(store, settings.run_id) if "gold" in settings.stages else None
    total = quality.DqCounts()
    ledger = quality.Ledger(store, run_id=run_id, run_ts=run_ts, command="dq")  # every stage's rows in one commit
    for stage in settings.stages:
        frames = {name: _frame(store, name, audited) for name in quality.stage_tables(stage) if store.exists(name)}
        if frames:
            total = total + quality.check(
                spark,
                store,
                stage,
                frames,
                run_id=run_id,
                run_ts=run_ts,
                command="dq",
                raise_on_critical=False,
                ledger=ledger,
            )
    ledger.write()
    if not total.tables:
        raise InputError(f"no tables to check in {settings.warehouse}: run `kraft-audit ingest` or `run` first")
    total.raise_on_critical(", ".join(settings.stages))
    return total


def _frame(store: DeltaStore, name: str, audited: str | None) -> DataFrame:
    df = store.read(name)
    return quality.scoped(df, run_id=audited) if name in RUN_TABLES and audited else df


def _audit_run(store: DeltaStore, run_id: str | None) -> str | None:
    """The audit run to check: the one asked for (it must exist) or the latest; None when there is none."""
    if not store.exists("audit_runs"):
        if run_id:
            raise UsageError(f"--run-id {run_id}: no audit runs in this warehouse")
        return None
    runs_df = store.read("audit_runs")
    if run_id:
        if runs_df.filter(F.col("run_id") == run_id).limit(1).count() == 0:
            raise UsageError(f"--run-id {run_id}: no such audit run")
        return run_id
    latest = runs_df.orderBy(F.col("run_ts").desc(), F.col("run_id").desc()).select("run_id").limit(1).collect()
    return str(latest[0]["run_id"]) if latest else None


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/dq.py --warehouse ...``."""
    return run_job_file("dq", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
