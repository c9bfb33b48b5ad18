"""End-to-end evaluation: long-format single-key rules, expressions per broker view, affected topics,
new_at_target, the VIOLATIONS schema, and every-level evaluation for highest_safe_mv."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from pyspark.testing import assertSchemaEqual

from jobs.runtime.expression_check import validate_with_spark
from schemas.constraints import CompiledCatalog
from schemas.metadata_version import MetadataVersionTable
from schemas.violations import HIGHEST_SAFE_LEVELS, VIOLATIONS, VIOLATIONS_BY_LEVEL
from transforms.configdef.generate import DEFAULT_SOURCE
from transforms.constraints import (
    evaluate_constraints,
    highest_safe_levels,
    violations_by_level,
)
from transforms.kit.metadata_version import parse_metadata_version

pytestmark = pytest.mark.spark

RUN_TS = datetime(2026, 11, 21, 6, 0, tzinfo=UTC)

SEGMENT_RULES = """
constraints:
  - {id: seg-base, resource: broker, config: log.segment.bytes, check: {type: int}}
  - {id: seg-40, resource: broker, config: log.segment.bytes, since: 4.0-IV0, check: {min: 1048576}}
  - id: broker-log-segment-bytes-3mib
    resource: broker
    config: log.segment.bytes
    since: 4.4-IV1
    check: {min: 3145728}
    reference: KIP-1294
  - {id: topic-seg, resource: topic, config: segment.bytes, since: 4.4-IV1, check: {min: 3145728}}
  - {id: retention-2d, resource: broker, config: log.retention.ms, check: {min: 172800000}, severity: warning}
  - {id: group-session, resource: group, config: consumer.session.timeout.ms, check: {min: 45000}}
"""


def _evaluate(
    spark: Any,
    rules: CompiledCatalog,
    effective_df: Any,
    topics_df: Any,
    cluster_df: Any,
    target: str = "4.4-IV1",
    scopes: list[tuple[str, str]] | None = None,
    mv_table: MetadataVersionTable | None = None,
) -> list[Any]:
    assert mv_table is not None
    validate_with_spark(rules, spark)
    scope_df = spark.createDataFrame(scopes or [], "config_name string, scope string")
    violations_df = evaluate_constraints(
        effective_df,
        topics_df,
        cluster_df,
        rules,
        target=parse_metadata_version(target, mv_table),
        run_id="run-1",
        run_ts=RUN_TS,
        dynamic_scope_df=scope_df,
    )
    assertSchemaEqual(violations_df.schema, VIOLATIONS, ignoreNullable=True)
    return sorted(
        violations_df.collect(), key=lambda r: (r.resource_type, r.resource_name, r.constraint_id, r.node_id or -1)
    )


@pytest.fixture(scope="module")
def fleet(effective_df_of: Callable[..., Any], topics_df_of: Callable[..., Any]) -> tuple[Any, Any]:
    """Two brokers with a static 1 MiB segment size; topics inheriting it on different nodes; one override."""
    broker = {"config_name": "log.segment.bytes", "value": "1048576", "synonym": "log.segment.bytes"}
    retention = {
        "config_name": "log.retention.ms",
        "value": "86400000",
        "config_type": "LONG",
        "synonym": "log.retention.hours",
    }
    inherited = {
        "resource_type": "TOPIC",
        "config_name": "segment.bytes",
        "value": "1048576",
        "synonym": "log.segment.bytes",
    }
    effective_df = effective_df_of(
        {**broker, "resource_name": "1"},
        {**broker, "resource_name": "2"},
        {**retention, "resource_name": "1"},
        {**retention, "resource_name": "2"},
        {**inherited, "resource_name": "t1"},  # hosted on 1 and 2, all views agree
        {**inherited, "resource_name": "t2"},  # hosted on 2
        {**inherited, "resource_name": "t4", "node_id": 1},  # a per-node view on 1
        {**inherited, "resource_name": "t4", "node_id": 3, "synonym": "log.segment.bytes"},  # node 3: no broker row
        {
            "resource_type": "TOPIC",
            "resource_name": "t1",
            "config_name": "retention.ms",
            "value": "86400000",
            "config_type": "LONG",
            "synonym": "log.retention.hours",
        },
        {
            "resource_type": "TOPIC",
            "resource_name": "t3",
            "config_name": "segment.bytes",
            "value": "100",
            "source": "DYNAMIC_TOPIC_CONFIG",
            "synonym": "segment.bytes",
            "source_offset": 42,
        },
        {
            "resource_type": "GROUP",
            "resource_name": "g-inherits",
            "config_name": "consumer.session.timeout.ms",
            "value": "100",
            "source": "STATIC_BROKER_CONFIG",
            "synonym": "group.consumer.session.timeout.ms",
        },
        {
            "resource_type": "GROUP",
            "resource_name": "g-override",
            "config_name": "consumer.session.timeout.ms",
            "value": "100",
            "source": "DYNAMIC_GROUP_CONFIG",
            "source_offset": 7,
        },
    )
    topics_df = topics_df_of(("t1", 3, 2, [1, 2]), ("t2", 1, 1, [2]), ("t3", 1, 1, [1]), ("t4", 1, 2, [1, 3]))
    return effective_df, topics_df


def test_kip1294_example_is_reported_on_the_broker_with_message_and_remediation(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    fleet: tuple[Any, Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    effective_df, topics_df = fleet
    rows = _evaluate(
        spark,
        compile_yaml(SEGMENT_RULES),
        effective_df,
        topics_df,
        cluster_df_of(27),
        scopes=[("log.segment.bytes", "cluster-wide")],
        mv_table=mv_table,
    )
    kip = next(r for r in rows if r.constraint_id == "broker-log-segment-bytes-3mib" and r.resource_name == "1")
    assert kip.message == "log.segment.bytes=1048576 is below the minimum 3145728 required from 4.4-IV1 (KIP-1294)"
    fix = ["--entity-type", "brokers", "--entity-default", "--add-config", "log.segment.bytes=3145728"]
    assert kip.remediation == shlex.join(["kafka-configs.sh", "--bootstrap-server", "<bootstrap>", "--alter", *fix])
    assert kip.remediation_change.asDict() == {
        "resource_type": "BROKER",
        "resource_name": "",
        "layer": "dynamic",
        "op": "SET",
        "key": "log.segment.bytes",
        "value": "3145728",
    }
    assert (kip.run_id, kip.run_ts, kip.cluster_id) == ("run-1", RUN_TS.replace(tzinfo=None), "c1")
    assert (kip.target_mv, kip.target_level, kip.current_level, kip.is_downgrade) == ("4.4-IV1", 32, 27, False)
    assert (kip.constraint_level, kip.constraint_mv, kip.severity, kip.violation_code) == (
        32,
        "4.4-IV1",
        "error",
        "BELOW_MIN",
    )
    assert (kip.value_source, kip.source_offset, kip.constraint_kind) == ("STATIC_BROKER_CONFIG", None, "min")
    assert kip.new_at_target is True


def test_inherited_topic_values_count_on_the_broker_row_and_only_overrides_are_reported(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    fleet: tuple[Any, Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    effective_df, topics_df = fleet
    rows = _evaluate(spark, compile_yaml(SEGMENT_RULES), effective_df, topics_df, cluster_df_of(27), mv_table=mv_table)
    reported = {(r.resource_type, r.resource_name, r.constraint_id): r for r in rows}
    assert set(reported) == {
        ("BROKER", "1", "broker-log-segment-bytes-3mib"),
        ("BROKER", "2", "broker-log-segment-bytes-3mib"),
        ("BROKER", "1", "retention-2d"),
        ("BROKER", "2", "retention-2d"),
        ("TOPIC", "t3", "topic-seg"),  # the override; t1/t2/t4 inherit and are not repeated
        ("GROUP", "g-override", "group-session"),  # the inherited group value is not checked on the group
    }
    # node 1 hosts t1 (shared view) and t4 (its own view); node 2 hosts t1 and t2
    assert reported[("BROKER", "1", "broker-log-segment-bytes-3mib")].affected_topics == 2
    assert reported[("BROKER", "2", "broker-log-segment-bytes-3mib")].affected_topics == 2
    # log.retention.ms was read from log.retention.hours: topics inheriting that synonym count too
    assert reported[("BROKER", "1", "retention-2d")].affected_topics == 1
    assert reported[("TOPIC", "t3", "topic-seg")].affected_topics is None
    assert reported[("TOPIC", "t3", "topic-seg")].source_offset == 42
    assert reported[("GROUP", "g-override", "group-session")].remediation.endswith(
        "--entity-type groups --entity-name g-override --add-config consumer.session.timeout.ms=45000"
    )


def test_floor_entry_at_a_lower_target_applies_the_earlier_validator(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    fleet: tuple[Any, Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    effective_df, topics_df = fleet
    rows = _evaluate(
        spark,
        compile_yaml(SEGMENT_RULES),
        effective_df,
        topics_df,
        cluster_df_of(27),
        target="4.3-IV0",
        mv_table=mv_table,
    )
    assert {r.constraint_id for r in rows} == {"retention-2d", "group-session"}  # 1048576 passes seg-40


def test_new_at_target_and_downgrade_flags(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    effective_df = effective_df_of(
        {"resource_name": "1", "config_name": "log.segment.bytes", "value": "1048576"},  # fails only at 4.4-IV1
        {"resource_name": "2", "config_name": "log.segment.bytes", "value": "1000"},  # fails seg-40 already
        {"resource_name": "3", "config_name": "log.segment.bytes", "value": "abc"},  # fails base and seg-40
    )
    topics_df = topics_df_of()
    rows = _evaluate(spark, compile_yaml(SEGMENT_RULES), effective_df, topics_df, cluster_df_of(27), mv_table=mv_table)
    flags = {(r.resource_name, r.constraint_id): r.new_at_target for r in rows}
    assert flags == {
        ("1", "broker-log-segment-bytes-3mib"): True,
        ("2", "broker-log-segment-bytes-3mib"): False,  # the same key already fails at the current level
        ("3", "broker-log-segment-bytes-3mib"): False,
        ("3", "seg-base"): False,
    }
    unknown = _evaluate(
        spark, compile_yaml(SEGMENT_RULES), effective_df, topics_df, cluster_df_of(None), mv_table=mv_table
    )
    assert {r.new_at_target for r in unknown} == {None} and {r.is_downgrade for r in unknown} == {None}
    downgrade = _evaluate(
        spark,
        compile_yaml(SEGMENT_RULES),
        effective_df,
        topics_df,
        cluster_df_of(33),
        target="4.0-IV0",
        mv_table=mv_table,
    )
    assert {r.is_downgrade for r in downgrade} == {True}
    assert {(r.resource_name, r.constraint_id, r.new_at_target) for r in downgrade} == {
        ("2", "seg-40", False),
        ("3", "seg-40", False),
        ("3", "seg-base", False),
    }


def test_unparseable_and_null_values_are_violations_not_failures(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    effective_df = effective_df_of(
        {
            "resource_name": "1",
            "config_name": "log.segment.bytes",
            "value": "3MB",
            "source": "DYNAMIC_BROKER_CONFIG",
            "source_offset": 5,
        },
        {"resource_name": "2", "config_name": "log.segment.bytes", "value": None},
        {"resource_name": "3", "config_name": "log.segment.bytes", "value": "[redacted]", "is_sensitive": True},
    )
    rows = _evaluate(
        spark, compile_yaml(SEGMENT_RULES), effective_df, topics_df_of(), cluster_df_of(27), mv_table=mv_table
    )
    by_node = {(r.resource_name, r.constraint_id): r for r in rows}
    bad = by_node[("1", "broker-log-segment-bytes-3mib")]
    assert bad.message == (
        "log.segment.bytes='3MB' is not a number (INT), so it fails a minimum of 3145728 "
        "required from 4.4-IV1 (KIP-1294)"
    )
    assert "--entity-type brokers --entity-name 1 --add-config log.segment.bytes=3145728" in bad.remediation
    assert "--delete-config log.segment.bytes" in bad.remediation
    assert by_node[("2", "broker-log-segment-bytes-3mib")].violation_code == "NULL_VALUE"
    assert not any(name == "3" for name, _ in by_node)  # redacted values are not range-checked


EXPRESSIONS = """
constraints:
  - id: isr
    resource: topic
    configs: [min.insync.replicas]
    expr: "cast(cfg['min.insync.replicas'] as int) <= topic.replication_factor"
    description: writes with acks=all fail
  - {id: rf, resource: topic, configs: [replication.factor], expr: "topic.replication_factor <= cluster.broker_count"}
  - {id: offsets-rf, resource: broker, config: offsets.topic.replication.factor,
     expr: "cast(value as int) <= cluster.broker_count"}
"""


def test_expressions_per_broker_view_name_the_failing_node(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    isr = {"resource_type": "TOPIC", "config_name": "min.insync.replicas"}
    effective_df = effective_df_of(
        {**isr, "resource_name": "views-differ", "node_id": 1, "value": "2"},  # 2 <= rf 2: holds on node 1
        {**isr, "resource_name": "views-differ", "node_id": 2, "value": "3"},  # fails on node 2
        {**isr, "resource_name": "all-views-fail", "node_id": 1, "value": "3"},
        {**isr, "resource_name": "all-views-fail", "node_id": 2, "value": "4"},
        {**isr, "resource_name": "override", "value": "5", "source": "DYNAMIC_TOPIC_CONFIG"},
        {**isr, "resource_name": "garbage", "value": "two", "source": "DYNAMIC_TOPIC_CONFIG"},
        {**isr, "resource_name": "fine", "value": "1"},
        {"resource_name": "1", "config_name": "offsets.topic.replication.factor", "value": "3", "config_type": "SHORT"},
    )
    topics_df = topics_df_of(
        ("views-differ", 1, 2, [1, 2]),
        ("all-views-fail", 1, 2, [1, 2]),
        ("override", 1, 2, [1, 2]),
        ("garbage", 1, 2, [1]),
        ("fine", 1, 4, [1, 2]),
    )
    rows = _evaluate(
        spark, compile_yaml(EXPRESSIONS), effective_df, topics_df, cluster_df_of(27, broker_count=3), mv_table=mv_table
    )
    got = {(r.resource_name, r.constraint_id, r.node_id, r.violation_code, r.value) for r in rows}
    assert got == {
        ("views-differ", "isr", 2, "EXPRESSION_FALSE", "3"),
        ("all-views-fail", "isr", None, "EXPRESSION_FALSE", "3"),
        ("override", "isr", None, "EXPRESSION_FALSE", "5"),
        ("garbage", "isr", None, "COULD_NOT_EVALUATE", "two"),
        ("fine", "rf", None, "EXPRESSION_FALSE", None),  # rf 4 > 3 live brokers; the rule reads no config
    }
    messages = {r.resource_name + "/" + r.constraint_id: r.message for r in rows}
    assert messages["views-differ/isr"] == (
        "min.insync.replicas=3: `cast(cfg['min.insync.replicas'] as int) <= topic.replication_factor` does not hold"
        " (on broker 2's view) — writes with acks=all fail"
    )
    assert messages["garbage/isr"] == (
        "could not evaluate `cast(cfg['min.insync.replicas'] as int) <= topic.replication_factor` for "
        "min.insync.replicas=two (a value is missing or does not parse) — writes with acks=all fail"
    )
    assert messages["fine/rf"] == "replication.factor: `topic.replication_factor <= cluster.broker_count` does not hold"


def test_more_expressions_than_one_chunk_are_all_evaluated(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    entries = "\n".join(
        f'  - {{id: p{i:02d}, resource: topic, configs: [cleanup.policy], expr: "topic.partitions > {i}"}}'
        for i in range(60)
    )
    effective_df = effective_df_of(
        {
            "resource_type": "TOPIC",
            "resource_name": "t",
            "config_name": "cleanup.policy",
            "value": "delete",
            "config_type": "LIST",
        }
    )
    rows = _evaluate(
        spark,
        compile_yaml("constraints:\n" + entries),
        effective_df,
        topics_df_of(("t", 40, 1, [1])),
        cluster_df_of(),
        mv_table=mv_table,
    )
    assert sorted(r.constraint_id for r in rows) == [f"p{i:02d}" for i in range(40, 60)]


def test_rules_sharing_an_expression_each_report_their_own_failures(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    """Rules repeating one expression share its evaluation (one slot per view) but not its verdicts: each rule's
    own keys and layers decide whether it judges the entity, and ``value`` is each rule's own first key."""
    shared = "cfg['cleanup.policy'] = 'delete' or topic.partitions > 40"
    rules = compile_yaml(
        f"""
constraints:
  - {{id: same-a, resource: topic, configs: [cleanup.policy], expr: "{shared}"}}
  - {{id: same-b, resource: topic, configs: [retention.ms], expr: "{shared}"}}
  - {{id: same-absent, resource: topic, configs: [segment.bytes], expr: "{shared}"}}
  - {{id: same-other-layer, resource: topic, configs: [cleanup.policy], sources: [DYNAMIC_BROKER_CONFIG],
     expr: "{shared}"}}
  - {{id: value-policy, resource: topic, configs: [cleanup.policy], expr: "value = 'compact'"}}
  - {{id: value-retention, resource: topic, configs: [retention.ms], expr: "value = 'compact'"}}
"""
    )
    row = {"resource_type": "TOPIC", "resource_name": "t", "source": "DYNAMIC_TOPIC_CONFIG"}
    effective_df = effective_df_of(
        {**row, "config_name": "cleanup.policy", "value": "compact", "config_type": "LIST"},
        {**row, "config_name": "retention.ms", "value": "1000", "config_type": "LONG"},
    )
    rows = _evaluate(spark, rules, effective_df, topics_df_of(("t", 3, 1, [1])), cluster_df_of(), mv_table=mv_table)
    # same-absent holds no key of its own; same-other-layer judges another layer; value-policy holds
    assert sorted((r.constraint_id, r.config_name, r.value) for r in rows) == [
        ("same-a", "cleanup.policy", "compact"),
        ("same-b", "retention.ms", "1000"),
        ("value-retention", "retention.ms", "1000"),
    ]


@pytest.fixture
def fleet_by_level(
    compile_yaml: Callable[..., CompiledCatalog],
    fleet: tuple[Any, Any],
    cluster_df_of: Any,
    effective_df_of: Callable[..., Any],
    mv_table: MetadataVersionTable,
) -> Callable[..., Any]:
    """``violations_by_level`` of the SEGMENT_RULES over the fleet (c1, current level 27) and a clean c2 row, with
    the keyword arguments given."""

    def by_level(**kwargs: Any) -> Any:
        effective_df, topics_df = fleet
        clean_df = effective_df_of({"cluster_id": "c2", "config_name": "log.segment.bytes", "value": "4194304"})
        by_level_df = violations_by_level(
            effective_df.unionByName(clean_df),
            topics_df,
            cluster_df_of(27),
            compile_yaml(SEGMENT_RULES),
            mv_table=mv_table,
            **kwargs,
        )
        assertSchemaEqual(by_level_df.schema, VIOLATIONS_BY_LEVEL, ignoreNullable=True)
        return by_level_df

    return by_level


def test_every_level_at_once_gives_the_highest_safe_mv(fleet_by_level: Callable[..., Any], cluster_df_of: Any) -> None:
    by_level_df = fleet_by_level()
    levels = {(r.cluster_id, r.level): (r.errors, r.warnings, r.is_safe) for r in by_level_df.collect()}
    assert len(levels) == 2 * 33
    # group-session (error, base) fails everywhere in c1; retention-2d is a warning on both brokers
    assert levels[("c1", 31)] == (1, 2, False)
    assert levels[("c1", 32)] == (1 + 3, 2, False)  # + the 3 MiB rule on 2 brokers and topic t3
    assert levels[("c2", 33)] == (0, 0, True)
    safe_df = highest_safe_levels(by_level_df, cluster_df_of(27))
    assertSchemaEqual(safe_df.schema, HIGHEST_SAFE_LEVELS, ignoreNullable=True)
    safe = {r.cluster_id: (r.current_level, r.highest_safe_level, r.highest_safe_mv) for r in safe_df.collect()}
    assert safe == {"c1": (27, None, None), "c2": (None, 33, "4.4-IV2")}


def test_every_level_reports_the_clusters_it_is_given(fleet_by_level: Callable[..., Any]) -> None:
    # an audit passes its scope: rows for exactly those clusters, whatever the effective rows hold (c2 is left out,
    # c3 has no row anywhere and gets zeros at every level)
    by_level_df = fleet_by_level(clusters=["c3", "c1"])
    levels = {(r.cluster_id, r.level): (r.errors, r.warnings, r.is_safe) for r in by_level_df.collect()}
    assert len(levels) == 2 * 33
    assert {cluster for cluster, _ in levels} == {"c1", "c3"}
    assert levels[("c1", 32)] == (1 + 3, 2, False)  # as when the clusters come from the tables (the test above)
    assert all(levels[("c3", level)] == (0, 0, True) for level in range(1, 34))


def test_highest_safe_mv_stops_below_the_first_failing_registration(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    effective_df = effective_df_of({"config_name": "log.segment.bytes", "value": "1048576"})
    rules = compile_yaml(SEGMENT_RULES)
    by_level_df = violations_by_level(effective_df, topics_df_of(), cluster_df_of(27), rules, mv_table=mv_table)
    safe = highest_safe_levels(by_level_df, cluster_df_of(27)).collect()
    assert [(r.highest_safe_level, r.highest_safe_mv) for r in safe] == [(31, "4.4-IV0")]


# Shaped like the generated default catalog: an older release's validator and cross-field checks.
KAFKA_RULES = """
constraints:
  - id: kafka-3.7-protocols-in
    resource: broker
    config: group.coordinator.rebalance.protocols
    since: 3.7-IV0
    check: {in: [classic, consumer]}
  - id: kafka-3.3-acks-le-rf
    resource: broker
    configs: [offsets.commit.required.acks, offsets.topic.replication.factor]
    since: 3.3-IV0
    expr: "cast(cfg['offsets.commit.required.acks'] as int) <= cast(cfg['offsets.topic.replication.factor'] as int)"
  - id: kafka-a-below-b
    resource: broker
    configs: [a.ms, b.ms]
    expr: "cast(cfg['a.ms'] as long) < cast(cfg['b.ms'] as long)"
"""
USER_RULES = """
constraints:
  - {id: user-protocols-in, resource: broker, config: group.coordinator.rebalance.protocols, check: {in: [classic]}}
  - id: user-a-below-b
    resource: broker
    configs: [a.ms, b.ms]
    expr: "cast(cfg['a.ms'] as long) < cast(cfg['b.ms'] as long)"
"""


def test_generated_kafka_rules_judge_only_values_someone_set_and_keys_the_release_has(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    default, static = "DEFAULT_CONFIG", "STATIC_BROKER_CONFIG"
    protocols = "group.coordinator.rebalance.protocols"
    rows = [
        # broker 1: nothing set but the offsets topic RF; the acks key does not exist in the audited release
        {"resource_name": "1", "config_name": protocols, "value": "classic,consumer,streams", "source": default},
        {"resource_name": "1", "config_name": "offsets.topic.replication.factor", "value": "3"},
        {"resource_name": "1", "config_name": "a.ms", "value": "10", "source": default},
        {"resource_name": "1", "config_name": "b.ms", "value": "5", "source": default},
        # broker 2: the operator set the protocols and a.ms
        {"resource_name": "2", "config_name": protocols, "value": "streams"},
        {"resource_name": "2", "config_name": "a.ms", "value": "10", "source": static},
        {"resource_name": "2", "config_name": "b.ms", "value": "5", "source": default},
    ]
    effective_df = effective_df_of(*[{"config_type": "STRING", **r} for r in rows])
    rules = compile_yaml(**{DEFAULT_SOURCE: KAFKA_RULES, "users.yaml": USER_RULES})
    found = _evaluate(
        spark, rules, effective_df, topics_df_of(), cluster_df_of(15), target="3.7-IV0", mv_table=mv_table
    )
    assert sorted((r.resource_name, r.constraint_id) for r in found) == [
        ("1", "user-a-below-b"),  # the user's rules see the defaults
        ("1", "user-protocols-in"),
        ("2", "kafka-3.7-protocols-in"),  # Kafka's rules see what the operator set
        ("2", "kafka-a-below-b"),
        ("2", "user-a-below-b"),
        ("2", "user-protocols-in"),
    ]
    # The same at every level: only the user's rules and the operator's values fail, nothing COULD_NOT_EVALUATE.
    by_level_df = violations_by_level(effective_df, topics_df_of(), cluster_df_of(15), rules, mv_table=mv_table)
    errors = {r.level: r.errors for r in by_level_df.collect()}
    assert errors[4] == errors[14] == 5  # kafka-3.7-protocols-in registers at 3.7-IV0 (level 15)
    assert errors[15] == errors[33] == 6


COMPACTION_LAG_RULE = """
constraints:
  - id: kafka-topic-min-lag-le-max
    resource: topic
    configs: [min.compaction.lag.ms, max.compaction.lag.ms]
    expr: "cast(cfg['min.compaction.lag.ms'] as long) <= cast(cfg['max.compaction.lag.ms'] as long)"
"""


def test_generated_expressions_judge_each_broker_view_on_the_keys_set_in_that_view(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    # One topic, two broker views. The lag bounds fail in both (100 > 10), but only broker 1's view has a key
    # someone set (its per-broker layer); in broker 2's view both are Kafka's defaults, which a generated rule does
    # not judge. So only broker 1's view fails, and the violation names it.
    topic = {"resource_type": "TOPIC", "resource_name": "t", "config_type": "LONG"}
    low = {**topic, "config_name": "min.compaction.lag.ms", "value": "100"}
    effective_df = effective_df_of(
        {**low, "node_id": 1, "source": "DYNAMIC_BROKER_CONFIG", "synonym": "log.cleaner.min.compaction.lag.ms"},
        {**low, "node_id": 2, "source": "DEFAULT_CONFIG"},
        {**topic, "config_name": "max.compaction.lag.ms", "value": "10", "source": "DEFAULT_CONFIG"},
    )
    rules = compile_yaml(**{DEFAULT_SOURCE: COMPACTION_LAG_RULE})
    rows = _evaluate(
        spark, rules, effective_df, topics_df_of(("t", 1, 2, [1, 2])), cluster_df_of(27), mv_table=mv_table
    )
    got = [(r.resource_name, r.constraint_id, r.node_id, r.violation_code, r.value, r.value_source) for r in rows]
    assert got == [("t", "kafka-topic-min-lag-le-max", 1, "EXPRESSION_FALSE", "100", "DYNAMIC_BROKER_CONFIG")]


FIX_RULES = """
constraints:
  - {id: seg-min, resource: broker, config: log.segment.bytes, check: {min: 3145728}}
  - {id: topic-seg-min, resource: topic, config: segment.bytes, check: {min: 3145728}}
  - {id: topic-seg-max, resource: topic, config: segment.bytes, check: {max: 1073741824}}
  - id: topic-min-isr-not-above-rf
    resource: topic
    configs: [min.insync.replicas]
    expr: "cast(cfg['min.insync.replicas'] as int) <= topic.replication_factor"
"""


def test_delete_when_every_fallback_view_passes_every_rule_of_the_key_else_set(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    seg = {"config_name": "log.segment.bytes", "value": "1048576", "synonym": "log.segment.bytes"}
    topic = {"resource_type": "TOPIC", "config_name": "segment.bytes", "source": "DYNAMIC_TOPIC_CONFIG"}
    effective_df = effective_df_of(
        {**seg, "resource_name": "1", "node_id": 1, "source": "DYNAMIC_BROKER_CONFIG"},
        {**seg, "resource_name": "2", "node_id": 2, "source": "DYNAMIC_BROKER_CONFIG"},
        {**seg, "resource_name": "3", "node_id": 3, "source": "DYNAMIC_DEFAULT_BROKER_CONFIG"},
        {**seg, "resource_name": "4", "node_id": 4, "source": "STATIC_BROKER_CONFIG"},
        # cluster c2: the cluster default covers brokers 3 and 5; deleting it would break broker 5
        {**seg, "cluster_id": "c2", "resource_name": "3", "node_id": 3, "source": "DYNAMIC_DEFAULT_BROKER_CONFIG"},
        {**seg, "cluster_id": "c2", "resource_name": "5", "node_id": 5, "source": "DYNAMIC_DEFAULT_BROKER_CONFIG"},
        {**topic, "resource_name": "one-view", "value": "100"},
        {**topic, "resource_name": "views-differ", "value": "100"},
        {**topic, "resource_name": "too-big-below", "value": "100"},
        {
            "resource_type": "TOPIC",
            "resource_name": "one-view",
            "config_name": "min.insync.replicas",
            "value": "3",
            "source": "DYNAMIC_TOPIC_CONFIG",
        },
    )
    fallback_rows = [
        ("c2", "BROKER", "3", 3, "log.segment.bytes", "DYNAMIC_DEFAULT_BROKER_CONFIG", "1073741824", "DEFAULT_CONFIG"),
        ("c2", "BROKER", "5", 5, "log.segment.bytes", "DYNAMIC_DEFAULT_BROKER_CONFIG", "1000", "STATIC_BROKER_CONFIG"),
    ] + [
        ("c1", *row)
        for row in [
            ("BROKER", "1", 1, "log.segment.bytes", "DYNAMIC_BROKER_CONFIG", "4194304", "STATIC_BROKER_CONFIG"),
            ("BROKER", "2", 2, "log.segment.bytes", "DYNAMIC_BROKER_CONFIG", "2097152", "STATIC_BROKER_CONFIG"),
            ("BROKER", "3", 3, "log.segment.bytes", "DYNAMIC_DEFAULT_BROKER_CONFIG", "1073741824", "DEFAULT_CONFIG"),
            ("TOPIC", "one-view", None, "segment.bytes", "DYNAMIC_TOPIC_CONFIG", "4194304", "STATIC_BROKER_CONFIG"),
            ("TOPIC", "views-differ", 1, "segment.bytes", "DYNAMIC_TOPIC_CONFIG", "4194304", "STATIC_BROKER_CONFIG"),
            ("TOPIC", "views-differ", 2, "segment.bytes", "DYNAMIC_TOPIC_CONFIG", "2097152", "STATIC_BROKER_CONFIG"),
            ("TOPIC", "too-big-below", None, "segment.bytes", "DYNAMIC_TOPIC_CONFIG", "2147483647", "DEFAULT_CONFIG"),
        ]
    ]
    fallback_df = spark.createDataFrame(
        [(c, t, n, node, k, d, v, None, False, "INT", s, k) for c, t, n, node, k, d, v, s in fallback_rows],
        "cluster_id string, resource_type string, resource_name string, node_id int, config_name string, "
        "deleted_source string, value string, value_hash string, is_sensitive boolean, config_type string, "
        "source string, synonym string",
    )
    asked: list[Any] = []

    def resolver(needed_df: Any) -> Any:
        asked.append(needed_df)
        return fallback_df

    rules = compile_yaml(FIX_RULES)
    validate_with_spark(rules, spark)
    violations_df = evaluate_constraints(
        effective_df,
        topics_df_of(("one-view", 1, 2, [1]), ("views-differ", 1, 2, [1, 2]), ("too-big-below", 1, 1, [1])),
        cluster_df_of(27),
        rules,
        target=parse_metadata_version("4.4-IV1", mv_table),
        run_id="run-1",
        run_ts=RUN_TS,
        dynamic_scope_df=spark.createDataFrame(
            [("log.segment.bytes", "cluster-wide")], "config_name string, scope string"
        ),
        fallback_resolver=resolver,
    )
    got = {
        (r.cluster_id, r.resource_name, r.constraint_id): (
            r.remediation_change.op,
            r.remediation_change.resource_name,
            r.remediation_change.value,
        )
        for r in violations_df.collect()
    }
    assert got == {
        ("c1", "1", "seg-min"): ("DELETE", "1", None),  # static 4194304 below it passes
        ("c1", "2", "seg-min"): ("SET", "2", "3145728"),  # static 2097152 below it fails too
        ("c1", "3", "seg-min"): ("DELETE", "", None),  # the cluster default goes; the ConfigDef default passes
        ("c1", "4", "seg-min"): ("SET", "", "3145728"),  # a static value: nothing to delete
        ("c2", "3", "seg-min"): ("SET", "", "3145728"),  # the cluster default stays: broker 5 needs it
        ("c2", "5", "seg-min"): ("SET", "", "3145728"),
        ("c1", "one-view", "topic-seg-min"): ("DELETE", "one-view", None),
        ("c1", "views-differ", "topic-seg-min"): ("SET", "views-differ", "3145728"),  # broker 2's view fails
        ("c1", "too-big-below", "topic-seg-min"): ("SET", "too-big-below", "3145728"),  # passes min, fails max
        ("c1", "one-view", "topic-min-isr-not-above-rf"): ("SET", "one-view", "2"),  # derived from the expression
    }
    needed = {tuple(r) for r in asked[0].collect()}
    assert needed == {
        ("c1", "BROKER", "1", "DYNAMIC_BROKER_CONFIG"),
        ("c1", "BROKER", "2", "DYNAMIC_BROKER_CONFIG"),
        ("c1", "BROKER", "3", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
        ("c2", "BROKER", "3", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
        ("c2", "BROKER", "5", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
        ("c1", "TOPIC", "one-view", "DYNAMIC_TOPIC_CONFIG"),
        ("c1", "TOPIC", "views-differ", "DYNAMIC_TOPIC_CONFIG"),
        ("c1", "TOPIC", "too-big-below", "DYNAMIC_TOPIC_CONFIG"),
    }, "only single-key violations of override values ask for a fallback"


ASSUMED_RULES = """
constraints:
  - {id: io-threads, resource: broker, config: num.io.threads, check: {min: 16}}
  - id: io-over-network
    resource: broker
    configs: [num.io.threads, num.network.threads]
    expr: "cast(cfg['num.io.threads'] as int) > cast(cfg['num.network.threads'] as int)"
"""


def test_violations_say_when_the_value_judged_is_an_assumed_default(
    spark: Any,
    compile_yaml: Callable[..., CompiledCatalog],
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
    mv_table: MetadataVersionTable,
) -> None:
    io, network = {"config_name": "num.io.threads", "value": "8"}, {"config_name": "num.network.threads", "value": "8"}
    effective_df = effective_df_of(
        # broker 1: server.properties unknown beyond its registration, num.io.threads at the default by assumption
        {**io, "resource_name": "1", "source": "DEFAULT_CONFIG", "is_assumed": True},
        {**network, "resource_name": "1"},
        # broker 2: the same values, known (static)
        {**io, "resource_name": "2"},
        {**network, "resource_name": "2"},
    )
    rows = _evaluate(
        spark, compile_yaml(ASSUMED_RULES), effective_df, topics_df_of(), cluster_df_of(27), mv_table=mv_table
    )
    got = {(r.resource_name, r.constraint_id): r.value_assumed for r in rows}
    assert got == {
        ("1", "io-threads"): True,
        ("1", "io-over-network"): True,  # one of the values the expression reads is assumed
        ("2", "io-threads"): False,
        ("2", "io-over-network"): False,
    }
