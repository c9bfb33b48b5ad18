"""Transform and write: replay into the silver tables, then resolve the effective configuration at the target's
release (gold ``effective_configs``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import conf_loader, upgrade_effects
from jobs.audit_steps.extract import Scope
from jobs.audit_steps.settings import AuditSettings
from jobs.audit_steps.tables import STATE_TABLES, replace_state
from jobs.runtime import lookups
from jobs.runtime.holding import Checkpoints, truncated
from jobs.runtime.progress import stage
from jobs.storage import DeltaStore
from schemas import silver
from schemas.kafka_catalog import applied_rank, release_rank
from schemas.metadata_version import MetadataVersionTable
from schemas.per_cluster import PerCluster, Targets, per_cluster
from transforms.effective.catalog_frames import CatalogFrames
from transforms.effective.upgrade_effects import apply_upgrade_effects
from transforms.kit.audit_scope import filter_auditable, to_unique_topic_names, with_release_at_least
from transforms.kit.per_cluster import per_cluster_column
from transforms.replay.state import ReplayResult


@dataclass(frozen=True)
class Resolved:
    """Silver state and gold effective configuration of the audited clusters, at the target's release."""

    state: ReplayResult
    at_target: ReplayResult  # the state at the target: the target's release, the upgrade's own effects applied
    upgrade_effects: DataFrame  # UPGRADE_EFFECTS without run columns
    frames: CatalogFrames
    records_read: int
    effective_df: DataFrame
    auditable_df: DataFrame
    resolution: Checkpoints  # the resolution's intermediates (nodes, broker layers), shared with its findings
    written: dict[str, int]  # the version each silver and gold state table's write committed


def replay_and_resolve(
    spark: SparkSession,
    store: DeltaStore,
    settings: AuditSettings,
    scope: Scope,
    *,
    target: Targets,
    mv_table: MetadataVersionTable,
) -> Resolved:
    """Replay into the silver tables, then resolve the effective configuration at the target's release (gold);
    ``target``: the run's, or a ``PerCluster`` with some clusters' own."""
    from transforms.effective import resolve_effective_configs

    clusters = scope.clusters
    state, records_read, written = _replay(spark, store, settings, scope, mv_table)
    frames = lookups.catalog_frames(spark)
    target_keys_df = frames.config_keys_df.filter(F.col("release").isin(target_catalog_releases(target)))
    effects_df = upgrade_effects.predict(
        state,
        scope.static_df,
        target_keys_df,
        target=target,
        mv_table=mv_table,
        upgrade_with=settings.upgrade_with,
        local_rows=scope.local_rows,
        target_release=target_release_column(target),
    )
    at_target = dataclasses.replace(
        state,
        brokers=with_release_at_least(state.brokers, release=target_releases(target)),
        dynamic_configs=apply_upgrade_effects(state.dynamic_configs, effects_df),
    )
    # one set of held frames for the resolution of at_target: the findings stage reuses its nodes and layers
    resolution = Checkpoints(local_rows=scope.local_rows)
    with stage(spark, "resolving effective configurations"):
        # a union of the resolution's kept rows per resource type: read as it is, not copied again
        # every broker runs the target's release at least (with_release_at_least): older releases' rules are not
        # planned
        effective_df = resolve_effective_configs(
            at_target,
            frames,
            kafka_version=settings.kafka_version,
            oldest_release=oldest_release(target),
            keep=resolution,
        )
        written["effective_configs"] = replace_state(
            store, "effective_configs", effective_df, clusters, local_rows=scope.local_rows
        )
    return Resolved(
        state=state,
        at_target=at_target,
        upgrade_effects=effects_df,
        frames=frames,
        records_read=records_read,
        effective_df=effective_df,
        auditable_df=filter_auditable(
            effective_df, target_keys_df=target_keys_df, target_release=target_release_column(target)
        ),
        resolution=resolution,
        written=written,
    )


def _replay(
    spark: SparkSession, store: DeltaStore, settings: AuditSettings, scope: Scope, mv_table: MetadataVersionTable
) -> tuple[ReplayResult, int, dict[str, int]]:
    """The replayed state, held, with its silver tables written: the state, the records replay read and the version
    of each silver table's commit."""
    from transforms.replay.state import replay_state

    clusters = scope.clusters
    with stage(spark, f"replaying {len(clusters)} cluster(s)"):
        # the replay pass and every silver frame are computed once and held (jobs.runtime.holding: local relations for a
        # small input, else local checkpoints); each silver table is written from the held frame and later stages
        # continue from the same frames, nothing is read back
        replayed = replay_state(
            scope.records_df,
            scope.static_df,
            mv_table=mv_table,
            as_of_offset=settings.as_of_offset,
            as_of_time=settings.as_of_time,
            keep=Checkpoints(local_rows=scope.local_rows),
        )
        records_read = sum(row["records"] for row in replayed.replay_counts.collect())
        # what the silver tables hold, in their columns: one row per topic name (also kept: read by every stage)
        silver_frames = {
            name: getattr(replayed, name).select(*STATE_TABLES[name].names)
            for name in STATE_TABLES
            if name not in ("topics", "effective_configs")
        }
        silver_frames["topics"] = truncated(
            to_unique_topic_names(replayed.topics).select(*silver.TOPICS.names), local_rows=scope.local_rows
        )
        written = {
            name: replace_state(store, name, silver_frames[name], clusters, local_rows=scope.local_rows)
            for name in STATE_TABLES
            if name in silver_frames
        }
        state = dataclasses.replace(replayed, **silver_frames)
    return state, records_read, written


def target_releases(target: Targets) -> PerCluster[str]:
    """The release of each cluster's target (its brokers run it at least)."""
    return per_cluster(target).map(lambda mv: mv.release)


def target_catalog_releases(target: Targets) -> list[str]:
    """The catalog releases of the targets' releases (their keys decide what a target defines)."""
    return sorted({catalog_release(mv.release) for mv in per_cluster(target).values()}, key=release_rank)


def target_release_column(target: Targets) -> Column | None:
    """The catalog release of the row's cluster's target; None when every cluster has the run's."""
    if not per_cluster(target).groups():
        return None
    return per_cluster_column(target, lambda mv: F.lit(catalog_release(mv.release)))


def oldest_release(target: Targets) -> str:
    """The oldest release among the targets': every broker runs it at least once raised to its target's."""
    return min((mv.release for mv in per_cluster(target).values()), key=release_rank)


def catalog_release(release: str) -> str:
    """The newest catalog release not newer than ``release`` (the MV table knows releases the catalog may not), the
    oldest when ``release`` predates them all (``applied_rank``)."""
    by_rank = {release_rank(r.release): r.release for r in conf_loader.kafka_catalog().releases}
    return by_rank[applied_rank(by_rank, release_rank(release))]
