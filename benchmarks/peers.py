"""The same rules run by the tools a user might pick instead of the product's column expressions, on the same work.

Both peers run the default catalog's single-key rules. The product's figure they are compared with
(``benchmarks.evaluation``, step ``evaluate_checks``) is the product's evaluation of the same single-key rules
alone (expression rules are not ported). Every side starts from the effective table in Delta (``auditable``, read
inside the clock):

* Python UDF: the product's evaluation with one change: each (row, rule) pair the single-key rules judge
  (``failures.single_key_pairs``) gets its verdict from a row-at-a-time ``pyspark.sql.functions.udf`` (pickled,
  not Arrow) calling ``benchmarks.pyvalidator.failure`` instead of the native ``check_violation`` column; the
  failures then go through the same ``evaluate_constraints`` (messages, remediations, ``new_at_target``, affected
  topics) and are written to Delta. Same start, same written output: the step records how many rows differ from
  the product's table (0 expected), so the ratio compares equal work.
* the verdicts alone (``verdict_steps``): the same pairs judged by the product's ``check_violation`` and by that
  UDF, each side writing only its failing pairs; the violation step the two share is left out of both.
* Great Expectations (plain ``great_expectations`` on a Spark dataframe asset, ephemeral context): one
  expectation per rule that applies at the target, the nearest GX expectation, with a ``row_condition``
  selecting the rule's rows, all in one suite run by one validation definition (GX shares metric computations
  where it can). Its input is the same auditable rows, cached inside the clock (GX scans once per metric). GX
  ends with its validation result (counts), not a written table, and judges only the target's rules (not the
  current level's), so it does less than the product. GX needs minutes per hundred expectations, so it runs an
  even sample of the rules and its time is extrapolated per rule to the whole set; the output says so.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any, Final

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, StringType, StructField, StructType

from benchmarks.evaluation import EvalInputs, auditable, violations
from benchmarks.measure import DriverMemory, Step, measure
from benchmarks.peer_rules import EMPTY_ELEMENT, REPEATED_ELEMENT, TYPE_GRAMMAR, peer_frame
from benchmarks.pyvalidator import Pair, failure
from jobs.quality.gx import guard_spark_connect_import
from schemas.constraints import CompiledCatalog, CompiledConstraint
from schemas.violations import VIOLATIONS
from transforms.configdef.selection import active_at
from transforms.constraints.failures import single_key_failures, single_key_pairs, single_key_verdicts


def applicable_checks(compiled: CompiledCatalog, level: int) -> list[CompiledConstraint]:
    """Single-key rules KIP-1294 selects at ``level``."""
    return [r for r in active_at(compiled, level) if r.constraint.check is not None]


def checks_only(compiled: CompiledCatalog) -> CompiledCatalog:
    """The compiled catalog without its expression rules: the work both peers and ``evaluate_checks`` do."""
    return compiled.model_copy(update={"rules": compiled.checks})


_FAILURE: Final = StructType(
    [
        StructField("code", StringType()),
        StructField("detail", StringType()),
        StructField("elements", ArrayType(StringType())),
    ]
)
# the joined pair's columns, in Pair's order: the rule table's, then the row's (``single_key_pairs``)
_FAILURE_INPUTS: Final = (
    "rule_kind",
    "rule_num_a",
    "rule_num_b",
    "rule_values",
    "rule_values_num",
    "rule_pattern",
    "rule_type",
    "value",
    "config_type",
    "is_sensitive",
)


def udf_verdicts(pairs_df: DataFrame) -> DataFrame:
    """``single_key_failures`` of ``single_key_pairs`` judged by the row-at-a-time UDF (``pyvalidator.failure``)."""
    judge = F.udf(lambda *pair: failure(Pair(*pair)), _FAILURE, useArrow=False)
    judged_df = pairs_df.select("*", judge(*_FAILURE_INPUTS).alias("violation"))
    return single_key_failures(judged_df.select("*", F.col("violation.elements").alias("v_elems")))


def python_udf_step(
    spark: SparkSession,
    inputs: EvalInputs,
    checks: CompiledCatalog,
    *,
    product_table: str,
    memory: DriverMemory,
    repeats: int,
) -> Step:
    """The product's evaluation of ``checks`` with each verdict from a row-at-a-time Python UDF, written to Delta;
    then the rows that differ from the product's own table ``product_table`` (both directions, run columns left
    out)."""
    topics_df = inputs.store.read("topics")
    cluster_df = inputs.store.read("cluster_state")
    table = "bench_python_udf"

    def run() -> int:
        with inputs.as_audited(spark):
            effective_df = auditable(inputs)
            failures_df = udf_verdicts(single_key_pairs(effective_df, cluster_df, checks, inputs.target.level))
            violations_df = violations(inputs, checks, effective_df, topics_df, cluster_df, failures_df=failures_df)
            inputs.out.ensure(table, VIOLATIONS)
            return inputs.out.overwrite(table, violations_df)

    step, _ = measure("python_udf", run, memory=memory, repeats=repeats)
    compared = [c for c in VIOLATIONS.fieldNames() if c not in ("run_id", "run_ts")]
    peer_df = inputs.out.read(table).select(*compared)
    product_df = inputs.out.read(product_table).select(*compared)
    step.extra.update(
        rules=len(checks.rules),
        violations=peer_df.count(),
        differs_from_product=peer_df.exceptAll(product_df).count() + product_df.exceptAll(peer_df).count(),
        product_table=product_table,
    )
    return step


def verdict_steps(
    spark: SparkSession, inputs: EvalInputs, checks: CompiledCatalog, *, memory: DriverMemory, repeats: int
) -> dict[str, Step]:
    """The verdicts alone, both ways: the same (row, rule) pairs (``single_key_pairs``) judged by the product's
    column expressions (``check_violation``) and by the row-at-a-time UDF of ``python_udf_step``, each side writing
    its failing pairs (``single_key_failures``) to Delta. The violation step both evaluations above share (messages,
    remediations, affected topics, fallbacks) is left out of both, so the ratio is the checks' own. The UDF's step
    records how many failing pairs differ from the product's (0 expected)."""
    cluster_df = inputs.store.read("cluster_state")
    steps = {}
    for name, verdicts in (("verdicts_product", single_key_verdicts), ("verdicts_udf", udf_verdicts)):

        def run(table: str = f"bench_{name}", verdicts: Any = verdicts) -> int:
            with inputs.as_audited(spark):
                failures_df = verdicts(single_key_pairs(auditable(inputs), cluster_df, checks, inputs.target.level))
                inputs.out.ensure(table, failures_df.schema)
                return inputs.out.overwrite(table, failures_df)

        steps[name], _ = measure(name, run, memory=memory, repeats=repeats)
    product_df, udf_df = inputs.out.read("bench_verdicts_product"), inputs.out.read("bench_verdicts_udf")
    steps["verdicts_product"].extra.update(failing_pairs=product_df.count())
    steps["verdicts_udf"].extra.update(
        failing_pairs=udf_df.count(),
        differs_from_product=udf_df.exceptAll(product_df).count() + product_df.exceptAll(udf_df).count(),
    )
    return steps


def sample_rules(rules: list[CompiledConstraint], k: int) -> list[CompiledConstraint]:
    """``k`` rules spread evenly over ``rules`` (all of them when ``k`` ≥ their number)."""
    if k >= len(rules):
        return list(rules)
    return [rules[(i * len(rules)) // k] for i in range(k)]


def _gx_expectation(rule: CompiledConstraint) -> Any:
    """The nearest GX expectation for one single-key rule, restricted to its rows with a Spark row condition."""
    guard_spark_connect_import()
    import great_expectations.expectations as gxe

    c = rule.constraint
    check = c.check
    assert check is not None
    condition: dict[str, Any] = {
        "row_condition": f"resource_type = '{c.resource_type}' AND config_name = '{c.keys[0]}'",
        "condition_parser": "spark",
    }
    kind = check.kind
    if kind in ("min", "max", "between"):
        lo = check.min if check.min is not None else (check.between[0] if check.between else None)
        hi = check.max if check.max is not None else (check.between[1] if check.between else None)
        return gxe.ExpectColumnValuesToBeBetween(column="v_num", min_value=lo, max_value=hi, **condition)
    if kind == "in":
        return gxe.ExpectColumnValuesToBeInSet(column="v_trim", value_set=list(check.in_ or ()), **condition)
    if kind == "not_in":
        return gxe.ExpectColumnValuesToNotBeInSet(column="v_trim", value_set=list(check.not_in or ()), **condition)
    if kind == "regex":
        return gxe.ExpectColumnValuesToMatchRegex(column="v_trim", regex=f"^(?:{check.regex})$", **condition)
    if kind == "not_null":
        return gxe.ExpectColumnValuesToNotBeNull(column="value", **condition)
    if kind == "type":
        grammar = TYPE_GRAMMAR.get(check.type or "", r"^.*$")
        return gxe.ExpectColumnValuesToMatchRegex(column="v_trim", regex=grammar, **condition)
    if kind == "non_empty_list":
        return gxe.ExpectColumnValuesToNotMatchRegex(column="v_trim", regex=r"^$", **condition)
    if kind == "no_empty_elements":
        return gxe.ExpectColumnValuesToNotMatchRegex(column="v_trim", regex=EMPTY_ELEMENT, **condition)
    return gxe.ExpectColumnValuesToNotMatchRegex(column="v_trim", regex=REPEATED_ELEMENT, **condition)


def great_expectations_step(
    spark: SparkSession,
    inputs: EvalInputs,
    rules: list[CompiledConstraint],
    *,
    sample: int,
    memory: DriverMemory,
) -> Step:
    """One GX expectation per sampled rule over the auditable rows (read and cached inside the clock); time of the
    read and the suite run, extrapolated per rule."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import logging

    guard_spark_connect_import()
    import great_expectations as gx

    logging.getLogger("great_expectations").setLevel(logging.WARNING)

    picked = sample_rules(rules, sample)

    def frame() -> DataFrame:
        return peer_frame(auditable(inputs))

    context = gx.get_context(mode="ephemeral")
    try:
        from great_expectations.data_context.types.base import ProgressBarsConfig

        context.variables.progress_bars = ProgressBarsConfig(globally=False)
    except Exception:
        pass
    name = f"bench_{uuid.uuid4().hex[:8]}"
    batch_definition = (
        context.data_sources.add_spark(name)
        .add_dataframe_asset("effective")
        .add_batch_definition_whole_dataframe("all")
    )
    suite = context.suites.add(gx.ExpectationSuite(name=name))
    for rule in picked:
        suite.add_expectation(_gx_expectation(rule))
    validation = context.validation_definitions.add(
        gx.ValidationDefinition(name=name, data=batch_definition, suite=suite)
    )

    held: list[tuple[DataFrame, int, float]] = []  # the cached frame, its rows, the seconds to read and cache it

    def run() -> Any:
        started = time.perf_counter()
        frame_df = frame().cache()
        held.append((frame_df, frame_df.count(), time.perf_counter() - started))
        return validation.run(batch_parameters={"dataframe": frame_df}, result_format="BASIC")

    step, result = measure("great_expectations", run, memory=memory, repeats=1)
    frame_df, rows, read_seconds = held[-1]
    frame_df.unpersist()
    unexpected = sum(int(r.result.get("unexpected_count") or 0) for r in result.results)
    per_rule = (step.seconds - read_seconds) / len(picked) if picked else 0.0
    step.extra.update(
        rules_run=len(picked),
        rules_total=len(rules),
        rows=rows,
        read_seconds=round(read_seconds, 2),
        seconds_per_rule=round(per_rule, 3),
        extrapolated_seconds=round(read_seconds + per_rule * len(rules), 1),
        unexpected_in_sample=unexpected,
        sampled_rule_ids=[r.constraint.id for r in picked],
        note="GX ran the sampled rules only; extrapolated_seconds = read_seconds + seconds_per_rule x rules_total",
    )
    return step
