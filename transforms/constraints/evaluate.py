"""Evaluate a compiled constraint catalog over the effective configuration, in long format.

``evaluate_constraints`` gives the ``VIOLATIONS`` rows (``schemas.violations``) of one run at a target level;
``violations_by_level`` the errors and warnings per cluster at every level of the MV table at once
(``VIOLATIONS_BY_LEVEL``); ``highest_safe_levels`` the highest level without an error violation per cluster
(``HIGHEST_SAFE_LEVELS``). ``constraint_failures`` is every failing (row, rule) pair at every level, what the first
two start from: an audit computes it once and passes it to both as ``failures_df=``.

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

import functools
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Final

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from schemas.constraints import CompiledCatalog, CompiledConstraint
from schemas.evaluation import ELR_LEVEL, FAILURE_COLUMNS, MV_LEVELS_DDL
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from schemas.metadata_version import MetadataVersion, MetadataVersionTable
from schemas.violations import HIGHEST_SAFE_LEVELS, VIOLATIONS, VIOLATIONS_BY_LEVEL
from schemas.whatif import FALLBACK_SOURCES
from transforms.configdef.checks import check_violation, with_parsed_value
from transforms.configdef.expr_fixes import expression_fix_columns
from transforms.configdef.expressions import (
    OUTCOME_FALSE,
    OUTCOME_HOLDS,
    ansi_disabled,
    cfg_keys_read,
    expression_mask_columns,
    expression_slots,
    paired_by_keys,
)
from transforms.configdef.messages import violation_message
from transforms.configdef.rule_table import RuleTables, judges_defaults, rule_tables
from transforms.configdef.sql_text import sql_string
from transforms.constraints.remediation import fix_value, remediation_change, remediation_text
from transforms.kit.audit_scope import set_by_a_layer
from transforms.kit.checkpoints import Keep, as_planned
from transforms.kit.local_frames import local_frame
from transforms.kit.releases import release_rank_column
from transforms.kit.timestamps import as_utc

__all__ = [
    "FallbackResolver",
    "constraint_failures",
    "evaluate_constraints",
    "highest_safe_levels",
    "single_key_failures",
    "single_key_pairs",
    "single_key_rows",
    "violations_by_level",
]

ENTITY: Final = ("cluster_id", "resource_type", "resource_name")
# needed_df (cluster_id, resource_type, resource_name, value_source) -> the fallback rows of those overrides
# (schemas.whatif.FALLBACK_COLUMNS); jobs bind transforms.whatif.resolve_fallbacks to the audited state.
FallbackResolver = Callable[[DataFrame], DataFrame]
BROKER_LAYERS: Final = (
    ConfigSource.DYNAMIC_BROKER_CONFIG,
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    ConfigSource.STATIC_BROKER_CONFIG,
)


def _in_rule_sources(source: Column) -> Column:
    """The value's layer is one the rule judges (every layer when the rule names none)."""
    return (F.size("rule_sources") == 0) | F.coalesce(F.array_contains("rule_sources", source), F.lit(False))


def _judged(source: Column) -> Column:
    """A single-key (row, rule) pair is evaluated: the rule judges defaults or the value was set by someone
    (``rule_table.judges_defaults``), and the value comes from a layer the rule judges."""
    set_or_judged = F.col("judges_defaults") | ~F.coalesce(source == F.lit(ConfigSource.DEFAULT_CONFIG), F.lit(False))
    return set_or_judged & _in_rule_sources(source)


def _expression_judged() -> Column:
    """An (entity, expression rule) pair is evaluated: the rule judges defaults, or (a generated Kafka check)
    every key it reads exists in the audited release and at least one of them was set by someone (is among the
    view's ``set_keys``). Array functions, not lambdas: this runs once per pair, and Spark interprets lambdas."""
    present = F.size(F.array_except("rule_configs", F.map_keys("cfg"))) == 0
    set_by_someone = F.coalesce(F.arrays_overlap("rule_configs", "set_keys"), F.lit(False))
    first_source = F.try_element_at(F.col("meta"), F.col("first_key"))["value_source"]
    return (F.col("judges_defaults") | (present & set_by_someone)) & _in_rule_sources(first_source)


def _release_rank_of_level(level: Column, level_ranks: Sequence[int]) -> Column:
    """The release rank of a metadata.version level (the newest release above the table; NULL when unknown)."""
    if not level_ranks:
        return F.lit(None).cast("int")
    pairs = [F.lit(x) for lv, rank in enumerate(level_ranks, start=1) for x in (lv, rank)]
    return F.when(level > len(level_ranks), F.lit(level_ranks[-1])).otherwise(
        F.try_element_at(F.create_map(*pairs), level)
    )


def _applies(level: Column, running_rank: Column, level_ranks: Sequence[int]) -> Column:
    """The rule applies at ``level`` for a cluster whose brokers run the release of rank ``running_rank`` now:
    its KIP-1294 level interval contains ``level`` and, for a release-bound base validator, its release interval
    contains ``max(running_rank, release of level)`` (an upgrade to ``level`` needs that release's binaries; a NULL
    running rank counts as the level's release). NULL when ``level`` is NULL."""
    upper_ok = F.col("active_to").isNull() | (level < F.col("active_to"))
    in_levels = (F.col("active_from") <= level) & upper_ok
    release_at_level = F.greatest(running_rank, _release_rank_of_level(level, level_ranks))
    in_releases = F.col("release_from").isNull() | (
        (F.col("release_from") <= release_at_level)
        & (F.col("release_to").isNull() | (release_at_level < F.col("release_to")))
    )
    return in_levels & in_releases


def _cluster_releases(cluster_df: DataFrame) -> DataFrame:
    """``(cluster_id, _current_level, _running_rank)``: each cluster's finalized level and the rank of the release
    its brokers run now (``CLUSTER_STATE.kafka_release``; NULL when unknown or the column is absent)."""
    rank = (
        release_rank_column(F.col("kafka_release"))
        if "kafka_release" in cluster_df.columns
        else F.lit(None).cast("int")
    )
    return cluster_df.select(
        "cluster_id", F.col("current_level").alias("_current_level"), rank.cast("int").alias("_running_rank")
    )


def _level_filter(
    df: DataFrame, cluster_df: DataFrame, target_level: int | None, level_ranks: Sequence[int]
) -> DataFrame:
    """Keep (row, rule) pairs whose rule applies at the target or at the cluster's current level."""
    if target_level is None:
        return df
    running = F.col("_running_rank")
    at_target = _applies(F.lit(target_level), running, level_ranks)
    at_current = F.coalesce(_applies(F.col("_current_level"), running, level_ranks), F.lit(False))
    return (
        df.join(F.broadcast(_cluster_releases(cluster_df)), on="cluster_id", how="left")
        .filter(at_target | at_current)
        .drop("_current_level", "_running_rank")
    )


def single_key_pairs(
    effective_df: DataFrame, cluster_df: DataFrame, rules: CompiledCatalog, target_level: int | None
) -> DataFrame:
    """The (row, rule) pairs the catalog's single-key rules judge, each row with its rule's columns
    (``CHECK_RULES_DDL``), before any verdict: TOPIC and GROUP rows only where they are overrides, pairs the rule
    judges (``_judged``), and, when ``target_level`` is given, rules applying at the target or the cluster's current
    level. ``single_key_failures`` keeps the pairs whose verdict (``checks.check_violation``) is not NULL."""
    return _single_key_pairs(
        effective_df, cluster_df, rule_tables(effective_df.sparkSession, rules), target_level, rules.level_release_ranks
    )


def single_key_failures(judged_df: DataFrame) -> DataFrame:
    """``FAILURE_COLUMNS`` of the ``single_key_pairs`` whose ``violation`` column (``struct<code, detail>``, the
    verdict) is not NULL; ``v_elems`` (the value's list elements, ``checks.with_parsed_value``) is read as it is."""
    return (
        judged_df.filter(F.col("violation").isNotNull())
        .select(
            *[c for c in FAILURE_COLUMNS if c not in ("code", "detail", "expr_fix_value")],
            F.col("violation.code").alias("code"),
            F.col("violation.detail").alias("detail"),
            F.lit(None).cast("string").alias("expr_fix_value"),
        )
        .select(*FAILURE_COLUMNS)
    )


def single_key_rows(effective_df: DataFrame) -> DataFrame:
    """The rows single-key rules judge: every row but inherited TOPIC and GROUP values (an inherited topic value is
    judged once, on the broker row it comes from)."""
    rtype, source = F.col("resource_type"), F.col("source")
    is_topic_override = (rtype == ResourceType.TOPIC) & (source == ConfigSource.DYNAMIC_TOPIC_CONFIG)
    is_group_override = (rtype == ResourceType.GROUP) & (source == ConfigSource.DYNAMIC_GROUP_CONFIG)
    is_inheritable = rtype.isin(ResourceType.TOPIC, ResourceType.GROUP)
    return effective_df.filter(~is_inheritable | is_topic_override | is_group_override)


def _single_key_pairs(
    effective_df: DataFrame,
    cluster_df: DataFrame,
    tables: RuleTables,
    target_level: int | None,
    level_ranks: Sequence[int],
) -> DataFrame:
    rows_df = single_key_rows(effective_df).select(
        *ENTITY,
        "node_id",
        "config_name",
        "value",
        "is_sensitive",
        "config_type",
        F.col("source").alias("value_source"),
        F.col("is_assumed").alias("value_assumed"),
        "synonym",
        "source_offset",
    )
    joined_df = rows_df.join(F.broadcast(tables.check_rules_df), on=["resource_type", "config_name"], how="inner")
    joined_df = joined_df.filter(_judged(F.col("value_source")))
    return _level_filter(joined_df, cluster_df, target_level, level_ranks)


def _context_keys(rules: Sequence[CompiledConstraint]) -> dict[str, list[str] | None]:
    """Per resource type, the keys its expressions read (sorted), or None when the whole entity is needed.

    Pruning the context to these keys changes no outcome: every expression reads only ``cfg['<literal>']`` and
    its own ``configs`` (``value``), and an entity holding none of them takes part in no rule that reads values.
    It is not done for a type with a pure topic/cluster policy (evaluated for every entity, so every entity must
    keep its context row) or with an expression that reads ``cfg`` otherwise.
    """
    keys: dict[str, set[str] | None] = {}
    for rule in rules:
        rtype = rule.constraint.resource_type
        read = cfg_keys_read(rule.expr_sql or "")
        current = keys.get(rtype, set())
        if current is None or read is None or not paired_by_keys(rule.expr_sql or ""):
            keys[rtype] = None
            continue
        keys[rtype] = current | read | set(rule.constraint.keys)
    return {rtype: sorted(found) if found is not None else None for rtype, found in keys.items()}


def _expression_contexts(
    effective_df: DataFrame, topics_df: DataFrame, cluster_df: DataFrame, keys_by_type: dict[str, list[str] | None]
) -> DataFrame:
    """One row per entity and broker view: its entries (``_view``, for ``_view_meta``), ``cfg`` map, the keys someone
    set (``set_keys``: not from the DEFAULT_CONFIG layer), topic and cluster structs, n_views.

    ``keys_by_type`` names the resource types to build contexts for and, per type, the only keys the maps need
    (None: every key). Rows of other keys are dropped before the shuffle that builds the maps.
    """
    rtype, name = F.col("resource_type"), F.col("config_name")
    wanted = [rtype == t if keys is None else (rtype == t) & name.isin(*keys) for t, keys in keys_by_type.items()]
    in_context = functools.reduce(lambda a, b: a | b, wanted)
    rows_df = effective_df.filter(in_context).select(
        *ENTITY,
        "node_id",
        "config_name",
        "value",
        F.col("source").alias("value_source"),
        "synonym",
        "source_offset",
        "is_assumed",
    )
    # One shuffle: each entity's rows as one list, and the keys someone set. Its broker views are the distinct node
    # ids, or one NULL view when no row is view-specific. An entity with at most one view (every entity of the
    # synthetic L fleet) sees all its rows in that view: its maps come from the lists without a lambda. Spark
    # interprets the higher-order functions (``filter``, ``transform``: ``CodegenFallback``), so only an entity with
    # several views pays for them.
    entry = F.struct("node_id", "config_name", "value", "value_source", "synonym", "source_offset", "is_assumed")
    # collect_list skips NULLs: ``_set_keys`` holds only the keys someone set
    entities_df = rows_df.groupBy(*ENTITY).agg(
        F.collect_list(entry).alias("_entries"),
        F.collect_list(F.when(set_by_a_layer(F.col("value_source")), F.col("config_name"))).alias("_set_keys"),
    )
    view_nodes = F.array_compact(F.array_distinct(F.col("_entries.node_id")))
    views_df = entities_df.select(*ENTITY, "_entries", "_set_keys", view_nodes.alias("_view_nodes")).select(
        *ENTITY,
        "_entries",
        "_set_keys",
        F.explode_outer(F.when(F.size("_view_nodes") > 0, F.col("_view_nodes"))).alias("view_node"),
        F.size("_view_nodes").alias("n_views"),
    )
    one_view = F.col("n_views") <= 1
    in_view = F.when(one_view, F.col("_entries")).otherwise(
        F.filter("_entries", lambda e: e["node_id"].isNull() | (e["node_id"] == F.col("view_node")))
    )
    set_keys = F.when(one_view, F.col("_set_keys")).otherwise(
        F.transform(F.filter("_view", lambda e: set_by_a_layer(e["value_source"])), lambda e: e["config_name"])
    )
    # The view's entries once (a projection of its own: Spark keeps a costly column it reads twice), then its maps.
    contexts_df = views_df.select(*ENTITY, "view_node", "n_views", "_set_keys", in_view.alias("_view")).select(
        *ENTITY,
        "view_node",
        "n_views",
        "_view",
        F.map_from_entries(F.arrays_zip(F.col("_view.config_name"), F.col("_view.value"))).alias("cfg"),
        set_keys.alias("set_keys"),
    )
    topic_struct = F.struct(
        F.col("partitions").alias("partitions"),
        F.col("replication_factor").alias("replication_factor"),
        F.col("internal").alias("internal"),
    )
    topic_ctx_df = topics_df.select(
        "cluster_id",
        F.explode(F.array(F.lit(ResourceType.TOPIC), F.lit(ResourceType.CONTROLLER_TOPIC))).alias("resource_type"),
        F.col("topic_name").alias("resource_name"),
        topic_struct.alias("topic"),
    )
    # eligible.leader.replicas.version after the upgrade (transforms.effective.upgrade_effects.with_elr_after_upgrade);
    # a caller that does not know it gets 1, what `--release-version` to 4.1-IV0 or later leaves
    elr_level = F.col(ELR_LEVEL) if ELR_LEVEL in cluster_df.columns else F.lit(1)
    cluster_ctx_df = cluster_df.select(
        "cluster_id",
        F.struct(
            F.col("broker_count").alias("broker_count"),
            F.col("rack_count").alias("rack_count"),
            elr_level.cast("int").alias("elr_level"),
        ).alias("cluster"),
    )
    return contexts_df.join(topic_ctx_df, on=list(ENTITY), how="left").join(
        F.broadcast(cluster_ctx_df), on="cluster_id", how="left"
    )


def _view_meta() -> Column:
    """The ``meta`` map of a context row (key -> value, value_source, synonym, source_offset, is_assumed): built
    only for the rows that fail, not for every view."""
    meta = lambda e: F.struct(  # noqa: E731
        e["value"].alias("value"),
        e["value_source"].alias("value_source"),
        e["synonym"].alias("synonym"),
        e["source_offset"].alias("source_offset"),
        e["is_assumed"].alias("is_assumed"),
    )
    return F.map_from_entries(F.transform("_view", lambda e: F.struct(e["config_name"], meta(e))))


def _slot_needed(rules: Sequence[CompiledConstraint]) -> str | None:
    """Where an expression slot can be judged (``_expression_judged`` without the layer test), as SQL over the
    context row; None when everywhere (a rule judging defaults, or a pure topic/cluster policy)."""
    if any(judges_defaults(rule) or not paired_by_keys(rule.expr_sql or "") for rule in rules):
        return None
    alternatives = []
    for keys in sorted({tuple(rule.constraint.keys) for rule in rules}):
        present = " AND ".join(f"map_contains_key(cfg, {sql_string(k)})" for k in keys)
        set_by_someone = f"arrays_overlap(set_keys, array({', '.join(sql_string(k) for k in keys)}))"
        alternatives.append(f"({present} AND {set_by_someone})")
    return " OR ".join(alternatives)


def _expression_failures(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    tables: RuleTables,
    target_level: int | None,
) -> DataFrame | None:
    expr_rules = rules.expressions
    if not expr_rules:
        return None
    contexts_df = _expression_contexts(effective_df, topics_df, cluster_df, _context_keys(expr_rules))
    slots = expression_slots(expr_rules)
    spark = effective_df.sparkSession
    with ansi_disabled(spark):
        # Each distinct expression once per entity view, its outcome two bits of its chunk's mask; only the views
        # with an outcome other than "holds" go on, one row per chunk that has one, then per rule of that chunk.
        masks = expression_mask_columns(slots, needed=_slot_needed)
        masks = [mask.alias(f"_mask{chunk}") for chunk, mask in enumerate(masks)]
        masked_df = contexts_df.select("*", *masks)
    failing_chunks = ", ".join(
        f"CASE WHEN _mask{chunk} != 0 THEN named_struct('expr_chunk', {chunk}, '_mask', _mask{chunk}) END"
        for chunk in range(len(slots.chunks))
    )
    failing_df = masked_df.select(*contexts_df.columns, F.expr(f"inline(array_compact(array({failing_chunks})))"))
    holds_a_key = F.arrays_overlap(F.map_keys("cfg"), F.col("rule_configs")) | ~F.col("reads_values")
    paired_df = (
        failing_df.join(F.broadcast(tables.expr_rules_df), on=["resource_type", "expr_chunk"], how="inner")
        .select("*", F.expr("CAST(shiftright(_mask, 2 * expr_bit) & 3 AS INT)").alias("outcome"))
        .filter((F.col("outcome") != OUTCOME_HOLDS) & holds_a_key)
        .select("*", _view_meta().alias("meta"))
        .filter(_expression_judged())
    )
    failed_df = _level_filter(paired_df, cluster_df, target_level, rules.level_release_ranks).select(
        "*",
        F.try_element_at("cfg", F.col("first_key")).alias("value"),
        F.try_element_at("meta", F.col("first_key")).alias("first_meta"),
    )
    with ansi_disabled(spark):
        fix = F.coalesce(*expression_fix_columns(expr_rules))
        failed_df = failed_df.select(*failed_df.columns, fix.alias("expr_fix_value"))

    per_rule = Window.partitionBy(*ENTITY, "rule_idx")
    failing_views = F.count(F.lit(1)).over(per_rule)
    first_failing_view = F.min("view_node").over(per_rule)
    all_views_fail = (F.col("n_views") == 0) | (F.col("_failing_views") == F.col("n_views"))
    keep = ~all_views_fail | F.col("view_node").eqNullSafe(F.col("_first_view"))
    return (
        failed_df.select("*", failing_views.alias("_failing_views"), first_failing_view.alias("_first_view"))
        .filter(keep)
        .select(
            *ENTITY,
            F.when(~all_views_fail, F.col("view_node")).cast("int").alias("node_id"),
            F.col("first_key").alias("config_name"),
            F.col("first_meta.value").alias("value"),
            F.col("first_meta.value_source").alias("value_source"),
            # the expression rests on an assumed default when any value it reads is one
            F.exists(
                "rule_configs",
                lambda k: F.coalesce(F.try_element_at(F.col("meta"), k)["is_assumed"], F.lit(False)),
            ).alias("value_assumed"),
            F.col("first_meta.synonym").alias("synonym"),
            F.col("first_meta.source_offset").alias("source_offset"),
            F.lit(None).cast("array<string>").alias("v_elems"),
            "rule_idx",
            F.when(F.col("outcome") == OUTCOME_FALSE, F.lit("EXPRESSION_FALSE"))
            .otherwise(F.lit("COULD_NOT_EVALUATE"))
            .alias("code"),
            F.lit(None).cast("string").alias("detail"),
            "active_from",
            "active_to",
            "release_from",
            "release_to",
            "expr_fix_value",
        )
    )


def _failures(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    tables: RuleTables,
    target_level: int | None,
) -> DataFrame:
    """Every failing (row, rule) pair, FAILURE_COLUMNS; restricted to rules applying at the target or the
    current level when ``target_level`` is given, else for all levels."""
    pairs_df = _single_key_pairs(effective_df, cluster_df, tables, target_level, rules.level_release_ranks)
    failures_df = single_key_failures(
        pairs_df.transform(with_parsed_value).select("*", check_violation().alias("violation"))
    )
    expr_df = _expression_failures(effective_df, topics_df, cluster_df, rules, tables, target_level)
    return failures_df if expr_df is None else failures_df.unionByName(expr_df)


def constraint_failures(
    effective_df: DataFrame, topics_df: DataFrame, cluster_df: DataFrame, rules: CompiledCatalog
) -> DataFrame:
    """Every failing (row, rule) pair of the catalog at every level (``FAILURE_COLUMNS``): what
    ``evaluate_constraints`` and ``violations_by_level`` both start from. An audit checkpoints it and passes it to
    both, so the effective table is scanned and the catalog evaluated once per run instead of twice."""
    tables = rule_tables(effective_df.sparkSession, rules)
    return _failures(effective_df, topics_df, cluster_df, rules, tables, None)


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
    fallback_df: DataFrame, tables: RuleTables, target_level: int, releases_df: DataFrame, level_ranks: Sequence[int]
) -> DataFrame:
    """Per deleted record (cluster, resource type, deleted resource, key, layer): whether every fallback row —
    every broker view, every broker taking the cluster default — passes every single-key rule of the key at the
    target; and the fallback value and source when they are the same everywhere."""
    keys = ["cluster_id", "resource_type", "_deleted", "config_name", "deleted_source"]
    rows_df = fallback_df.select(
        "*", _deleted_resource(F.col("resource_name"), F.col("deleted_source")).alias("_deleted")
    ).select(*keys, "value", "is_sensitive", "config_type", "source")
    at_target = _applies(F.lit(target_level), F.col("_running_rank"), level_ranks)
    checked_df = (
        rows_df.join(F.broadcast(tables.check_rules_df), on=["resource_type", "config_name"], how="inner")
        .join(F.broadcast(releases_df.select("cluster_id", "_running_rank")), on="cluster_id", how="left")
        .filter(at_target & _judged(F.col("source")))
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
    target_level: int,
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


def _conform(df: DataFrame, schema: StructType) -> DataFrame:
    """Select exactly the schema's columns, in order, with its types (nullability is not enforced by Spark
    for derived columns; the writers compare names and types)."""
    return df.select(*[F.col(f.name).cast(f.dataType).alias(f.name) for f in schema.fields])


def evaluate_constraints(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    *,
    target: MetadataVersion,
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
        ``jobs.runtime.expression_check.validate_with_spark``. target: the metadata.version audited.
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
    if failures_df is None:
        failures_df = _failures(effective_df, topics_df, cluster_df, rules, tables, target.level)
    level_ranks = rules.level_release_ranks
    releases_df = _cluster_releases(cluster_df)
    levels_df = releases_df.select("cluster_id", F.col("_current_level").alias("current_level"), "_running_rank")
    with_info_df = failures_df.join(F.broadcast(tables.rule_info_df), on="rule_idx", how="inner").join(
        F.broadcast(levels_df), on="cluster_id", how="left"
    )
    running = F.col("_running_rank")
    at_target = _applies(F.lit(target.level), running, level_ranks)
    fails_at_current = F.max(_applies(F.col("current_level"), running, level_ranks).cast("int")).over(
        Window.partitionBy(*ENTITY, "node_id", "sel_key")
    )
    new_at_target = F.when(F.col("current_level").isNotNull(), F.coalesce(fails_at_current, F.lit(0)) == 0)
    # kept: read by the affected-topics filter and by the rows it is joined back to
    at_target_df = keep("at_target", with_info_df.select("*", new_at_target.alias("new_at_target")).filter(at_target))
    reported_df = at_target_df.transform(
        _with_affected_topics, _affected_topics(effective_df, topics_df, at_target_df)
    ).transform(_with_scope, dynamic_scope_df)
    if fallback_resolver is not None:
        # the fallbacks are resolved for these rows: compute them once, not once for the resolver and once more
        reported_df = keep("reported", reported_df)
    reported_df = reported_df.transform(
        _with_fallbacks, fallback_resolver, tables, target.level, releases_df, level_ranks, keep
    )
    reported_df = reported_df.select("*", fix_value().alias("fix_value"))
    current = F.col("current_level")
    return reported_df.select(
        F.lit(run_id).alias("run_id"),
        F.lit(as_utc(run_ts)).cast("timestamp").alias("run_ts"),
        "cluster_id",
        F.lit(target.name).alias("target_mv"),
        F.lit(target.level).cast("int").alias("target_level"),
        current.cast("int").alias("current_level"),
        F.when(current.isNotNull(), F.lit(target.level) < current).alias("is_downgrade"),
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
    ).transform(_conform, VIOLATIONS)


def violations_by_level(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    *,
    mv_table: MetadataVersionTable,
    failures_df: DataFrame | None = None,
    clusters: Sequence[str] | None = None,
) -> DataFrame:
    """Errors and warnings per cluster at every level of ``mv_table`` (VIOLATIONS_BY_LEVEL), in one pass.

    A cluster without violations has zeros everywhere. ``failures_df``: as for ``evaluate_constraints``.
    ``clusters``: the clusters to report (an audit's scope, whose state and effective rows are those clusters');
    None: the clusters of CLUSTER_STATE and EFFECTIVE_CONFIGS, which scans the effective rows for their cluster ids
    (at the benchmark's L, 5.7 M rows).
    """
    spark = effective_df.sparkSession
    tables = rule_tables(spark, rules)
    if failures_df is None:
        failures_df = _failures(effective_df, topics_df, cluster_df, rules, tables, None)
    failures_df = failures_df.join(
        F.broadcast(tables.rule_info_df.select("rule_idx", "severity")), on="rule_idx", how="inner"
    ).join(
        F.broadcast(_cluster_releases(cluster_df).select("cluster_id", "_running_rank")), on="cluster_id", how="left"
    )
    levels_df = spark.createDataFrame([(v.level, v.name) for v in mv_table.levels], MV_LEVELS_DDL)
    is_error = (F.col("severity") == "error").cast("long")
    applies_at_level = _applies(F.col("level"), F.col("_running_rank"), rules.level_release_ranks)
    counts_df = (
        failures_df.join(F.broadcast(levels_df.select("level")), on=applies_at_level, how="inner")
        .groupBy("cluster_id", "level")
        .agg(F.sum(is_error).alias("errors"), F.sum(1 - is_error).alias("warnings"))
    )
    if clusters is None:
        clusters_df = cluster_df.select("cluster_id").unionByName(effective_df.select("cluster_id")).distinct()
    else:
        clusters_df = local_frame(spark, [(c,) for c in sorted(set(clusters))], "cluster_id string")
    grid_df = clusters_df.join(F.broadcast(levels_df), how="cross")
    errors = F.coalesce(F.col("errors"), F.lit(0)).cast("long")
    return (
        grid_df.join(counts_df, on=["cluster_id", "level"], how="left")
        .select(
            "cluster_id",
            "level",
            "mv",
            errors.alias("errors"),
            F.coalesce(F.col("warnings"), F.lit(0)).cast("long").alias("warnings"),
            (errors == 0).alias("is_safe"),
        )
        .transform(_conform, VIOLATIONS_BY_LEVEL)
    )


def highest_safe_levels(by_level_df: DataFrame, cluster_df: DataFrame) -> DataFrame:
    """Per cluster, the highest MV level without an error violation (HIGHEST_SAFE_LEVELS)."""
    safest = F.max(F.when(F.col("is_safe"), F.struct("level", "mv")))
    best_df = by_level_df.groupBy("cluster_id").agg(safest.alias("best"))
    return (
        best_df.join(cluster_df.select("cluster_id", "current_level"), on="cluster_id", how="left")
        .select(
            "cluster_id",
            F.col("current_level").cast("int").alias("current_level"),
            F.col("best.level").alias("highest_safe_level"),
            F.col("best.mv").alias("highest_safe_mv"),
        )
        .transform(_conform, HIGHEST_SAFE_LEVELS)
    )
