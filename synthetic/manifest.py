"""The fleet's ``manifest.json``: its parameters, totals, one entry per cluster (facts, counts, files) and every
planted violation, decoy and fake secret (hashed), so a test or benchmark knows what the audit must find."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Final

from synthetic.files import ClusterEncoder
from synthetic.history import ClusterSynth
from synthetic.spec import FleetSpec

__all__ = ["MANIFEST_FORMAT", "MANIFEST_NAME", "cluster_entry", "fleet_manifest"]

MANIFEST_NAME: Final = "manifest.json"
MANIFEST_FORMAT: Final = 1


def cluster_entry(spec: FleetSpec, synth: ClusterSynth, encoder: ClusterEncoder) -> dict[str, Any]:
    """One cluster's manifest entry, once its files are written; its planted values go under ``_planted``.

    Args:
        spec: The fleet.
        synth: The cluster's history, iterated to the end.
        encoder: The cluster's encoder, its files exhausted.

    Returns:
        The entry (JSON-ready; ``fleet_manifest`` moves ``_planted`` to the fleet's lists).
    """
    plan = synth.plan
    files = [asdict(info) for info in encoder.written]
    return {
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


def fleet_manifest(spec: FleetSpec, entries: list[dict[str, Any]], mv_names: dict[int, str]) -> dict[str, Any]:
    """The fleet manifest: parameters, totals, clusters, and the planted values of all clusters.

    Args:
        spec: The fleet.
        entries: ``cluster_entry`` of every cluster, in cluster order.
        mv_names: ``metadata.version`` level -> name (``4.2-IV1``), to name each cluster's levels.

    Returns:
        The manifest (JSON-ready).
    """
    planted: dict[str, list[dict[str, Any]]] = {"violations": [], "decoys": [], "secrets": []}
    clusters = []
    for report in entries:
        entry = {k: v for k, v in report.items() if k != "_planted"}
        entry["metadata_version"] = mv_names.get(report["metadata_version_level"])
        entry["bootstrap_metadata_version"] = mv_names.get(report["bootstrap_metadata_version_level"])
        for key, values in report["_planted"].items():
            planted[key].extend(values)
            entry[key] = len(values)
        clusters.append(entry)
    snapshot_records = sum(f["records"] for r in entries for f in r["files"] if f["kind"] == "SNAPSHOT")
    return {
        "format": MANIFEST_FORMAT,
        "generator": "kraft-audit synth",
        "parameters": spec.parameters(),
        "totals": {
            "clusters": len(entries),
            "brokers": sum(len(r["brokers"]) for r in entries),
            "topics": sum(r["topics"] for r in entries),
            "partitions": sum(r["partitions"] for r in entries),
            "records": sum(r["records"] for r in entries),
            "snapshot_records": snapshot_records,
            "files": sum(len(r["files"]) for r in entries),
            "bytes": sum(r["bytes"] for r in entries),
            "violations": len(planted["violations"]),
            "decoys": len(planted["decoys"]),
            "secrets": len(planted["secrets"]),
        },
        "clusters": clusters,
        **planted,
    }
