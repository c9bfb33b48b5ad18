"""The constraint failures of the effective rows at every level: single-key checks and expressions judged per entity,
the level range each failure applies to (KIP-1294's floorEntry, the release the brokers run at each level). The
violations at the target (``evaluate``) and the counts at every level (``levels``) both read these rows."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from schemas.constraints import CompiledCatalog, CompiledConstraint
from schemas.evaluation import ELR_LEVEL, FAILURE_COLUMNS
from schemas.kafka_vocabulary import ConfigSource, ResourceType
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
from transforms.configdef.rule_table import RuleTables, judges_defaults, rule_tables
from transforms.configdef.sql_text import sql_string
from transforms.kit.audit_scope import set_by_a_layer
from transforms.kit.per_cluster import column_of
from transforms.kit.releases import release_rank_column

ENTITY: Final = ("cluster_id", "resource_type", "resource_name")


BROKER_LAYERS: Final = (
    ConfigSource.DYNAMIC_BROKER_CONFIG,
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    ConfigSource.STATIC_BROKER_CONFIG,
)


def in_rule_sources(source: Column) -> Column:
    """The value's layer is one the rule judges (every layer when the rule names none)."""
    return (F.size("rule_sources") == 0) | F.coalesce(F.array_contains("rule_sources", source), F.lit(False))


def judged(source: Column) -> Column:
    """A single-key (row, rule) pair is evaluated: the rule judges defaults or the value was set by someone
    (``rule_table.judges_defaults``), and the value comes from a layer the rule judges."""
    set_or_judged = F.col("judges_defaults") | ~F.coalesce(source == F.lit(ConfigSource.DEFAULT_CONFIG), F.lit(False))
    return set_or_judged & in_rule_sources(source)


def expression_judged() -> Column:
    """An (entity, expression rule) pair is evaluated: the rule judges defaults, or (a generated Kafka check)
    every key it reads exists in the audited release and at least one of them was set by someone (is among the
    view's ``set_keys``). Array functions, not lambdas: this runs once per pair, and Spark interprets lambdas."""
    present = F.size(F.array_except("rule_configs", F.map_keys("cfg"))) == 0
    set_by_someone = F.coalesce(F.arrays_overlap("rule_configs", "set_keys"), F.lit(False))
    first_source = F.try_element_at(F.col("meta"), F.col("first_key"))["value_source"]
    return (F.col("judges_defaults") | (present & set_by_someone)) & in_rule_sources(first_source)


def release_rank_of_level(level: Column, level_ranks: Sequence[int]) -> Column:
    """The release rank of a metadata.version level (the newest release above the table; NULL when unknown)."""
    if not level_ranks:
        return F.lit(None).cast("int")
    pairs = [F.lit(x) for lv, rank in enumerate(level_ranks, start=1) for x in (lv, rank)]
    return F.when(level > len(level_ranks), F.lit(level_ranks[-1])).otherwise(
        F.try_element_at(F.create_map(*pairs), level)
    )


def applies(level: Column, running_rank: Column, level_ranks: Sequence[int]) -> Column:
    """The rule applies at ``level`` for a cluster whose brokers run the release of rank ``running_rank`` now:
    its KIP-1294 level interval contains ``level`` and, for a release-bound base validator, its release interval
    contains ``max(running_rank, release of level)`` (an upgrade to ``level`` needs that release's binaries; a NULL
    running rank counts as the level's release). NULL when ``level`` is NULL."""
    upper_ok = F.col("active_to").isNull() | (level < F.col("active_to"))
    in_levels = (F.col("active_from") <= level) & upper_ok
    release_at_level = F.greatest(running_rank, release_rank_of_level(level, level_ranks))
    in_releases = F.col("release_from").isNull() | (
        (F.col("release_from") <= release_at_level)
        & (F.col("release_to").isNull() | (release_at_level < F.col("release_to")))
    )
    return in_levels & in_releases


def cluster_releases(cluster_df: DataFrame) -> DataFrame:
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


def level_filter(
    df: DataFrame, cluster_df: DataFrame, target_level: int | Column | None, level_ranks: Sequence[int]
) -> DataFrame:
    """Keep (row, rule) pairs whose rule applies at the target or at the cluster's current level."""
    if target_level is None:
        return df
    running = F.col("_running_rank")
    at_target = applies(column_of(target_level), running, level_ranks)
    at_current = F.coalesce(applies(F.col("_current_level"), running, level_ranks), F.lit(False))
    return (
        df.join(F.broadcast(cluster_releases(cluster_df)), on="cluster_id", how="left")
        .filter(at_target | at_current)
        .drop("_current_level", "_running_rank")
    )


def single_key_pairs(
    effective_df: DataFrame, cluster_df: DataFrame, rules: CompiledCatalog, target_level: int | Column | None
) -> DataFrame:
    """The (row, rule) pairs the catalog's single-key rules judge, each row with its rule's columns
    (``CHECK_RULES_DDL``), before any verdict: TOPIC and GROUP rows only where they are overrides, pairs the rule
    judges (``judged``), and, when ``target_level`` is given, rules applying at the target or the cluster's current
    level. ``single_key_failures`` keeps the pairs whose verdict (``checks.check_violation``) is not NULL."""
    return single_key_pair_frame(
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


def single_key_verdicts(pairs_df: DataFrame) -> DataFrame:
    """``single_key_failures`` of ``single_key_pairs`` judged by the native checks (``checks.check_violation`` over
    ``checks.with_parsed_value``)."""
    return single_key_failures(pairs_df.transform(with_parsed_value).select("*", check_violation().alias("violation")))


def single_key_rows(effective_df: DataFrame) -> DataFrame:
    """The rows single-key rules judge: every row but inherited TOPIC and GROUP values (an inherited topic value is
    judged once, on the broker row it comes from)."""
    rtype, source = F.col("resource_type"), F.col("source")
    is_topic_override = (rtype == ResourceType.TOPIC) & (source == ConfigSource.DYNAMIC_TOPIC_CONFIG)
    is_group_override = (rtype == ResourceType.GROUP) & (source == ConfigSource.DYNAMIC_GROUP_CONFIG)
    is_inheritable = rtype.isin(ResourceType.TOPIC, ResourceType.GROUP)
    return effective_df.filter(~is_inheritable | is_topic_override | is_group_override)


def single_key_pair_frame(
    effective_df: DataFrame,
    cluster_df: DataFrame,
    tables: RuleTables,
    target_level: int | Column | None,
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
    joined_df = joined_df.filter(judged(F.col("value_source")))
    return level_filter(joined_df, cluster_df, target_level, level_ranks)


def context_keys(rules: Sequence[CompiledConstraint]) -> dict[str, list[str] | None]:
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


def expression_contexts(
    effective_df: DataFrame, topics_df: DataFrame, cluster_df: DataFrame, keys_by_type: dict[str, list[str] | None]
) -> DataFrame:
    """One row per entity and broker view: its entries (``_view``, for ``view_meta``), ``cfg`` map, the keys someone
    set (``set_keys``: not from the DEFAULT_CONFIG layer), topic and cluster structs, n_views.

    ``keys_by_type`` names the resource types to build contexts for and, per type, the only keys the maps need
    (None: every key). Rows of other keys are dropped before the shuffle that builds the maps.
    """
    rows_df = _context_rows(effective_df, keys_by_type)
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
    return contexts_df.join(_topic_contexts(topics_df), on=list(ENTITY), how="left").join(
        F.broadcast(_cluster_contexts(cluster_df)), on="cluster_id", how="left"
    )


def _context_rows(effective_df: DataFrame, keys_by_type: dict[str, list[str] | None]) -> DataFrame:
    """The effective rows an expression context holds (the types of ``keys_by_type``, only their keys), with the
    columns of a context entry: the pruning happens before the shuffle that builds the maps."""
    rtype, name = F.col("resource_type"), F.col("config_name")
    wanted = [rtype == t if keys is None else (rtype == t) & name.isin(*keys) for t, keys in keys_by_type.items()]
    in_context = functools.reduce(lambda a, b: a | b, wanted)
    return effective_df.filter(in_context).select(
        *ENTITY,
        "node_id",
        "config_name",
        "value",
        F.col("source").alias("value_source"),
        "synonym",
        "source_offset",
        "is_assumed",
    )


def _topic_contexts(topics_df: DataFrame) -> DataFrame:
    """The ``topic`` struct of each topic, keyed by entity, once as a TOPIC and once as a CONTROLLER_TOPIC (the
    controller's view of the topic reads the same facts)."""
    topic_struct = F.struct(
        F.col("partitions").alias("partitions"),
        F.col("replication_factor").alias("replication_factor"),
        F.col("internal").alias("internal"),
    )
    return topics_df.select(
        "cluster_id",
        F.explode(F.array(F.lit(ResourceType.TOPIC), F.lit(ResourceType.CONTROLLER_TOPIC))).alias("resource_type"),
        F.col("topic_name").alias("resource_name"),
        topic_struct.alias("topic"),
    )


def _cluster_contexts(cluster_df: DataFrame) -> DataFrame:
    """The ``cluster`` struct of each cluster (broker and rack counts, the ELR level after the upgrade)."""
    # eligible.leader.replicas.version after the upgrade (transforms.effective.upgrade_effects.with_elr_after_upgrade);
    # a caller that does not know it gets 1, what `--release-version` to 4.1-IV0 or later leaves
    elr_level = F.col(ELR_LEVEL) if ELR_LEVEL in cluster_df.columns else F.lit(1)
    return cluster_df.select(
        "cluster_id",
        F.struct(
            F.col("broker_count").alias("broker_count"),
            F.col("rack_count").alias("rack_count"),
            elr_level.cast("int").alias("elr_level"),
        ).alias("cluster"),
    )


def view_meta() -> Column:
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


def slot_needed(rules: Sequence[CompiledConstraint]) -> str | None:
    """Where an expression slot can be judged (``expression_judged`` without the layer test), as SQL over the
    context row; None when everywhere (a rule judging defaults, or a pure topic/cluster policy)."""
    if any(judges_defaults(rule) or not paired_by_keys(rule.expr_sql or "") for rule in rules):
        return None
    alternatives = []
    for keys in sorted({tuple(rule.constraint.keys) for rule in rules}):
        present = " AND ".join(f"map_contains_key(cfg, {sql_string(k)})" for k in keys)
        set_by_someone = f"arrays_overlap(set_keys, array({', '.join(sql_string(k) for k in keys)}))"
        alternatives.append(f"({present} AND {set_by_someone})")
    return " OR ".join(alternatives)


def expression_failures(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    tables: RuleTables,
    target_level: int | Column | None,
) -> DataFrame | None:
    """``FAILURE_COLUMNS`` of the expression rules' failures per entity view; None when the catalog has none."""
    expr_rules = rules.expressions
    if not expr_rules:
        return None
    contexts_df = expression_contexts(effective_df, topics_df, cluster_df, context_keys(expr_rules))
    slots = expression_slots(expr_rules)
    spark = effective_df.sparkSession
    with ansi_disabled(spark):
        # Each distinct expression once per entity view, its outcome two bits of its chunk's mask; only the views
        # with an outcome other than "holds" go on, one row per chunk that has one, then per rule of that chunk.
        masks = expression_mask_columns(slots, needed=slot_needed)
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
        .select("*", view_meta().alias("meta"))
        .filter(expression_judged())
    )
    failed_df = level_filter(paired_df, cluster_df, target_level, rules.level_release_ranks).select(
        "*",
        F.try_element_at("cfg", F.col("first_key")).alias("value"),
        F.try_element_at("meta", F.col("first_key")).alias("first_meta"),
    )
    with ansi_disabled(spark):
        fix = F.coalesce(*expression_fix_columns(expr_rules))
        failed_df = failed_df.select(*failed_df.columns, fix.alias("expr_fix_value"))
    return _collapse_failing_views(failed_df)


def _collapse_failing_views(failed_df: DataFrame) -> DataFrame:
    """``FAILURE_COLUMNS`` of the failing (view, rule) rows: when every view of an entity fails a rule, one row for
    it (the first failing view's, ``node_id`` NULL), else one row per failing view, naming its node."""
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


def failures(
    effective_df: DataFrame,
    topics_df: DataFrame,
    cluster_df: DataFrame,
    rules: CompiledCatalog,
    tables: RuleTables,
    target_level: int | Column | None,
) -> DataFrame:
    """Every failing (row, rule) pair, FAILURE_COLUMNS; restricted to rules applying at the target or the
    current level when ``target_level`` is given, else for all levels."""
    pairs_df = single_key_pair_frame(effective_df, cluster_df, tables, target_level, rules.level_release_ranks)
    failures_df = single_key_verdicts(pairs_df)
    expr_df = expression_failures(effective_df, topics_df, cluster_df, rules, tables, target_level)
    return failures_df if expr_df is None else failures_df.unionByName(expr_df)


def constraint_failures(
    effective_df: DataFrame, topics_df: DataFrame, cluster_df: DataFrame, rules: CompiledCatalog
) -> DataFrame:
    """Every failing (row, rule) pair of the catalog at every level (``FAILURE_COLUMNS``): what
    ``evaluate_constraints`` and ``violations_by_level`` both start from. An audit checkpoints it and passes it to
    both, so the effective table is scanned and the catalog evaluated once per run instead of twice."""
    tables = rule_tables(effective_df.sparkSession, rules)
    return failures(effective_df, topics_df, cluster_df, rules, tables, None)


def conform(df: DataFrame, schema: StructType) -> DataFrame:
    """Select exactly the schema's columns, in order, with its types (nullability is not enforced by Spark
    for derived columns; the writers compare names and types)."""
    return df.select(*[F.col(f.name).cast(f.dataType).alias(f.name) for f in schema.fields])
