"""``kraft-audit demo``: the embedded-default showcase.

Synthesises a small fleet as real binary KRaft logs, adds the real KRaft files of ``../shared/real-metadata``
when they are present, ingests everything, audits it for a target metadata.version, writes the tables and the
HTML report, and prints the verdict and where to look. It needs no set-up beyond ``make setup``; the exit code
is 0 whatever the verdict (the demo shows a verdict, it does not gate anything).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import SparkSession

from jobs import audit, ingest, synth
from jobs.runtime.entry import run_job_file
from jobs.runtime.session import build_session
from jobs.summary import verdict_text
from synthetic.spec import FleetSpec

HELP = "synthesise a small fleet, audit it, write tables and report"

DEFAULT_TARGET = "4.2"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Demo options: everything has a default."""
    parser.add_argument("--target-mv", default=DEFAULT_TARGET, metavar="MV", help=f"default {DEFAULT_TARGET}")
    parser.add_argument("--clusters", type=int, default=4, help="synthetic clusters (default 4)")
    parser.add_argument("--topics", type=int, default=30, help="topics per synthetic cluster (default 30)")
    parser.add_argument("--fleet-dir", help="where the synthetic fleet is written (default <warehouse>/../demo-fleet)")
    parser.add_argument(
        "--real-metadata", help="folder of real KRaft files to include (default ../shared/real-metadata)"
    )
    parser.add_argument("--no-real-metadata", action="store_true", help="audit only the synthetic fleet")
    parser.add_argument("--no-dq", action="store_true", help="skip the data-quality stage (Great Expectations)")
    parser.add_argument("--report", metavar="FILE", help="HTML report path (default <warehouse>/report.html)")


def real_metadata_dir(given: str | None) -> Path | None:
    """The real KRaft files folder, if present."""
    candidates = (
        [given]
        if given
        else [
            os.environ.get("KRAFT_AUDIT_REAL_METADATA"),
            str(Path(__file__).resolve().parent.parent.parent / "shared" / "real-metadata"),
        ]
    )
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


@dataclass(frozen=True)
class DemoSettings:
    """What the demo synthesises, ingests and audits."""

    warehouse: str
    fleet: FleetSpec
    target_mv: str = DEFAULT_TARGET
    real_metadata: Path | None = None  # real KRaft files to add, one cluster per repository folder
    report: str | None = None  # default <warehouse>/report.html
    dq: bool = True


@dataclass(frozen=True)
class DemoResult:
    """What the demo did and where it wrote it."""

    audit: audit.AuditResult
    report: str | None
    real_clusters: int


def settings_from_args(args: argparse.Namespace) -> DemoSettings:
    """Validated settings from parsed arguments."""
    warehouse = Path(args.warehouse).resolve()
    fleet = Path(args.fleet_dir).resolve() if args.fleet_dir else warehouse.parent / "demo-fleet"
    return DemoSettings(
        warehouse=str(warehouse),
        fleet=FleetSpec(out=str(fleet), clusters=args.clusters, topics=args.topics, overwrite=True, seed=7),
        target_mv=args.target_mv,
        real_metadata=None if args.no_real_metadata else real_metadata_dir(args.real_metadata),
        report=args.report,
        dq=not args.no_dq,
    )


def execute(args: argparse.Namespace) -> int:
    """Synthesise, ingest, audit, report, and tell the user where to look."""
    settings = settings_from_args(args)
    result = run(build_session(master=args.master), settings)
    summary = result.audit.summary
    print(verdict_text(summary))
    print("\nWhere to look:")
    print(f"  report      {result.report or '(report module not available)'}")
    print(f"  violations  {summary.tables['violations']}  (Delta; Spark, delta-rs or DuckDB delta_scan)")
    print(f"  effective   {summary.tables['effective_configs']}")
    print(f"  findings    {summary.tables['findings']}")
    print(f"  fleet       {settings.fleet.out}/manifest.json (what was planted)")
    print("\nTwo kinds of rules (violations.constraint_origin, docs/contract.md §5.4):")
    print("  base validators  Kafka's ConfigDef checks of the release the brokers run at each level (kafka_base)")
    print("  MV validators    rules with `since`, added from their level on: Kafka's own MV gates (kafka_mv), yours")
    print("  e.g. a topic's retention.ms=-100 fails every release's base check atLeast(-1), at every level")
    print("\nThe upgrade's own effects (upgrade_effects, docs/contract.md §5.7):")
    print("  `kafka-features.sh upgrade --release-version` to 4.1-IV0 or later enables ELR; the controller then sets a")
    print("  cluster-level min.insync.replicas when none is set and deletes every per-broker one, and the audit judges")
    print("  the state after them (per-broker min.insync.replicas=2 is gone at the target; the cluster value applies)")
    return 0


def run(spark: SparkSession, settings: DemoSettings) -> DemoResult:
    """Synthesise the fleet, ingest it (and the real files), audit every cluster, write the report."""
    fleet = Path(settings.fleet.out)
    synth_result = synth.run(settings.fleet)
    print(f"synthesised {synth_result.clusters} clusters ({synth_result.records} records) in {fleet}")
    inputs = [str(fleet / name) for name in synth_result.cluster_names]
    ingested = ingest.run(spark, ingest.IngestSettings(inputs=tuple(inputs), warehouse=settings.warehouse))
    clusters = set(ingested.clusters)
    real_clusters = 0
    if settings.real_metadata is not None:
        repos = sorted(p for p in settings.real_metadata.iterdir() if p.is_dir() and p.name != "text-dumps")
        # Several of these public repos share the cluster.id of Kafka's quick-start docs: one cluster per repo.
        real_ingest = ingest.run(
            spark,
            ingest.IngestSettings(inputs=tuple(map(str, repos)), warehouse=settings.warehouse, cluster_per_input=True),
        )
        clusters |= set(real_ingest.clusters)
        real_clusters = len(real_ingest.clusters)
        print(f"ingested {real_clusters} real clusters from {settings.real_metadata}")
    audit_settings = audit.AuditSettings(
        target_mv=settings.target_mv,
        warehouse=settings.warehouse,
        command="demo",
        cluster_ids=tuple(sorted(clusters)),
        dq=settings.dq,
    )
    result = audit.run(spark, audit_settings)
    return DemoResult(
        audit=result, report=_report(spark, settings.warehouse, settings.report), real_clusters=real_clusters
    )


def _report(spark: SparkSession, warehouse: str, out: str | None) -> str | None:
    try:
        from jobs.report import write_report
    except ImportError:
        return None
    return str(write_report(spark, warehouse, out or str(Path(warehouse) / "report.html")))


def main(argv: Sequence[str] | None = None) -> int:
    """``python jobs/demo.py``."""
    return run_job_file("demo", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
