"""Violation lifecycle and waivers for one audit run (called by ``jobs.audit.run`` after ``violations`` is written).

Extract: this run's rows of ``violations`` and the previous ``violation_status`` rows of the audited clusters.
Transform: ``transforms.constraints.lifecycle``. Load: the audited clusters' partitions of ``violation_status`` are
replaced (other clusters keep their rows); expired waivers become ``EXPIRED_WAIVER`` rows of ``findings``.

The verdict side: :func:`mark_waived` annotates the collected violations with their waiver, and
:func:`blocking_errors` counts what still fails the gate (errors no active waiver covers).
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.runtime.holding import by_cluster, truncated
from jobs.storage import DeltaStore
from schemas import gold
from schemas.lifecycle import (
    VIOLATION_KEY,
    VIOLATION_STATUS,
    VIOLATION_STATUS_PARTITIONS,
    WAIVERS,
    Waiver,
    expired_summary,
)
from transforms.constraints.lifecycle import to_expired_waiver_findings, to_violation_status, to_waived_violations

log = logging.getLogger("kraft_audit")

STATUS_TABLE = "violation_status"
# How a collected violation row is matched to its waiver: cluster plus the identity columns.
_IDENTITY = ("cluster_id", *VIOLATION_KEY)


@dataclass(frozen=True)
class LifecycleResult:
    """What the lifecycle step did for a run."""

    # violation identity (cluster_id, *VIOLATION_KEY) -> {"waiver_id", "waiver_owner", "waiver_expires"}
    waived: dict[tuple[Any, ...], dict[str, str]] = field(default_factory=dict)
    expired_waivers: list[dict[str, str]] = field(default_factory=list)  # id, owner, expires
    status_updated: bool = False
    findings_added: int = 0  # EXPIRED_WAIVER findings appended for the run
    findings_df: DataFrame | None = None  # those findings as written (held), None when there are none


def add_waiver_argument(parser: argparse.ArgumentParser) -> None:
    """``--waivers FILE`` (repeatable), shared by ``audit``, ``run`` and ``gate``."""
    parser.add_argument(
        "--waivers",
        action="append",
        default=[],
        metavar="FILE",
        help="YAML of accepted violations (scope, owner, reason, expires); waived violations do not fail the "
        "verdict, expired waivers are ignored and flagged; repeatable",
    )


def apply(
    spark: SparkSession,
    store: DeltaStore,
    *,
    run_id: str,
    run_ts: datetime,
    target_level: int | Column,
    clusters: Sequence[str],
    constraint_ids: Iterable[str],
    waivers: Sequence[Waiver] = (),
    update_status: bool = True,
    violations_df: DataFrame | None = None,
    local_rows: int = 0,
) -> LifecycleResult:
    """Fold the run's violations into ``violation_status`` and match them to the waivers.

    Args:
        run_id, run_ts: the run, whose rows are already in ``violations``; ``run_ts`` is UTC and its date decides
            which waivers have expired.
        target_level: the run's target level.
        clusters: every cluster the run audited (those without violations resolve their open rows).
        constraint_ids: the constraints the run evaluated.
        waivers: the validated waivers of the run.
        update_status: false for point-in-time audits (``--as-of-*``), which describe the past and must not move
            the lifecycle of the current state.
        violations_df: the run's VIOLATIONS rows when the caller holds them (default: read from ``violations``;
            only the run's rows are used either way).
        local_rows: how the expired-waiver findings are held (``jobs.runtime.holding.truncated``) and whether the
            status is gathered by cluster before its write (``jobs.runtime.holding.by_cluster``).
    """
    today = run_ts.date()
    waivers_df = spark.createDataFrame([w.to_row() for w in waivers], WAIVERS) if waivers else None
    if violations_df is None:
        violations_df = store.read("violations")
    if update_status:
        _merge_status(
            store,
            violations_df,
            waivers_df,
            evaluated=list(constraint_ids),
            run_id=run_id,
            run_ts=run_ts,
            target_level=target_level,
            clusters=clusters,
            local_rows=local_rows,
        )
    else:
        log.info("point-in-time audit: %s not updated", STATUS_TABLE)
    if waivers_df is None:
        return LifecycleResult(status_updated=update_status)

    waived = _waived_by_identity(violations_df, waivers_df, run_id=run_id, today=today)
    expired = expired_summary(tuple(waivers), today)
    findings_df: DataFrame | None = None
    findings_added = 0
    if expired:
        for item in expired:
            log.warning("waiver %s (owner %s) expired on %s: ignored", item["id"], item["owner"], item["expires"])
        findings_df, findings_added = _append_expired_findings(
            store, violations_df, waivers_df, clusters=clusters, run_id=run_id, run_ts=run_ts, local_rows=local_rows
        )
    return LifecycleResult(
        waived=waived,
        expired_waivers=expired,
        status_updated=update_status,
        findings_added=findings_added,
        findings_df=findings_df,
    )


def _merge_status(
    store: DeltaStore,
    violations_df: DataFrame,
    waivers_df: DataFrame | None,
    *,
    evaluated: list[str],
    run_id: str,
    run_ts: datetime,
    target_level: int | Column,
    clusters: Sequence[str],
    local_rows: int,
) -> None:
    """Fold the run into ``violation_status``: one MERGE of the audited clusters' rows (the others untouched)."""
    store.ensure(STATUS_TABLE, VIOLATION_STATUS, VIOLATION_STATUS_PARTITIONS)
    status_df = to_violation_status(
        store.read(STATUS_TABLE),
        violations_df,
        waivers_df,
        evaluated=evaluated,
        run_id=run_id,
        run_ts=run_ts,
        target_level=target_level,
        clusters=clusters,
    )
    # MERGE on the identity: rows of the audited clusters updated or added, and rows of those clusters the new
    # status no longer holds deleted, in one commit (the other clusters' rows untouched)
    store.merge(
        STATUS_TABLE,
        by_cluster(status_df, local_rows=local_rows),
        keys=("cluster_id", "violation_id"),
        delete_where=F.col("t.cluster_id").isin(list(clusters)),
    )


def _waived_by_identity(
    violations_df: DataFrame, waivers_df: DataFrame, *, run_id: str, today: date
) -> dict[tuple[Any, ...], dict[str, str]]:
    """The run's violations an active waiver covers (collected), by identity: the waiver's id, owner and date."""
    waived: dict[tuple[Any, ...], dict[str, str]] = {}
    for row in to_waived_violations(violations_df, waivers_df, run_id=run_id, today=today).collect():
        waived[tuple(row[c] for c in _IDENTITY)] = {
            "waiver_id": row["waiver_id"],
            "waiver_owner": row["waiver_owner"],
            "waiver_expires": row["waiver_expires"].isoformat(),
        }
    return waived


def _append_expired_findings(
    store: DeltaStore,
    violations_df: DataFrame,
    waivers_df: DataFrame,
    *,
    clusters: Sequence[str],
    run_id: str,
    run_ts: datetime,
    local_rows: int,
) -> tuple[DataFrame, int]:
    """Append the run's ``EXPIRED_WAIVER`` findings: the findings as written (held) and their count, for the run
    summary."""
    findings_df = to_expired_waiver_findings(
        violations_df, waivers_df, clusters=clusters, today=run_ts.date(), run_id=run_id, run_ts=run_ts
    )
    findings_df = truncated(findings_df, local_rows=local_rows)  # written, then counted for the run summary
    store.ensure("findings", gold.FINDINGS, gold.FINDINGS_PARTITIONS)
    store.append("findings", findings_df)
    return findings_df, findings_df.count()


def mark_waived(violations: list[dict[str, Any]], result: LifecycleResult) -> None:
    """Add ``waiver_id``, ``waiver_owner``, ``waiver_expires`` to each collected violation row (None: not waived)."""
    for row in violations:
        found = result.waived.get(tuple(row.get(c) for c in _IDENTITY), {})
        row["waiver_id"] = found.get("waiver_id")
        row["waiver_owner"] = found.get("waiver_owner")
        row["waiver_expires"] = found.get("waiver_expires")


def blocking_errors(violations: Iterable[Mapping[str, Any]]) -> int:
    """Error violations no active waiver covers: the verdict fails iff this is not 0."""
    return sum(1 for row in violations if row["severity"] == "error" and not row.get("waiver_id"))


def waived_counts(violations: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Waived violations per severity."""
    counts: dict[str, int] = {}
    for row in violations:
        if row.get("waiver_id"):
            counts[row["severity"]] = counts.get(row["severity"], 0) + 1
    return counts
