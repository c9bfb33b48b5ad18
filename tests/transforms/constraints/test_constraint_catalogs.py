"""The shipped catalogs (conf/constraints) and the default catalog generated from conf/kafka."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from jobs.runtime.expression_check import validate_with_spark
from schemas.constraints import load_catalog_text
from schemas.errors import ConfigError
from schemas.metadata_version import MetadataVersionTable
from transforms.configdef.generate import generate_default_catalog
from transforms.constraints import active_at, compile_catalog

from .conftest import ROOT

SHIPPED = sorted((ROOT / "conf" / "constraints").glob("*.yaml"))
KAFKA_DOCS = sorted((ROOT / "conf" / "kafka").glob("*.yaml"))


@pytest.mark.spark
def test_shipped_catalogs_load_compile_and_validate(spark: Any, mv_table: MetadataVersionTable) -> None:
    assert {p.name for p in SHIPPED} >= {"kip1294-example.yaml", "cluster-state-policies.yaml"}
    rules = compile_catalog([load_catalog_text(p.read_text(), p.name) for p in SHIPPED], mv_table)
    validate_with_spark(rules, spark)
    kip = next(r for r in rules.rules if r.constraint.id == "broker-log-segment-bytes-3mib")
    assert (kip.level, kip.since_mv, kip.constraint.check.min) == (32, "4.4-IV1", 3145728)  # type: ignore[union-attr]


def _doc(release: str, **sections: Any) -> tuple[str, dict[str, Any]]:
    return f"{release}.yaml", {"release": release, **sections}


def _key(name: str, type_: str = "INT", validator: Any = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, "validator": validator, **extra}


def _by_level(catalog: Any, mv_table: MetadataVersionTable, level: int) -> dict[str, Any]:
    rules = compile_catalog([catalog], mv_table)
    return {r.constraint.id: r.constraint for r in active_at(rules, level)}


def test_each_release_registers_its_validators_as_base_validators_of_that_release(
    mv_table: MetadataVersionTable,
) -> None:
    docs = [
        _doc(
            "3.9",
            broker=[
                _key("log.segment.bytes", validator={"kind": "at_least", "min": 14}),
                _key("num.io.threads", validator={"kind": "at_least", "min": 1}),
            ],
        ),
        _doc(
            "4.0",
            broker=[
                _key("log.segment.bytes", validator={"kind": "at_least", "min": 1048576}),
                _key("num.io.threads", validator={"kind": "at_least", "min": 1}),
            ],
        ),
    ]
    catalog = generate_default_catalog(docs, mv_table)
    ids = {c.id: (c.release, c.since) for c in catalog.constraints}
    assert ids == {
        "kafka-3.9-broker-log.segment.bytes-type": ("3.9", None),
        "kafka-3.9-broker-log.segment.bytes-min": ("3.9", None),
        "kafka-3.9-broker-num.io.threads-type": ("3.9", None),
        "kafka-3.9-broker-num.io.threads-min": ("3.9", None),
        "kafka-4.0-broker-log.segment.bytes-type": ("4.0", None),  # the set changed: registered again for 4.0
        "kafka-4.0-broker-log.segment.bytes-min": ("4.0", None),
    }  # num.io.threads did not change: its 3.9 registration still judges 4.0 brokers
    assert _by_level(catalog, mv_table, 21)["kafka-3.9-broker-log.segment.bytes-min"].check.min == 14
    at_40 = _by_level(catalog, mv_table, 22)
    assert at_40["kafka-4.0-broker-log.segment.bytes-min"].check.min == 1048576
    assert "kafka-3.9-broker-log.segment.bytes-min" not in at_40
    assert "kafka-3.9-broker-num.io.threads-min" in at_40
    assert _by_level(catalog, mv_table, 20) == {}  # no registration for brokers of 3.8 or older
    # 4.0 binaries at metadata.version 3.9-IV0 (level 21) run 4.0's ConfigDef: the binaries decide, not the MV
    rules = compile_catalog([catalog], mv_table)
    on_40_binaries = {r.constraint.id for r in active_at(rules, 21, running_release="4.0")}
    assert "kafka-4.0-broker-log.segment.bytes-min" in on_40_binaries
    assert "kafka-3.9-broker-log.segment.bytes-min" not in on_40_binaries
    # and 3.9 binaries judged at 4.0-IV0 run 4.0's (an upgrade to 4.0-IV0 needs 4.0 binaries)
    assert "kafka-4.0-broker-log.segment.bytes-min" in {
        r.constraint.id for r in active_at(rules, 22, running_release="3.9")
    }


@pytest.mark.parametrize(
    ("release", "validator", "expected"),
    [
        (
            "4.2",
            {
                "kind": "list_in",
                "values": ["compact", "delete"],
                "empty_allowed": True,
                "null_allowed": False,
                "kip1161": True,
            },
            [{"in": ["compact", "delete"]}, {"not_null": True}, {"no_empty_elements": True}],
        ),
        (
            "4.1",
            {
                "kind": "list_in",
                "values": ["compact", "delete"],
                "empty_allowed": True,
                "null_allowed": True,
                "kip1161": False,
            },
            [{"in": ["compact", "delete"]}],
        ),
        (
            "4.2",
            {"kind": "non_duplicate_list", "empty_allowed": False, "null_allowed": True, "kip1161": True},
            [{"non_empty_list": True}, {"no_empty_elements": True}],
        ),
        (
            "4.2",
            {"kind": "in", "values": ["disabled", "upgrade"], "case_insensitive": True},
            [{"regex": "(?i)(?:disabled|upgrade)"}],
        ),
        ("4.2", {"kind": "in", "values": [-1, 1, 9], "case_insensitive": False}, [{"in": ["-1", "1", "9"]}]),
        ("4.2", {"kind": "non_empty_string"}, [{"not_in": [""]}]),
        ("4.2", {"kind": "non_null"}, [{"not_null": True}]),
        (
            "4.2",
            [{"kind": "non_null"}, {"kind": "between", "min": 0, "max": 1}],
            [{"not_null": True}, {"between": (0.0, 1.0)}],
        ),
        ("4.2", {"kind": "custom", "name": "SomeFutureValidator"}, []),
    ],
    ids=[
        "kip1161-list-in",
        "pre-kip1161-list-in",
        "non-duplicate-list",
        "case-insensitive-in",
        "numeric-in",
        "non-empty-string",
        "non-null",
        "composite",
        "custom-not-translated",
    ],
)
def test_validators_translate_to_check_kinds(
    mv_table: MetadataVersionTable, release: str, validator: Any, expected: list[dict[str, Any]]
) -> None:
    catalog = generate_default_catalog([_doc(release, topic=[_key("k", "LIST", validator)])], mv_table)
    checks = [c.check.model_dump(by_alias=True, exclude_none=True) for c in catalog.constraints if c.check]
    assert checks[0] == {"type": "list"}
    assert checks[1:] == [{k: tuple(v) if isinstance(v, list) else v for k, v in e.items()} for e in expected]
    if validator == {"kind": "custom", "name": "SomeFutureValidator"}:
        assert "not translated (code validators): SomeFutureValidator" in catalog.constraints[0].description


def test_removed_key_still_set_is_a_warning_from_the_removing_release(mv_table: MetadataVersionTable) -> None:
    docs = [
        _doc("3.9", broker=[_key("log.message.format.version", "STRING", {"kind": "custom", "name": "MVV"})]),
        _doc("4.0", broker=[]),
    ]
    at_40 = _by_level(generate_default_catalog(docs, mv_table), mv_table, 22)
    assert list(at_40) == ["kafka-4.0-broker-log.message.format.version-removed"]
    removed = at_40["kafka-4.0-broker-log.message.format.version-removed"]
    assert (removed.expr, removed.severity, removed.config) == (
        "value is null",
        "warning",
        "log.message.format.version",
    )


def test_cross_field_checks_become_expressions_and_are_retired_when_dropped(mv_table: MetadataVersionTable) -> None:
    check = {
        "id": "compaction-lags",
        "resource": "topic",
        "keys": ["min.compaction.lag.ms", "max.compaction.lag.ms"],
        "rule": "min <= max",
        "expr": "cast(cfg['min.compaction.lag.ms'] as long) <= 1",
        "kafka_effect": "CreateTopics is rejected",
        "source": "LogConfig.java",
    }
    logged = {**check, "id": "logged", "keys": ["a", "b"], "kafka_effect": "ERROR log only (not enforced)"}
    docs = [
        _doc("4.1", cross_field_checks=[check, logged, {**check, "id": "no-expr", "keys": ["z"], "expr": None}]),
        _doc("4.2", cross_field_checks=[check]),
    ]
    catalog = generate_default_catalog(docs, mv_table)
    at_41 = _by_level(catalog, mv_table, 26)
    assert set(at_41) == {"kafka-4.1-compaction-lags", "kafka-4.1-logged"}
    assert (at_41["kafka-4.1-compaction-lags"].severity, at_41["kafka-4.1-logged"].severity) == ("error", "warning")
    at_42 = _by_level(catalog, mv_table, 28)
    assert set(at_42) == {"kafka-4.1-compaction-lags", "kafka-4.2-topic-a_b-retired"}
    assert at_42["kafka-4.2-topic-a_b-retired"].expr == "true"


def test_a_document_without_release_is_rejected(mv_table: MetadataVersionTable) -> None:
    with pytest.raises(ConfigError, match=r"^x.yaml: not a Kafka config catalog"):
        generate_default_catalog([("x.yaml", {"broker": []})], mv_table)


@pytest.mark.skipif(not KAFKA_DOCS, reason="conf/kafka catalogs not present")
@pytest.mark.spark
def test_generated_catalog_from_conf_kafka_compiles_and_matches_kafka_facts(
    spark: Any, mv_table: MetadataVersionTable
) -> None:
    docs = [(p.name, yaml.safe_load(p.read_text())) for p in KAFKA_DOCS]
    rules = compile_catalog([generate_default_catalog(docs, mv_table)], mv_table)
    validate_with_spark(rules, spark)

    def segment_min(level: int) -> set[float]:
        return {
            r.constraint.check.min  # type: ignore[union-attr]
            for r in active_at(rules, level)
            if r.constraint.config == "log.segment.bytes" and r.constraint.check and r.constraint.check.min is not None
        }

    # docs/kafka-semantics.md §6.2: log.segment.bytes atLeast(14) up to 3.9, atLeast(1048576) from 4.0
    assert segment_min(21) == {14}
    assert segment_min(22) == {1048576}
