"""Evaluation benchmarks on the effective-config table an audit wrote: the floor, the default catalog, and the
catalog scaling (100 / 1,000 / 5,000 constraints on the same data).

* floor: read ``effective_configs`` from Delta, compute a trivial aggregate that touches every row and the value
  column (count and total value length per cluster and resource type) and write it to Delta;
* bronze floor (replay's and the resolution's): read bronze ``metadata_records`` once, sort them by cluster and
  offset (the gap to the previous offset, a window in that order), write one aggregate per cluster to Delta;
* evaluation: read the same table, keep the auditable rows (``filter_auditable``, as ``audit`` does), check the
  catalog's expressions against Spark's analyser (``validate_with_spark``, as ``audit`` does), evaluate every
  constraint at the target (``evaluate_constraints``: messages, remediations, ``new_at_target``, affected topics)
  and write the violations to Delta.

Both start from the same Delta table and both end in a Delta commit, so neither can be pruned away and the
difference is the evaluation itself. The evaluation runs the way the audit runs on the same input
(``jobs.runtime.holding.plans_for``): a small input (at most ``SMALL_INPUT_RECORDS`` bronze records) holds its frames
as local relations and runs without generated code, in one partition; a mid-size input (at most
``INTERPRETED_RECORDS``) runs without generated code. The floors run a small input the same way and any other with
generated code (``EvalInputs.as_floor``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from benchmarks.measure import DriverMemory, Step, measure
from jobs import conf_loader
from jobs.audit_steps.evaluate import dynamic_scopes
from jobs.audit_steps.resolve import catalog_release
from jobs.runtime import lookups
from jobs.runtime.expression_check import validate_with_spark
from jobs.runtime.holding import Checkpoints, local_rows_for, plans_for, small_input, small_plans
from jobs.storage import DeltaStore, open_store
from schemas.constraints import CompiledCatalog, ConstraintCatalog
from schemas.metadata_version import MetadataVersion
from schemas.violations import VIOLATIONS
from transforms.configdef.generate import generate_default_catalog
from transforms.configdef.selection import compile_catalog
from transforms.constraints.evaluate import evaluate_constraints
from transforms.kit.audit_scope import filter_auditable, set_by_a_layer
from transforms.kit.metadata_version import parse_metadata_version


@dataclass(frozen=True)
class EvalInputs:
    """What every evaluation step reads (plans over the audited warehouse; nothing cached)."""

    store: DeltaStore
    out: DeltaStore  # where benchmark outputs are written
    target: MetadataVersion
    target_keys_df: DataFrame
    scopes_df: DataFrame
    records: int  # the audited warehouse's bronze records: small inputs run as the audit runs them (module docstring)

    def as_audited(self, spark: SparkSession) -> AbstractContextManager[None]:
        """The session's settings for these inputs, as the audit chooses them (``jobs.runtime.holding.plans_for``)."""
        return plans_for(spark, self.records)

    def as_floor(self, spark: SparkSession) -> AbstractContextManager[None]:
        """The session's settings for a floor over these inputs: a small input's
        (``jobs.runtime.holding.small_plans``), else the session's own, with generated code. A floor is what Spark
        needs for the rows, not the audit's choice for its own plans: a mid-size input's floors evaluated without
        generated code took 1.09 s and 0.71 s at M against 0.47 s and 0.57 s with it."""
        return small_plans(spark, when=small_input(self.records))

    def keep(self) -> Checkpoints:
        """A new ``Keep`` holding frames as the audit holds them for these inputs."""
        return Checkpoints(local_rows=local_rows_for(self.records))


def eval_inputs(
    spark: SparkSession, warehouse: Path, out_warehouse: Path, target_mv: str, *, records: int
) -> EvalInputs:
    """Open the audited warehouse (``records`` bronze records) and prepare the small catalog frames ``audit`` also
    prepares."""
    mv_table = conf_loader.metadata_versions()
    target = parse_metadata_version(target_mv, mv_table)
    frames = lookups.catalog_frames(spark)
    target_keys_df = frames.config_keys_df.filter(F.col("release") == catalog_release(target.release))
    return EvalInputs(
        store=open_store(spark, str(warehouse)),
        out=open_store(spark, str(out_warehouse)),
        target=target,
        target_keys_df=target_keys_df.cache(),
        scopes_df=dynamic_scopes(frames).cache(),
        records=records,
    )


def default_catalog() -> ConstraintCatalog:
    """The generated default catalog, as ``audit`` loads it."""
    mv_table = conf_loader.metadata_versions()
    docs = [(f"conf/kafka/{release}.yaml", doc) for release, doc in conf_loader.kafka_catalog_documents()]
    return generate_default_catalog(docs, mv_table)


def compile_one(catalog: ConstraintCatalog) -> CompiledCatalog:
    """KIP-1294 selection of one catalog."""
    return compile_catalog([catalog], conf_loader.metadata_versions())


def auditable(inputs: EvalInputs) -> DataFrame:
    """EFFECTIVE_CONFIGS rows the constraints judge (read from Delta each time it is called)."""
    return filter_auditable(inputs.store.read("effective_configs"), target_keys_df=inputs.target_keys_df)


def on_set_keys(compiled: CompiledCatalog, inputs: EvalInputs) -> CompiledCatalog:
    """``compiled`` with only the rules on keys that some layer sets in an auditable row (one Spark job)."""
    rows = auditable(inputs).where(set_by_a_layer(F.col("source"))).select("config_name").distinct().collect()
    keys = {row["config_name"] for row in rows}
    return compiled.model_copy(update={"rules": tuple(r for r in compiled.rules if r.constraint.config in keys)})


def effective_rows(inputs: EvalInputs) -> dict[str, int]:
    """Row counts of the effective table (all rows and the auditable ones)."""
    return {
        "effective_rows": inputs.store.read("effective_configs").count(),
        "auditable_rows": auditable(inputs).count(),
    }


def floor_step(spark: SparkSession, inputs: EvalInputs, *, memory: DriverMemory, repeats: int) -> Step:
    """Read the effective table, aggregate it trivially, write the aggregate."""
    return _as_floor("floor", _floor, spark, inputs, memory=memory, repeats=repeats)


def _as_floor(
    name: str,
    body: Callable[[EvalInputs], int],
    spark: SparkSession,
    inputs: EvalInputs,
    *,
    memory: DriverMemory,
    repeats: int,
) -> Step:
    """``body`` measured as step ``name``, with a floor's settings (``EvalInputs.as_floor``)."""

    def run() -> int:
        with inputs.as_floor(spark):
            return body(inputs)

    step, _ = measure(name, run, memory=memory, repeats=repeats)
    return step


def _floor(inputs: EvalInputs) -> int:
    aggregate_df = (
        inputs.store.read("effective_configs")
        .groupBy("cluster_id", "resource_type")
        .agg(F.count("*").alias("rows"), F.sum(F.length("value")).alias("value_chars"))
    )
    inputs.out.ensure("bench_floor", aggregate_df.schema)
    return inputs.out.overwrite("bench_floor", aggregate_df)


def bronze_floor_step(spark: SparkSession, inputs: EvalInputs, *, memory: DriverMemory, repeats: int) -> Step:
    """Read the bronze records once, sort them by cluster and offset, write one aggregate (see the docstring)."""
    return _as_floor("bronze_floor", _bronze_floor, spark, inputs, memory=memory, repeats=repeats)


def _bronze_floor(inputs: EvalInputs) -> int:
    in_order = Window.partitionBy("cluster_id").orderBy("offset")
    aggregate_df = (
        inputs.store.read("metadata_records")
        .select(
            "cluster_id",
            F.length("payload").alias("chars"),
            (F.col("offset") - F.lag("offset").over(in_order)).alias("gap"),
        )
        .groupBy("cluster_id")
        .agg(F.count("*").alias("records"), F.sum("chars").alias("payload_chars"), F.max("gap").alias("largest_gap"))
    )
    inputs.out.ensure("bench_bronze_floor", aggregate_df.schema)
    return inputs.out.overwrite("bench_bronze_floor", aggregate_df)


def violations(
    inputs: EvalInputs,
    compiled: CompiledCatalog,
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    *,
    failures_df: DataFrame | None = None,
) -> DataFrame:
    """``evaluate_constraints`` at the target as ``audit`` calls it (its failures computed, or ``failures_df``)."""
    return evaluate_constraints(
        effective_df,
        topics_df,
        cluster_df,
        compiled,
        target=inputs.target,
        run_id=uuid.uuid4().hex,
        run_ts=datetime.now(UTC),
        dynamic_scope_df=inputs.scopes_df,
        failures_df=failures_df,
        keep=inputs.keep(),  # the boundaries the audit job holds, held as it holds them (jobs.runtime.holding)
    )


def evaluation_step(
    spark: SparkSession,
    inputs: EvalInputs,
    compiled: CompiledCatalog,
    *,
    name: str,
    memory: DriverMemory,
    repeats: int,
) -> Step:
    """Validate, evaluate at the target and write the violations of one compiled catalog."""
    topics_df = inputs.store.read("topics")
    cluster_df = inputs.store.read("cluster_state")
    table = f"bench_{name}"

    def run() -> int:
        validate_with_spark(compiled, spark)
        with inputs.as_audited(spark):
            violations_df = violations(inputs, compiled, auditable(inputs), topics_df, cluster_df)
            inputs.out.ensure(table, VIOLATIONS)
            return inputs.out.overwrite(table, violations_df)

    step, _ = measure(name, run, memory=memory, repeats=repeats)
    written_df = inputs.out.read(table)
    by_kind = {
        r["kind"]: r["n"]
        for r in written_df.groupBy(F.when(F.col("constraint_kind") == "expr", "expr").otherwise("check").alias("kind"))
        .agg(F.count("*").alias("n"))
        .collect()
    }
    step.extra.update(
        constraints=len(compiled.rules),
        checks=len(compiled.checks),
        expressions=len(compiled.expressions),
        violations=sum(by_kind.values()),
        violations_by_kind=by_kind,
    )
    return step


def catalog_scaling(
    spark: SparkSession,
    inputs: EvalInputs,
    default: ConstraintCatalog,
    sizes: tuple[int, ...],
    *,
    memory: DriverMemory,
    repeats: int,
) -> dict[str, Any]:
    """Evaluation time per catalog size, and the largest / smallest ratio."""
    from benchmarks.catalogs import sized_catalog

    steps = {}
    for n in sizes:
        compiled = compile_one(sized_catalog(default, n))
        steps[n] = evaluation_step(spark, inputs, compiled, name=f"catalog_{n}", memory=memory, repeats=repeats)
    smallest, largest = min(sizes), max(sizes)
    return {
        "steps": {str(n): s.to_dict() for n, s in steps.items()},
        "largest_vs_smallest": round(steps[largest].seconds / steps[smallest].seconds, 3),
        "smallest": smallest,
        "largest": largest,
    }
