"""The run's verdict: its violations (waivers marked), its summary and its ``audit_runs`` row."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from datetime import datetime
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from jobs import conf_loader, lifecycle, upgrade_effects
from jobs.audit_steps.evaluate import Evaluated
from jobs.audit_steps.extract import Scope
from jobs.audit_steps.resolve import Resolved
from jobs.audit_steps.settings import AuditSettings
from jobs.audit_steps.tables import RUN_TABLES, STATE_TABLES
from jobs.runtime.holding import one_job, row_count
from jobs.storage import DeltaStore
from jobs.summary import RunSummary
from schemas.constraints import CompiledCatalog
from schemas.per_cluster import Targets, per_cluster


def summarize(
    store: DeltaStore,
    settings: AuditSettings,
    scope: Scope,
    resolved: Resolved,
    evaluated: Evaluated,
    *,
    compiled: CompiledCatalog,
    constraint_files: list[str],
    target: Targets,
    run_id: str,
    run_ts: datetime,
    started: float,
) -> tuple[list[dict[str, Any]], RunSummary, tuple[Any, ...]]:
    """The run's violations (waivers marked), its summary and its ``audit_runs`` row."""
    clusters, life = scope.clusters, evaluated.life
    # rows reach the driver bounded by the violation count (the verdict needs each error's waiver match)
    with one_job(store.spark):  # each of these a single Spark job (a distinct count is two with AQE)
        violations = [r.asDict(recursive=True) for r in evaluated.violations_df.collect()]
        safe = {r["cluster_id"]: r["highest_safe_mv"] for r in evaluated.safe_df.collect()}
        current = {r["cluster_id"]: r["current_level"] for r in resolved.state.cluster_state.collect()}
        findings_total = row_count(evaluated.findings_df) + life.findings_added
        entities = resolved.effective_df.select("cluster_id", "resource_type", "resource_name").distinct().count()
    lifecycle.mark_waived(violations, life)
    waived = lifecycle.waived_counts(violations)

    by_severity = {"error": 0, "warning": 0}
    for row in violations:
        by_severity[row["severity"]] = by_severity.get(row["severity"], 0) + 1
    # waived errors do not block; a cluster of the scope that could not be read always does
    verdict = (
        "fail" if lifecycle.blocking_errors(violations) or scope.not_audited or evaluated.upgrade_refused else "pass"
    )
    targets = per_cluster(target)
    downgrades = sorted(c for c, level in current.items() if level is not None and level > targets.of(c).level)
    tables = {name: store.path(name) for name in [*STATE_TABLES, *RUN_TABLES, "audit_runs"]}
    if life.status_updated:
        tables[lifecycle.STATUS_TABLE] = store.path(lifecycle.STATUS_TABLE)
    summary = RunSummary(
        run_id=run_id,
        target_mv=targets.default.name,
        target_level=targets.default.level,
        clusters=clusters,
        records_read=resolved.records_read,
        records_quarantined=scope.quarantined,
        violations_total=len(violations),
        violations_by_severity=by_severity,
        highest_safe_mv={c: safe.get(c) for c in clusters},
        verdict=verdict,
        tables=tables,
        downgrade_clusters=downgrades,
        findings_total=findings_total,
        duration_seconds=time.monotonic() - started,
        violations_waived=sum(waived.values()),
        errors_waived=waived.get("error", 0),
        expired_waivers=life.expired_waivers,
        upgrade_effects=upgrade_effects.summary_entry(
            per_cluster(settings.upgrade_with).default, (r.asDict() for r in resolved.upgrade_effects.collect())
        ),
        clusters_not_audited=dict(scope.not_audited),
        upgrade_refused=dict(evaluated.upgrade_refused),
        cluster_targets={c: targets.of(c).name for c in clusters if targets.of(c) != targets.default},
    )
    audit_row = _audit_row(settings, summary, entities, compiled, constraint_files, run_ts)
    return violations, summary, audit_row


def code_fingerprint() -> str:
    """A short hash of the project's own source files (what code produced a run).

    Read through importlib.resources, so it is the same from a checkout, an installed wheel or the
    ``--py-files`` zip a cluster runs.
    """
    digest = hashlib.sha256()
    for package in ("schemas", "transforms", "jobs"):
        for parts, source in sorted(_python_sources(resources.files(package), (package,))):
            digest.update("/".join(parts).encode())
            digest.update(source)
    return digest.hexdigest()[:16]


def _python_sources(folder: Traversable, parts: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], bytes]]:
    """(path parts, content) of every ``.py`` file under a package folder."""
    for entry in folder.iterdir():
        if entry.is_dir():
            yield from _python_sources(entry, (*parts, entry.name))
        elif entry.name.endswith(".py"):
            yield (*parts, entry.name), entry.read_bytes()


def _audit_row(
    settings: AuditSettings,
    summary: RunSummary,
    entities: int,
    compiled: CompiledCatalog,
    constraint_files: list[str],
    run_ts: datetime,
) -> tuple[Any, ...]:
    """The run's ``audit_runs`` row (``schemas.gold.AUDIT_RUNS``), from its summary."""
    return (
        summary.run_id,
        run_ts,
        settings.command,
        summary.target_mv,
        summary.target_level,
        summary.clusters,
        summary.downgrade_clusters,
        settings.as_of_offset,
        settings.as_of_time,
        summary.records_read,
        summary.records_quarantined,
        entities,
        len(compiled.rules),
        summary.violations_by_severity["error"],
        summary.violations_by_severity["warning"],
        summary.findings_total,
        summary.highest_safe_mv,
        summary.verdict,
        int(summary.duration_seconds * 1000),
        code_fingerprint(),
        conf_loader.catalog_fingerprint(constraint_files),
    )
