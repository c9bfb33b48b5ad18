"""``kraft-audit audit``: replay the ingested records, resolve effective configs, evaluate the target MV.

Extract: bronze ``metadata_records`` and ``static_configs`` (optionally only some clusters). Transform: replay
(silver state), effective configuration (gold), constraint evaluation at the target level, at the current level
(``new_at_target``) and at every level (``highest_safe_mv``). Load: silver/gold state tables replaced per
cluster (they describe the latest audited state), ``violations``/``findings``/``audit_runs`` appended per run.
Exit code 0 when no error violation exists at the target, 1 otherwise (2 for user errors, via the CLI);
errors covered by an active ``--waivers`` entry do not count (``jobs.lifecycle``).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import logging
import re
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import conf_loader, lifecycle, lookups, quality, upgrade_effects
from jobs.output_files import write_output
from jobs.progress import stage, step
from jobs.session import build_session
from jobs.stages import Checkpoints, by_cluster, local_rows_for, one_job, plans_for, row_count, truncated
from jobs.storage import DeltaStore, open_store
from jobs.summary import RunSummary, verdict_text, write_junit, write_summary_json
from schemas import bronze, gold, silver
from schemas.changes import changes_from_remediations, dump_changes
from schemas.constraints import CompiledCatalog, ConstraintCatalog
from schemas.errors import InputError, StorageError, UsageError
from schemas.kafka_catalog import applied_rank, release_rank
from schemas.kafka_vocabulary import ResourceType
from schemas.lifecycle import Waiver
from schemas.metadata_version import MetadataVersion, MetadataVersionTable
from schemas.upgrade_effects import UPGRADE_EFFECTS, UpgradeWith
from schemas.violations import DYNAMIC_SCOPES, HIGHEST_SAFE_LEVELS, VIOLATIONS, VIOLATIONS_BY_LEVEL
from transforms.audit_scope import filter_auditable, to_unique_topic_names, with_release_at_least
from transforms.constraints.evaluate import (
    constraint_failures,
    evaluate_constraints,
    highest_safe_levels,
    violations_by_level,
)
from transforms.constraints.expressions import validate_with_spark
from transforms.constraints.generate import generate_default_catalog
from transforms.constraints.selection import compile_catalog
from transforms.effective.catalog_frames import CatalogFrames
from transforms.local_frames import local_frame
from transforms.metadata_version import parse_metadata_version
from transforms.releases import release_rank_column
from transforms.replay.brokers import ambiguous_release_findings
from transforms.replay.cluster import with_kafka_version
from transforms.replay.state import ReplayResult
from transforms.upgrade_effects import apply_upgrade_effects, to_upgrade_effect_findings, with_elr_after_upgrade
from transforms.upgrade_support import unsupported_registration_findings
from transforms.whatif.fallbacks import override_sources, resolve_fallbacks

log = logging.getLogger("kraft_audit")

# The finding kind of a cluster an audit was asked for but could not read (no decodable record).
NOT_AUDITED = "NOT_AUDITED"

_KAFKA_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?")
JAVA_LONG_MAX = (1 << 63) - 1  # Kafka's offsets are Java longs

# Tables describing the latest audited state: replaced per cluster on every audit.
STATE_TABLES: dict[str, Any] = {
    "brokers": silver.BROKERS,
    "broker_static_configs": silver.BROKER_STATIC_CONFIGS,
    "topics": silver.TOPICS,
    "dynamic_configs": silver.DYNAMIC_CONFIGS,
    "client_entity_configs": silver.CLIENT_ENTITY_CONFIGS,
    "features": silver.FEATURES,
    "controllers": silver.CONTROLLERS,
    "cluster_state": silver.CLUSTER_STATE,
    "effective_configs": gold.EFFECTIVE_CONFIGS,
}
# Tables that keep every run.
RUN_TABLES: dict[str, Any] = {
    "violations": VIOLATIONS,
    "findings": gold.FINDINGS,
    "violations_by_level": gold.with_run_columns(VIOLATIONS_BY_LEVEL),
    "highest_safe_levels": gold.with_run_columns(HIGHEST_SAFE_LEVELS),
    upgrade_effects.TABLE: gold.with_run_columns(UPGRADE_EFFECTS),
}


def written_tables() -> list[str]:
    """Every table an audit may write (checked readable before its first write: ``DeltaStore.check_tables``)."""
    return [*STATE_TABLES, *RUN_TABLES, "audit_runs", lifecycle.STATUS_TABLE, quality.DQ_TABLE]


# The compiled constraint catalogs of a run and the files they came from.
Rules = tuple[CompiledCatalog, list[str]]


@dataclass(frozen=True)
class AuditSettings:
    """What varies per audit run."""

    target_mv: str
    warehouse: str
    command: str = "audit"
    as_of_offset: int | None = None
    as_of_time: datetime | None = None
    constraints: tuple[str, ...] = ()
    no_default_constraints: bool = False
    cluster_ids: tuple[str, ...] = ()
    kafka_version: str | None = None
    waivers: tuple[Waiver, ...] = ()  # validated --waivers files
    run_id: str | None = None  # given by `run`/`gate`, whose bronze checks carry the same id
    dq: bool = True  # the data-quality stage (--no-dq skips it)
    upgrade_with: UpgradeWith = UpgradeWith.RELEASE_VERSION  # the kafka-features.sh form whose effects are predicted
    # Delta time travel: the bronze tables as the warehouse held them at metadata_records' version N, or at an instant
    warehouse_version: int | None = None
    warehouse_as_of: datetime | None = None

    @property
    def point_in_time(self) -> bool:
        """An audit of a past state (of the log or of the warehouse), which must not move the current lifecycle."""
        return any(
            v is not None for v in (self.as_of_offset, self.as_of_time, self.warehouse_version, self.warehouse_as_of)
        )


@dataclass
class AuditResult:
    """What an audit found, for summaries, gates and tests."""

    run_id: str
    run_ts: datetime
    target: MetadataVersion
    summary: RunSummary
    violations: list[dict[str, Any]] = field(default_factory=list)
    exit_code: int = 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Audit options (docs/contract.md §2)."""
    add_audit_arguments(parser, cluster_option=True)


def add_audit_arguments(parser: argparse.ArgumentParser, *, cluster_option: bool) -> None:
    """Options shared by ``audit``, ``run`` and ``gate``."""
    parser.add_argument(
        "--target-mv",
        required=True,
        metavar="MV",
        help="target metadata.version: 4.4-IV1, IBP_4_4_IV1, 4.4 or a feature level",
    )
    as_of = parser.add_mutually_exclusive_group()
    as_of.add_argument("--as-of-offset", type=int, metavar="N", help="audit the state at this log offset")
    as_of.add_argument("--as-of-time", metavar="ISO", help="audit the state at this instant (UTC if no zone)")
    parser.add_argument(
        "--constraints",
        action="append",
        default=[],
        metavar="FILE",
        help="an extra constraint catalog (YAML); repeatable",
    )
    parser.add_argument(
        "--no-default-constraints",
        action="store_true",
        help="evaluate only the --constraints catalogs, not the generated default catalog",
    )
    parser.add_argument(
        "--kafka-version", metavar="X.Y", help="Kafka release whose defaults apply (default: inferred per broker)"
    )
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (one case per violation)")
    parser.add_argument("--no-dq", action="store_true", help="skip the data-quality stage (Great Expectations)")
    parser.add_argument(
        "--remediation-out",
        metavar="FILE",
        help="write the fixes of the violations as a changes file for `kraft-audit simulate`",
    )
    lifecycle.add_waiver_argument(parser)
    upgrade_effects.add_argument(parser)
    if cluster_option:
        parser.add_argument(
            "--cluster-id",
            action="append",
            default=[],
            metavar="ID",
            help="audit only this cluster; repeatable (default: every ingested cluster)",
        )
        warehouse_as_of = parser.add_mutually_exclusive_group()
        warehouse_as_of.add_argument(
            "--warehouse-version",
            type=int,
            metavar="N",
            help="audit the bronze tables as the warehouse held them at metadata_records' Delta version N",
        )
        warehouse_as_of.add_argument(
            "--warehouse-as-of",
            metavar="ISO",
            help="audit the bronze tables as the warehouse held them at this instant (UTC if no zone)",
        )


def settings_from_args(args: argparse.Namespace, *, command: str = "audit") -> AuditSettings:
    """Validated settings from parsed arguments (bad values are UsageError, exit 2)."""
    as_of_time = _instant("--as-of-time", args.as_of_time)
    warehouse_as_of = _instant("--warehouse-as-of", getattr(args, "warehouse_as_of", None))
    warehouse_version = getattr(args, "warehouse_version", None)
    if warehouse_version is not None and not 0 <= warehouse_version <= JAVA_LONG_MAX:
        raise UsageError("--warehouse-version must be a Delta table version (0 or more)")
    if args.as_of_offset is not None and not 0 <= args.as_of_offset <= JAVA_LONG_MAX:
        raise UsageError(f"--as-of-offset must be between 0 and {JAVA_LONG_MAX} (a log offset is a Java long)")
    if args.no_default_constraints and not args.constraints:
        raise UsageError("--no-default-constraints needs at least one --constraints FILE")
    if args.kafka_version is not None:
        _check_release(args.kafka_version)
    return AuditSettings(
        target_mv=args.target_mv,
        warehouse=args.warehouse,
        command=command,
        as_of_offset=args.as_of_offset,
        as_of_time=as_of_time,
        constraints=tuple(args.constraints),
        no_default_constraints=args.no_default_constraints,
        cluster_ids=tuple(getattr(args, "cluster_id", []) or []),
        kafka_version=args.kafka_version,
        waivers=conf_loader.waivers(getattr(args, "waivers", None) or []),  # validated before Spark starts
        dq=not args.no_dq,
        upgrade_with=UpgradeWith(args.upgrade_with),
        warehouse_version=warehouse_version,
        warehouse_as_of=warehouse_as_of,
    )


def _instant(option: str, text: str | None) -> datetime | None:
    """An ISO-8601 instant given to ``option`` (UTC if it has no zone)."""
    if not text:
        return None
    try:
        instant = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        raise UsageError(f"{option} {text[:64]!r} is not an ISO-8601 instant") from error
    return instant if instant.tzinfo is not None else instant.replace(tzinfo=UTC)


def _check_release(text: str) -> None:
    """``--kafka-version``: ``4.2`` or ``4.2.1`` (what ``kafka-server-start.sh --version`` prints, without build
    suffixes), of a release line this tool knows: one of the metadata.version table (conf/metadata_versions.yaml),
    since it decides the defaults and validators that apply."""
    if _KAFKA_VERSION.fullmatch(text.strip()) is None:
        raise UsageError(f"--kafka-version {text[:40]!r} is not a Kafka release (e.g. 4.2 or 4.2.1)")
    table = conf_loader.metadata_versions()
    known = {mv.release for mv in table.levels} | {r.release for r in table.releases}
    line = ".".join(text.strip().split(".")[:2])
    if line not in known:
        ordered = sorted(known, key=release_rank)
        raise UsageError(
            f"--kafka-version {text.strip()}: not a Kafka release this tool knows ({ordered[0]} to {ordered[-1]})"
        )


def execute(args: argparse.Namespace) -> int:
    """CLI entry: audit, print the verdict, write the requested reports."""
    settings = settings_from_args(args)
    rules = load_rules(settings)  # before Spark starts: catalog mistakes are exit 2 at once
    spark = build_session(master=args.master)
    result = run(spark, settings, rules=rules)
    report(result, args)
    return result.exit_code


def report(result: AuditResult, args: argparse.Namespace) -> None:
    """Summary JSON, JUnit and remediation files when asked, then the verdict on stdout.

    The files come first: a file that cannot be written is exit 2 with no verdict printed (checked before Spark
    starts by ``jobs.preflight``; this is for a disk that filled up meanwhile).
    """
    try:
        if args.summary_json:
            write_summary_json(args.summary_json, result.summary)
        if getattr(args, "junit", None):
            write_junit(args.junit, result.summary, result.violations)
        if getattr(args, "remediation_out", None):
            write_remediation_changes(args.remediation_out, result.violations)
    except OSError as error:
        raise StorageError(f"{error.filename or 'an output file'}: {error.strerror or error}") from error
    print(verdict_text(result.summary))  # the verdict prints even with --quiet


def write_remediation_changes(path: str, violations: list[dict[str, Any]]) -> None:
    """The remediation plan of a run in the changes-file format that ``simulate`` reads (docs/contract.md §7)."""
    proposals = [
        {**row["remediation_change"], "cluster_id": row["cluster_id"], "constraint_level": row["constraint_level"]}
        for row in violations
        if row.get("remediation_change") and row["remediation_change"].get("key")
    ]
    write_output(path, dump_changes(changes_from_remediations(proposals)))


def load_rules(settings: AuditSettings) -> Rules:
    """The compiled constraint catalogs of this run, and the files they came from."""
    mv_table = conf_loader.metadata_versions()
    parse_metadata_version(settings.target_mv, mv_table)  # an unknown MV fails before anything else
    catalogs: list[ConstraintCatalog] = []
    if not settings.no_default_constraints:
        docs = [(f"conf/kafka/{release}.yaml", doc) for release, doc in conf_loader.kafka_catalog_documents()]
        catalogs.append(generate_default_catalog(docs, mv_table, mv_gates=conf_loader.kafka_mv_gates()))
    catalogs.extend(conf_loader.constraint_catalog(path) for path in settings.constraints)
    return compile_catalog(catalogs, mv_table), list(settings.constraints)


@dataclass(frozen=True)
class _Scope:
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
        """Frames up to this many rows are held as local relations (jobs.stages; 0 for a large input)."""
        return local_rows_for(self.records)


@dataclass(frozen=True)
class _Resolved:
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


@dataclass(frozen=True)
class _Evaluated:
    """What the evaluation wrote for this run (the frames as written, held in executor storage)."""

    life: lifecycle.LifecycleResult
    violations_df: DataFrame  # VIOLATIONS of the run
    safe_df: DataFrame  # HIGHEST_SAFE_LEVELS of the run, without run_id / run_ts
    findings_df: DataFrame  # FINDINGS of the run (without the lifecycle's EXPIRED_WAIVER rows)
    upgrade_effects_df: DataFrame  # the UPGRADE_EFFECTS rows of the run, with run_id / run_ts
    written: dict[str, int]  # table -> the version of the run's own commit to it (violations, upgrade effects)
    upgrade_refused: dict[str, list[str]]  # cluster -> why the controller would refuse the upgrade (blocks the verdict)


def run(
    spark: SparkSession,
    settings: AuditSettings,
    *,
    rules: Rules | None = None,
    checked: bool = False,
    dq_ledger: quality.Ledger | None = None,
) -> AuditResult:
    """Replay, resolve, evaluate and load; see the module docstring. Each stage is a function below.

    ``checked``: the caller (``run``, ``gate``) already validated ``rules`` with Spark and checked every table this
    audit writes, before its own first write. ``dq_ledger``: the data-quality results the caller's checks of this
    run hold (``run``: bronze), written with the audit's own.
    """
    started = time.monotonic()
    run_id = settings.run_id or uuid.uuid4().hex
    run_ts = datetime.now(UTC).replace(microsecond=0)
    if settings.dq:
        quality.prefetch()  # Great Expectations takes seconds to import: in the background, while replay runs
    mv_table = conf_loader.metadata_versions()
    target = parse_metadata_version(settings.target_mv, mv_table)
    compiled, constraint_files = rules or load_rules(settings)
    store = open_store(spark, settings.warehouse)
    if not checked:
        validate_with_spark(compiled, spark)
        store.check_tables(written_tables())  # before the first write: a corrupt table stops the run with one line

    scope = _extract(store, settings)
    # a small input runs without generated code (compiling it would cost more than running it) and plans each query
    # in one partition without broadcasts or adaptive stages: an action is one Spark job; a mid-size input runs
    # without generated code too (jobs.stages.plans_for)
    with plans_for(spark, scope.records):
        resolved = _replay_and_resolve(spark, store, settings, scope, target=target, mv_table=mv_table)
        dq = None
        if settings.dq:
            ledger = dq_ledger or quality.Ledger(store, run_id=run_id, run_ts=run_ts, command=settings.command)
            dq = quality.check_silver(
                spark,
                store,
                resolved.state,
                versions={t: v for t, v in resolved.written.items() if t in quality.stage_tables("silver")},
                run_id=run_id,
                run_ts=run_ts,
                command=settings.command,
                ledger=ledger,
            )
        evaluated = _evaluate(
            spark,
            store,
            settings,
            scope,
            resolved,
            compiled,
            target=target,
            mv_table=mv_table,
            run_id=run_id,
            run_ts=run_ts,
        )
        violations, summary, audit_row = _summarize(
            store,
            settings,
            scope,
            resolved,
            evaluated,
            compiled=compiled,
            constraint_files=constraint_files,
            target=target,
            run_id=run_id,
            run_ts=run_ts,
            started=started,
        )
        audit_run_df = local_frame(spark, [audit_row], gold.AUDIT_RUNS)
        if dq is not None:
            held = {
                "effective_configs": resolved.effective_df.select(*gold.EFFECTIVE_CONFIGS.names),
                "violations": evaluated.violations_df,
                # the lifecycle's EXPIRED_WAIVER findings of the run too, as the table holds them
                "findings": evaluated.findings_df
                if evaluated.life.findings_df is None
                else evaluated.findings_df.unionByName(evaluated.life.findings_df),
                upgrade_effects.TABLE: evaluated.upgrade_effects_df,
            }
            dq += quality.check_gold(
                spark,
                store,
                held,
                versions={"effective_configs": resolved.written["effective_configs"], **evaluated.written},
                run_id=run_id,
                run_ts=run_ts,
                command=settings.command,
                audit_run_df=audit_run_df,
                ledger=ledger,
            )
            summary.dq = dq.to_json()
            ledger.write()  # the run's data-quality results, in one commit
        # Written last: a run killed before this line has no audit_runs row (its verdict never counted), and its
        # bronze rows stay pending for the data-quality checks of the next run (jobs.quality.check_bronze).
        store.ensure("audit_runs", gold.AUDIT_RUNS)
        store.append("audit_runs", audit_run_df)
    return AuditResult(
        run_id=run_id,
        run_ts=run_ts,
        target=target,
        summary=summary,
        violations=violations,
        exit_code=1 if summary.verdict == "fail" else 0,
    )


def _extract(store: DeltaStore, settings: AuditSettings) -> _Scope:
    """The bronze records and static configs of the clusters this audit covers."""
    if not store.exists("metadata_records"):
        raise InputError(f"nothing ingested in {settings.warehouse}: run `kraft-audit ingest` first")
    versions = bronze_versions(store, settings)
    version = versions["metadata_records"]
    records_df = _only_clusters(store.read("metadata_records", version=version), settings.cluster_ids)
    static_df = _only_clusters(_bronze(store, "static_configs", versions), settings.cluster_ids)
    per_cluster = _rows_per_cluster(
        store,
        records_df,
        settings.cluster_ids,
        quarantine_df=_bronze(store, "quarantine", versions),
    )
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
    return _Scope(
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


def _rows_per_cluster(
    store: DeltaStore, records_df: DataFrame, cluster_ids: Sequence[str], *, quarantine_df: DataFrame | None = None
) -> dict[str, tuple[int, int]]:
    """``(records, quarantined rows)`` per cluster of the scope (``cluster_ids``; none: every cluster): one
    aggregate over both tables."""
    quarantine_df = _only_clusters(
        quarantine_df if quarantine_df is not None else store.read("quarantine"), cluster_ids
    )
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


def _replay_and_resolve(
    spark: SparkSession,
    store: DeltaStore,
    settings: AuditSettings,
    scope: _Scope,
    *,
    target: MetadataVersion,
    mv_table: MetadataVersionTable,
) -> _Resolved:
    """Replay into the silver tables, then resolve the effective configuration at the target's release (gold)."""
    from transforms.effective import resolve_effective_configs
    from transforms.replay.state import replay_state

    clusters = scope.clusters
    with stage(spark, f"replaying {len(clusters)} cluster(s)"):
        # the replay pass and every silver frame are computed once and held (jobs.stages: local relations for a
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
            name: _replace(store, name, silver_frames[name], clusters, local_rows=scope.local_rows)
            for name in STATE_TABLES
            if name in silver_frames
        }
        state = dataclasses.replace(replayed, **silver_frames)
    frames = lookups.catalog_frames(spark)
    target_keys_df = frames.config_keys_df.filter(F.col("release") == catalog_release(target.release))
    effects_df = upgrade_effects.predict(
        state,
        scope.static_df,
        target_keys_df,
        target=target,
        mv_table=mv_table,
        upgrade_with=settings.upgrade_with,
        local_rows=scope.local_rows,
    )
    at_target = dataclasses.replace(
        state,
        brokers=with_release_at_least(state.brokers, release=target.release),
        dynamic_configs=apply_upgrade_effects(state.dynamic_configs, effects_df),
    )
    # one set of held frames for the resolution of at_target: the findings stage reuses its nodes and layers
    resolution = Checkpoints(local_rows=scope.local_rows)
    with stage(spark, "resolving effective configurations"):
        # a union of the resolution's kept rows per resource type: read as it is, not copied again
        # every broker runs the target's release at least (with_release_at_least): older releases' rules are not
        # planned
        effective_df = resolve_effective_configs(
            at_target, frames, kafka_version=settings.kafka_version, oldest_release=target.release, keep=resolution
        )
        written["effective_configs"] = _replace(
            store, "effective_configs", effective_df, clusters, local_rows=scope.local_rows
        )
    return _Resolved(
        state=state,
        at_target=at_target,
        upgrade_effects=effects_df,
        frames=frames,
        records_read=records_read,
        effective_df=effective_df,
        auditable_df=filter_auditable(effective_df, target_keys_df=target_keys_df),
        resolution=resolution,
        written=written,
    )


def _evaluate(
    spark: SparkSession,
    store: DeltaStore,
    settings: AuditSettings,
    scope: _Scope,
    resolved: _Resolved,
    compiled: CompiledCatalog,
    *,
    target: MetadataVersion,
    mv_table: MetadataVersionTable,
    run_id: str,
    run_ts: datetime,
) -> _Evaluated:
    """Violations at the target, the lifecycle, violations at every level, highest safe MVs and findings."""
    from transforms.effective import effective_findings

    frames, auditable_df, at_target = resolved.frames, resolved.auditable_df, resolved.at_target
    local_rows = scope.local_rows
    topics_df = resolved.state.topics
    # the release the brokers run now decides the base validators below the target's release (--kafka-version wins)
    cluster_df = with_elr_after_upgrade(
        with_kafka_version(resolved.state.cluster_state, settings.kafka_version),
        resolved.state.features,
        settings.upgrade_with,
    )
    with stage(spark, f"evaluating {len(compiled.rules)} constraints at {target.name}"):
        # The catalog is evaluated once, at every level: the violations at the target and the counts per level both
        # read this held frame. Planning runs the shuffles of the DELETE fallbacks (held frames too).
        failures_df = truncated(
            constraint_failures(auditable_df, topics_df, cluster_df, compiled), local_rows=local_rows
        )
        with step(spark, "planning and remediation fallbacks"):
            # the override layers failing values come from: only their fallback variants are resolved
            layers = [row["value_source"] for row in override_sources(failures_df).collect()]
            # held: written, folded into the lifecycle and collected for the summary without being read back
            violations_df = truncated(
                evaluate_constraints(
                    auditable_df,
                    topics_df,
                    cluster_df,
                    compiled,
                    target=target,
                    run_id=run_id,
                    run_ts=run_ts,
                    dynamic_scope_df=_dynamic_scopes(frames),
                    fallback_resolver=partial(
                        resolve_fallbacks,
                        at_target,
                        frames,
                        layers=layers,
                        kafka_version=settings.kafka_version,
                        oldest_release=target.release,
                        keep=Checkpoints(local_rows=local_rows),
                        # the topic and group fallbacks are planned on the audit's own resolution of at_target
                        resolution_keep=resolved.resolution,
                    ),
                    failures_df=failures_df,
                    keep=Checkpoints(local_rows=local_rows),
                ).select(*VIOLATIONS.names),
                local_rows=local_rows,
            )
        written: dict[str, int] = {}
        with step(spark, "violations"):
            written["violations"] = _append(store, "violations", violations_df, local_rows=local_rows)
        with step(spark, "lifecycle"):
            life = lifecycle.apply(
                spark,
                store,
                run_id=run_id,
                run_ts=run_ts,
                target_level=target.level,
                clusters=scope.clusters,
                constraint_ids=[r.constraint.id for r in compiled.rules],
                waivers=settings.waivers,
                update_status=not settings.point_in_time,
                violations_df=violations_df,
                local_rows=local_rows,
            )
        by_level_df = truncated(
            violations_by_level(
                auditable_df,
                topics_df,
                cluster_df,
                compiled,
                mv_table=mv_table,
                failures_df=failures_df,
                clusters=scope.clusters,  # not read from the effective rows: an audit knows its clusters
            ).select(*VIOLATIONS_BY_LEVEL.names),
            local_rows=local_rows,
        )
        with step(spark, "every MV level"):
            _append(store, "violations_by_level", _with_run(by_level_df, run_id, run_ts), local_rows=local_rows)
        safe_df = truncated(
            highest_safe_levels(by_level_df, cluster_df).select(*HIGHEST_SAFE_LEVELS.names), local_rows=local_rows
        )
        with step(spark, "highest safe MV"):
            _append(store, "highest_safe_levels", _with_run(safe_df, run_id, run_ts), local_rows=local_rows)
        # the resolution's nodes and broker layers are reused (resolved.resolution), not computed again
        all_findings_df = resolved.state.findings.unionByName(
            effective_findings(
                at_target,
                frames,
                kafka_version=settings.kafka_version,
                oldest_release=target.release,
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
        if scope.not_audited:
            all_findings_df = all_findings_df.unionByName(_not_audited_findings(spark, scope.not_audited))
        effects_df = _with_run(resolved.upgrade_effects, run_id, run_ts)
        with step(spark, "upgrade effects"):
            written[upgrade_effects.TABLE] = _append(store, upgrade_effects.TABLE, effects_df, local_rows=local_rows)
        findings_df = truncated(_findings(all_findings_df, run_id, run_ts), local_rows=local_rows)
        with step(spark, "findings"):
            _append(store, "findings", findings_df, local_rows=local_rows)
    return _Evaluated(
        life=life,
        violations_df=violations_df,
        safe_df=safe_df,
        findings_df=findings_df,
        upgrade_effects_df=effects_df.select(*RUN_TABLES[upgrade_effects.TABLE].names),
        written=written,
        upgrade_refused=refused,
    )


def _summarize(
    store: DeltaStore,
    settings: AuditSettings,
    scope: _Scope,
    resolved: _Resolved,
    evaluated: _Evaluated,
    *,
    compiled: CompiledCatalog,
    constraint_files: list[str],
    target: MetadataVersion,
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
    downgrades = sorted(c for c, level in current.items() if level is not None and level > target.level)
    tables = {name: store.path(name) for name in [*STATE_TABLES, *RUN_TABLES, "audit_runs"]}
    if life.status_updated:
        tables[lifecycle.STATUS_TABLE] = store.path(lifecycle.STATUS_TABLE)
    summary = RunSummary(
        run_id=run_id,
        target_mv=target.name,
        target_level=target.level,
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
            settings.upgrade_with, (r.asDict() for r in resolved.upgrade_effects.collect())
        ),
        clusters_not_audited=dict(scope.not_audited),
        upgrade_refused=dict(evaluated.upgrade_refused),
    )
    audit_row = (
        run_id,
        run_ts,
        settings.command,
        target.name,
        target.level,
        clusters,
        downgrades,
        settings.as_of_offset,
        settings.as_of_time,
        resolved.records_read,
        scope.quarantined,
        entities,
        len(compiled.rules),
        by_severity["error"],
        by_severity["warning"],
        findings_total,
        {c: safe.get(c) for c in clusters},
        verdict,
        int(summary.duration_seconds * 1000),
        code_fingerprint(),
        conf_loader.catalog_fingerprint(constraint_files),
    )
    return violations, summary, audit_row


def catalog_release(release: str) -> str:
    """The newest catalog release not newer than ``release`` (the MV table knows releases the catalog may not), the
    oldest when ``release`` predates them all (``applied_rank``)."""
    by_rank = {release_rank(r.release): r.release for r in conf_loader.kafka_catalog().releases}
    return by_rank[applied_rank(by_rank, release_rank(release))]


def _only_clusters(df: DataFrame, clusters: Sequence[str]) -> DataFrame:
    return df.filter(F.col("cluster_id").isin(list(clusters))) if clusters else df


def _replace(store: DeltaStore, table: str, df: DataFrame, clusters: list[str], *, local_rows: int) -> int:
    schema = STATE_TABLES[table]
    store.ensure(table, schema, ["cluster_id"])
    return store.replace_partitions(
        table, by_cluster(df.select(*schema.names), local_rows=local_rows), {"cluster_id": clusters}
    )


def _read(store: DeltaStore, table: str, clusters: list[str]) -> DataFrame:
    return store.read(table).filter(F.col("cluster_id").isin(clusters))


def _append(store: DeltaStore, table: str, df: DataFrame, *, local_rows: int) -> int:
    schema = RUN_TABLES[table]
    store.ensure(table, schema, ["cluster_id"])
    return store.append(table, by_cluster(df.select(*schema.names), local_rows=local_rows))


def _with_run(df: DataFrame, run_id: str, run_ts: datetime) -> DataFrame:
    return df.select(F.lit(run_id).alias("run_id"), F.lit(run_ts).cast("timestamp").alias("run_ts"), "*")


def _findings(findings_df: DataFrame, run_id: str, run_ts: datetime) -> DataFrame:
    stamped = {"run_id": F.lit(run_id), "run_ts": F.lit(run_ts).cast("timestamp")}
    return findings_df.select(
        *[
            (stamped[f.name] if f.name in stamped else F.col(f.name)).cast(f.dataType).alias(f.name)
            for f in gold.FINDINGS.fields
        ]
    )


def _not_audited_findings(spark: SparkSession, not_audited: dict[str, str]) -> DataFrame:
    """One blocking ``NOT_AUDITED`` finding per cluster of the scope that had no readable record."""
    rows = [
        (cluster, None, None, NOT_AUDITED, None, f"cluster not audited: {reason}", None, True)
        for cluster, reason in sorted(not_audited.items())
    ]
    return local_frame(spark, rows, gold.FINDING_ROWS)


def _dynamic_scopes(frames: CatalogFrames) -> DataFrame:
    """Per broker key its dynamic scope in the newest release that defines it (for remediation text)."""
    keys_df = frames.config_keys_df.filter(
        (F.col("resource_type") == ResourceType.BROKER) & F.col("dynamic_scope").isNotNull()
    )
    newest_df = keys_df.groupBy("name").agg(
        F.max_by("dynamic_scope", release_rank_column(F.col("release"))).alias("scope")
    )
    return newest_df.select(F.col("name").alias("config_name"), "scope").select(*DYNAMIC_SCOPES.names)


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


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/audit.py --target-mv 4.4-IV1 ...``."""
    from jobs.cli import main as cli_main

    return cli_main(["audit", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
