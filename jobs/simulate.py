"""``kraft-audit simulate``: what-if — apply proposed config changes to the audited state and re-evaluate.

Extract: the latest audited state of the warehouse (``effective_configs``, ``topics``, ``cluster_state``) and a
changes file (CONTRACT §7: IncrementalAlterConfigs ``ops`` SET/DELETE/APPEND/SUBTRACT per resource, or legacy
``replace``). Transform: ``apply_changes`` gives the configs after; the catalogs are evaluated at the target MV
before and after. Load: ``simulations`` (per changed resource: configs before and after, violations cleared and
introduced). Exit 0 when no error violation remains after the changes, 1 otherwise.
"""

from __future__ import annotations

import os
import sys

# `spark-submit jobs/simulate.py` runs this file as a script, which puts jobs/ itself first on sys.path: its modules
# would shadow top-level ones (jobs/secrets.py hides the stdlib's `secrets`). Move that folder last so the package
# is imported as `jobs.*` (from --py-files or the installed wheel); a no-op when this is imported as a module.
sys.path.sort(key=lambda entry: os.path.realpath(entry or ".") == os.path.dirname(os.path.realpath(__file__)))

import argparse
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, IntegerType, MapType, StringType, StructField, StructType, TimestampType

from jobs import audit, conf_loader
from jobs.session import build_session
from jobs.storage import open_store
from schemas.changes import ChangeSet, load_changes_text
from schemas.errors import ConfigError, InputError
from transforms.audit_scope import filter_auditable
from transforms.constraints.changes import apply_changes
from transforms.constraints.evaluate import evaluate_constraints
from transforms.constraints.expressions import validate_with_spark
from transforms.effective.catalog_frames import to_catalog_frames
from transforms.metadata_version import parse_metadata_version

SIMULATIONS = StructType(
    [
        StructField("run_id", StringType(), False),
        StructField("run_ts", TimestampType(), False),
        StructField("cluster_id", StringType(), False),
        StructField("target_mv", StringType(), False),
        StructField("resource_type", StringType(), False),
        StructField("resource_name", StringType(), False),
        StructField("node_id", IntegerType(), True),
        StructField("configs_before", MapType(StringType(), StringType(), True), True),
        StructField("configs_after", MapType(StringType(), StringType(), True), True),
        StructField("violations_cleared", ArrayType(StringType(), False), False),  # "constraint_id on key"
        StructField("violations_introduced", ArrayType(StringType(), False), False),
    ]
)
VIOLATION_KEY = ("cluster_id", "resource_type", "resource_name", "node_id", "config_name", "constraint_id")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Simulate options (CONTRACT §2, §7)."""
    parser.add_argument("--changes", required=True, metavar="FILE", help="YAML of proposed config changes")
    audit.add_audit_arguments(parser, cluster_option=True)


def load_changes(path: str) -> ChangeSet:
    """The changes file, validated (errors name the file and the entry)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise ConfigError(f"{path}: changes file not found") from error
    return load_changes_text(text, path)


def execute(args: argparse.Namespace) -> int:
    """CLI entry: simulate, print what the changes clear and introduce."""
    settings = audit.settings_from_args(args, command="simulate")
    changes = load_changes(args.changes)
    rules = audit.load_rules(settings)
    spark = build_session(master=args.master)
    result = run(spark, settings, changes, rules=rules)
    print(
        f"simulate {result['run_id']} at {result['target_mv']}: {result['cleared']} violation(s) cleared, "
        f"{result['introduced']} introduced, {result['errors_after']} error(s) remain "
        f"→ {'SAFE' if result['errors_after'] == 0 else 'NOT safe'} after the changes"
    )
    if args.summary_json:
        Path(args.summary_json).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0 if result["errors_after"] == 0 else 1


def run(spark: Any, settings: audit.AuditSettings, changes: ChangeSet, *, rules: Any = None) -> dict[str, Any]:
    """Apply ``changes`` to the latest audited state and evaluate before and after; see the module docstring."""
    mv_table = conf_loader.metadata_versions()
    target = parse_metadata_version(settings.target_mv, mv_table)
    compiled, _files = rules or audit.load_rules(settings)
    validate_with_spark(compiled, spark)
    store = open_store(spark, settings.warehouse, settings.delta_backend)
    if not store.exists("effective_configs"):
        raise InputError(f"no audited state in {settings.warehouse}: run `kraft-audit audit` first")
    clusters = list(settings.cluster_ids) or sorted({c.cluster_id for c in changes.changes if c.cluster_id})
    effective_df = _scoped(store.read("effective_configs"), clusters)
    topics_df = _scoped(store.read("topics"), clusters)
    cluster_df = _scoped(store.read("cluster_state"), clusters)
    catalog = conf_loader.kafka_catalog()
    newest = catalog.releases[-1]
    topic_synonyms = {t.topic_config: t.synonyms[0].name for t in newest.topic_synonyms if t.synonyms}
    group_synonyms = {g.group_config: g.broker_config for g in newest.group_synonyms}
    after_df = apply_changes(effective_df, changes, topic_synonyms=topic_synonyms, group_synonyms=group_synonyms)
    frames = to_catalog_frames(spark, catalog)
    target_keys_df = frames.config_keys_df.filter(F.col("release") == audit.catalog_release(target.release))
    run_id = uuid.uuid4().hex
    run_ts = datetime.now(UTC).replace(microsecond=0)

    def violations(df: DataFrame) -> DataFrame:
        return evaluate_constraints(
            filter_auditable(df, target_keys_df=target_keys_df),
            topics_df,
            cluster_df,
            compiled,
            target=target,
            run_id=run_id,
            run_ts=run_ts,
        ).select(*VIOLATION_KEY, "severity")

    before_v = [r.asDict() for r in violations(effective_df).collect()]
    after_v = [r.asDict() for r in violations(after_df).collect()]
    key = lambda row: tuple(row[k] for k in VIOLATION_KEY)  # noqa: E731
    before_keys, after_keys = {key(r) for r in before_v}, {key(r) for r in after_v}
    cleared, introduced = before_keys - after_keys, after_keys - before_keys
    rows = _resource_rows(effective_df, after_df, cleared, introduced, run_id, run_ts, target.name)
    store.ensure("simulations", SIMULATIONS, ["cluster_id"])
    store.append("simulations", spark.createDataFrame(rows, SIMULATIONS))
    return {
        "run_id": run_id,
        "target_mv": target.name,
        "cleared": len(cleared),
        "introduced": len(introduced),
        "errors_after": sum(1 for r in after_v if r["severity"] == "error"),
        "cleared_violations": sorted(" ".join(map(str, k)) for k in cleared),
        "introduced_violations": sorted(" ".join(map(str, k)) for k in introduced),
        "tables": {"simulations": store.path("simulations")},
    }


def _scoped(df: DataFrame, clusters: list[str]) -> DataFrame:
    return df.filter(F.col("cluster_id").isin(clusters)) if clusters else df


def _resource_rows(
    before_df: DataFrame,
    after_df: DataFrame,
    cleared: set[tuple[Any, ...]],
    introduced: set[tuple[Any, ...]],
    run_id: str,
    run_ts: datetime,
    target_mv: str,
) -> list[tuple[Any, ...]]:
    """One row per entity (and broker view) whose values changed or whose violations changed."""
    entity = ["cluster_id", "resource_type", "resource_name", "node_id"]

    def configs(df: DataFrame) -> dict[tuple[Any, ...], dict[str, str | None]]:
        grouped = df.groupBy(*entity).agg(
            F.map_from_entries(F.collect_list(F.struct("config_name", "value"))).alias("m")
        )
        return {tuple(r[c] for c in entity): dict(r["m"]) for r in grouped.collect()}

    before, after = configs(before_df), configs(after_df)
    touched = {e for e in set(before) | set(after) if before.get(e) != after.get(e)}
    touched |= {k[:4] for k in cleared | introduced}
    rows = []
    for ident in sorted(touched, key=lambda e: tuple(str(x) for x in e)):
        rows.append(
            (
                run_id,
                run_ts,
                ident[0],
                target_mv,
                ident[1],
                ident[2],
                ident[3],
                before.get(ident),
                after.get(ident),
                sorted(f"{k[5]} on {k[4]}" for k in cleared if k[:4] == ident),
                sorted(f"{k[5]} on {k[4]}" for k in introduced if k[:4] == ident),
            )
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/simulate.py --changes FILE --target-mv MV``."""
    from jobs.cli import main as cli_main

    return cli_main(["simulate", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
