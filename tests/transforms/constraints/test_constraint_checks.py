"""The generic single-key checks: Kafka parsing (Java number grammar after trim, LIST splitting) and NULL rules.

Every case runs through the real rule table (``check_rule_rows``) and the one ``CASE rule_kind`` dispatch; all
cases are evaluated in one Spark job (module fixture) and asserted one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from schemas.constraints import CompiledCatalog
from schemas.evaluation import CHECK_RULES_DDL
from transforms.configdef.checks import check_violation, with_parsed_value
from transforms.configdef.rule_table import check_rule_rows

pytestmark = pytest.mark.spark

CHECKS = {
    "min": "{min: 1048576}",
    "max": "{max: 100}",
    "between": "{between: [0, 1]}",
    "in-list": "{in: [compact, delete]}",
    "in-string": "{in: [producer, lz4]}",
    "in-number": "{in: [-1, 1, 9]}",
    "in-boolean": "{in: [true]}",
    "not-in": "{not_in: [producer, '0']}",
    "regex": "{regex: '[0-9]+:[0-9]+'}",
    "type-int": "{type: int}",
    "type-short": "{type: short}",
    "type-long": "{type: long}",
    "type-double": "{type: double}",
    "type-boolean": "{type: boolean}",
    "type-class": "{type: class}",
    "type-list": "{type: list}",
    "not-null": "{not_null: true}",
    "non-empty-list": "{non_empty_list: true}",
    "no-duplicates": "{no_duplicates: true}",
    "no-empty-elements": "{no_empty_elements: true}",
}

# (case id, check, config_type, value, expected code or None when the value passes)
CASES: list[tuple[str, str, str | None, str | None, str | None]] = [
    ("min-pass", "min", "INT", "1048576", None),
    ("min-fail", "min", "INT", "1048575", "BELOW_MIN"),
    ("min-unparseable", "min", "INT", "1MB", "NOT_A_NUMBER"),
    ("min-none", "min", "INT", None, "NULL_VALUE"),
    ("min-java-trim", "min", "INT", " 2000000\t\n", None),
    ("min-decimal-is-not-an-int", "min", "INT", "1048576.0", "NOT_A_NUMBER"),
    ("min-int-overflow", "min", "INT", "99999999999", "NOT_A_NUMBER"),
    ("min-long-fits", "min", "LONG", "99999999999", None),
    ("min-underscores", "min", "LONG", "1_048_576", "NOT_A_NUMBER"),
    ("min-plus-sign", "min", "LONG", "+2000000", None),
    ("min-unknown-type-as-double", "min", None, "2e6", None),
    ("min-nan-passes-like-java", "min", "DOUBLE", "NaN", None),
    ("min-spark-only-inf", "min", "DOUBLE", "inf", "NOT_A_NUMBER"),
    ("min-java-infinity", "min", "DOUBLE", "Infinity", None),
    ("min-java-double-suffix", "min", "DOUBLE", "2e6d", None),
    ("min-sensitive-not-checked", "min", "PASSWORD", "[redacted]", None),
    ("max-pass", "max", "INT", "100", None),
    ("max-fail", "max", "INT", "101", "ABOVE_MAX"),
    ("max-unparseable", "max", "INT", "x", "NOT_A_NUMBER"),
    ("max-none", "max", "INT", None, "NULL_VALUE"),
    ("max-nan-passes-although-spark-orders-it-last", "max", "DOUBLE", "NaN", None),
    ("between-pass", "between", "DOUBLE", "0.5", None),
    ("between-inclusive-bound", "between", "DOUBLE", "1", None),
    ("between-below", "between", "DOUBLE", "-0.1", "BELOW_MIN"),
    ("between-above", "between", "DOUBLE", "1.5", "ABOVE_MAX"),
    ("between-unparseable", "between", "DOUBLE", "half", "NOT_A_NUMBER"),
    ("between-none", "between", "DOUBLE", None, "NULL_VALUE"),
    ("in-list-pass", "in-list", "LIST", "compact , delete", None),
    ("in-list-fail", "in-list", "LIST", "compact,foo", "NOT_ALLOWED"),
    ("in-list-empty-passes", "in-list", "LIST", "  ", None),
    ("in-list-case-sensitive", "in-list", "LIST", "Compact", "NOT_ALLOWED"),
    ("in-list-trailing-empty-element", "in-list", "LIST", "compact,", "NOT_ALLOWED"),
    ("in-list-none", "in-list", "LIST", None, "NULL_VALUE"),
    ("in-string-pass-trimmed", "in-string", "STRING", " lz4 ", None),
    ("in-string-fail-case", "in-string", "STRING", "LZ4", "NOT_ALLOWED"),
    ("in-string-none", "in-string", "STRING", None, "NULL_VALUE"),
    ("in-number-pass", "in-number", "INT", "-1", None),
    ("in-number-compares-numbers", "in-number", "INT", "09", None),
    ("in-number-fail", "in-number", "INT", "5", "NOT_ALLOWED"),
    ("in-number-unparseable", "in-number", "INT", "nine", "NOT_ALLOWED"),
    ("in-boolean-case-insensitive", "in-boolean", "BOOLEAN", "TRUE", None),
    ("in-boolean-fail", "in-boolean", "BOOLEAN", "false", "NOT_ALLOWED"),
    ("not-in-pass", "not-in", "STRING", "lz4", None),
    ("not-in-fail", "not-in", "STRING", "producer", "FORBIDDEN"),
    ("not-in-numeric", "not-in", "INT", "-0", "FORBIDDEN"),
    ("not-in-list-element", "not-in", "LIST", "lz4, producer", "FORBIDDEN"),
    ("not-in-none-passes", "not-in", "STRING", None, None),
    ("regex-pass", "regex", "STRING", "1:2", None),
    ("regex-fail", "regex", "STRING", "1:x", "NO_MATCH"),
    ("regex-is-anchored", "regex", "STRING", "x1:2", "NO_MATCH"),
    ("regex-none", "regex", "STRING", None, "NULL_VALUE"),
    ("regex-list-every-element", "regex", "LIST", "1:2, 3:4", None),
    ("regex-list-one-bad-element", "regex", "LIST", "1:2,x", "NO_MATCH"),
    ("type-int-pass", "type-int", "STRING", " 42 ", None),
    ("type-int-unparseable", "type-int", "STRING", "4.2", "WRONG_TYPE"),
    ("type-int-none-passes", "type-int", "STRING", None, None),
    ("type-short-overflow", "type-short", "STRING", "40000", "WRONG_TYPE"),
    ("type-long-max", "type-long", "STRING", "9223372036854775807", None),
    ("type-long-overflow", "type-long", "STRING", "9223372036854775808", "WRONG_TYPE"),
    ("type-double-pass", "type-double", "STRING", "1e3", None),
    ("type-double-comma", "type-double", "STRING", "1,5", "WRONG_TYPE"),
    ("type-boolean-pass", "type-boolean", "STRING", "True", None),
    ("type-boolean-fail", "type-boolean", "STRING", "yes", "WRONG_TYPE"),
    ("type-class-pass", "type-class", "STRING", "org.apache.kafka.Foo$Bar", None),
    ("type-class-fail", "type-class", "STRING", "org..Foo", "WRONG_TYPE"),
    ("type-list-anything", "type-list", "STRING", "a,,b", None),
    ("not-null-pass", "not-null", "STRING", "x", None),
    ("not-null-fail", "not-null", "STRING", None, "NULL_VALUE"),
    ("not-null-sensitive-still-checked", "not-null", "PASSWORD", None, "NULL_VALUE"),
    ("non-empty-list-pass", "non-empty-list", "LIST", "a", None),
    ("non-empty-list-blank", "non-empty-list", "LIST", " \t", "EMPTY_LIST"),
    ("non-empty-list-none-passes", "non-empty-list", "LIST", None, None),
    ("no-duplicates-pass", "no-duplicates", "LIST", "a,b", None),
    ("no-duplicates-fail", "no-duplicates", "LIST", "a, b ,a", "DUPLICATES"),
    ("no-duplicates-none", "no-duplicates", "LIST", None, None),
    ("no-empty-elements-pass", "no-empty-elements", "LIST", "a,b", None),
    ("no-empty-elements-middle", "no-empty-elements", "LIST", "a,,b", "EMPTY_ELEMENT"),
    ("no-empty-elements-trailing", "no-empty-elements", "LIST", "a, ", "EMPTY_ELEMENT"),
    ("no-empty-elements-blank-is-empty-list", "no-empty-elements", "LIST", "", None),
    ("no-empty-elements-none", "no-empty-elements", "LIST", None, None),
]


@pytest.fixture(scope="module")
def results(spark: Any, compile_yaml: Callable[..., CompiledCatalog]) -> dict[str, Any]:
    entries = "\n".join(f"  - {{id: {cid}, resource: topic, config: k, check: {c}}}" for cid, c in CHECKS.items())
    rules = compile_yaml("constraints:\n" + entries)
    rule_rows = {r.constraint.id: row for r, row in zip(rules.checks, check_rule_rows(rules), strict=True)}
    rows = [
        (case_id, value, config_type, value == "[redacted]", *rule_rows[check])
        for case_id, check, config_type, value, _ in CASES
    ]
    df = spark.createDataFrame(
        rows, "case_id string, value string, config_type string, is_sensitive boolean, " + CHECK_RULES_DDL
    )
    checked = df.transform(with_parsed_value).select("case_id", check_violation().alias("v")).collect()
    return {row.case_id: row.v for row in checked}


@pytest.mark.parametrize(("case_id", "expected"), [(c[0], c[4]) for c in CASES], ids=[c[0] for c in CASES])
def test_check_outcome(results: dict[str, Any], case_id: str, expected: str | None) -> None:
    outcome = results[case_id]
    assert (outcome.code if outcome is not None else None) == expected


@pytest.mark.parametrize(
    ("case_id", "detail"),
    [
        ("in-list-fail", "foo"),
        ("in-string-fail-case", "LZ4"),
        ("not-in-list-element", "producer"),
        ("min-unparseable", "INT"),
        ("type-short-overflow", "SHORT"),
    ],
    ids=["in-names-bad-elements", "in-names-scalar", "not-in-names-element", "nan-names-type", "type-names-type"],
)
def test_violation_detail_names_the_offending_part(results: dict[str, Any], case_id: str, detail: str) -> None:
    assert results[case_id].detail == detail
