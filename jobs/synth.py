"""``kraft-audit synth``: write a synthetic fleet as real binary KRaft metadata logs (for demos and benchmarks).

Per cluster (``transforms.synth`` decides the content; this module only writes files)::

    <out>/<cluster>/meta.properties
    <out>/<cluster>/bootstrap.checkpoint
    <out>/<cluster>/__cluster_metadata-0/<20-digit base offset>.log ...
    <out>/<cluster>/__cluster_metadata-0/<20-digit end offset>-<10-digit epoch>.checkpoint   (with --snapshot)
    <out>/manifest.json   fleet parameters, per-cluster counts and files, planted violations, decoys and secrets

Clusters are independent (each is drawn from ``(seed, index)``), so with ``--workers`` they are generated in
parallel processes (``spawn``, never ``fork``) and the files are byte-identical to a single-process run.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import multiprocessing
import os
import shutil
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from schemas.errors import UsageError
from transforms.synth import (
    METADATA_DIR,
    ClusterEncoder,
    ClusterSynth,
    FleetSpec,
    plan_cluster,
    release_levels,
)

log = logging.getLogger("kraft_audit")

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1
_PARALLEL_FROM_RECORDS = 200_000  # below this, starting worker processes costs more than it saves


@dataclass(frozen=True)
class SynthSettings:
    """What varies per synth run."""

    out: str
    clusters: int = 3
    brokers: int = 3
    topics: int = 20
    partitions: int = 3
    topic_configs: int = 3
    violation_rate: float = 0.05
    seed: int = 0
    snapshot: bool = True
    segment_records: int = 100_000
    workers: int = 0  # 0 = automatic
    overwrite: bool = False


@dataclass
class SynthResult:
    """What a synth run wrote, for the summary."""

    out: str
    manifest: str
    clusters: int = 0
    brokers: int = 0
    topics: int = 0
    partitions: int = 0
    records: int = 0  # metadata records generated (log order, before snapshot deletion of old segments)
    snapshot_records: int = 0
    files: int = 0
    bytes: int = 0
    violations: int = 0
    decoys: int = 0
    secrets: int = 0
    workers: int = 1
    seconds: float = 0.0
    records_per_second: float = 0.0
    cluster_names: list[str] = field(default_factory=list)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Synth options (CONTRACT §2)."""
    defaults = SynthSettings(out="")
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


def settings_from_args(args: argparse.Namespace) -> SynthSettings:
    """The settings of a run from parsed arguments."""
    return SynthSettings(
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
        Path(args.summary_json).write_text(json.dumps(asdict(result), indent=2) + "\n", encoding="utf-8")
    return 0


def run(settings: SynthSettings) -> SynthResult:
    """Generate every cluster, write its files and the manifest.

    Raises:
        UsageError: Bad sizes, or ``--out`` holds files that a previous synth run did not write.
    """
    from jobs import conf_loader

    table = conf_loader.metadata_versions()
    try:
        spec = FleetSpec(
            release_levels=release_levels(table),
            clusters=settings.clusters,
            brokers=settings.brokers,
            topics=settings.topics,
            partitions=settings.partitions,
            topic_configs=settings.topic_configs,
            violation_rate=settings.violation_rate,
            seed=settings.seed,
            snapshot=settings.snapshot,
            segment_records=settings.segment_records,
        )
    except ValueError as error:
        raise UsageError(f"synth: {error}") from error
    if settings.workers < 0:
        raise UsageError("synth: --workers must be 0 (automatic) or more")
    out = Path(settings.out)
    _prepare_out(out, overwrite=settings.overwrite)
    workers = settings.workers or _auto_workers(spec)
    workers = max(1, min(workers, spec.clusters))
    log.info("• synthesising %d cluster(s) into %s with %d worker(s)", spec.clusters, out, workers)
    started = time.monotonic()
    jobs = [(str(out), spec, index) for index in range(spec.clusters)]
    if workers == 1:
        reports = [write_cluster(*job) for job in jobs]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            reports = list(pool.map(write_cluster, *zip(*jobs, strict=True)))
    seconds = time.monotonic() - started
    names = {v.level: v.name for v in table.levels}
    manifest = _manifest(spec, reports, names)
    manifest_path = out / MANIFEST_NAME
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    totals = manifest["totals"]
    return SynthResult(
        out=str(out),
        manifest=str(manifest_path),
        clusters=spec.clusters,
        brokers=totals["brokers"],
        topics=totals["topics"],
        partitions=totals["partitions"],
        records=totals["records"],
        snapshot_records=totals["snapshot_records"],
        files=totals["files"],
        bytes=totals["bytes"],
        violations=len(manifest["violations"]),
        decoys=len(manifest["decoys"]),
        secrets=len(manifest["secrets"]),
        workers=workers,
        seconds=round(seconds, 3),
        records_per_second=round(totals["records"] / seconds, 1) if seconds > 0 else 0.0,
        cluster_names=[r["name"] for r in reports],
    )


def write_cluster(out: str, spec: FleetSpec, index: int) -> dict[str, Any]:
    """Generate cluster ``index`` and write its files under ``<out>/<cluster name>/`` (runs in a worker).

    Returns:
        The cluster's manifest entry, with its planted values under ``_planted``.
    """
    plan = plan_cluster(spec, index)
    synth = ClusterSynth(spec, plan)
    encoder = ClusterEncoder(synth)
    root = Path(out) / plan.name
    (root / METADATA_DIR).mkdir(parents=True, exist_ok=True)
    # The generator allocates millions of small, acyclic objects; the cycle collector would only rescan them.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for relative, data in encoder.files():
            (root / relative).write_bytes(data)
    finally:
        if was_enabled:
            gc.enable()
    files = [asdict(info) for info in encoder.written]
    report: dict[str, Any] = {
        "name": plan.name,
        "directory": plan.name,
        "cluster_id": plan.cluster_id,
        "release": plan.release,
        "metadata_version_level": plan.level,
        "bootstrap_metadata_version_level": plan.bootstrap_level,
        "static_configs": plan.static_configs,
        "dedicated_controllers": plan.dedicated_controllers,
        "controllers": list(plan.controller_ids),
        "brokers": list(plan.broker_ids),
        "unregistered_broker": plan.unregistered_broker_id,
        "racks": list(plan.racks) if plan.racks else None,
        "topics": spec.topics,
        "partitions": spec.topics * spec.partitions,
        "internal_topics": synth.internal_topics,
        "removed_topic": synth.removed_topic,
        "aborted_topic": synth.aborted_topic,
        "records": synth.records_generated,
        "records_by_type": synth.counts,
        "log_end_offset": encoder.end_offset,
        "snapshot_end_offset": encoder.snapshot_end_offset,
        "deleted_segments": encoder.deleted_segments,
        "deleted_records": encoder.deleted_records,
        "files": files,
        "bytes": sum(f["bytes"] for f in files),
        "_planted": {
            "violations": [p.to_dict() for p in synth.violations],
            "decoys": [p.to_dict() for p in synth.decoys],
            "secrets": [p.to_dict() for p in synth.secrets],
        },
    }
    log.info(
        "  %s: Kafka %s, %d records, %d files, %d planted",
        plan.name,
        plan.release,
        synth.records_generated,
        len(files),
        len(synth.violations),
    )
    return report


def _manifest(spec: FleetSpec, reports: list[dict[str, Any]], mv_names: dict[int, str]) -> dict[str, Any]:
    """The fleet manifest: parameters, totals, clusters, and the planted values of all clusters."""
    planted: dict[str, list[dict[str, Any]]] = {"violations": [], "decoys": [], "secrets": []}
    clusters = []
    for report in reports:
        entry = {k: v for k, v in report.items() if k != "_planted"}
        entry["metadata_version"] = mv_names.get(report["metadata_version_level"])
        entry["bootstrap_metadata_version"] = mv_names.get(report["bootstrap_metadata_version_level"])
        for key, values in report["_planted"].items():
            planted[key].extend(values)
            entry[key] = len(values)
        clusters.append(entry)
    parameters = asdict(spec)
    parameters["release_levels"] = dict(spec.release_levels)
    snapshot_records = sum(f["records"] for r in reports for f in r["files"] if f["kind"] == "SNAPSHOT")
    return {
        "format": MANIFEST_FORMAT,
        "generator": "kraft-audit synth",
        "parameters": parameters,
        "totals": {
            "clusters": len(reports),
            "brokers": sum(len(r["brokers"]) for r in reports),
            "topics": sum(r["topics"] for r in reports),
            "partitions": sum(r["partitions"] for r in reports),
            "records": sum(r["records"] for r in reports),
            "snapshot_records": snapshot_records,
            "files": sum(len(r["files"]) for r in reports),
            "bytes": sum(r["bytes"] for r in reports),
            "violations": len(planted["violations"]),
            "decoys": len(planted["decoys"]),
            "secrets": len(planted["secrets"]),
        },
        "clusters": clusters,
        **planted,
    }


def _prepare_out(out: Path, *, overwrite: bool) -> None:
    """Make ``out`` ready: empty or new; with ``overwrite``, remove what the previous manifest lists (only that)."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"synth: --out {out} is a file, not a directory")
    if not out.exists() or not any(out.iterdir()):
        out.mkdir(parents=True, exist_ok=True)
        return
    manifest_path = out / MANIFEST_NAME
    if not overwrite:
        raise UsageError(f"synth: --out {out} is not empty; pass --overwrite to replace a previous synthetic fleet")
    try:
        previous = json.loads(manifest_path.read_text(encoding="utf-8"))
        directories = [c["directory"] for c in previous["clusters"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(
            f"synth: --out {out} is not empty and holds no synth manifest; refusing to overwrite"
        ) from error
    for directory in directories:
        target = (out / directory).resolve()
        if target.parent == out.resolve() and target.is_dir():
            shutil.rmtree(target)
    manifest_path.unlink()


def _auto_workers(spec: FleetSpec) -> int:
    per_topic = 1 + spec.partitions + spec.topic_configs
    estimate = spec.clusters * (spec.topics * per_topic * 1.1 + 300)
    if estimate < _PARALLEL_FROM_RECORDS:
        return 1
    return os.cpu_count() or 1


def print_summary(result: SynthResult) -> None:
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
    from jobs.cli import main as cli_main

    return cli_main(["synth", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
