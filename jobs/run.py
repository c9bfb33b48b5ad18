"""``kraft-audit run``: ingest the inputs, then audit them, in one job (one Spark session)."""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Sequence

from jobs import audit, ingest, quality
from jobs.session import build_session
from jobs.storage import open_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """All options of ingest and audit."""
    ingest.add_ingest_arguments(parser, required=True)
    audit.add_audit_arguments(parser, cluster_option=False)


def run_both(args: argparse.Namespace, *, command: str) -> audit.AuditResult:
    """Ingest then audit the clusters of these inputs; shared by ``run`` and ``gate``."""
    ingest_settings = ingest.settings_from_args(args)
    audit_settings = audit.settings_from_args(args, command=command)
    rules = audit.load_rules(audit_settings)  # catalog mistakes surface before Spark starts
    run_id = uuid.uuid4().hex
    if audit_settings.dq:
        quality.prefetch()
    spark = build_session(master=args.master)
    ingested = ingest.run(spark, ingest_settings)
    if not args.quiet:
        ingest.print_summary(ingested)
    bronze_dq = None
    if audit_settings.dq:
        store = open_store(spark, ingest_settings.warehouse, ingest_settings.delta_backend)
        bronze_dq = quality.check_bronze(spark, store, ingest_id=ingested.ingest_id, run_id=run_id, command=command)
    scoped = audit.AuditSettings(
        **{**audit_settings.__dict__, "cluster_ids": tuple(ingested.clusters), "run_id": run_id}
    )
    result = audit.run(spark, scoped, rules=rules)
    result.summary.dq = quality.combined(bronze_dq, result.summary.dq)
    return result


def execute(args: argparse.Namespace) -> int:
    """CLI entry."""
    result = run_both(args, command="run")
    audit.report(result, args)
    return result.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/run.py --input ... --target-mv ...``."""
    from jobs.cli import main as cli_main

    return cli_main(["run", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
