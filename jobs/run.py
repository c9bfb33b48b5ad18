"""``kraft-audit run``: ingest the inputs, then audit them, in one job (one Spark session)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pyspark.sql import SparkSession

from jobs import audit, ingest, quality
from jobs.audit_steps.extract import held_bronze
from jobs.runtime.entry import run_job_file
from jobs.runtime.expression_check import validate_with_spark
from jobs.runtime.holding import interpreted, interpreted_input, local_rows_for
from jobs.runtime.session import build_session
from jobs.storage import open_store

HELP = "ingest + audit in one job"


@dataclass(frozen=True)
class RunSettings:
    """An ingest and the audit of the clusters it touched."""

    ingest: ingest.IngestSettings
    audit: audit.AuditSettings
    print_ingest_summary: bool = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """All options of ingest and audit."""
    ingest.add_ingest_arguments(parser, required=True)
    audit.add_audit_arguments(parser, cluster_option=False)


def settings_from_args(args: argparse.Namespace, *, command: str = "run") -> RunSettings:
    """Validated settings of both halves (bad values are UsageError, exit 2)."""
    return RunSettings(
        ingest=ingest.settings_from_args(args),
        audit=audit.settings_from_args(args, command=command),
        print_ingest_summary=not args.quiet,
    )


def run(
    spark: SparkSession,
    settings: RunSettings,
    *,
    inputs: ingest.IngestInputs | None = None,
    rules: audit.Rules | None = None,
) -> audit.AuditResult:
    """Ingest, then audit exactly the clusters of these inputs under one run id (bronze checks included)."""
    run_id = settings.audit.run_id or uuid.uuid4().hex
    rules = rules or audit.load_rules(settings.audit)
    # what can only be checked with Spark, before the ingest writes: the catalogs' expressions, every table's log
    validate_with_spark(rules[0], spark)
    open_store(spark, settings.ingest.warehouse).check_tables([*ingest.TABLES, *audit.written_tables()])
    ingested = ingest.run(spark, settings.ingest, inputs=inputs)
    if settings.print_ingest_summary:
        ingest.print_summary(ingested)
    bronze_dq = ledger = None
    store = open_store(spark, settings.ingest.warehouse)
    # the ingest's rows of each bronze table held in the driver (None: not all held), for its checks and the audit
    local_rows = local_rows_for(ingested.records)
    held_rows = None if ingested.written is None else quality.IngestTables(store, ingested.written, local_rows)
    if settings.audit.dq:
        # the run's data-quality results, bronze's and the audit's, written in one commit when the audit ends
        ledger = quality.Ledger(store, run_id=run_id, run_ts=datetime.now(UTC), command=settings.audit.command)
        # as the audit decides (jobs.runtime.holding)
        with interpreted(spark, when=interpreted_input(ingested.records)):
            bronze_dq = quality.check_bronze(
                spark,
                store,
                ingest_id=ingested.ingest_id,
                clusters=ingested.clusters,
                run_id=run_id,
                command=settings.audit.command,
                ledger=ledger,
                local_rows=local_rows,
                first_ingest=ingested.first_ingest,
                written=held_rows,
            )
    scoped = dataclasses.replace(settings.audit, cluster_ids=tuple(ingested.clusters), run_id=run_id)
    held = held_bronze(ingested, held_rows)
    result = audit.run(spark, scoped, rules=rules, checked=True, dq_ledger=ledger, held_bronze=held)
    result.summary.dq = quality.combined(bronze_dq, result.summary.dq)
    return result


def start(args: argparse.Namespace, *, command: str) -> audit.AuditResult:
    """Shared by ``run`` and ``gate``: every user mistake is found before Spark starts, then the job runs."""
    settings = settings_from_args(args, command=command)
    inputs = ingest.find_inputs(settings.ingest)
    rules = audit.load_rules(settings.audit)
    if settings.audit.dq:
        quality.prefetch()
    spark = build_session(master=args.master)
    return run(spark, settings, inputs=inputs, rules=rules)


def execute(args: argparse.Namespace) -> int:
    """CLI entry."""
    result = start(args, command="run")
    audit.report(result, args)
    return result.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/run.py --input ... --target-mv ...``."""
    return run_job_file("run", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
