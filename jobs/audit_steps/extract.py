"""Read: the bronze records and static configs of the clusters an audit covers, at the warehouse version it reads."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from jobs.audit_steps.settings import AuditSettings
from jobs.audit_steps.tables import only_clusters
from jobs.ingest_steps.settings import IngestResult
from jobs.runtime.holding import held_locally, local_rows_for, one_job, small_plans
from jobs.storage import DeltaStore
from schemas import bronze
from schemas.errors import InputError, UsageError
from schemas.per_cluster import per_cluster as as_per_cluster

log = logging.getLogger("kraft_audit")


@dataclass(frozen=True)
class Scope:
    """The bronze input of one audit: the clusters asked for, and what ingest quarantined for them."""

    records_df: DataFrame
    static_df: DataFrame
    clusters: list[str]
    quarantined: int
    records: int  # the bronze records of the clusters audited
    # clusters of the scope with no readable record (cluster id -> why): never audited, so they block the verdict
    not_audited: dict[str, str] = field(default_factory=dict)

    @property
    def local_rows(self) -> int:
        """Frames up to this many rows are held as local relations (jobs.runtime.holding; 0 for a large input)."""
        return local_rows_for(self.records)


@dataclass(frozen=True)
class HeldBronze:
    """The whole content of the bronze tables an audit reads (``BRONZE_READ``), held in the driver: the rows an
    ingest wrote into tables no one else had written, and the version each table was at after its last commit."""

    versions: Mapping[str, int]
    frames: Mapping[str, DataFrame]


BRONZE_READ = ("metadata_records", "static_configs", "quarantine")


def held_bronze(ingested: IngestResult, rows: Mapping[str, DataFrame] | None) -> HeldBronze | None:
    """What ``run``'s audit can read instead of the bronze tables its ingest just wrote: the ingest's rows of each
    table (``rows``: ``jobs.quality.IngestTables``), when they are each table's whole content, i.e. the ingest found
    no bronze table (``first_ingest``) and made every commit of each table (versions 0 to its last; a table another
    writer created or wrote first is read as usual). ``extract`` uses them only if no table has moved on since."""
    if not ingested.first_ingest or rows is None:
        return None
    versions = {}
    for table in BRONZE_READ:
        own = ingested.own_commits.get(table, set())
        if not own or own != set(range(max(own) + 1)):
            return None
        versions[table] = max(own)
    return HeldBronze(versions=versions, frames={table: rows[table] for table in BRONZE_READ})


def extract(store: DeltaStore, settings: AuditSettings, held: HeldBronze | None = None) -> Scope:
    """The bronze records and static configs of the clusters this audit covers (``held``: the tables' rows held in
    the driver, used when each table is still at the version they are the content of)."""
    if not store.exists("metadata_records"):
        raise InputError(f"nothing ingested in {settings.warehouse}: run `kraft-audit ingest` first")
    versions = bronze_versions(store, settings)
    if held is not None and all(versions.get(table) == version for table, version in held.versions.items()):
        records_df, static_df, quarantine_df = (held.frames[table] for table in BRONZE_READ)
    else:
        records_df = store.read("metadata_records", version=versions["metadata_records"])
        static_df, quarantine_df = _bronze(store, "static_configs", versions), _bronze(store, "quarantine", versions)
    records_df = only_clusters(records_df, settings.cluster_ids)
    static_df = only_clusters(static_df, settings.cluster_ids)
    per_cluster = rows_per_cluster(store, records_df, settings.cluster_ids, quarantine_df=quarantine_df)
    clusters = sorted(c for c, (records, _) in per_cluster.items() if records > 0)
    if not clusters:
        raise InputError("no ingested records for " + (", ".join(settings.cluster_ids) or "any cluster"))
    not_audited = {
        cluster: not_audited_reason(per_cluster.get(cluster, (0, 0))[1])
        for cluster in sorted({*settings.cluster_ids, *per_cluster})
        if per_cluster.get(cluster, (0, 0))[0] == 0
    }
    quarantined = sum(q for _, q in per_cluster.values())
    records = sum(r for r, _ in per_cluster.values())
    check_named_clusters(settings, clusters)
    if local_rows := local_rows_for(records):
        # read by the replay (brokers, static layers) and the upgrade's effects: one scan of the table, not one each,
        # planned as a small input (without adaptive execution, Delta's snapshot and file listing are a job each)
        with small_plans(store.spark):
            static_df = held_locally(static_df, local_rows) or static_df
    return Scope(
        records_df=records_df,
        static_df=static_df,
        clusters=clusters,
        quarantined=quarantined,
        records=records,
        not_audited=not_audited,
    )


def bronze_versions(store: DeltaStore, settings: AuditSettings) -> dict[str, int | None]:
    """The Delta version of each bronze table the audit reads (None: the table did not exist at that point).

    By default each table's latest. ``--warehouse-version N``: ``metadata_records`` at version N and the other
    tables as they were when that commit was made; ``--warehouse-as-of TS``: every table's newest version committed
    at or before TS.

    Raises:
        UsageError: version N does not exist, or nothing had been ingested at TS.
    """
    tables = ("metadata_records", "static_configs", "quarantine")
    if settings.warehouse_version is None and settings.warehouse_as_of is None:
        return {table: store.version(table) if store.exists(table) else None for table in tables}
    instant = settings.warehouse_as_of
    if settings.warehouse_version is not None:
        instant = store.commit_time("metadata_records", settings.warehouse_version)
        if instant is None:
            latest = store.version("metadata_records")
            raise UsageError(
                f"--warehouse-version {settings.warehouse_version}: metadata_records has versions 0 to {latest}"
                " (kraft-audit history shows them)"
                if latest >= 0
                else f"--warehouse-version {settings.warehouse_version}: metadata_records has no version yet"
            )
    assert instant is not None
    versions = {table: store.version_as_of(table, instant) for table in tables}
    if settings.warehouse_version is not None:
        versions["metadata_records"] = settings.warehouse_version
    if versions["metadata_records"] is None:
        raise UsageError(f"--warehouse-as-of {instant.isoformat()}: nothing had been ingested in the warehouse then")
    log.info(
        "reading the bronze tables as of %s: %s",
        instant.isoformat(),
        ", ".join(f"{t} version {v if v is not None else '(not created yet)'}" for t, v in versions.items()),
    )
    return versions


def _bronze(store: DeltaStore, table: str, versions: Mapping[str, int | None]) -> DataFrame:
    """A bronze table at the version the audit reads (no rows when it did not exist then)."""
    version = versions.get(table)
    if version is None:
        return store.spark.createDataFrame([], _BRONZE_SCHEMAS[table])
    return store.read(table, version=version)


_BRONZE_SCHEMAS = {"static_configs": bronze.STATIC_CONFIGS, "quarantine": bronze.QUARANTINE}


def not_audited_reason(quarantined: int) -> str:
    """Why a cluster of an audit's scope could not be audited (docs/contract.md §8: it blocks the verdict)."""
    if quarantined:
        return f"no readable record: {quarantined} quarantined row(s), see the quarantine table"
    return "nothing ingested under this cluster id"


def rows_per_cluster(
    store: DeltaStore, records_df: DataFrame, cluster_ids: Sequence[str], *, quarantine_df: DataFrame | None = None
) -> dict[str, tuple[int, int]]:
    """``(records, quarantined rows)`` per cluster of the scope (``cluster_ids``; none: every cluster): one
    aggregate over both tables."""
    quarantine_df = only_clusters(quarantine_df if quarantine_df is not None else store.read("quarantine"), cluster_ids)
    per_cluster_df = (
        records_df.select("cluster_id", F.lit(0).alias("_quarantined"))
        .unionByName(quarantine_df.select("cluster_id", F.lit(1).alias("_quarantined")))
        .groupBy("cluster_id")
        .agg(F.sum("_quarantined").alias("_quarantined"), F.count_if(F.col("_quarantined") == 0).alias("_records"))
    )
    with one_job(store.spark):
        rows = per_cluster_df.collect()
    # cluster_id is never NULL (schemas.bronze)
    return {str(r["cluster_id"]): (int(r["_records"]), int(r["_quarantined"])) for r in rows}


def check_named_clusters(settings: AuditSettings, clusters: Sequence[str]) -> None:
    """Every cluster a ``CLUSTER=VALUE`` option names is one the run audits (a misspelt id would otherwise leave
    that cluster at the run's value without a word).

    Raises:
        UsageError: naming the option and the clusters it names that the run does not audit.
    """
    options: dict[str, Any] = {
        "--target-mv": settings.target_mv,
        "--kafka-version": settings.kafka_version,
        "--upgrade-with": settings.upgrade_with,
    }
    for option, value in options.items():
        unknown = sorted(set(as_per_cluster(value).clusters) - set(clusters))
        if unknown:
            shown = ", ".join(c[:64] for c in unknown[:5])
            raise UsageError(f"{option} names cluster(s) this run does not audit: {shown}")
