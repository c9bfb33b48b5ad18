"""The data-quality engines Spark users pick, run on the product's work: cuallee and databrickslabs/dqx.

Both run the default catalog's single-key rules that apply at the target (``peers.applicable_checks``), each rule
as ``benchmarks.peer_rules`` writes it, over the same judged rows (``peer_rules.peer_frame`` of the auditable
effective rows, read from Delta inside the clock), and end with their result written to Delta:

* cuallee (``Check.satisfies``, one rule per distinct predicate): its result is one row per rule with the count of
  rows that fail it; it gives no failing rows, so it is compared with the product rule by rule (the sum of the
  count differences).
* DQX (``DQEngine.apply_checks_by_metadata``, one ``sql_expression`` check per rule with the rule's rows as its
  ``filter``): the judged rows come back with an ``_errors`` array; the failing (row, rule) pairs are written and
  compared with the product's violations row by row (both directions). DQX's engine asks a Databricks workspace
  for its runtime version when it is built; on a plain local session it runs with the mocked ``WorkspaceClient``
  its own documentation uses for local execution (``MagicMock(spec=WorkspaceClient)``).

PyDeequ and Soda are left out, with the reasons in ``UNAVAILABLE`` (the results carry them).
"""

from __future__ import annotations

import logging
from typing import Any, Final

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from benchmarks.evaluation import EvalInputs, auditable
from benchmarks.measure import DriverMemory, Step, measure
from benchmarks.peer_rules import PeerRule, peer_frame, peer_rule
from schemas.constraints import CompiledConstraint

UNAVAILABLE: Final = {
    "pydeequ": (
        "pydeequ 1.7.0 supports Spark 3.5 and 4.1 only (SPARK_VERSION=4.2: 'Found incompatible Spark version 4.2'); "
        "Maven Central has no Deequ build for Spark 4 / Scala 2.13 (com.amazon.deequ:deequ 2.0.18-spark-4.1, "
        "2.0.14-spark-4.0: not found); 2.1.0-spark-3.5 (Scala 2.12) fails on Spark 4.2 with "
        "NoClassDefFoundError: scala/Serializable"
    ),
    "soda": (
        "soda-core-spark-df 3.5.6 requires pyspark<4.0.0; soda-sparkdf 4.28.0 runs on Spark 4.2 but cannot be "
        "installed beside the project's pins (it needs ruamel.yaml<0.19, requests 2.33, python-dateutil 2.9) "
        "and keeps no failing rows without Soda Cloud"
    ),
}
_ENTITY: Final = ("cluster_id", "resource_type", "resource_name", "node_id", "config_name")


def peer_rules(rules: list[CompiledConstraint]) -> list[PeerRule]:
    """The rules as table checks (``peer_rules.peer_rule``)."""
    return [peer_rule(rule) for rule in rules]


def _product_counts(inputs: EvalInputs, product_table: str, rule_ids: set[str]) -> dict[str, int]:
    """Violations per rule in the product's table, for the rules a peer ran."""
    rows = inputs.out.read(product_table).groupBy("constraint_id").agg(F.count("*").alias("n")).collect()
    return {r["constraint_id"]: r["n"] for r in rows if r["constraint_id"] in rule_ids}


def cuallee_step(
    spark: SparkSession,
    inputs: EvalInputs,
    rules: list[PeerRule],
    *,
    product_table: str,
    memory: DriverMemory,
) -> Step:
    """cuallee's ``Check`` of every rule over the judged rows; its per-rule result written to Delta."""
    from cuallee import Check, CheckLevel

    # cuallee keys a rule by its column, method and value: rules with one predicate are one cuallee rule
    by_predicate: dict[str, list[str]] = {}
    for rule in rules:
        by_predicate.setdefault(f"NOT ({rule.condition}) OR coalesce({rule.passes}, true)", []).append(rule.rule_id)
    table = "bench_cuallee"

    def run() -> dict[str, int]:
        check = Check(CheckLevel.ERROR, "kraft-audit")
        for predicate in by_predicate:
            check = check.satisfies("v_trim", predicate)
        result_df = check.validate(peer_frame(auditable(inputs)))
        written_df = result_df.select("rule", F.col("value").cast("string").alias("predicate"), "rows", "violations")
        inputs.out.ensure(table, written_df.schema)
        inputs.out.overwrite(table, written_df)
        return {r["predicate"]: int(r["violations"]) for r in inputs.out.read(table).collect()}

    step, found = measure("cuallee", run, memory=memory, repeats=1)
    peer = {rule_id: found.get(predicate, 0) for predicate, ids in by_predicate.items() for rule_id in ids}
    product = _product_counts(inputs, product_table, set(peer))
    step.extra.update(
        rules=len(rules),
        cuallee_rules=len(by_predicate),
        violations=sum(peer.values()),
        differs_from_product=sum(abs(peer.get(r, 0) - product.get(r, 0)) for r in peer),
        compared="violations per rule (cuallee gives counts, not rows)",
        product_table=product_table,
    )
    return step


def _dqx_checks(rules: list[PeerRule]) -> list[dict[str, Any]]:
    return [
        {
            "name": rule.rule_id,
            "criticality": "error",
            "filter": rule.condition,
            "check": {"function": "sql_expression", "arguments": {"expression": f"coalesce({rule.passes}, true)"}},
        }
        for rule in rules
    ]


def dqx_step(
    spark: SparkSession,
    inputs: EvalInputs,
    rules: list[PeerRule],
    *,
    product_table: str,
    memory: DriverMemory,
) -> Step:
    """DQX's ``apply_checks_by_metadata`` of every rule over the judged rows; the failing pairs written to Delta."""
    from unittest.mock import MagicMock

    from databricks.labs.dqx.engine import DQEngine
    from databricks.sdk import WorkspaceClient

    logging.getLogger("databricks.labs.dqx").setLevel(logging.WARNING)
    engine = DQEngine(MagicMock(spec=WorkspaceClient), spark=spark)
    checks = _dqx_checks(rules)
    table = "bench_dqx"

    def run() -> int:
        checked_df = engine.apply_checks_by_metadata(peer_frame(auditable(inputs)), checks)
        failing_df = checked_df.where(F.col("_errors").isNotNull()).select(
            *_ENTITY, F.explode(F.transform("_errors", lambda e: e["name"])).alias("constraint_id")
        )
        inputs.out.ensure(table, failing_df.schema)
        return inputs.out.overwrite(table, failing_df)

    step, _ = measure("dqx", run, memory=memory, repeats=1)
    # compared without node_id: the product names a broker's row by its resource_name too
    compared = ["cluster_id", "resource_type", "resource_name", "config_name", "constraint_id"]
    peer_df = inputs.out.read(table).select(*compared)
    ids = [rule.rule_id for rule in rules]
    product_df = inputs.out.read(product_table).where(F.col("constraint_id").isin(ids)).select(*compared)
    step.extra.update(
        rules=len(rules),
        violations=peer_df.count(),
        differs_from_product=peer_df.exceptAll(product_df).count() + product_df.exceptAll(peer_df).count(),
        compared="failing (row, rule) pairs, both directions",
        product_table=product_table,
    )
    return step
