"""Intermediate shapes of the constraint evaluation (``transforms.constraints``), before gold ``VIOLATIONS``.

The compiled catalog becomes three small rule tables that are broadcast and joined to the long-format config
rows (``transforms.configdef.rule_table``): ``check_rules`` (single-key rules, keyed by ``(resource_type,
config_name)``, parameters in generic columns), ``expr_rules`` (expression rules, keyed by ``resource_type``) and
``rule_info`` (what only violating rows need: ids, texts, severity). Every failing (row, rule) pair is a
``FAILURE_COLUMNS`` row, which ``evaluate_constraints`` and ``violations_by_level`` both start from.
"""

from __future__ import annotations

from typing import Final

# What an `expr` may read, field -> Spark SQL type (`topic` only for resource: topic; see expressions.py).
EXPR_CONTEXT_FIELDS: Final[dict[str, str]] = {
    "value": "string",
    "cfg": "map<string,string>",
    "topic": "struct<partitions:int,replication_factor:int,internal:boolean>",
    "cluster": "struct<broker_count:int,rack_count:int,elr_level:int>",
}
# The cluster context's column with eligible.leader.replicas.version after the upgrade command.
ELR_LEVEL: Final = "elr_level"

# One row per single-key rule: rule_num_a / rule_num_b = lower / upper bound, rule_pattern anchored, and the
# KIP-1294 interval [active_from, active_to).
CHECK_RULES_DDL: Final = (
    "rule_idx int, resource_type string, config_name string, rule_kind string, rule_num_a double, "
    "rule_num_b double, rule_values array<string>, rule_values_num array<double>, rule_pattern string, "
    "rule_type string, active_from int, active_to int, judges_defaults boolean, release_from int, release_to int, "
    "rule_sources array<string>"
)
# One row per expression rule; (expr_chunk, expr_bit) = the slot of its outcome in the generated mask columns.
EXPR_RULES_DDL: Final = (
    "rule_idx int, resource_type string, rule_configs array<string>, first_key string, reads_values boolean, "
    "expr_chunk int, expr_bit int, active_from int, active_to int, judges_defaults boolean, release_from int, "
    "release_to int, rule_sources array<string>"
)
# One row per rule (checks and expressions): joined only to violating rows.
RULE_INFO_DDL: Final = (
    "rule_idx int, constraint_id string, constraint_source string, constraint_kind string, "
    "constraint_level int, constraint_mv string, severity string, sel_key string, rule_bound_a string, "
    "rule_bound_b string, rule_values array<string>, rule_values_text string, rule_pattern_text string, "
    "rule_type_text string, expr_text string, reference string, description string, remediation_hint string, "
    "rule_fix_value string, rule_configs_text string, constraint_origin string, constraint_release string"
)

# Every failing (row, rule) pair, at every level or at the target and current levels.
FAILURE_COLUMNS: Final = (
    "cluster_id",
    "resource_type",
    "resource_name",
    "node_id",
    "config_name",
    "value",
    "value_source",
    "value_assumed",
    "synonym",
    "source_offset",
    "v_elems",
    "rule_idx",
    "code",
    "detail",
    "active_from",
    "active_to",
    "release_from",
    "release_to",
    "expr_fix_value",  # expressions: the value of the derived fix (expr_fixes), NULL when none
)

# The metadata.version levels ``violations_by_level`` counts failures at.
MV_LEVELS_DDL: Final = "level int, mv string"
