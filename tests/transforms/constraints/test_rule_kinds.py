"""Two kinds of rules (KIP-1294 ``define(..., validator, mvValidators)``): base validators bound to the release a
broker runs, MV validators (``since``) evaluated in addition; and Kafka's own MV-gated checks at their boundaries.

Every expectation is derived by hand from Kafka's source (cited per test) and the contract (docs/contract.md §5.4),
never from the code under test.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import yaml

from jobs.runtime.expression_check import validate_with_spark
from schemas.constraints import CompiledCatalog, load_catalog_text
from schemas.metadata_version import MetadataVersionTable
from transforms.configdef.generate import generate_default_catalog
from transforms.configdef.selection import compile_catalog
from transforms.constraints import (
    active_at,
    evaluate_constraints,
    highest_safe_levels,
    violations_by_level,
)
from transforms.kit.metadata_version import parse_metadata_version

from .conftest import ROOT

RUN_TS = datetime(2026, 11, 24, 6, 0, tzinfo=UTC)
MV_GATES = yaml.safe_load((ROOT / "conf" / "kafka_mv_gates.yaml").read_text())

# log.cleanup.policy as the ConfigDefs define it: ValidList.in("compact", "delete") on every release (confluentinc/kafka
# 4.1: storage/.../LogConfig.java; 4.2 adds KIP-1161's isNullAllowed=false and no empty elements).
CLEANUP_41 = {"kind": "list_in", "values": ["compact", "delete"], "empty_allowed": True, "null_allowed": True}
CLEANUP_42 = {**CLEANUP_41, "null_allowed": False, "kip1161": True}
USER_NO_DUPLICATES = """
constraints:
  - {id: user-cleanup-no-dups, resource: broker, config: log.cleanup.policy, since: 4.4-IV1,
     check: {no_duplicates: true}}
"""


def _doc(release: str, broker: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    return f"{release}.yaml", {
        "release": release,
        "sources": {"repo": "confluentinc/kafka", "ref": release},
        "broker": broker,
    }


def _key(name: str, type_: str, validator: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, "validator": validator, "source": f"LogConfig.java ({name})"}


def _catalog(mv_table: MetadataVersionTable, *user: str, docs: list[Any] | None = None, gates: bool = False) -> Any:
    default = generate_default_catalog(docs or [], mv_table, mv_gates=MV_GATES if gates else None)
    users = [load_catalog_text(text, f"user-{i}.yaml") for i, text in enumerate(user)]
    return compile_catalog([default, *users], mv_table)


def _cleanup_docs() -> list[Any]:
    return [
        _doc("4.1", [_key("log.cleanup.policy", "LIST", CLEANUP_41)]),
        _doc("4.2", [_key("log.cleanup.policy", "LIST", CLEANUP_42)]),
    ]


def _violations(
    spark: Any, rules: CompiledCatalog, effective_df: Any, topics_df: Any, cluster_df: Any, target: str, mv: Any
) -> list[Any]:
    validate_with_spark(rules, spark)
    return evaluate_constraints(
        effective_df,
        topics_df,
        cluster_df,
        rules,
        target=parse_metadata_version(target, mv),
        run_id="r",
        run_ts=RUN_TS,
    ).collect()


# --- selection (pure) ---------------------------------------------------------------------------------------------


def test_a_user_since_rule_does_not_remove_the_generated_base_rules_of_its_key(mv_table: MetadataVersionTable) -> None:
    rules = _catalog(mv_table, USER_NO_DUPLICATES, docs=_cleanup_docs())
    at_44_iv1 = {r.constraint.id: r.origin for r in active_at(rules, 32)}
    # KIP-1294: the MV validator is evaluated in addition to the base validator of the release (4.2's, the newest
    # release that registers the key), so Kafka's own `in [compact, delete]` still applies
    assert at_44_iv1 == {
        "kafka-4.2-broker-log.cleanup.policy-type": "kafka_base",
        "kafka-4.2-broker-log.cleanup.policy-in": "kafka_base",
        "kafka-4.2-broker-log.cleanup.policy-not-null": "kafka_base",
        "kafka-4.2-broker-log.cleanup.policy-no-empty-elements": "kafka_base",
        "user-cleanup-no-dups": "user_mv",
    }
    # one level below the user rule (4.4-IV0 = 31) only the base validators apply
    assert "user-cleanup-no-dups" not in {r.constraint.id for r in active_at(rules, 31)}


def test_the_base_validators_are_those_of_the_release_the_brokers_run(mv_table: MetadataVersionTable) -> None:
    rules = _catalog(mv_table, docs=_cleanup_docs())
    # 4.2 binaries at 4.1-IV1 (27): 4.2's ConfigDef, not 4.1's (the binary validates at startup whatever the MV)
    on_42 = {r.constraint.id for r in active_at(rules, 27, running_release="4.2")}
    assert "kafka-4.2-broker-log.cleanup.policy-not-null" in on_42
    assert "kafka-4.1-broker-log.cleanup.policy-in" not in on_42
    # 4.1 binaries at 4.1-IV1: 4.1's; judged at 4.2-IV0 (28) they need 4.2 binaries, so 4.2's
    assert "kafka-4.1-broker-log.cleanup.policy-in" in {
        r.constraint.id for r in active_at(rules, 27, running_release="4.1")
    }
    assert "kafka-4.2-broker-log.cleanup.policy-in" in {
        r.constraint.id for r in active_at(rules, 28, running_release="4.1")
    }


@pytest.mark.parametrize(
    ("rule_id", "below", "first"),
    [
        # ConfigurationControlManager.isCordonedLogDirsDisabled: !isCordonedLogDirsSupported() = below IBP_4_3_IV0 (30)
        ("kafka-mv-broker-cordoned.log.dirs-below-4.3-IV0", 29, 30),
        # MetadataVersionConfigValidator: hasMultiLogDirs && !isDirectoryAssignmentSupported() = below IBP_3_7_IV2 (17)
        ("kafka-mv-broker-log.dirs-jbod-below-3.7-IV2", 16, 17),
    ],
    ids=["cordoned-log-dirs", "jbod"],
)
def test_kafka_mv_gates_apply_below_their_level_and_end_at_it(
    mv_table: MetadataVersionTable, rule_id: str, below: int, first: int
) -> None:
    rules = _catalog(mv_table, gates=True)
    assert rule_id in {r.constraint.id for r in active_at(rules, below)}
    assert rule_id not in {r.constraint.id for r in active_at(rules, first)}


def test_the_elr_gate_starts_at_the_bootstrap_level_of_elrv_1(mv_table: MetadataVersionTable) -> None:
    # EligibleLeaderReplicasVersion.ELRV_1(1, IBP_4_1_IV0, ...): an upgrade with --release-version to 4.1-IV0 (26)
    # or later finalizes eligible.leader.replicas.version 1, and isDisallowedBrokerMinIsrTransition rejects
    # per-broker values
    rules = _catalog(mv_table, gates=True)
    rule_id = "kafka-mv-broker-min.insync.replicas-per-broker-with-elr"
    assert rule_id not in {r.constraint.id for r in active_at(rules, 25)}
    assert rule_id in {r.constraint.id for r in active_at(rules, 26)}


def test_every_kafka_rule_names_its_source(mv_table: MetadataVersionTable) -> None:
    rules = _catalog(mv_table, docs=_cleanup_docs(), gates=True)
    for rule in rules.rules:
        assert (rule.constraint.reference or "").startswith("confluentinc/kafka "), rule.constraint.id


# --- evaluation (Spark) -----------------------------------------------------------------------------------------


@pytest.mark.spark
def test_a_static_value_the_base_rule_rejects_fails_even_under_a_user_since_rule(
    spark: Any,
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Callable[..., Any],
    mv_table: MetadataVersionTable,
) -> None:
    rules = _catalog(mv_table, USER_NO_DUPLICATES, docs=_cleanup_docs())
    effective_df = effective_df_of(
        {"config_name": "log.cleanup.policy", "value": "foo", "config_type": "LIST"},
        {"resource_name": "2", "config_name": "log.cleanup.policy", "value": "compact,compact", "config_type": "LIST"},
    )
    rows = _violations(
        spark, rules, effective_df, topics_df_of(), cluster_df_of(29, kafka_release="4.2"), "4.4-IV1", mv_table
    )
    found = {
        (r.resource_name, r.constraint_id): (r.violation_code, r.constraint_origin, r.constraint_release) for r in rows
    }
    assert found == {
        # foo is not in [compact, delete]: 4.2's ValidList rejects it at broker startup, whatever the MV
        ("1", "kafka-4.2-broker-log.cleanup.policy-in"): ("NOT_ALLOWED", "kafka_base", "4.2"),
        # Kafka de-duplicates before validating (KAFKA-19875), the user's own MV rule does not
        ("2", "user-cleanup-no-dups"): ("DUPLICATES", "user_mv", None),
    }
    new = {r.resource_name: r.new_at_target for r in rows}
    # the brokers already run 4.2, whose base validator fails now: not new; the user rule starts at the target: new
    assert new == {"1": False, "2": True}


@pytest.mark.spark
def test_binaries_newer_than_the_mv_are_judged_with_their_own_configdef(
    spark: Any,
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Callable[..., Any],
    mv_table: MetadataVersionTable,
) -> None:
    # log.segment.bytes: atLeast(14) in 3.9, atLeast(1024 * 1024) from 4.0 (docs/kafka-semantics.md §6.2)
    docs = [
        _doc("3.9", [_key("log.segment.bytes", "INT", {"kind": "at_least", "min": 14})]),
        _doc("4.0", [_key("log.segment.bytes", "INT", {"kind": "at_least", "min": 1048576})]),
    ]
    rules = _catalog(mv_table, docs=docs)
    effective_df = effective_df_of({"config_name": "log.segment.bytes", "value": "100000"})
    on_40 = cluster_df_of(21, kafka_release="4.0")  # 4.0 binaries, metadata.version still 3.9-IV0
    on_39 = cluster_df_of(21, kafka_release="3.9")
    rows_40 = _violations(spark, rules, effective_df, topics_df_of(), on_40, "4.0-IV3", mv_table)
    rows_39 = _violations(spark, rules, effective_df, topics_df_of(), on_39, "4.0-IV3", mv_table)
    assert [(r.constraint_id, r.new_at_target) for r in rows_40] == [("kafka-4.0-broker-log.segment.bytes-min", False)]
    assert [(r.constraint_id, r.new_at_target) for r in rows_39] == [("kafka-4.0-broker-log.segment.bytes-min", True)]

    by_level = violations_by_level(effective_df, topics_df_of(), on_40, rules, mv_table=mv_table)
    errors = {r.level: r.errors for r in by_level.collect()}
    # 4.0 binaries reject 100000 at every level: 4.0's ConfigDef at 3.9-IV0 and below too (7..21); 3.3..3.8-era levels
    # below 7 were removed from 4.0 but stay in the table and are judged the same way
    assert {lv for lv, n in errors.items() if n} == set(range(1, len(mv_table.levels) + 1))
    safe = highest_safe_levels(by_level, on_40).collect()
    assert safe[0].highest_safe_level is None
    errors_39 = {
        r.level: r.errors
        for r in violations_by_level(effective_df, topics_df_of(), on_39, rules, mv_table=mv_table).collect()
    }
    # 3.9 binaries pass 14 up to 3.9-IV0 (21); from 4.0-IV0 (22) an upgrade needs 4.0 binaries, which reject it
    assert {lv for lv, n in errors_39.items() if n} == set(range(22, len(mv_table.levels) + 1))


@pytest.mark.spark
@pytest.mark.parametrize(
    ("row", "level", "expected"),
    [
        (
            {
                "config_name": "cordoned.log.dirs",
                "value": "/d1",
                "config_type": "LIST",
                "source": "DYNAMIC_BROKER_CONFIG",
            },
            29,
            "error",
        ),
        (
            {
                "config_name": "cordoned.log.dirs",
                "value": "/d1",
                "config_type": "LIST",
                "source": "DYNAMIC_BROKER_CONFIG",
            },
            30,
            None,
        ),
        ({"config_name": "log.dirs", "value": "/d1, /d2", "config_type": "LIST"}, 16, "warning"),
        ({"config_name": "log.dirs", "value": "/d1, /d2", "config_type": "LIST"}, 17, None),
        ({"config_name": "log.dirs", "value": "/d1,", "config_type": "LIST"}, 16, None),  # parseCsvList drops empties
        ({"config_name": "min.insync.replicas", "value": "2", "source": "DYNAMIC_BROKER_CONFIG"}, 25, None),
        ({"config_name": "min.insync.replicas", "value": "2", "source": "DYNAMIC_BROKER_CONFIG"}, 26, "error"),
        (
            {"config_name": "min.insync.replicas", "value": "2", "source": "DYNAMIC_DEFAULT_BROKER_CONFIG"},
            26,
            None,
        ),  # the cluster-level value is what Kafka keeps under ELR
    ],
    ids=[
        "cordoned-below-4.3-IV0",
        "cordoned-at-4.3-IV0",
        "jbod-below-3.7-IV2",
        "jbod-at-3.7-IV2",
        "one-dir-below-3.7-IV2",
        "per-broker-min-isr-below-4.1-IV0",
        "per-broker-min-isr-at-4.1-IV0",
        "cluster-min-isr-at-4.1-IV0",
    ],
)
def test_kafka_mv_gates_at_the_level_just_below_and_at_their_first_level(
    spark: Any,
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Callable[..., Any],
    mv_table: MetadataVersionTable,
    row: dict[str, Any],
    level: int,
    expected: str | None,
) -> None:
    rules = _catalog(mv_table, gates=True)
    target = mv_table.levels[level - 1].name
    rows = _violations(spark, rules, effective_df_of(row), topics_df_of(), cluster_df_of(level), target, mv_table)
    assert [r.severity for r in rows] == ([expected] if expected else [])
    assert {r.constraint_origin for r in rows} <= {"kafka_mv"}


@pytest.mark.parametrize(("elr_level", "expected"), [(0, []), (1, ["error"])], ids=["elr-off", "elr-on"])
def test_a_per_broker_min_isr_is_refused_only_while_elr_is_enabled(
    spark: Any,
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Callable[..., Any],
    mv_table: MetadataVersionTable,
    elr_level: int,
    expected: list[str],
) -> None:
    # ConfigurationControlManager.isDisallowedBrokerMinIsrTransition asks FeatureControlManager.isElrFeatureEnabled,
    # not the MV: after `--metadata 4.2` ELR stays 0 and Kafka 4.2.0 / 4.4.0 kept and applied min.insync.replicas=2
    # on broker 1 (oracle scenario elr-metadata-only-upgrade)
    rules = _catalog(mv_table, gates=True)
    row = {"config_name": "min.insync.replicas", "value": "2", "source": "DYNAMIC_BROKER_CONFIG"}
    cluster_df = cluster_df_of(29, elr_level=elr_level)
    rows = _violations(spark, rules, effective_df_of(row), topics_df_of(), cluster_df, "4.2-IV1", mv_table)
    assert [r.severity for r in rows] == expected
