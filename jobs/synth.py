"""``kraft-audit synth``: write a synthetic fleet as real binary KRaft metadata logs (for demos and benchmarks).

Per cluster (the ``synthetic`` package decides the content and writes it; this module is the command line)::

    <out>/<cluster>/meta.properties
    <out>/<cluster>/bootstrap.checkpoint
    <out>/<cluster>/__cluster_metadata-0/<20-digit base offset>.log ...
    <out>/<cluster>/__cluster_metadata-0/<20-digit end offset>-<10-digit epoch>.checkpoint   (with --snapshot)
    <out>/manifest.json   fleet parameters, per-cluster counts and files, planted violations, decoys and secrets

Clusters are independent (each is drawn from ``(seed, index)``), so with ``--workers`` they are generated in
parallel processes and the files are byte-identical to a single-process run (``synthetic.fleet``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict

from jobs.output_files import write_output
from jobs.runtime.entry import run_job_file
from synthetic.fleet import FleetResult, write_fleet
from synthetic.spec import FleetSpec

HELP = "write a synthetic fleet as real binary metadata logs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Synth options (docs/contract.md §2)."""
    defaults = FleetSpec()
    parser.add_argument("--out", required=True, metavar="DIR", help="directory to write the fleet into")
    parser.add_argument(
        "--clusters",
        type=int,
        default=defaults.clusters,
        metavar="N",
        help="clusters in the fleet (default %(default)s)",
    )
    parser.add_argument(
        "--brokers",
        type=int,
        default=defaults.brokers,
        metavar="N",
        help="live brokers per cluster (default %(default)s)",
    )
    parser.add_argument(
        "--topics", type=int, default=defaults.topics, metavar="N", help="user topics per cluster (default %(default)s)"
    )
    parser.add_argument(
        "--partitions",
        type=int,
        default=defaults.partitions,
        metavar="N",
        help="partitions per topic (default %(default)s)",
    )
    parser.add_argument(
        "--topic-configs",
        type=int,
        default=defaults.topic_configs,
        metavar="N",
        help="config overrides per topic (default %(default)s)",
    )
    parser.add_argument(
        "--violation-rate",
        type=float,
        default=defaults.violation_rate,
        metavar="F",
        help="chance that a topic, broker, group or subscription gets a known-bad value (default %(default)s; 0: none)",
    )
    parser.add_argument(
        "--seed", type=int, default=defaults.seed, metavar="N", help="same seed, same bytes (default %(default)s)"
    )
    parser.add_argument(
        "--snapshot",
        action=argparse.BooleanOptionalAction,
        default=defaults.snapshot,
        help="write a <end offset>-<epoch>.checkpoint snapshot and delete the segments below it (default on)",
    )
    parser.add_argument(
        "--segment-records",
        type=int,
        default=defaults.segment_records,
        metavar="N",
        help="records per .log segment before rolling to the next (default %(default)s)",
    )
    parser.add_argument(
        "--workers", type=int, default=defaults.workers, metavar="N", help="parallel processes (default: automatic)"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the fleet a previous synth run wrote into --out"
    )


def settings_from_args(args: argparse.Namespace) -> FleetSpec:
    """The settings of a run from parsed arguments.

    Raises:
        FleetSpecError: Impossible sizes (a ``UsageError``: one line, exit code 2).
    """
    return FleetSpec(
        out=args.out,
        clusters=args.clusters,
        brokers=args.brokers,
        topics=args.topics,
        partitions=args.partitions,
        topic_configs=args.topic_configs,
        violation_rate=args.violation_rate,
        seed=args.seed,
        snapshot=args.snapshot,
        segment_records=args.segment_records,
        workers=args.workers,
        overwrite=args.overwrite,
    )


def execute(args: argparse.Namespace) -> int:
    """CLI entry: write the fleet and print its summary."""
    result = run(settings_from_args(args))
    print_summary(result)
    if args.summary_json:
        write_output(args.summary_json, json.dumps(asdict(result), indent=2) + "\n")
    return 0


def run(spec: FleetSpec) -> FleetResult:
    """Write the fleet ``spec`` describes, with the releases' levels from ``conf/metadata_versions.yaml``.

    Raises:
        UsageError: ``spec.out`` holds files that a previous synth run did not write.
    """
    from jobs import conf_loader

    return write_fleet(spec, conf_loader.metadata_versions())


def print_summary(result: FleetResult) -> None:
    """The human summary of a synth run (stdout)."""
    sys.stdout.write(
        f"synth: wrote {result.clusters} cluster(s) ({result.brokers} brokers, {result.topics} topics, "
        f"{result.partitions} partitions) to {result.out}: {result.records:,} records "
        f"(+{result.snapshot_records:,} in snapshots) in {result.files} files, {result.bytes / 1e6:.1f} MB, "
        f"in {result.seconds:.2f} s ({result.records_per_second:,.0f} records/s generated and encoded, "
        f"{result.workers} worker(s)); planted {result.violations} violation(s), {result.decoys} decoy(s), "
        f"{result.secrets} fake secret(s); manifest {result.manifest}\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit / python entry: ``python jobs/synth.py --out DIR ...``."""
    return run_job_file("synth", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
