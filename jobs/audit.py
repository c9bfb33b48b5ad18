"""``kraft-audit audit``: replay the ingested records, resolve effective configs, evaluate the target MV.

Extract: bronze ``metadata_records`` and ``static_configs`` (optionally only some clusters). Transform: replay
(silver state), effective configuration (gold), constraint evaluation at the target level, at the current level
(``new_at_target``) and at every level (``highest_safe_mv``). Load: silver/gold state tables replaced per
cluster (they describe the latest audited state), ``violations``/``findings``/``audit_runs`` appended per run.
Exit code 0 when no error violation exists at the target, 1 otherwise (2 for user errors, via the CLI);
errors covered by an active ``--waivers`` entry do not count (``jobs.lifecycle``).

The steps are the modules of ``jobs.audit_steps`` (extract, resolve, evaluate, summarize); ``run`` calls them in
order and decides what is held between them and when the data-quality checks run.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from pyspark.sql import DataFrame, SparkSession

from jobs import conf_loader, lifecycle, quality, upgrade_effects
from jobs.audit_steps.evaluate import Evaluated, evaluate
from jobs.audit_steps.extract import HeldBronze, extract
from jobs.audit_steps.resolve import Resolved, replay_and_resolve
from jobs.audit_steps.settings import AuditResult, AuditSettings, Rules
from jobs.audit_steps.summarize import summarize
from jobs.audit_steps.tables import RUN_TABLES, STATE_TABLES
from jobs.output_files import write_output
from jobs.runtime.entry import run_job_file
from jobs.runtime.expression_check import validate_with_spark
from jobs.runtime.holding import plans_for
from jobs.runtime.session import build_session
from jobs.storage import DeltaStore, open_store
from jobs.summary import verdict_text, write_junit, write_summary_json
from schemas import gold
from schemas.changes import changes_from_remediations, dump_changes
from schemas.constraints import ConstraintCatalog
from schemas.errors import StorageError, UsageError
from schemas.kafka_catalog import release_rank
from schemas.metadata_version import MetadataVersionTable
from schemas.per_cluster import PerCluster, Targets, per_cluster
from schemas.upgrade_effects import UpgradeWith
from transforms.configdef.generate import generate_default_catalog
from transforms.configdef.selection import compile_catalog
from transforms.kit.local_frames import local_frame
from transforms.kit.metadata_version import parse_metadata_version

HELP = "replay, resolve, evaluate and write violations for ingested data"

log = logging.getLogger("kraft_audit")


T = TypeVar("T")
_KAFKA_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?")
JAVA_LONG_MAX = (1 << 63) - 1  # Kafka's offsets are Java longs


def written_tables() -> list[str]:
    """Every table an audit may write (checked readable before its first write: ``DeltaStore.check_tables``)."""
    return [*STATE_TABLES, *RUN_TABLES, "audit_runs", lifecycle.STATUS_TABLE, quality.DQ_TABLE]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Audit options (docs/contract.md §2)."""
    add_audit_arguments(parser, cluster_option=True)


def add_audit_arguments(parser: argparse.ArgumentParser, *, cluster_option: bool) -> None:
    """Options shared by ``audit``, ``run`` and ``gate``."""
    parser.add_argument(
        "--target-mv",
        required=True,
        action="append",
        metavar="MV",
        help="target metadata.version: 4.4-IV1, IBP_4_4_IV1, 4.4 or a feature level; CLUSTER=MV gives a cluster its "
        "own (repeatable)",
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
        "--kafka-version",
        action="append",
        metavar="X.Y",
        help="Kafka release the brokers run, whose defaults and validators apply (default: inferred per broker); "
        "CLUSTER=X.Y[.Z] for one cluster (repeatable)",
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
    return AuditSettings(
        target_mv=per_cluster_option("--target-mv", args.target_mv, _check_mv, None, required=True),
        warehouse=args.warehouse,
        command=command,
        as_of_offset=args.as_of_offset,
        as_of_time=as_of_time,
        constraints=tuple(args.constraints),
        no_default_constraints=args.no_default_constraints,
        cluster_ids=tuple(getattr(args, "cluster_id", []) or []),
        kafka_version=per_cluster_option("--kafka-version", args.kafka_version, _check_release, None),
        waivers=conf_loader.waivers(getattr(args, "waivers", None) or []),  # validated before Spark starts
        dq=not args.no_dq,
        upgrade_with=per_cluster_option(
            "--upgrade-with", args.upgrade_with, upgrade_effects.upgrade_form, UpgradeWith.RELEASE_VERSION
        ),
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


def per_cluster_option(
    option: str, given: Sequence[str] | None, parse: Callable[[str], T], default: T | None, *, required: bool = False
) -> Any:
    """A repeatable option's value for the run (``VALUE``, at most once; ``default`` without it) and the clusters'
    own (``CLUSTER=VALUE``, once per cluster), each checked by ``parse``: the run's value alone, or a ``PerCluster``.
    ``required``: the run's value must be given (``default`` is None).

    Raises:
        UsageError: a value given twice for the run or for one cluster, a ``CLUSTER=`` without a cluster, or a value
            ``parse`` refuses.
    """
    run_wide = [text for text in given or [] if "=" not in text]
    if len(run_wide) > 1:
        raise UsageError(f"{option} is given {len(run_wide)} times for the run: once, and CLUSTER=VALUE for a cluster")
    overrides: dict[str, T] = {}
    for text in given or []:
        if "=" not in text:
            continue
        cluster, _, value = (part.strip() for part in text.partition("="))
        if not cluster or cluster in overrides:
            reason = "names no cluster" if not cluster else f"gives cluster {cluster[:64]} a second value"
            raise UsageError(f"{option} {text[:80]!r} {reason} (CLUSTER=VALUE, once per cluster)")
        overrides[cluster] = parse(value)
    run_value = parse(run_wide[0]) if run_wide else default
    if run_value is None and required:
        raise UsageError(f"{option} needs a value for the run besides CLUSTER=VALUE ones")
    return PerCluster(run_value, tuple(overrides.items())) if overrides else run_value


def _check_mv(text: str) -> str:
    """``--target-mv``: a metadata.version the table knows (the MV itself is parsed again where it is used)."""
    parse_metadata_version(text.strip(), conf_loader.metadata_versions())
    return text.strip()


def _check_release(text: str) -> str:
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
    return text.strip()


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
    targets_of(settings, mv_table)  # an unknown MV fails before anything else
    catalogs: list[ConstraintCatalog] = []
    if not settings.no_default_constraints:
        docs = [(f"conf/kafka/{release}.yaml", doc) for release, doc in conf_loader.kafka_catalog_documents()]
        catalogs.append(generate_default_catalog(docs, mv_table, mv_gates=conf_loader.kafka_mv_gates()))
    catalogs.extend(conf_loader.constraint_catalog(path) for path in settings.constraints)
    return compile_catalog(catalogs, mv_table), list(settings.constraints)


def run(
    spark: SparkSession,
    settings: AuditSettings,
    *,
    rules: Rules | None = None,
    checked: bool = False,
    dq_ledger: quality.Ledger | None = None,
    held_bronze: HeldBronze | None = None,
) -> AuditResult:
    """Extract, replay and resolve, evaluate, summarize (``jobs.audit_steps``), with the data-quality checks.

    ``checked``: the caller (``run``, ``gate``) validated ``rules`` and checked every table this audit writes;
    ``dq_ledger``, ``held_bronze``: its bronze checks' results and its ingest's rows (``audit_steps.extract``).
    """
    started = time.monotonic()
    run_id = settings.run_id or uuid.uuid4().hex
    run_ts = datetime.now(UTC).replace(microsecond=0)
    if settings.dq:
        quality.prefetch()  # Great Expectations takes seconds to import: in the background, while replay runs
    mv_table = conf_loader.metadata_versions()
    target = targets_of(settings, mv_table)
    compiled, constraint_files = rules or load_rules(settings)
    store = open_store(spark, settings.warehouse)
    if not checked:
        validate_with_spark(compiled, spark)
        store.check_tables(written_tables())  # before the first write: a corrupt table stops the run with one line
    scope = extract(store, settings, held_bronze)
    # how each query of this input's size is planned and compiled (jobs.runtime.holding.plans_for)
    with plans_for(spark, scope.records):
        resolved = replay_and_resolve(spark, store, settings, scope, target=target, mv_table=mv_table)
        dq, ledger = _check_silver(spark, store, settings, resolved, dq_ledger, run_id, run_ts)
        evaluated = evaluate(
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
        violations, summary, audit_row = summarize(
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
        if dq is not None and ledger is not None:
            dq += _check_gold(spark, store, settings, resolved, evaluated, audit_run_df, ledger, run_id, run_ts)
            summary.dq = dq.to_json()
            ledger.write()  # the run's data-quality results, in one commit
        _append_run_row(store, audit_run_df)
    return AuditResult(
        run_id=run_id,
        run_ts=run_ts,
        target=per_cluster(target).default,
        summary=summary,
        violations=violations,
        exit_code=1 if summary.verdict == "fail" else 0,
    )


def targets_of(settings: AuditSettings, mv_table: MetadataVersionTable) -> Targets:
    """``--target-mv``: the run's metadata.version, or a ``PerCluster`` with some clusters' own."""
    return per_cluster(settings.target_mv).map(lambda text: parse_metadata_version(text, mv_table))


def _append_run_row(store: DeltaStore, audit_run_df: DataFrame) -> None:
    """The run's ``audit_runs`` row, written last: a run killed before it has no row (its verdict never counted),
    and its bronze rows stay pending for the data-quality checks of the next run (``jobs.quality.check_bronze``)."""
    store.ensure("audit_runs", gold.AUDIT_RUNS)
    store.append("audit_runs", audit_run_df)


def _check_silver(
    spark: SparkSession,
    store: DeltaStore,
    settings: AuditSettings,
    resolved: Resolved,
    dq_ledger: quality.Ledger | None,
    run_id: str,
    run_ts: datetime,
) -> tuple[quality.DqCounts | None, quality.Ledger | None]:
    """The data-quality checks of the silver tables the run wrote, as it holds them, and the ledger that holds the
    run's results: ``dq_ledger`` (the caller's) or a new one (None, None: ``--no-dq``)."""
    if not settings.dq:
        return None, None
    ledger = dq_ledger or quality.Ledger(store, run_id=run_id, run_ts=run_ts, command=settings.command)
    silver_versions = {t: v for t, v in resolved.written.items() if t in quality.stage_tables("silver")}
    dq = quality.check_silver(
        spark,
        store,
        resolved.state,
        versions=silver_versions,
        run_id=run_id,
        run_ts=run_ts,
        command=settings.command,
        ledger=ledger,
    )
    return dq, ledger


def _check_gold(
    spark: SparkSession,
    store: DeltaStore,
    settings: AuditSettings,
    resolved: Resolved,
    evaluated: Evaluated,
    audit_run_df: DataFrame,
    ledger: quality.Ledger,
    run_id: str,
    run_ts: datetime,
) -> quality.DqCounts:
    """The data-quality checks of the gold frames the run wrote, as it holds them, and of its ``audit_runs`` row."""
    held = {
        "effective_configs": resolved.effective_df.select(*gold.EFFECTIVE_CONFIGS.names),
        "violations": evaluated.violations_df,
        # the lifecycle's EXPIRED_WAIVER findings of the run too, as the table holds them
        "findings": evaluated.findings_df
        if evaluated.life.findings_df is None
        else evaluated.findings_df.unionByName(evaluated.life.findings_df),
        upgrade_effects.TABLE: evaluated.upgrade_effects_df,
    }
    return quality.check_gold(
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


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/audit.py --target-mv 4.4-IV1 ...``."""
    return run_job_file("audit", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
