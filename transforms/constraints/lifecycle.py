"""Violation lifecycle across runs and waiver matching, as native DataFrame transforms.

:func:`to_violation_status` folds one run's violations into the previous ``violation_status`` rows of the clusters
that run audited: a full outer join per (cluster, target level, violation id) decides, per identity, whether it is
new (``open``), still there, gone (``resolved``) or back (``reopened``). Rows of other clusters or other target
levels are not part of its input or output, so they stay as they are. Every row of an updated (cluster, target
level) records the run applied last; a run that is not newer than it is skipped, which makes re-applying a run a
no-op.

:func:`with_waivers` marks rows matched by an active waiver; :func:`to_expired_waiver_findings` reports waivers
past their date. Both match a waiver's scope with anchored regular expressions compiled from its globs
(``schemas.lifecycle.glob_to_regex``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from functools import reduce

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.gold import FINDINGS
from schemas.lifecycle import (
    STATUS_OPEN,
    STATUS_REOPENED,
    STATUS_RESOLVED,
    VIOLATION_KEY,
    VIOLATION_STATUS,
    WAIVER_SCOPE_FIELDS,
)
from transforms.kit.per_cluster import column_of

STATUS_KEYS = ("cluster_id", "target_level", "violation_id")
WAIVER_COLUMNS = ("waived", "waiver_id", "waiver_owner", "waiver_expires")
# What a run reports about a violation; the status row keeps the latest run's values.
_REPORTED = ("target_mv", *VIOLATION_KEY, "severity", "value", "message", "remediation")


def violation_id(*, cluster_id: Column, target_level: Column, key: Sequence[Column]) -> Column:
    """sha-256 (hex) of a violation's identity: cluster, target level and the ``VIOLATION_KEY`` columns.

    The JSON of a named struct keeps the fields apart (no separator can collide); a NULL ``node_id`` is
    omitted from the JSON, which is still unambiguous because the field names are part of the text.
    """
    identity = F.struct(cluster_id.alias("cluster_id"), target_level.alias("target_level"), *key)
    return F.sha2(F.to_json(identity), 256)


def with_violation_id(violations_df: DataFrame) -> DataFrame:
    """VIOLATIONS (or any frame with the identity columns) plus ``violation_id``."""
    vid = violation_id(
        cluster_id=F.col("cluster_id"),
        target_level=F.col("target_level"),
        key=[F.col(c) for c in VIOLATION_KEY],
    )
    return violations_df.select("*", vid.alias("violation_id"))


def _scope_matches(waiver_df_alias: str = "w") -> Column:
    """The join condition "the waiver's scope covers the row": every given pattern matches its column.

    A NULL pattern matches anything; a NULL row value is matched as the empty string.
    """
    checks = [
        F.col(f"{waiver_df_alias}.{name}_regex").isNull()
        | F.regexp_like(F.coalesce(F.col(f"r.{name}"), F.lit("")), F.col(f"{waiver_df_alias}.{name}_regex"))
        for name in WAIVER_SCOPE_FIELDS
    ]
    return reduce(lambda left, right: left & right, checks)


def with_waivers(df: DataFrame, waivers_df: DataFrame | None, *, today: date) -> DataFrame:
    """``df`` plus ``waived``, ``waiver_id``, ``waiver_owner``, ``waiver_expires`` of the matching active waiver.

    Args:
        df: rows with ``cluster_id``, ``target_level``, ``violation_id`` (unique together) and the waiver scope
            columns (``WAIVER_SCOPE_FIELDS``); no column named like a WAIVERS column.
        waivers_df: WAIVERS (a few rows: broadcast); None for no waivers (no join at all).
        today: the run's UTC date; a waiver applies while ``today <= expires``.

    When several active waivers match a row, the one expiring last wins (ties: the greatest id). Rows no active
    waiver matches get ``waived`` false and NULL waiver columns.
    """
    if waivers_df is None:
        return df.select(
            "*",
            F.lit(False).alias("waived"),
            F.lit(None).cast("string").alias("waiver_id"),
            F.lit(None).cast("string").alias("waiver_owner"),
            F.lit(None).cast("date").alias("waiver_expires"),
        )
    active_df = waivers_df.filter(F.col("expires") >= F.lit(today))
    best_first = Window.partitionBy(*[F.col(f"r.{k}") for k in STATUS_KEYS]).orderBy(
        F.col("w.expires").desc_nulls_last(), F.col("w.waiver_id").desc_nulls_last()
    )
    matched_df = df.alias("r").join(F.broadcast(active_df.alias("w")), on=_scope_matches("w"), how="left")
    return (
        matched_df.select(
            *[F.col(f"r.{c}").alias(c) for c in df.columns],
            F.col("w.waiver_id").isNotNull().alias("waived"),
            F.col("w.waiver_id").alias("waiver_id"),
            F.col("w.owner").alias("waiver_owner"),
            F.col("w.expires").alias("waiver_expires"),
            F.row_number().over(best_first).alias("_waiver_rank"),
        )
        .filter(F.col("_waiver_rank") == 1)
        .drop("_waiver_rank")
    )


def to_violation_status(
    previous_df: DataFrame,
    violations_df: DataFrame,
    waivers_df: DataFrame | None,
    *,
    evaluated: Sequence[str],
    run_id: str,
    run_ts: datetime,
    target_level: int | Column,
    clusters: Sequence[str],
) -> DataFrame:
    """The new VIOLATION_STATUS rows of ``clusters``: ``previous_df``'s rows with this run folded in.

    Args:
        previous_df: VIOLATION_STATUS as stored (any clusters; only ``clusters`` are read).
        violations_df: VIOLATIONS; only rows of ``run_id``, ``target_level`` and ``clusters`` are used.
        waivers_df: WAIVERS (the run's date decides which are active); None when the run has no waivers.
        evaluated: ``constraint_id`` of every constraint this run evaluated. A violation that is absent from
            the run is resolved only when its constraint was evaluated: a run with another catalog says nothing
            about the rules it did not check.
        run_id, run_ts: the run being applied.
        target_level: the run's target level (per cluster: a Column); rows of other levels are returned unchanged.
        clusters: the clusters the run audited (also those without any violation).

    Returns every status row of ``clusters`` (all target levels), to replace their partitions. For a (cluster,
    target level) whose ``applied_run_ts`` is later than ``run_ts``, or whose ``applied_run_id`` is ``run_id``,
    the rows come back unchanged (re-applying a run is a no-op). Per identity:

    ============  ==========  ============================================================================
    before        this run    after
    ============  ==========  ============================================================================
    (none)        seen        open; first/last seen = this run; times_seen 1
    open/reopen   seen        same status; last seen = this run; times_seen + 1
    resolved      seen        reopened; reopened_count + 1; resolved_* cleared
    open/reopen   not seen    resolved at this run (if its constraint was evaluated; else unchanged)
    resolved      not seen    unchanged
    ============  ==========  ============================================================================

    ``severity``, ``value``, ``message``, ``remediation`` are the latest run's that saw it; waiver columns are
    recomputed for every updated row. Duplicate identities within one run (not expected) collapse to one row,
    preferring an error.
    """
    in_clusters = F.col("cluster_id").isin(list(clusters))
    at_target = F.col("target_level") == column_of(target_level)
    run_ts_col = F.lit(run_ts).cast("timestamp")

    previous_df = previous_df.filter(in_clusters)
    joined_df = _previous_and_seen(
        previous_df, violations_df, run_id=run_id, in_clusters=in_clusters, at_target=at_target
    )
    updated, done = _transitions(evaluated, run_id=run_id, run_ts_col=run_ts_col)
    known = F.col("p").isNotNull()
    decided_df = joined_df.select("*", done.alias("_done")).filter(~F.col("_done") | known)
    status_df = _decided_status(decided_df, updated, waivers_df, today=run_ts.date())
    return status_df.unionByName(previous_df.filter(~at_target).select(*VIOLATION_STATUS.names))


def _decided_status(
    decided_df: DataFrame, updated: dict[str, Column], waivers_df: DataFrame | None, *, today: date
) -> DataFrame:
    """VIOLATION_STATUS of the identities at the run's target level: a row whose (cluster, level) the run was
    applied to already (``_done``) as stored, waiver columns included; any other as ``updated``, its waiver
    columns matched again (``with_waivers``)."""
    without_waivers = [f for f in VIOLATION_STATUS.fields if f.name not in WAIVER_COLUMNS]
    staged_df = decided_df.select(
        *[
            F.when(F.col("_done"), F.col(f"p.{f.name}")).otherwise(updated[f.name]).cast(f.dataType).alias(f.name)
            for f in without_waivers
        ],
        F.col("_done"),
        *[F.col(f"p.{c}").alias(f"_previous_{c}") for c in WAIVER_COLUMNS],
    )
    waived_df = with_waivers(staged_df, waivers_df, today=today)
    return waived_df.select(
        *[
            (
                F.when(F.col("_done"), F.col(f"_previous_{f.name}")).otherwise(F.col(f.name))
                if f.name in WAIVER_COLUMNS
                else F.col(f.name)
            )
            .cast(f.dataType)
            .alias(f.name)
            for f in VIOLATION_STATUS.fields
        ]
    )


def _previous_and_seen(
    previous_df: DataFrame, violations_df: DataFrame, *, run_id: str, in_clusters: Column, at_target: Column
) -> DataFrame:
    """Per identity at the run's target level, its stored status (struct ``p``) beside what this run saw of it
    (struct ``c``; an error preferred when one run reports an identity twice), full outer."""
    is_error = F.col("severity") == "error"
    seen_df = (
        violations_df.filter((F.col("run_id") == F.lit(run_id)) & in_clusters & at_target)
        .transform(with_violation_id)
        .groupBy(*STATUS_KEYS)
        .agg(F.max(F.struct(is_error.alias("_is_error"), *[F.col(c) for c in _REPORTED])).alias("c"))
    )
    return (
        previous_df.filter(at_target)
        .select(*STATUS_KEYS, F.struct(*[F.col(c) for c in VIOLATION_STATUS.names]).alias("p"))
        .join(seen_df, on=list(STATUS_KEYS), how="full")
        .select("*", F.coalesce(F.col("c.constraint_id"), F.col("p.constraint_id")).alias("constraint_id"))
    )


def _transitions(evaluated: Sequence[str], *, run_id: str, run_ts_col: Column) -> tuple[dict[str, Column], Column]:
    """Each status column after this run (the table in ``to_violation_status``), over ``_previous_and_seen``'s rows,
    and whether the run was applied to the row's (cluster, level) already."""
    seen = F.col("c").isNotNull()
    known = F.col("p").isNotNull()
    # every row of a (cluster, level) carries the run applied last: this run, or a later one, means "done"
    applied = (F.col("p.applied_run_ts") > run_ts_col) | (F.col("p.applied_run_id") == F.lit(run_id))
    done = F.max(F.coalesce(applied, F.lit(False))).over(Window.partitionBy("cluster_id", "target_level"))
    was_resolved = known & (F.col("p.status") == STATUS_RESOLVED)
    was_evaluated = F.col("constraint_id").isin(sorted(set(evaluated)))
    resolves_now = ~seen & known & ~was_resolved & was_evaluated
    reopens_now = seen & was_resolved
    status = (
        F.when(resolves_now, F.lit(STATUS_RESOLVED))
        .when(reopens_now, F.lit(STATUS_REOPENED))
        .when(known, F.col("p.status"))
        .otherwise(F.lit(STATUS_OPEN))
    )
    updated = {
        **{c: F.when(seen, F.col(f"c.{c}")).otherwise(F.col(f"p.{c}")) for c in _REPORTED},
        "cluster_id": F.col("cluster_id"),
        "target_level": F.col("target_level"),
        "violation_id": F.col("violation_id"),
        "constraint_id": F.col("constraint_id"),
        "status": status,
        "first_seen_run_id": F.coalesce(F.col("p.first_seen_run_id"), F.lit(run_id)),
        "first_seen_ts": F.coalesce(F.col("p.first_seen_ts"), run_ts_col),
        "last_seen_run_id": F.when(seen, F.lit(run_id)).otherwise(F.col("p.last_seen_run_id")),
        "last_seen_ts": F.when(seen, run_ts_col).otherwise(F.col("p.last_seen_ts")),
        "resolved_run_id": F.when(resolves_now, F.lit(run_id))
        .when(~seen, F.col("p.resolved_run_id"))
        .otherwise(F.lit(None)),
        "resolved_ts": F.when(resolves_now, run_ts_col).when(~seen, F.col("p.resolved_ts")).otherwise(F.lit(None)),
        "times_seen": F.coalesce(F.col("p.times_seen"), F.lit(0)) + seen.cast("int"),
        "reopened_count": F.coalesce(F.col("p.reopened_count"), F.lit(0)) + reopens_now.cast("int"),
        "applied_run_id": F.lit(run_id),
        "applied_run_ts": run_ts_col,
    }
    return updated, done


def to_waived_violations(violations_df: DataFrame, waivers_df: DataFrame, *, run_id: str, today: date) -> DataFrame:
    """The violations of ``run_id`` an active waiver covers: cluster, ``VIOLATION_KEY``, ``waiver_*`` columns."""
    marked_df = with_waivers(
        violations_df.filter(F.col("run_id") == F.lit(run_id)).transform(with_violation_id), waivers_df, today=today
    )
    return marked_df.filter(F.col("waived")).select(
        "cluster_id", *VIOLATION_KEY, "waiver_id", "waiver_owner", "waiver_expires"
    )


def to_expired_waiver_findings(
    violations_df: DataFrame,
    waivers_df: DataFrame,
    *,
    clusters: Sequence[str],
    today: date,
    run_id: str,
    run_ts: datetime,
) -> DataFrame:
    """FINDINGS rows ``EXPIRED_WAIVER``: one per expired waiver and audited cluster its ``cluster_id`` scope covers.

    The message names the waiver, its owner and date, and how many of the run's violations in that cluster it
    would have covered (they count against the verdict now). ``is_blocking`` is false: the violations themselves
    block, the finding does not.
    """
    expired_df = waivers_df.filter(F.col("expires") < F.lit(today))
    audited = F.explode(F.array(*[F.lit(c) for c in clusters]).cast("array<string>"))
    pairs_df = expired_df.select("*", audited.alias("cluster_id")).filter(
        F.col("cluster_id_regex").isNull() | F.regexp_like(F.col("cluster_id"), F.col("cluster_id_regex"))
    )
    rows_df = violations_df.filter(F.col("run_id") == F.lit(run_id)).select(*WAIVER_SCOPE_FIELDS).alias("r")
    counts_df = (
        rows_df.join(F.broadcast(expired_df.alias("w")), on=_scope_matches("w"), how="inner")
        .groupBy(F.col("w.waiver_id").alias("waiver_id"), F.col("r.cluster_id").alias("cluster_id"))
        .agg(F.count(F.lit(1)).alias("_matched"))
    )
    matched = F.coalesce(F.col("_matched"), F.lit(0))
    message = F.format_string(
        "waiver %s (owner %s) expired on %s and is ignored: %d violation(s) of this run match its scope",
        F.col("waiver_id"),
        F.col("owner"),
        F.date_format(F.col("expires"), "yyyy-MM-dd"),
        matched,
    )
    columns = {
        "run_id": F.lit(run_id),
        "run_ts": F.lit(run_ts).cast("timestamp"),
        "cluster_id": F.col("cluster_id"),
        "resource_type": F.lit(None),
        "resource_name": F.lit(None),
        "kind": F.lit("EXPIRED_WAIVER"),
        "config_name": F.lit(None),
        "message": message,
        "offset": F.lit(None),
        "is_blocking": F.lit(False),
    }
    return pairs_df.join(counts_df, on=["waiver_id", "cluster_id"], how="left").select(
        *[columns[f.name].cast(f.dataType).alias(f.name) for f in FINDINGS.fields]
    )
