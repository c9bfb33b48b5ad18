"""Evaluate a compiled constraint catalog over the effective configuration, in long format.

``evaluate_constraints`` gives the ``VIOLATIONS`` rows (``schemas.violations``) of one run at a target level;
``levels.violations_by_level`` the errors and warnings per cluster at every level of the MV table at once
(``VIOLATIONS_BY_LEVEL``); ``levels.highest_safe_levels`` the highest level without an error violation per cluster
(``HIGHEST_SAFE_LEVELS``). ``failures.constraint_failures`` is every failing (row, rule) pair at every level, what the
first two start from: an audit computes it once and passes it to both as ``failures_df=``. The description below
covers the three modules.

How it runs (one pass, no per-constraint jobs):

* **single-key rules** — EFFECTIVE_CONFIGS rows join the broadcast ``check_rules`` table on
  ``(resource_type, config_name)``; TOPIC and GROUP rows take part only when they are overrides
  (DYNAMIC_TOPIC_CONFIG / DYNAMIC_GROUP_CONFIG): an inherited topic value is checked by the broker rule of its
  synonym on the BROKER row, which reports ``affected_topics`` (topics hosted on that node whose value comes
  from a broker layer through that key). One generic ``CASE rule_kind`` evaluates each (row, rule) pair.
* **expression rules** — one context row per entity and broker view (``cfg`` map of its effective values,
  ``topic`` struct from TOPICS, ``cluster`` struct from CLUSTER_STATE); the maps hold only the keys the type's
  expressions read (``cfg['<literal>']`` and their ``configs``), so the shuffle that builds them moves a fraction
  of the effective table. Each distinct expression of the row's type is evaluated once per row (rules repeating
  it share its slot, ``expressions.expression_slots``), its outcome two bits of a generated mask column of 25
  expressions, under ANSI off, and only where one of its rules can be judged. Only rows with an outcome other
  than "holds" are joined to the broadcast ``expr_rules`` of their slots, and a pair is kept when the entity
  holds at least one of the rule's keys (unless the expression reads no ``cfg`` / ``value``: a pure
  topic/cluster policy applies to every entity) and the rule judges it. A topic whose broker views differ
  (rows with ``node_id``) is evaluated per view: if every view fails, one row with ``node_id`` NULL; if only
  some fail, one row per failing view naming its ``node_id``.
* **defaults** — rules of the generated default catalog (Kafka's own validators) do not judge values nobody set
  (source DEFAULT_CONFIG: the audited release's defaults, which an older release's validator may reject), and
  its expressions run only when every key they read exists and one of them was set (``rule_table.judges_defaults``);
  rules users write judge every value.
* **levels and releases** — each rule carries its KIP-1294 level interval and, for a base validator bound to a
  Kafka release (the generated ConfigDef checks), its release interval (``selection``). At level ``L`` a cluster's
  brokers run ``max(the release they run now, the release of L)``: ``CLUSTER_STATE.kafka_release`` (the oldest
  release a registered broker runs, or ``--kafka-version``), else the release of ``L``. A violation is reported when
  its rule applies at the target level for that release. ``new_at_target`` is true when, at the cluster's current
  level and release, no validator of the same kind and selection key ``(resource, sorted keys)`` fails on that row
  (NULL when the current level is unknown): a failing base validator of the release the brokers already run is
  not new, and an MV validator is new unless an MV validator of its key fails now. ``violations_by_level`` expands
  the same failures over every level of the MV table at once, each level with its release.
* **layers** — a rule with ``sources`` judges only values from those layers (its first key's, for an expression).
* **fixes** — ``remediation`` / ``remediation_change`` (``remediation``): a single-key violation whose value comes
  from an override (``schemas.whatif.FALLBACK_SOURCES``) is fixed by deleting that override when the value it
  falls back to (``fallback_resolver``, every broker view of it) passes every single-key rule of the key at the
  target; otherwise a SET of a passing value (``fix_value``). An expression violation gets the SET derived from its
  text (``expr_fixes``) when there is one.

Assumption (EFFECTIVE_CONFIGS contract): one row per (cluster, entity, key) and view, so the per-view maps
have unique keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.constraints import CompiledCatalog
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from schemas.per_cluster import Targets
from schemas.violations import VIOLATIONS
from schemas.whatif import FALLBACK_SOURCES
from transforms.configdef.checks import check_violation, with_parsed_value
from transforms.configdef.messages import violation_message
from transforms.configdef.rule_table import RuleTables, rule_tables
from transforms.constraints.failures import (
    BROKER_LAYERS,
    ENTITY,
    applies,
    cluster_releases,
    conform,
    failures,
    judged,
)
from transforms.constraints.remediation import fix_value, remediation_change, remediation_text
from transforms.kit.checkpoints import Keep, as_planned
from transforms.kit.per_cluster import column_of, target_level_column, target_name_column
from transforms.kit.timestamps import as_utc

__all__ = ["FallbackResolver", "evaluate_constraints"]

# needed_df (cluster_id, resource_type, resource_name, value_source) -> the fallback rows of those overrides
# (schemas.whatif.FALLBACK_COLUMNS); jobs bind transforms.whatif.resolve_fallbacks to the audited state.
FallbackResolver = Callable[[DataFrame], DataFrame]


def _affected_topics(effective_df: DataFrame, topics_df: DataFrame, reported_df: DataFrame) -> DataFrame:
    """(cluster_id, host_node, broker_key, n_topics): topics hosted on a node inheriting that broker key, for the
    (cluster, key) pairs of the BROKER violations in ``reported_df`` only (their key or the synonym the value was
    read from), so the topic rows are filtered before they are joined, exploded per host and counted."""
    broker_df = reported_df.filter(F.col("resource_type") == ResourceType.BROKER)
    # no distinct: a semi join's build side may repeat a pair, and making it distinct costs a shuffle (a Spark job)
    wanted_df = broker_df.select("cluster_id", F.explode(F.array("config_name", "synonym")).alias("broker_key")).filter(
        F.col("broker_key").isNotNull()
    )
    inherits = (
        (F.col("resource_type") == ResourceType.TOPIC)
        & F.col("source").isin(*BROKER_LAYERS)
        & F.col("synonym").isNotNull()
    )
    inherited_df = (
        effective_df.filter(inherits)
        .select(
            "cluster_id", F.col("resource_name").alias("topic_name"), "node_id", F.col("synonym").alias("broker_key")
        )
        .join(F.broadcast(wanted_df), on=["cluster_id", "broker_key"], how="left_semi")
    )
    hosts = F.when(F.col("node_id").isNotNull(), F.array(F.col("node_id"))).otherwise(F.col("replica_nodes"))
    return (
        inherited_df.join(
            topics_df.select("cluster_id", "topic_name", "replica_nodes"), on=["cluster_id", "topic_name"], how="left"
        )
        .select("cluster_id", "topic_name", "broker_key", F.explode(hosts).alias("host_node"))
        .groupBy("cluster_id", "host_node", "broker_key")
        # the set's size, not count_distinct: one aggregation instead of two (topic names are never NULL)
        .agg(F.size(F.collect_set("topic_name")).cast("int").alias("n_topics"))
    )


def _with_affected_topics(violations_df: DataFrame, affected_df: DataFrame) -> DataFrame:
    """Add ``affected_topics`` to BROKER rows (matches on the key and on the synonym it was read from).

    The counts of a host node are gathered into one map (broker key -> topics) first, so the affected topics are
    computed once and joined once, whichever of the two keys a row is matched on."""
    node = F.col("resource_name").try_cast("int")
    by_node = affected_df.groupBy(F.col("cluster_id"), F.col("host_node").alias("_node")).agg(
        F.map_from_entries(F.collect_list(F.struct("broker_key", "n_topics"))).alias("_n_topics")
    )
    by_key = F.try_element_at(F.col("_n_topics"), F.col("config_name"))
    by_synonym = F.try_element_at(F.col("_n_topics"), F.col("synonym"))
    is_broker = F.col("resource_type") == ResourceType.BROKER
    synonym_differs = F.coalesce(F.col("synonym") != F.col("config_name"), F.lit(False))
    counted = F.coalesce(by_key, F.lit(0)) + F.when(synonym_differs, F.coalesce(by_synonym, F.lit(0))).otherwise(0)
    return (
        violations_df.select("*", F.when(is_broker, node).alias("_node"))
        .join(by_node, on=["cluster_id", "_node"], how="left")
        .select("*", F.when(is_broker, counted).cast("int").alias("affected_topics"))
        .drop("_node", "_n_topics")
    )


def _deleted_resource(resource_name: Column, source: Column) -> Column:
    """The resource a DELETE edits: the cluster default ``""`` for values from that layer (one record for every
    broker), else the entity itself."""
    return F.when(source == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, F.lit("")).otherwise(resource_name)


def _fallback_verdicts(
    fallback_df: DataFrame,
    tables: RuleTables,
    target_level: int | Column,
    releases_df: DataFrame,
    level_ranks: Sequence[int],
) -> DataFrame:
    """Per deleted record (cluster, resource type, deleted resource, key, layer): whether every fallback row —
    every broker view, every broker taking the cluster default — passes every single-key rule of the key at the
    target; and the fallback value and source when they are the same everywhere."""
    keys = ["cluster_id", "resource_type", "_deleted", "config_name", "deleted_source"]
    rows_df = fallback_df.select(
        "*", _deleted_resource(F.col("resource_name"), F.col("deleted_source")).alias("_deleted")
    ).select(*keys, "value", "is_sensitive", "config_type", "source")
    at_target = applies(column_of(target_level), F.col("_running_rank"), level_ranks)
    checked_df = (
        rows_df.join(F.broadcast(tables.check_rules_df), on=["resource_type", "config_name"], how="inner")
        .join(F.broadcast(releases_df.select("cluster_id", "_running_rank")), on="cluster_id", how="left")
        .filter(at_target & judged(F.col("source")))
        .transform(with_parsed_value)
        .select(*keys, check_violation().isNotNull().cast("int").alias("_fails"))
        .groupBy(*keys)
        .agg(F.max("_fails").alias("_any_fails"))
    )
    views = F.collect_set(F.struct("value", "source"))
    return (
        rows_df.groupBy(*keys)
        .agg(views.alias("_views"))
        .join(checked_df, on=keys, how="left")
        .select(
            *[F.col(k).alias("value_source") if k == "deleted_source" else F.col(k) for k in keys],
            (F.coalesce(F.col("_any_fails"), F.lit(0)) == 0).alias("fallback_ok"),
            F.when(F.size("_views") == 1, F.col("_views")[0]["value"]).alias("fallback_value"),
            F.when(F.size("_views") == 1, F.col("_views")[0]["source"]).alias("fallback_source"),
        )
    )


def _with_fallbacks(
    df: DataFrame,
    resolver: FallbackResolver | None,
    tables: RuleTables,
    target_level: int | Column,
    releases_df: DataFrame,
    level_ranks: Sequence[int],
    keep: Keep = as_planned,
) -> DataFrame:
    """Add ``fallback_ok`` (single-key violations of override values only; else NULL), ``fallback_value`` and
    ``fallback_source``."""
    if resolver is None:
        return df.select(
            "*",
            F.lit(None).cast("boolean").alias("fallback_ok"),
            F.lit(None).cast("string").alias("fallback_value"),
            F.lit(None).cast("string").alias("fallback_source"),
        )
    # a CONTROLLER_TOPIC value is fixed by a topic override (SET), which the controller reads before any layer
    is_controller_view = F.col("resource_type") == ResourceType.CONTROLLER_TOPIC
    eligible = (
        F.col("value_source").isin(*FALLBACK_SOURCES) & (F.col("constraint_kind") != "expr") & ~is_controller_view
    )
    # kept by the caller: the resolver reads it in many places of its plan
    needed_df = keep(
        "fallback_needed",
        df.where(eligible).select("cluster_id", "resource_type", "resource_name", "value_source").distinct(),
    )
    verdicts_df = _fallback_verdicts(
        keep("fallback_rows", resolver(needed_df)), tables, target_level, releases_df, level_ranks
    )
    on = ["cluster_id", "resource_type", "_deleted", "config_name", "value_source"]
    return (
        df.select(
            "*",
            eligible.alias("_is_eligible"),
            _deleted_resource(F.col("resource_name"), F.col("value_source")).alias("_deleted"),
        )
        .join(verdicts_df, on=on, how="left")
        .select(
            *df.columns,
            F.when(F.col("_is_eligible"), F.col("fallback_ok")).alias("fallback_ok"),
            F.when(F.col("_is_eligible"), F.col("fallback_value")).alias("fallback_value"),
            F.when(F.col("_is_eligible"), F.col("fallback_source")).alias("fallback_source"),
        )
    )


def _with_scope(df: DataFrame, dynamic_scope_df: DataFrame | None) -> DataFrame:
    if dynamic_scope_df is None:
        return df.select("*", F.lit(None).cast("string").alias("scope"))
    scopes_df = dynamic_scope_df.select("config_name", F.col("scope").alias("_scope")).dropDuplicates(["config_name"])
    return (
        df.join(F.broadcast(scopes_df), on="config_name", how="left")
        .select("*", F.when(F.col("resource_type") == ResourceType.BROKER, F.col("_scope")).alias("scope"))
        .drop("_scope")
    )


def _violation_columns(run_id: str, run_ts: datetime, target: Targets) -> list[Column | str]:
    """The ``VIOLATIONS`` columns of a reported failure, in the table's order."""
    current = F.col("current_level")
    level = target_level_column(target)
    return [
        F.lit(run_id).alias("run_id"),
        F.lit(as_utc(run_ts)).cast("timestamp").alias("run_ts"),
        "cluster_id",
        target_name_column(target).alias("target_mv"),
        level.alias("target_level"),
        current.cast("int").alias("current_level"),
        F.when(current.isNotNull(), level < current).alias("is_downgrade"),
        "resource_type",
        "resource_name",
        F.col("node_id").cast("int").alias("node_id"),
        "config_name",
        "value",
        "value_source",
        "synonym",
        "source_offset",
        "constraint_id",
        "constraint_source",
        "constraint_kind",
        "constraint_level",
        "constraint_mv",
        "constraint_origin",
        "constraint_release",
        "severity",
        F.col("code").alias("violation_code"),
        violation_message().alias("message"),
        remediation_text().alias("remediation"),
        remediation_change().alias("remediation_change"),
        "reference",
        "affected_topics",
        "new_at_target",
        "value_assumed",
    ]


def _failing_at_target(
    failures_df: DataFrame,
    tables: RuleTables,
    releases_df: DataFrame,
    target_level: int | Column,
    level_ranks: Sequence[int],
) -> DataFrame:
    """The failures whose rule applies at ``target_level`` on the cluster's running releases, with the rule's
    information, the cluster's ``current_level`` and ``new_at_target`` (the rule passes at the current level)."""
    levels_df = releases_df.select("cluster_id", F.col("_current_level").alias("current_level"), "_running_rank")
    with_info_df = failures_df.join(F.broadcast(tables.rule_info_df), on="rule_idx", how="inner").join(
        F.broadcast(levels_df), on="cluster_id", how="left"
    )
    running = F.col("_running_rank")
    at_target = applies(column_of(target_level), running, level_ranks)
    fails_at_current = F.max(applies(F.col("current_level"), running, level_ranks).cast("int")).over(
        Window.partitionBy(*ENTITY, "node_id", "sel_key")
    )
    new_at_target = F.when(F.col("current_level").isNotNull(), F.coalesce(fails_at_current, F.lit(0)) == 0)
    return with_info_df.select("*", new_at_target.alias("new_at_target")).filter(at_target)


def evaluate_constraints(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    *,
    target: Targets,
    run_id: str,
    run_ts: datetime,
    dynamic_scope_df: DataFrame | None = None,
    fallback_resolver: FallbackResolver | None = None,
    failures_df: DataFrame | None = None,
    keep: Keep = as_planned,
) -> DataFrame:
    """The VIOLATIONS rows of one audit run at ``target`` (see the module docstring for semantics).

    Args:
        effective_df: gold ``EFFECTIVE_CONFIGS``.
        topics_df: silver ``TOPICS``.
        cluster_df: silver ``CLUSTER_STATE``.
        rules: ``selection.compile_catalog`` of the catalogs, checked by
            ``jobs.runtime.expression_check.validate_with_spark``.
        target: the metadata.version audited (per cluster: a ``PerCluster``).
        run_id: the run's id, in every row.
        run_ts: the run's start; a naive value is taken as UTC.
        dynamic_scope_df: ``DYNAMIC_SCOPES`` (``schemas.violations``) of the BROKER keys; None = unknown.
        fallback_resolver: ``transforms.whatif.resolve_fallbacks`` bound to the audited state; None = no DELETE
            fixes.
        failures_df: ``constraint_failures`` of the same arguments, when the caller shares it with
            ``violations_by_level`` (checkpointed, so the catalog is evaluated once per run); computed here
            otherwise.
        keep: how the caller holds the reused intermediates (``at_target``, ``reported``, ``fallback_needed``,
            ``fallback_rows``; default: the plan as it is).

    Returns:
        ``VIOLATIONS`` (``schemas.violations``).

    NULL behaviour: a NULL value fails min/max/between/in/regex/not_null rules and passes the others; an
    expression evaluating to NULL is a COULD_NOT_EVALUATE violation; an unknown current level gives NULL
    ``current_level``, ``is_downgrade`` and ``new_at_target``; an unknown dynamic scope is treated as
    read-only in the remediation.
    """
    spark = effective_df.sparkSession
    tables = rule_tables(spark, rules)
    target_level = target_level_column(target)
    if failures_df is None:
        failures_df = failures(effective_df, topics_df, cluster_df, rules, tables, target_level)
    level_ranks = rules.level_release_ranks
    releases_df = cluster_releases(cluster_df)
    # kept: read by the affected-topics filter and by the rows it is joined back to
    at_target_df = keep("at_target", _failing_at_target(failures_df, tables, releases_df, target_level, level_ranks))
    reported_df = at_target_df.transform(
        _with_affected_topics, _affected_topics(effective_df, topics_df, at_target_df)
    ).transform(_with_scope, dynamic_scope_df)
    if fallback_resolver is not None:
        # the fallbacks are resolved for these rows: compute them once, not once for the resolver and once more
        reported_df = keep("reported", reported_df)
    reported_df = reported_df.transform(
        _with_fallbacks, fallback_resolver, tables, target_level, releases_df, level_ranks, keep
    )
    reported_df = reported_df.select("*", fix_value().alias("fix_value"))
    return reported_df.select(*_violation_columns(run_id, run_ts, target)).transform(conform, VIOLATIONS)
