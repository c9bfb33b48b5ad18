"""Transform and write: the constraints evaluated at the target and at every level, the lifecycle, the highest safe
levels, the findings and the upgrade's own effects of one run."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import lifecycle, upgrade_effects
from jobs.audit_steps.extract import Scope
from jobs.audit_steps.resolve import Resolved, oldest_release
from jobs.audit_steps.settings import AuditSettings
from jobs.audit_steps.tables import RUN_TABLES, append_run, with_run
from jobs.runtime.holding import Checkpoints, truncated
from jobs.runtime.progress import stage, step
from jobs.storage import DeltaStore
from schemas import gold
from schemas.constraints import CompiledCatalog
from schemas.kafka_vocabulary import ResourceType
from schemas.metadata_version import MetadataVersionTable
from schemas.per_cluster import Targets, per_cluster
from schemas.violations import DYNAMIC_SCOPES, HIGHEST_SAFE_LEVELS, VIOLATIONS, VIOLATIONS_BY_LEVEL
from transforms.constraints.evaluate import evaluate_constraints
from transforms.constraints.failures import constraint_failures
from transforms.constraints.levels import highest_safe_levels, violations_by_level
from transforms.effective.catalog_frames import CatalogFrames
from transforms.effective.upgrade_effects import to_upgrade_effect_findings, with_elr_after_upgrade
from transforms.effective.upgrade_support import unsupported_registration_findings
from transforms.kit.local_frames import local_frame
from transforms.kit.per_cluster import target_level_column
from transforms.kit.releases import release_rank_column
from transforms.replay.brokers import ambiguous_release_findings
from transforms.replay.cluster import with_kafka_version
from transforms.whatif.fallbacks import override_sources, resolve_fallbacks

# The finding kind of a cluster an audit was asked for but could not read (no decodable record).
NOT_AUDITED = "NOT_AUDITED"


@dataclass(frozen=True)
class Evaluated:
    """What the evaluation wrote for this run (the frames as written, held in executor storage)."""

    life: lifecycle.LifecycleResult
    violations_df: DataFrame  # VIOLATIONS of the run
    safe_df: DataFrame  # HIGHEST_SAFE_LEVELS of the run, without run_id / run_ts
    findings_df: DataFrame  # FINDINGS of the run (without the lifecycle's EXPIRED_WAIVER rows)
    upgrade_effects_df: DataFrame  # the UPGRADE_EFFECTS rows of the run, with run_id / run_ts
    written: dict[str, int]  # table -> the version of the run's own commit to it (violations, upgrade effects)
    upgrade_refused: dict[str, list[str]]  # cluster -> why the controller would refuse the upgrade (blocks the verdict)


@dataclass(frozen=True)
class _Run:
    """What every part of one run's evaluation reads."""

    spark: SparkSession
    store: DeltaStore
    settings: AuditSettings
    scope: Scope
    resolved: Resolved
    compiled: CompiledCatalog
    target: Targets
    mv_table: MetadataVersionTable
    run_id: str
    run_ts: datetime

    @property
    def local_rows(self) -> int:
        return self.scope.local_rows


def evaluate(
    spark: SparkSession,
    store: DeltaStore,
    settings: AuditSettings,
    scope: Scope,
    resolved: Resolved,
    compiled: CompiledCatalog,
    *,
    target: Targets,
    mv_table: MetadataVersionTable,
    run_id: str,
    run_ts: datetime,
) -> Evaluated:
    """Violations at the target, the lifecycle, violations at every level, highest safe MVs and findings."""
    run = _Run(spark, store, settings, scope, resolved, compiled, target, mv_table, run_id, run_ts)
    # the release the brokers run now decides the base validators below the target's release (--kafka-version wins)
    cluster_df = with_elr_after_upgrade(
        with_kafka_version(resolved.state.cluster_state, settings.kafka_version),
        resolved.state.features,
        settings.upgrade_with,
    )
    with stage(spark, f"evaluating {len(compiled.rules)} constraints at {per_cluster(target).default.name}"):
        # The catalog is evaluated once, at every level: the violations at the target and the counts per level both
        # read this held frame. Planning runs the shuffles of the DELETE fallbacks (held frames too).
        failures_df = truncated(
            constraint_failures(resolved.auditable_df, resolved.state.topics, cluster_df, compiled),
            local_rows=run.local_rows,
        )
        violations_df = _violations(run, cluster_df, failures_df)
        written: dict[str, int] = {}
        with step(spark, "violations"):
            written["violations"] = append_run(store, "violations", violations_df, local_rows=run.local_rows)
        with step(spark, "lifecycle"):
            life = lifecycle.apply(
                spark,
                store,
                run_id=run_id,
                run_ts=run_ts,
                target_level=target_level_column(target),
                clusters=scope.clusters,
                constraint_ids=[r.constraint.id for r in compiled.rules],
                waivers=settings.waivers,
                update_status=not settings.point_in_time,
                violations_df=violations_df,
                local_rows=run.local_rows,
            )
        safe_df = _levels(run, cluster_df, failures_df)
        findings_df, refused = _findings(run)
        effects_df = with_run(resolved.upgrade_effects, run_id, run_ts)
        with step(spark, "upgrade effects"):
            written[upgrade_effects.TABLE] = append_run(
                store, upgrade_effects.TABLE, effects_df, local_rows=run.local_rows
            )
        with step(spark, "findings"):
            append_run(store, "findings", findings_df, local_rows=run.local_rows)
    return Evaluated(
        life=life,
        violations_df=violations_df,
        safe_df=safe_df,
        findings_df=findings_df,
        upgrade_effects_df=effects_df.select(*RUN_TABLES[upgrade_effects.TABLE].names),
        written=written,
        upgrade_refused=refused,
    )


def _violations(run: _Run, cluster_df: DataFrame, failures_df: DataFrame) -> DataFrame:
    """The run's violations at the target, remediations planned; held: written, folded into the lifecycle and
    collected for the summary without being read back."""
    resolved, settings, target = run.resolved, run.settings, run.target
    with step(run.spark, "planning and remediation fallbacks"):
        # the override layers failing values come from: only their fallback variants are resolved
        layers = [row["value_source"] for row in override_sources(failures_df).collect()]
        return truncated(
            evaluate_constraints(
                resolved.auditable_df,
                resolved.state.topics,
                cluster_df,
                run.compiled,
                target=target,
                run_id=run.run_id,
                run_ts=run.run_ts,
                dynamic_scope_df=dynamic_scopes(resolved.frames),
                fallback_resolver=partial(
                    resolve_fallbacks,
                    resolved.at_target,
                    resolved.frames,
                    layers=layers,
                    kafka_version=settings.kafka_version,
                    oldest_release=oldest_release(target),
                    keep=Checkpoints(local_rows=run.local_rows),
                    # the topic and group fallbacks are planned on the audit's own resolution of at_target
                    resolution_keep=resolved.resolution,
                ),
                failures_df=failures_df,
                keep=Checkpoints(local_rows=run.local_rows),
            ).select(*VIOLATIONS.names),
            local_rows=run.local_rows,
        )


def _levels(run: _Run, cluster_df: DataFrame, failures_df: DataFrame) -> DataFrame:
    """The violations counted at every MV level and the highest safe level per cluster, both written; returns the
    highest safe levels (without run columns)."""
    resolved, local_rows = run.resolved, run.local_rows
    by_level_df = truncated(
        violations_by_level(
            resolved.auditable_df,
            resolved.state.topics,
            cluster_df,
            run.compiled,
            mv_table=run.mv_table,
            failures_df=failures_df,
            clusters=run.scope.clusters,  # not read from the effective rows: an audit knows its clusters
        ).select(*VIOLATIONS_BY_LEVEL.names),
        local_rows=local_rows,
    )
    with step(run.spark, "every MV level"):
        append_run(
            run.store, "violations_by_level", with_run(by_level_df, run.run_id, run.run_ts), local_rows=local_rows
        )
    safe_df = truncated(
        highest_safe_levels(by_level_df, cluster_df).select(*HIGHEST_SAFE_LEVELS.names), local_rows=local_rows
    )
    with step(run.spark, "highest safe MV"):
        append_run(run.store, "highest_safe_levels", with_run(safe_df, run.run_id, run.run_ts), local_rows=local_rows)
    return safe_df


def _findings(run: _Run) -> tuple[DataFrame, dict[str, list[str]]]:
    """The run's findings (replay's, the resolution's, ambiguous releases, the upgrade's effects, registrations the
    controller would refuse the upgrade for, clusters not audited), and per cluster why the upgrade is refused."""
    from transforms.effective import effective_findings

    resolved, settings, target = run.resolved, run.settings, run.target
    # the resolution's nodes and broker layers are reused (resolved.resolution), not computed again
    all_findings_df = resolved.state.findings.unionByName(
        effective_findings(
            resolved.at_target,
            resolved.frames,
            kafka_version=settings.kafka_version,
            oldest_release=oldest_release(target),
            keep=resolved.resolution,
            effective_df=resolved.effective_df,
        )
    ).unionByName(ambiguous_release_findings(resolved.state.brokers, kafka_version=settings.kafka_version))
    all_findings_df = all_findings_df.unionByName(to_upgrade_effect_findings(resolved.upgrade_effects))
    # registrations the controller would refuse the upgrade for: few rows, collected for the verdict
    refusals_df = unsupported_registration_findings(resolved.state.brokers, resolved.state.cluster_state, target)
    refused: dict[str, list[str]] = {}
    for row in refusals_df.select("cluster_id", "message").orderBy("cluster_id", "message").collect():
        refused.setdefault(row["cluster_id"], []).append(row["message"])
    all_findings_df = all_findings_df.unionByName(refusals_df)
    if run.scope.not_audited:
        all_findings_df = all_findings_df.unionByName(not_audited_findings(run.spark, run.scope.not_audited))
    return truncated(stamped_findings(all_findings_df, run.run_id, run.run_ts), local_rows=run.local_rows), refused


def stamped_findings(findings_df: DataFrame, run_id: str, run_ts: datetime) -> DataFrame:
    stamped = {"run_id": F.lit(run_id), "run_ts": F.lit(run_ts).cast("timestamp")}
    return findings_df.select(
        *[
            (stamped[f.name] if f.name in stamped else F.col(f.name)).cast(f.dataType).alias(f.name)
            for f in gold.FINDINGS.fields
        ]
    )


def not_audited_findings(spark: SparkSession, not_audited: dict[str, str]) -> DataFrame:
    """One blocking ``NOT_AUDITED`` finding per cluster of the scope that had no readable record."""
    rows = [
        (cluster, None, None, NOT_AUDITED, None, f"cluster not audited: {reason}", None, True)
        for cluster, reason in sorted(not_audited.items())
    ]
    return local_frame(spark, rows, gold.FINDING_ROWS)


def dynamic_scopes(frames: CatalogFrames) -> DataFrame:
    """Per broker key its dynamic scope in the newest release that defines it (for remediation text)."""
    keys_df = frames.config_keys_df.filter(
        (F.col("resource_type") == ResourceType.BROKER) & F.col("dynamic_scope").isNotNull()
    )
    newest_df = keys_df.groupBy("name").agg(
        F.max_by("dynamic_scope", release_rank_column(F.col("release"))).alias("scope")
    )
    return newest_df.select(F.col("name").alias("config_name"), "scope").select(*DYNAMIC_SCOPES.names)
