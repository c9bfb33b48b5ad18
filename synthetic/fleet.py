"""Write a fleet to disk: every cluster's files under ``<out>/<cluster>/`` and ``<out>/manifest.json``.

Clusters are independent (each is drawn from ``(seed, index)``), so with several workers they are generated in
parallel processes (``spawn``, never ``fork``) and the files are byte-identical to a single-process run.
"""

from __future__ import annotations

import gc
import json
import logging
import multiprocessing
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersionTable
from synthetic.files import METADATA_DIR, ClusterEncoder
from synthetic.history import ClusterSynth
from synthetic.manifest import MANIFEST_NAME, cluster_entry, fleet_manifest
from synthetic.plan import plan_cluster
from synthetic.spec import FleetSpec, FleetSpecError

__all__ = ["FleetResult", "write_cluster", "write_fleet"]

log = logging.getLogger("kraft_audit")

_PARALLEL_FROM_RECORDS: Final = 200_000  # below this, starting worker processes costs more than it saves


@dataclass
class FleetResult:
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


def write_fleet(spec: FleetSpec, table: MetadataVersionTable) -> FleetResult:
    """Generate every cluster, write its files and the manifest into ``spec.out``.

    Args:
        spec: The fleet and where to write it; empty ``release_levels`` are filled in from ``table``.
        table: The metadata.version table (the releases' levels, and the level names in the manifest).

    Returns:
        What was written.

    Raises:
        UsageError: No ``out``, or ``out`` holds files that a previous synth run did not write.
    """
    if not spec.out:
        raise FleetSpecError("synth: out must name the directory to write the fleet into")
    spec = spec.with_release_levels(table)
    out = Path(spec.out)
    _prepare_out(out, overwrite=spec.overwrite)
    workers = max(1, min(spec.workers or _auto_workers(spec), spec.clusters))
    log.info("• synthesising %d cluster(s) into %s with %d worker(s)", spec.clusters, out, workers)
    started = time.monotonic()
    indexes = range(spec.clusters)
    if workers == 1:
        entries = [write_cluster(spec, index) for index in indexes]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            entries = list(pool.map(write_cluster, [spec] * spec.clusters, indexes))
    seconds = time.monotonic() - started
    manifest = fleet_manifest(spec, entries, {v.level: v.name for v in table.levels})
    manifest_path = out / MANIFEST_NAME
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    totals = manifest["totals"]
    return FleetResult(
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
        cluster_names=[entry["name"] for entry in entries],
    )


def write_cluster(spec: FleetSpec, index: int) -> dict[str, Any]:
    """Generate cluster ``index`` and write its files under ``<spec.out>/<cluster name>/`` (runs in a worker).

    Args:
        spec: The fleet, with ``release_levels``.
        index: 0-based cluster index.

    Returns:
        The cluster's manifest entry, with its planted values under ``_planted``.
    """
    plan = plan_cluster(spec, index)
    synth = ClusterSynth(spec, plan)
    encoder = ClusterEncoder(synth)
    root = Path(spec.out) / plan.name
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
    entry = cluster_entry(spec, synth, encoder)
    log.info(
        "  %s: Kafka %s, %d records, %d files, %d planted",
        plan.name,
        plan.release,
        synth.records_generated,
        len(entry["files"]),
        len(synth.violations),
    )
    return entry


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
    """One process for a small fleet; every core once the fleet is big enough to repay starting them."""
    per_topic = 1 + spec.partitions + spec.topic_configs
    estimate = spec.clusters * (spec.topics * per_topic * 1.1 + 300)
    if estimate < _PARALLEL_FROM_RECORDS:
        return 1
    return os.cpu_count() or 1
