"""``kraft-audit simulate``: what-if — apply proposed config changes to the audited state and re-evaluate.

Extract: the latest audited silver state of the warehouse (``brokers``, ``broker_static_configs``, ``topics``,
``dynamic_configs``, ``client_entity_configs``, ``cluster_state``, written by ``audit``) and a changes file
(docs/contract.md §7: IncrementalAlterConfigs ``ops`` SET/DELETE/APPEND/SUBTRACT per resource, or legacy ``replace``).
Transform: ``transforms.whatif.changes.apply_changes`` writes the changes into the configuration layers;
the state before and after are both re-resolved at the target (one resolution, ``scenarios``) and evaluated
with the catalogs. Load: ``simulations`` (SIMULATIONS: per changed resource and broker view, the re-resolved
values and sources of the keys that changed, violations cleared and introduced). The dynamic BROKER changes a
broker would refuse outright (``transforms.whatif.refusals``) are listed too. Exit 0 when no change is refused and
no error violation remains after the changes, 1 otherwise.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import audit, conf_loader
from jobs.audit_steps.extract import check_named_clusters
from jobs.audit_steps.resolve import (
    oldest_release,
    target_catalog_releases,
    target_release_column,
    target_releases,
)
from jobs.output_files import write_output
from jobs.redaction_key import redaction_key
from jobs.runtime import lookups
from jobs.runtime.entry import run_job_file
from jobs.runtime.expression_check import validate_with_spark
from jobs.runtime.holding import LOCAL_ROWS, Checkpoints, local_rows_for, plans_for, small_plans, truncated
from jobs.runtime.session import build_session
from jobs.storage import DeltaStore, open_store
from schemas.changes import SIMULATIONS, ChangeSet, load_changes_text
from schemas.constraints import CompiledCatalog
from schemas.errors import InputError
from schemas.kafka_vocabulary import RESOURCE_TYPES
from schemas.per_cluster import KafkaVersions, PerCluster, Targets, per_cluster
from schemas.upgrade_effects import UpgradeWith
from transforms.constraints.evaluate import evaluate_constraints
from transforms.decode.redaction import redact_value
from transforms.effective import resolve_effective_configs, unapplied_layer_rows
from transforms.effective.catalog_frames import CatalogFrames
from transforms.effective.common import kept_unsupported, with_catalog_release
from transforms.effective.upgrade_effects import with_elr_after_upgrade
from transforms.kit.audit_scope import filter_auditable, with_release_at_least
from transforms.kit.local_frames import local_frame
from transforms.replay.cluster import with_kafka_version
from transforms.replay.state import ReplayResult
from transforms.whatif.changes import apply_changes
from transforms.whatif.refusals import refused_broker_changes, refused_group_changes, refused_topic_changes
from transforms.whatif.scenarios import (
    RESOLUTION_INPUTS,
    SCENARIO_SEPARATOR,
    resolution_state,
    tagged,
    union_scenarios,
    untagged,
    with_layers,
)

HELP = "apply proposed config changes and re-evaluate"

VIOLATION_KEY = ("cluster_id", "resource_type", "resource_name", "node_id", "config_name", "constraint_id")
ENTITY = ["cluster_id", "resource_type", "resource_name", "node_id"]
BEFORE, AFTER = "before", "after"
# resource_type -> the resource name the redaction rules use
_RESOURCE_KINDS: dict[str, str] = {rtype: rtype.kind for rtype in RESOURCE_TYPES}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Simulate options (docs/contract.md §2, §7)."""
    parser.add_argument("--changes", required=True, metavar="FILE", help="YAML of proposed config changes")
    audit.add_audit_arguments(parser, cluster_option=True)


def load_changes(path: str) -> ChangeSet:
    """The changes file, validated (errors name the file and the entry)."""
    text = conf_loader.read_user_text(Path(path), what="changes file", option="--changes")
    return load_changes_text(text, path)


@dataclass(frozen=True)
class SimulateSettings:
    """The audit settings the changes are judged with, and the changes."""

    audit: audit.AuditSettings
    changes: ChangeSet


@dataclass(frozen=True)
class SimulateResult:
    """What the changes clear and introduce (the summary JSON is ``summary()``)."""

    run_id: str
    target_mv: str
    cleared: list[str]
    introduced: list[str]
    errors_after: int
    changed_resources: int
    refused: list[str] = field(default_factory=list)  # "<cluster> BROKER '<name>': <why>", one per refused change
    tables: dict[str, str] = field(default_factory=dict)

    @property
    def safe(self) -> bool:
        """No change refused and no error violation after the changes."""
        return not self.refused and self.errors_after == 0

    def summary(self) -> dict[str, Any]:
        """The machine-readable summary ``--summary-json`` writes."""
        return {
            "run_id": self.run_id,
            "target_mv": self.target_mv,
            "cleared": len(self.cleared),
            "introduced": len(self.introduced),
            "errors_after": self.errors_after,
            "cleared_violations": self.cleared,
            "introduced_violations": self.introduced,
            "changed_resources": self.changed_resources,
            "refused": len(self.refused),
            "refused_changes": self.refused,
            "tables": self.tables,
        }


def settings_from_args(args: argparse.Namespace) -> SimulateSettings:
    """Validated settings from parsed arguments; the changes file is read and validated here, before Spark."""
    return SimulateSettings(
        audit=audit.settings_from_args(args, command="simulate"), changes=load_changes(args.changes)
    )


def execute(args: argparse.Namespace) -> int:
    """CLI entry: simulate, print what the changes clear and introduce."""
    settings = settings_from_args(args)
    rules = audit.load_rules(settings.audit)
    spark = build_session(master=args.master)
    result = run(spark, settings, rules=rules)
    for refused in result.refused:
        print(f"refused: {refused}")
    print(
        f"simulate {result.run_id} at {result.target_mv}: {len(result.cleared)} violation(s) cleared, "
        f"{len(result.introduced)} introduced, {result.errors_after} error(s) remain, "
        f"{len(result.refused)} change(s) refused → {'SAFE' if result.safe else 'NOT safe'} after the changes"
    )
    if args.summary_json:
        summary = json.dumps(result.summary(), indent=2, sort_keys=True) + "\n"
        write_output(args.summary_json, summary)
    return 0 if result.safe else 1


def _redactor() -> Any:
    rules, key = conf_loader.sensitivity_rules(), redaction_key()

    def redact(resource_type: str, name: str, value: str | None) -> tuple[str | None, str | None]:
        return redact_value(name, value, _RESOURCE_KINDS.get(resource_type), rules, key)

    return redact


def run(spark: SparkSession, simulation: SimulateSettings, *, rules: audit.Rules | None = None) -> SimulateResult:
    """Apply the changes to the latest audited state and evaluate before and after; see the module docstring."""
    settings, changes = simulation.audit, simulation.changes
    mv_table = conf_loader.metadata_versions()
    targets = audit.targets_of(settings, mv_table)
    target = per_cluster(targets).default
    compiled, _files = rules or audit.load_rules(settings)
    validate_with_spark(compiled, spark)
    store = open_store(spark, settings.warehouse)
    missing = [name for name in (*RESOLUTION_INPUTS, "cluster_state", "features") if not store.exists(name)]
    if missing:
        raise InputError(f"no audited state in {settings.warehouse} ({', '.join(missing)}): run `kraft-audit audit`")
    if simulated := simulated_clusters(settings, changes):  # (none named: every cluster's state is read)
        check_named_clusters(settings, simulated)
    state, features_df, applied = _audited_state(spark, store, settings, changes)
    local_rows = local_rows_for(applied)
    frames = lookups.catalog_frames(spark)
    plan = _Plan.of(settings, targets, frames)

    def at_target(s: ReplayResult) -> ReplayResult:
        return dataclasses.replace(s, brokers=with_release_at_least(s.brokers, release=target_releases(targets)))

    # a small input: no generated code, one partition; a mid-size one: no generated code
    # (jobs.runtime.holding.plans_for). Every changed layer and every shared resolution intermediate is computed once:
    # local relations for a small input, else local checkpoints.
    with plans_for(spark, applied):
        layers = apply_changes(
            state,
            changes,
            defaults_df=plan.defaults(state),
            redact=_redactor(),
            keep=Checkpoints(local_rows=local_rows),
        )
        both = union_scenarios({BEFORE: at_target(state), AFTER: at_target(with_layers(state, layers))})
        # a union of the resolution's kept rows per resource type (jobs.runtime.holding), shared with the refusals below
        resolution = Checkpoints(local_rows=local_rows)
        effective_df = resolve_effective_configs(
            both,
            frames,
            kafka_version=plan.kafka_version,
            oldest_release=oldest_release(targets),  # at_target: every broker runs it at least
            keep=resolution,
        )
        run_id = uuid.uuid4().hex
        run_ts = datetime.now(UTC).replace(microsecond=0)

        found = _violations_before_after(effective_df, both, features_df, plan, compiled, run_id, run_ts, local_rows)
        cleared = set(found[BEFORE]) - set(found[AFTER])
        introduced = set(found[AFTER]) - set(found[BEFORE])
        refused = _refused_changes(changes, both, frames, effective_df, plan, resolution)
        rows = _resource_rows(effective_df, cleared | introduced, cleared, introduced, run_id, run_ts, targets)
        store.ensure("simulations", SIMULATIONS, ["cluster_id"])
        store.append("simulations", local_frame(spark, rows, SIMULATIONS))
    return SimulateResult(
        run_id=run_id,
        target_mv=target.name,
        cleared=sorted(" ".join(map(str, k)) for k in cleared),
        introduced=sorted(" ".join(map(str, k)) for k in introduced),
        errors_after=sum(1 for severity in found[AFTER].values() if severity == "error"),
        changed_resources=len(rows),
        refused=refused,
        tables={"simulations": store.path("simulations")},
    )


@dataclass(frozen=True)
class _Plan:
    """The simulation's targets and releases: ``targets`` for the stored state's cluster ids, ``tagged`` and
    ``kafka_version`` for the scenarios' (``union_scenarios`` tags each cluster id with before / after)."""

    targets: Targets
    tagged: Targets
    kafka_version: KafkaVersions
    keys_df: DataFrame  # the catalog keys of the targets' releases

    @staticmethod
    def of(settings: audit.AuditSettings, targets: Targets, frames: CatalogFrames) -> _Plan:
        return _Plan(
            targets=targets,
            tagged=_in_scenarios(targets),
            kafka_version=_in_scenarios(settings.kafka_version),
            keys_df=frames.config_keys_df.filter(F.col("release").isin(target_catalog_releases(targets))),
        )

    def defaults(self, state: ReplayResult) -> DataFrame:
        """The ConfigDef defaults APPEND and SUBTRACT start from: the target's release's, per cluster when the
        clusters have targets of their own."""
        release = target_release_column(self.targets)
        if release is None:
            return self.keys_df
        clusters_df = state.cluster_state.select("cluster_id", release.alias("release"))
        return self.keys_df.join(F.broadcast(clusters_df), on="release", how="inner")


def _in_scenarios(setting: Any) -> Any:
    """A per-cluster setting for the scenarios' tagged cluster ids (a run-wide one as it is)."""
    values = per_cluster(setting)
    if not values.overrides:
        return setting
    tags = (BEFORE, AFTER)
    return PerCluster(values.default, tuple((c + SCENARIO_SEPARATOR + t, v) for c, v in values.overrides for t in tags))


def simulated_clusters(settings: audit.AuditSettings, changes: ChangeSet) -> list[str]:
    """The clusters a simulation reads: ``--cluster-id``'s, else those the changes name."""
    return list(settings.cluster_ids) or sorted({c.cluster_id for c in changes.changes if c.cluster_id})


def _audited_state(
    spark: SparkSession, store: DeltaStore, settings: audit.AuditSettings, changes: ChangeSet
) -> tuple[ReplayResult, DataFrame, int]:
    """The latest audited state of the simulated clusters (the resolution's inputs), their features and the records
    their replay applied. A small state's tables (``local_rows_for``) are read once and held in the driver: every
    plan of the simulation starts from them instead of scanning the Delta tables again; a large one's are read where
    the plans need them."""
    clusters = simulated_clusters(settings, changes)
    # a row per cluster: held in the driver whatever the state's size (read once, planned as a small input), the
    # records applied summed there
    with small_plans(spark):
        cluster_state_df = truncated(_scoped(store.read("cluster_state"), clusters), local_rows=LOCAL_ROWS)
        (applied_sum,) = cluster_state_df.agg(F.coalesce(F.sum("records_applied"), F.lit(0))).first() or (0,)
    applied = int(applied_sum)
    local_rows = local_rows_for(applied)

    def read(name: str) -> DataFrame:
        scoped = _scoped(store.read(name), clusters)
        return truncated(scoped, local_rows=local_rows) if local_rows else scoped

    # planned as the rest of the simulation: without adaptive execution Delta's snapshot of each table and its file
    # listing are a Spark job each, and a small state's held collect one (outside, one partition first, then the rest)
    with plans_for(spark, applied):
        inputs = {name: read(name) for name in RESOLUTION_INPUTS}
        features_df = read("features")
    return resolution_state(spark, cluster_state=cluster_state_df, **inputs), features_df, applied


def _violations_before_after(
    effective_df: DataFrame,
    both: ReplayResult,
    features_df: DataFrame,
    plan: _Plan,
    compiled: CompiledCatalog,
    run_id: str,
    run_ts: datetime,
    local_rows: int,
) -> dict[str, dict[tuple[Any, ...], str]]:
    """Per scenario (before, after) the violations at the target: violation key -> severity."""
    violations_df = evaluate_constraints(
        filter_auditable(effective_df, target_keys_df=plan.keys_df, target_release=target_release_column(plan.tagged)),
        both.topics,
        # as the audit judges them; the state as stored: features keep their levels (ELR, as `--metadata`)
        with_elr_after_upgrade(
            with_kafka_version(both.cluster_state, plan.kafka_version),
            tagged(features_df, BEFORE).unionByName(tagged(features_df, AFTER)),
            UpgradeWith.METADATA,
        ),
        compiled,
        target=plan.tagged,
        run_id=run_id,
        run_ts=run_ts,
        keep=Checkpoints(local_rows=local_rows),
    ).select(*VIOLATION_KEY, "severity")
    found: dict[str, dict[tuple[Any, ...], str]] = {BEFORE: {}, AFTER: {}}
    for row in violations_df.collect():
        cluster, tag = row["cluster_id"].rsplit(SCENARIO_SEPARATOR, 1)
        found[tag][(cluster, *(row[k] for k in VIOLATION_KEY[1:]))] = row["severity"]
    return found


def _refused_changes(
    changes: ChangeSet,
    both: ReplayResult,
    frames: CatalogFrames,
    effective_df: DataFrame,
    plan: _Plan,
    resolution: Checkpoints,
) -> list[str]:
    """The changes a broker or the group coordinator would refuse outright, one line each."""
    unapplied_df = unapplied_layer_rows(
        both, frames, kafka_version=plan.kafka_version, oldest_release=oldest_release(plan.targets), keep=resolution
    )
    # the resolution's held nodes (the same plan under the same name: not computed again)
    nodes_df = resolution(
        "nodes",
        lambda: with_catalog_release(both.brokers, frames.releases_df, kafka_version=plan.kafka_version),
    )
    kept_df = kept_unsupported(both.dynamic_configs, nodes_df, frames.config_keys_df, kafka_version=plan.kafka_version)
    return _refusals(
        refused_broker_changes(changes, untagged(unapplied_df, AFTER))
        .withColumn("resource_type", F.lit("BROKER"))
        .unionByName(
            refused_group_changes(changes, untagged(effective_df, AFTER)).withColumn("resource_type", F.lit("GROUP"))
        )
        .unionByName(
            refused_topic_changes(changes, untagged(kept_df, AFTER)).withColumn("resource_type", F.lit("TOPIC"))
        )
    )


def _refusals(refused_df: DataFrame) -> list[str]:
    """One line per refused change (one collect for every resource type): the broker and the keys it would not
    apply, with the first reason."""
    by_change: dict[tuple[str, str, str], list[Any]] = {}
    for row in refused_df.orderBy("cluster_id", "resource_type", "resource_name", "node_id", "name").collect():
        by_change.setdefault((row["cluster_id"], row["resource_type"], row["resource_name"]), []).append(row)
    lines = []
    for (cluster, resource_type, name), rows in sorted(by_change.items()):
        keys = ", ".join(sorted({f"{r['name']} ({r['ignored_kind']})" for r in rows}))
        first = rows[0]
        who = (
            "the controller"
            if resource_type == "TOPIC"
            else "every broker"
            if first["node_id"] is None  # one row for all
            else f"broker {first['node_id']}"
        )
        lines.append(f"{cluster} {resource_type} {name!r}: {who} would refuse it ({keys}): {first['ignored_reason']}")
    return lines


def _scoped(df: DataFrame, clusters: list[str]) -> DataFrame:
    return df.filter(F.col("cluster_id").isin(clusters)) if clusters else df


def _changed_values(effective_df: DataFrame, violation_keys: set[tuple[Any, ...]]) -> list[Any]:
    """(entity…, node_id, config_name, before, after) for every key whose resolved value, source or synonym
    differs between the scenarios, or that a changed violation names."""
    resolved = F.struct("value", "source", "synonym")
    keys = [*ENTITY, "config_name"]
    before_df = untagged(effective_df, BEFORE).select(*keys, resolved.alias("before"))
    after_df = untagged(effective_df, AFTER).select(*keys, resolved.alias("after"))
    b, a = before_df.alias("b"), after_df.alias("a")
    on = [F.col(f"b.{k}").eqNullSafe(F.col(f"a.{k}")) for k in keys]
    joined_df = b.join(a, on=on, how="full").select(
        *[F.coalesce(F.col(f"b.{k}"), F.col(f"a.{k}")).alias(k) for k in keys], "b.before", "a.after"
    )
    named_df = effective_df.sparkSession.createDataFrame(
        sorted({(k[0], k[1], k[2], k[4]) for k in violation_keys}),
        "cluster_id string, resource_type string, resource_name string, config_name string",
    ).select("*", F.lit(True).alias("_named"))
    differs = ~F.col("before").eqNullSafe(F.col("after"))
    named = F.coalesce(F.col("_named"), F.lit(False))
    return (
        joined_df.join(
            F.broadcast(named_df), on=["cluster_id", "resource_type", "resource_name", "config_name"], how="left"
        )
        .where(differs | named)
        .select(*keys, "before", "after")
        .collect()
    )


def _resource_rows(
    effective_df: DataFrame,
    violation_keys: set[tuple[Any, ...]],
    cleared: set[tuple[Any, ...]],
    introduced: set[tuple[Any, ...]],
    run_id: str,
    run_ts: datetime,
    targets: Targets,
) -> list[tuple[Any, ...]]:
    """One SIMULATIONS row per entity (and broker view) with changed values or changed violations."""
    before: dict[tuple[Any, ...], dict[str, Any]] = {}
    after: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in _changed_values(effective_df, violation_keys):
        ident = tuple(row[c] for c in ENTITY)
        before.setdefault(ident, {})
        after.setdefault(ident, {})
        if row["before"] is not None:
            before[ident][row["config_name"]] = row["before"].asDict()
        if row["after"] is not None:
            after[ident][row["config_name"]] = row["after"].asDict()
    touched = set(before) | {k[:4] for k in violation_keys}
    return [
        (
            run_id,
            run_ts,
            ident[0],
            per_cluster(targets).of(ident[0]).name,
            ident[1],
            ident[2],
            ident[3],
            before.get(ident, {}),
            after.get(ident, {}),
            sorted(f"{k[5]} on {k[4]}" for k in cleared if k[:4] == ident),
            sorted(f"{k[5]} on {k[4]}" for k in introduced if k[:4] == ident),
        )
        for ident in sorted(touched, key=lambda e: tuple(str(x) for x in e))
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/simulate.py --changes FILE --target-mv MV``."""
    return run_job_file("simulate", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
