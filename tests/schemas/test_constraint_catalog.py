"""The constraint catalog YAML: what loads, and what is rejected with file + id + reason (pure Python)."""

from __future__ import annotations

import pytest

from schemas.constraints import ConstraintCatalog, ensure_unique_ids, load_catalog_text, parse_catalog
from schemas.errors import ConfigError

CONTRACT_EXAMPLE = """
constraints:
  - id: broker-log-segment-bytes-3mib
    resource: broker
    config: log.segment.bytes
    since: 4.4-IV1
    check: {min: 3145728}
    severity: error
    description: Minimum segment size raised for 4.4-IV1
    reference: KIP-1294
  - id: topic-min-isr-not-above-rf
    resource: topic
    configs: [min.insync.replicas]
    expr: "cast(cfg['min.insync.replicas'] as int) <= topic.replication_factor"
"""


def test_contract_example_loads_with_defaults() -> None:
    catalog = load_catalog_text(CONTRACT_EXAMPLE, "example.yaml")
    first, second = catalog.constraints
    assert catalog.source == "example.yaml"
    assert first.check is not None and first.check.kind == "min" and first.check.min == 3145728
    assert first.since == "4.4-IV1" and first.resource_type == "BROKER"
    assert second.severity == "error" and second.check is None and second.keys == ("min.insync.replicas",)
    assert second.selection_key == ("topic", ("min.insync.replicas",))


@pytest.mark.parametrize(
    ("check", "kind"),
    [
        ("{min: 1}", "min"),
        ("{max: 1.5}", "max"),
        ("{between: [1, 9]}", "between"),
        ("{in: [compact, delete]}", "in"),
        ("{not_in: [producer]}", "not_in"),
        ("{regex: '[a-z]+'}", "regex"),
        ("{type: int}", "type"),
        ("{not_null: true}", "not_null"),
        ("{non_empty_list: true}", "non_empty_list"),
        ("{no_duplicates: true}", "no_duplicates"),
        ("{no_empty_elements: true}", "no_empty_elements"),
    ],
    ids=lambda v: str(v),
)
def test_every_check_kind_loads(check: str, kind: str) -> None:
    text = f"constraints: [{{id: c, resource: topic, config: k, check: {check}}}]"
    assert load_catalog_text(text, "f.yaml").constraints[0].check.kind == kind  # type: ignore[union-attr]


def test_in_values_are_compared_as_kafka_text() -> None:
    text = "constraints: [{id: c, resource: broker, config: k, check: {in: [true, 1, -1, 2.5, lz4]}}]"
    check = load_catalog_text(text, "f.yaml").constraints[0].check
    assert check is not None and check.in_ == ("true", "1", "-1", "2.5", "lz4")


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("{id: bad, resource: broker, config: k}", "exactly one of `check` or `expr`"),
        ("{id: bad, resource: broker, config: k, check: {min: 1}, expr: 'true'}", "exactly one of `check` or `expr`"),
        ("{id: bad, resource: broker, check: {min: 1}}", "exactly one of `config`"),
        ("{id: bad, resource: broker, config: k, configs: [k], expr: 'true'}", "exactly one of `config`"),
        ("{id: bad, resource: broker, configs: [a, b], check: {min: 1}}", "a `check` validates one key"),
        ("{id: bad, resource: broker, configs: [], expr: 'true'}", "at least one key"),
        ("{id: bad, resource: broker, configs: [a, a], expr: 'true'}", "lists a key twice"),
        ("{id: bad, resource: cluster, config: k, check: {min: 1}}", "resource"),
        ("{id: bad, resource: broker, config: k, check: {min: 1}, severity: fatal}", "severity"),
        ("{id: bad, resource: broker, config: k, check: {min: 1}, colour: red}", "colour"),
        ("{id: bad, resource: broker, config: k, check: {minimum: 1}}", "minimum"),
        ("{id: bad, resource: broker, config: k, check: {}}", "found none"),
        ("{id: bad, resource: broker, config: k, check: {min: 1, max: 2}}", "use between"),
        ("{id: bad, resource: broker, config: k, check: {between: [9, 1]}}", "reversed"),
        ("{id: bad, resource: broker, config: k, check: {regex: '(a'}}", "regex does not compile"),
        ("{id: bad, resource: broker, config: k, check: {type: integer}}", "type"),
        ("{id: bad, resource: broker, config: k, check: {min: true}}", "not a boolean"),
        ("{id: bad, resource: broker, config: k, check: {in: compact}}", "list of values"),
        ("{id: bad, resource: broker, config: k, since: 4.4, check: {min: 1}}", "quote a release"),
        ("{id: bad, resource: broker, config: k, expr: '  '}", "`expr` is empty"),
        ("{id: 'bad id', resource: broker, config: k, check: {min: 1}}", "id must start"),
    ],
    ids=[
        "no-check-no-expr",
        "check-and-expr",
        "no-config",
        "config-and-configs",
        "check-with-configs",
        "empty-configs",
        "duplicate-configs",
        "unknown-resource",
        "unknown-severity",
        "unknown-field",
        "unknown-check-kind",
        "empty-check",
        "two-check-kinds",
        "between-reversed",
        "bad-regex",
        "unknown-type",
        "boolean-bound",
        "in-not-a-list",
        "since-float",
        "blank-expr",
        "bad-id",
    ],
)
def test_invalid_entry_is_rejected_with_file_id_and_reason(entry: str, reason: str) -> None:
    text = f"constraints:\n  - {{id: fine, resource: topic, config: k, check: {{min: 1}}}}\n  - {entry}\n"
    with pytest.raises(ConfigError) as info:
        load_catalog_text(text, "team.yaml")
    message = str(info.value)
    assert message.startswith("team.yaml: constraint ")
    assert "bad" in message.split(":")[1] or "#2" in message
    assert reason in message


def test_entry_without_id_is_named_by_position() -> None:
    with pytest.raises(ConfigError, match=r"team.yaml: constraint #1: id"):
        load_catalog_text("constraints: [{resource: topic, config: k, check: {min: 1}}]", "team.yaml")


def test_duplicate_id_in_one_file_is_rejected() -> None:
    text = """
constraints:
  - {id: same, resource: topic, config: a, check: {min: 1}}
  - {id: same, resource: topic, config: b, check: {min: 1}}
"""
    with pytest.raises(ConfigError, match=r"^a.yaml: constraint same: id is defined twice$"):
        load_catalog_text(text, "a.yaml")


def test_duplicate_id_across_files_names_both_files() -> None:
    one = load_catalog_text("constraints: [{id: same, resource: topic, config: a, check: {min: 1}}]", "a.yaml")
    two = load_catalog_text("constraints: [{id: same, resource: broker, config: b, check: {min: 1}}]", "b.yaml")
    with pytest.raises(ConfigError, match=r"^a.yaml and b.yaml: constraint same: id is defined twice$"):
        ensure_unique_ids([one, two])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("constraints: [", "not valid YAML"),
        ("- a\n- b\n", "a mapping with a `constraints:` list"),
        ("rules: []", "rules"),
        ("constraints: [42]", "an entry must be a mapping"),
    ],
    ids=["broken-yaml", "top-level-list", "unknown-top-level-key", "scalar-entry"],
)
def test_malformed_file_is_rejected_naming_the_file(text: str, reason: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_catalog_text(text, "broken.yaml")
    assert str(info.value).startswith("broken.yaml: ")
    assert reason in str(info.value)


def test_empty_file_is_an_empty_catalog() -> None:
    assert parse_catalog(None, "empty.yaml") == ConstraintCatalog(source="empty.yaml")


def test_models_are_frozen() -> None:
    catalog = load_catalog_text(CONTRACT_EXAMPLE, "example.yaml")
    with pytest.raises(ValueError, match="frozen"):
        catalog.constraints[0].severity = "warning"  # type: ignore[misc]
