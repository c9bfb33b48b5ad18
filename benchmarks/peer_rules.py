"""The default catalog's single-key rules as the peers take them: one row condition and one SQL predicate per rule.

Every peer engine checks a table, not the product's rule join, so each rule becomes the nearest check a peer user
would write over the judged rows (``peer_frame``): the rule's rows are ``resource_type = … AND config_name = …``
(and, for Kafka's generated rules, not a default: they judge only values someone set), and it holds where its
predicate over the trimmed value (``v_trim``), its number (``v_num``) or, for a LIST value, each element is true.
A predicate that is NULL (a value that is not a number under a numeric bound) holds, as in Great Expectations, DQX
and Soda, where a missing number is another check's business (the product's type rule). The product judges more
finely still (the value parsed as the key's ConfigDef type, the releases each cluster runs): the rows where a
peer's verdict differs from the product's are counted, not hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.constraints import CompiledConstraint
from transforms.configdef.rule_table import judges_defaults
from transforms.configdef.sql_text import sql_string
from transforms.constraints.failures import single_key_rows

# The grammar of each ConfigDef type's literal (a value that does not match fails the type rule).
TYPE_GRAMMAR: Final = {
    "int": r"^[+-]?[0-9]+$",
    "long": r"^[+-]?[0-9]+$",
    "short": r"^[+-]?[0-9]+$",
    "double": r"^[+-]?(NaN|Infinity|[0-9]+\.?[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?)[fFdD]?$",
    "boolean": r"^(?i)(true|false)$",
    "class": r"^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$",
}
EMPTY_ELEMENT: Final = r"(^|,)\s*(,|$)"
REPEATED_ELEMENT: Final = r"(^|,)\s*([^,]+?)\s*,(.*,)?\s*\2\s*(,|$)"  # an element repeated later in the list
_BLANKS: Final = r"^[\x00-\x20]+|[\x00-\x20]+$"  # what Kafka's ConfigDef trims


@dataclass(frozen=True)
class PeerRule:
    """One single-key rule as a table check: the rows it judges and the predicate they must meet."""

    rule_id: str
    resource_type: str
    config_name: str
    passes: str  # SQL: true (or NULL) where a row of the rule holds
    judges_defaults: bool = True  # False: the rule judges only values someone set (``rule_table.judges_defaults``)

    @property
    def condition(self) -> str:
        """SQL: the rule's rows."""
        rows = f"resource_type = {sql_string(self.resource_type)} AND config_name = {sql_string(self.config_name)}"
        return rows if self.judges_defaults else f"{rows} AND source <> 'DEFAULT_CONFIG'"


def peer_frame(effective_df: DataFrame) -> DataFrame:
    """The rows the single-key rules judge, with the value trimmed (``v_trim``) and as a number (``v_num``)."""
    trimmed = F.regexp_replace("value", _BLANKS, "")
    return single_key_rows(effective_df).select(
        "cluster_id",
        "resource_type",
        "resource_name",
        "node_id",
        "config_name",
        "value",
        "source",
        "config_type",
        trimmed.alias("v_trim"),
        trimmed.try_cast("double").alias("v_num"),
    )


def _values(items: tuple[str, ...] | list[str] | None) -> str:
    return ", ".join(sql_string(v) for v in items or ())


def _bounds(rule: CompiledConstraint) -> tuple[float | None, float | None]:
    check = rule.constraint.check
    assert check is not None
    low = check.min if check.min is not None else (check.between[0] if check.between else None)
    high = check.max if check.max is not None else (check.between[1] if check.between else None)
    return low, high


def _per_element(test: str) -> str:
    """``test`` (``IN (...)``) of the value, or of each element of a LIST value (Kafka's ``ValidList``)."""
    # an empty value is a list of no elements; an empty element among others is an element like any other
    each = f"v_trim = '' OR forall(split(v_trim, ','), e -> trim(e) {test})"
    return f"CASE WHEN config_type = 'LIST' THEN {each} ELSE v_trim {test} END"


def _passes(rule: CompiledConstraint) -> str:
    """The predicate of one single-key rule over ``v_trim`` / ``v_num`` / ``value``."""
    check = rule.constraint.check
    assert check is not None
    kind = check.kind
    if kind in ("min", "max", "between"):
        low, high = _bounds(rule)
        parts = ([f"v_num >= {low!r}"] if low is not None else []) + (
            [f"v_num <= {high!r}"] if high is not None else []
        )
        return " AND ".join(parts) or "true"
    if kind == "in":
        return _per_element(f"IN ({_values(check.in_)})") if check.in_ else "false"
    if kind == "not_in":
        return _per_element(f"NOT IN ({_values(check.not_in)})") if check.not_in else "true"
    if kind == "regex":
        return f"v_trim RLIKE {sql_string(f'^(?:{check.regex})$')}"
    if kind == "not_null":
        return "value IS NOT NULL"
    if kind == "type":
        return f"v_trim RLIKE {sql_string(TYPE_GRAMMAR.get(check.type or '', r'^.*$'))}"
    if kind == "non_empty_list":
        return "v_trim <> ''"
    if kind == "no_empty_elements":  # an empty value is a list of no elements
        return f"v_trim = '' OR NOT v_trim RLIKE {sql_string(EMPTY_ELEMENT)}"
    return f"NOT v_trim RLIKE {sql_string(REPEATED_ELEMENT)}"  # no_duplicates


def peer_rule(rule: CompiledConstraint) -> PeerRule:
    """``rule`` as a table check."""
    c = rule.constraint
    return PeerRule(
        rule_id=c.id,
        resource_type=str(c.resource_type),
        config_name=c.keys[0],
        passes=_passes(rule),
        judges_defaults=judges_defaults(rule),
    )


def judged_pairs(frame_df: DataFrame, rules: list[PeerRule]) -> int:
    """How many (row, rule) pairs ``rules`` judge on ``frame_df``: each rule's rows, summed (one aggregate; a rule
    that judges only values someone set leaves out the key's defaults, as its ``condition`` does)."""
    is_default = F.coalesce(F.col("source") == "DEFAULT_CONFIG", F.lit(False)).alias("is_default")
    per_key = {
        (r["resource_type"], r["config_name"], r["is_default"]): r["n"]
        for r in frame_df.groupBy("resource_type", "config_name", is_default).agg(F.count("*").alias("n")).collect()
    }
    return sum(
        per_key.get((rule.resource_type, rule.config_name, False), 0)
        + (per_key.get((rule.resource_type, rule.config_name, True), 0) if rule.judges_defaults else 0)
        for rule in rules
    )
