"""The compiled catalog as small DataFrames that are broadcast and joined to the long-format config rows.

``rule_tables(spark, rules)`` builds the three tables (shapes ``CHECK_RULES_DDL``, ``EXPR_RULES_DDL`` and
``RULE_INFO_DDL`` of ``schemas.evaluation``) from the rows of ``check_rule_rows``, ``expr_rule_rows`` and
``rule_info_rows``; ``judges_defaults`` says whether a rule judges values nobody set.

Design: a single-key rule is one row of ``check_rules`` keyed by ``(resource_type, config_name)`` with its
parameters in generic columns (``rule_kind``, ``rule_num_a``/``rule_num_b`` = lower/upper bound, ``rule_values`` /
``rule_values_num``, ``rule_pattern`` anchored, ``rule_type``), its KIP-1294 level interval (``active_from``,
``active_to``), for a release-bound base validator its release interval (``release_from``, ``release_to``, release
ranks) and the layers it judges (``rule_sources``, empty = every layer). A config row joins only the rules of its
own key, and one generic ``CASE rule_kind`` (``checks.check_violation``) evaluates whichever rule it met, so per-row
work and generated code size do not grow with the catalog. Expression rules are rows of ``expr_rules`` keyed by
``resource_type`` with their slot (``expr_chunk``, ``expr_bit``: ``expressions.expression_slots``) and ``reads_values``
(``expressions.paired_by_keys``: evaluated only for entities holding one of its configs; if not, it is a pure
topic/cluster policy evaluated for every entity). Both tables carry ``judges_defaults``, false for the rules of the
generated default catalog (see ``judges_defaults``). ``rule_info`` holds everything needed only for violating rows
(ids, texts, severity); it is joined after filtering.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict
from pyspark.sql import DataFrame, SparkSession

from schemas.constraints import CompiledCatalog, CompiledConstraint
from schemas.evaluation import CHECK_RULES_DDL, EXPR_RULES_DDL, RULE_INFO_DDL
from transforms.configdef.expressions import EXPR_CHUNK_SIZE, expression_slots, paired_by_keys
from transforms.configdef.generate import DEFAULT_SOURCE
from transforms.configdef.messages import format_number
from transforms.kit.local_frames import local_frame

__all__ = ["RuleTables", "check_rule_rows", "expr_rule_rows", "judges_defaults", "rule_info_rows", "rule_tables"]

_PLAIN_NUMBER = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")


def _sel_key(rule: CompiledConstraint) -> str:
    """The rule family ``new_at_target`` compares across levels: the KIP-1294 selection key within one kind of rule
    (release-bound base / unbound base / MV validator), so a base validator failing now does not hide an MV
    validator that fails only at the target, and the reverse."""
    resource, keys = rule.constraint.selection_key
    return rule.constraint.rule_kind + "|" + resource + "|" + "\x1f".join(keys)


def _sources(rule: CompiledConstraint) -> list[str]:
    return [str(s) for s in rule.constraint.sources or ()]


def judges_defaults(rule: CompiledConstraint) -> bool:
    """Whether the rule judges values nobody set (source DEFAULT_CONFIG).

    A rule the user wrote does: a policy such as "min.insync.replicas >= 2" must see the default 1. A rule of the
    generated default catalog does not: it is one of Kafka's own ConfigDef validators or cross-field checks, which
    Kafka's defaults satisfy in the release that registers them. The audited state holds the *target* release's
    defaults, so an older release's validator judging them (at an older level, in ``violations_by_level`` and
    ``new_at_target``) would report what no cluster at that level has: e.g. 3.7's ``in`` list for
    ``group.coordinator.rebalance.protocols`` rejecting 4.x's default ``classic,consumer,streams``. Generated
    expressions also need every key they read to exist in the audited release (a key Kafka removed, or one a newer
    release adds, cannot be evaluated there; see ``evaluate``).
    """
    return rule.source != DEFAULT_SOURCE


def check_rule_rows(rules: CompiledCatalog) -> list[tuple[Any, ...]]:
    """One row per single-key rule, in CHECK_RULES_DDL order."""
    rows = []
    for rule in rules.checks:
        c = rule.constraint
        check = c.check
        assert check is not None
        lo = check.min if check.min is not None else (check.between[0] if check.between else None)
        hi = check.max if check.max is not None else (check.between[1] if check.between else None)
        values = check.in_ if check.in_ is not None else check.not_in
        values_num = [float(v) for v in values or () if _PLAIN_NUMBER.match(v.strip())]
        pattern = f"^(?:{check.regex})$" if check.regex is not None else None
        rows.append(
            (
                rule.rule_idx,
                c.resource_type,
                c.keys[0],
                check.kind,
                lo,
                hi,
                list(values) if values is not None else [],
                values_num,
                pattern,
                check.type.upper() if check.type else None,
                rule.active_from,
                rule.active_to,
                judges_defaults(rule),
                rule.release_from,
                rule.release_to,
                _sources(rule),
            )
        )
    return rows


def expr_rule_rows(rules: CompiledCatalog, *, chunk_size: int = EXPR_CHUNK_SIZE) -> list[tuple[Any, ...]]:
    """One row per expression rule, in EXPR_RULES_DDL order; ``expr_chunk`` / ``expr_bit`` are its slot in
    ``expressions.expression_slots(rules.expressions, chunk_size=chunk_size)``."""
    slot_of = expression_slots(rules.expressions, chunk_size=chunk_size).slot_of
    return [
        (
            rule.rule_idx,
            rule.constraint.resource_type,
            list(rule.constraint.keys),
            rule.constraint.keys[0],
            paired_by_keys(rule.expr_sql or ""),
            *slot_of[rule.rule_idx],
            rule.active_from,
            rule.active_to,
            judges_defaults(rule),
            rule.release_from,
            rule.release_to,
            _sources(rule),
        )
        for rule in rules.expressions
    ]


def rule_info_rows(rules: CompiledCatalog) -> list[tuple[Any, ...]]:
    """One row per rule (checks and expressions), in RULE_INFO_DDL order."""
    rows = []
    for rule in rules.rules:
        c = rule.constraint
        check = c.check
        lo = hi = values = pattern = type_text = fix = None
        kind = "expr"
        if check is not None:
            kind = check.kind
            lo_num = check.min if check.min is not None else (check.between[0] if check.between else None)
            hi_num = check.max if check.max is not None else (check.between[1] if check.between else None)
            lo = format_number(lo_num) if lo_num is not None else None
            hi = format_number(hi_num) if hi_num is not None else None
            values = check.in_ if check.in_ is not None else check.not_in
            pattern = check.regex
            type_text = check.type or None
            if check.in_ is not None and len(check.in_) == 1:
                fix = check.in_[0]
        rows.append(
            (
                rule.rule_idx,
                c.id,
                rule.source,
                kind,
                rule.level,
                rule.since_mv,
                c.severity,
                _sel_key(rule),
                lo,
                hi,
                list(values) if values is not None else [],
                ", ".join(values) if values is not None else None,
                pattern,
                type_text,
                c.expr,
                c.reference,
                c.description or None,
                c.remediation,
                fix,
                ", ".join(c.keys),
                rule.origin,
                c.release,
            )
        )
    return rows


class RuleTables(BaseModel):
    """The three rule DataFrames of one compiled catalog."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    check_rules_df: DataFrame
    expr_rules_df: DataFrame
    rule_info_df: DataFrame


def rule_tables(spark: SparkSession, rules: CompiledCatalog) -> RuleTables:
    """Local (driver-built, tiny) DataFrames of the catalog; joins broadcast them."""
    return RuleTables(
        check_rules_df=local_frame(spark, check_rule_rows(rules), CHECK_RULES_DDL),
        expr_rules_df=local_frame(spark, expr_rule_rows(rules), EXPR_RULES_DDL),
        rule_info_df=local_frame(spark, rule_info_rows(rules), RULE_INFO_DDL),
    )
