"""The same rules run by the tools a user might pick instead of the product's column expressions.

Both peers run the default catalog's single-key rules that apply at the target level (KIP-1294 selection done
for them in Python) over the same rows the product judges: the auditable effective-config rows, topic and group
rows only where they are overrides (the product checks inherited values once, on the broker). Expression rules
(cross-field checks) are not ported; the product's figure they are compared with includes them.

* Python UDF: a row-at-a-time ``pyspark.sql.functions.udf`` (pickled, not Arrow) looks up the key's validators
  (``benchmarks.pyvalidator``) and returns the failing rule indexes; the failures are exploded and written to
  Delta.
* Great Expectations (plain ``great_expectations`` on a Spark dataframe asset, ephemeral context): one
  expectation per rule, the nearest GX expectation, with a ``row_condition`` selecting the rule's rows, all in
  one suite run by one validation definition (GX shares metric computations where it can). GX needs minutes per
  hundred expectations, so it runs an even sample of the rules and its time is extrapolated per rule to the
  whole set; the output says so. Its input frame is cached in memory before the clock starts (generous to GX,
  which scans once per metric).
"""

from __future__ import annotations

import os
import uuid
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, IntegerType

from benchmarks.measure import DriverMemory, Step, measure
from benchmarks.pyvalidator import validators_by_key
from jobs.quality_gx import guard_spark_connect_import
from schemas.constraints import CompiledCatalog, CompiledConstraint
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from transforms.constraints.selection import active_at


def applicable_checks(compiled: CompiledCatalog, level: int) -> list[CompiledConstraint]:
    """Single-key rules KIP-1294 selects at ``level``."""
    return [r for r in active_at(compiled, level) if r.constraint.check is not None]


def judged_rows(auditable_df: DataFrame) -> DataFrame:
    """The rows single-key rules judge: everything but inherited topic and group values."""
    rtype, source = F.col("resource_type"), F.col("source")
    is_topic_override = (rtype == ResourceType.TOPIC) & (source == ConfigSource.DYNAMIC_TOPIC_CONFIG)
    is_group_override = (rtype == ResourceType.GROUP) & (source == ConfigSource.DYNAMIC_GROUP_CONFIG)
    return auditable_df.filter(
        ~rtype.isin(ResourceType.TOPIC, ResourceType.GROUP) | is_topic_override | is_group_override
    )


def python_udf_step(
    spark: SparkSession,
    rows_df: DataFrame,
    rules: list[CompiledConstraint],
    out_store: Any,
    *,
    memory: DriverMemory,
    repeats: int,
) -> Step:
    """Run the row-at-a-time validator over ``rows_df`` and write every failure to Delta."""
    table = validators_by_key(rules)

    def validate(resource_type: str, config_name: str, value: str | None, config_type: str | None, sensitive: bool):  # type: ignore[no-untyped-def]
        found = table.get((resource_type, config_name))
        if not found:
            return []
        return [idx for idx, fails in found if fails(value, config_type, bool(sensitive))]

    validate_udf = F.udf(validate, ArrayType(IntegerType()), useArrow=False)

    def run() -> int:
        failed = validate_udf("resource_type", "config_name", "value", "config_type", "is_sensitive")
        failures_df = rows_df.select(
            "cluster_id",
            "resource_type",
            "resource_name",
            "node_id",
            "config_name",
            "value",
            F.explode(failed).alias("rule_idx"),
        )
        out_store.ensure("bench_python_udf", failures_df.schema)
        return int(out_store.overwrite("bench_python_udf", failures_df))

    step, _ = measure("python_udf", run, memory=memory, repeats=repeats)
    step.extra.update(rules=len(rules), violations=out_store.read("bench_python_udf").count())
    return step


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
        grammar = {
            "int": r"^[+-]?[0-9]+$",
            "long": r"^[+-]?[0-9]+$",
            "short": r"^[+-]?[0-9]+$",
            "double": r"^[+-]?(NaN|Infinity|[0-9]+\.?[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?)[fFdD]?$",
            "boolean": r"^(?i)(true|false)$",
            "class": r"^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$",
        }.get(check.type or "", r"^.*$")
        return gxe.ExpectColumnValuesToMatchRegex(column="v_trim", regex=grammar, **condition)
    if kind == "non_empty_list":
        return gxe.ExpectColumnValuesToNotMatchRegex(column="v_trim", regex=r"^$", **condition)
    if kind == "no_empty_elements":
        return gxe.ExpectColumnValuesToNotMatchRegex(column="v_trim", regex=r"(^|,)\s*(,|$)", **condition)
    return gxe.ExpectColumnValuesToNotMatchRegex(  # no_duplicates: an element repeated later in the list
        column="v_trim", regex=r"(^|,)\s*([^,]+?)\s*,(.*,)?\s*\2\s*(,|$)", **condition
    )


def great_expectations_step(
    spark: SparkSession,
    rows_df: DataFrame,
    rules: list[CompiledConstraint],
    *,
    sample: int,
    memory: DriverMemory,
) -> Step:
    """One GX expectation per sampled rule over the cached rows; time of the suite run, extrapolated per rule."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import logging

    guard_spark_connect_import()
    import great_expectations as gx

    logging.getLogger("great_expectations").setLevel(logging.WARNING)

    picked = sample_rules(rules, sample)
    frame_df = rows_df.select(
        "resource_type",
        "config_name",
        "value",
        F.regexp_replace("value", r"^[\x00-\x20]+|[\x00-\x20]+$", "").alias("v_trim"),
        F.regexp_replace("value", r"^[\x00-\x20]+|[\x00-\x20]+$", "").try_cast("double").alias("v_num"),
    ).cache()
    rows = frame_df.count()

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

    def run() -> Any:
        return validation.run(batch_parameters={"dataframe": frame_df}, result_format="BASIC")

    step, result = measure("great_expectations", run, memory=memory, repeats=1)
    frame_df.unpersist()
    unexpected = sum(int(r.result.get("unexpected_count") or 0) for r in result.results)
    per_rule = step.seconds / len(picked) if picked else 0.0
    step.extra.update(
        rules_run=len(picked),
        rules_total=len(rules),
        rows=rows,
        seconds_per_rule=round(per_rule, 3),
        extrapolated_seconds=round(per_rule * len(rules), 1),
        unexpected_in_sample=unexpected,
        sampled_rule_ids=[r.constraint.id for r in picked],
        note="GX ran the sampled rules only; extrapolated_seconds = seconds_per_rule x rules_total",
    )
    return step
