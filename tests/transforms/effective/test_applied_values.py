"""Values Kafka uses instead of the value set: the 3.6–3.9 timestamp fallback and the 4.3+ clamps.

Expectations worked out by hand from Kafka's source:

* fallback — confluentinc/kafka 3.9: core/src/main/scala/kafka/server/KafkaConfig.scala
  (``logMessageTimestampBeforeMaxMs``: the bound unless it equals ``Long.MAX_VALUE``, else
  ``log.message.timestamp.difference.max.ms``; ``extractLogConfigMap`` hands the derived bound to topics) and
  storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java (``getMessageTimestampBeforeMaxMs``:
  the same on the topic's own values); confluentinc/kafka 4.0 LogConfig.java reads the bound alone;
* clamps — confluentinc/kafka 4.3: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/
  GroupCoordinatorConfig.java ``clampDynamicConfigs`` (called by core/.../DynamicBrokerConfig.scala
  ``updateCurrentConfig``; a key absent from the props is left alone) and GroupConfig.java ``evaluateValues``
  (called by GroupConfigManager.updateGroupConfig on the group's own props); confluentinc/kafka 4.4 GroupConfig.java
  adds ``streams.num.warmup.replicas`` (clampToMax ``group.streams.max.warmup.replicas``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.runtime.holding import LOCAL_ROWS, Checkpoints
from jobs.runtime.lookups import held_catalog_frames
from schemas.gold import EFFECTIVE_CONFIGS
from schemas.kafka_catalog import KafkaCatalog, release_catalog_from_document
from tests.transforms.replay.bronze_rows import (
    broker_config,
    feature,
    no_static_configs,
    partition,
    records,
    register,
    topic,
    topic_config,
)
from transforms.effective import resolve_effective_configs, to_catalog_frames
from transforms.effective.catalog_frames import CatalogFrames
from transforms.effective.clamps import (
    to_clamped_findings,
    with_broker_clamps,
    with_broker_clamps_in_map,
    with_group_clamps,
)
from transforms.effective.common import resolved
from transforms.effective.list_values import with_deduplicated_lists
from transforms.effective.timestamps import (
    fallback_planned,
    with_broker_timestamp_fallback,
    with_topic_timestamp_fallback,
    with_view_timestamp_fallback,
)
from transforms.kit.audit_scope import with_release_at_least
from transforms.kit.releases import release_rank_column
from transforms.replay import replay_state

pytestmark = pytest.mark.spark

MAX = "9223372036854775807"
BEFORE, AFTER, DIFF = (
    "log.message.timestamp.before.max.ms",
    "log.message.timestamp.after.max.ms",
    "log.message.timestamp.difference.max.ms",
)


def _row(**fields: Any) -> tuple[Any, ...]:
    row: dict[str, Any] = {
        "cluster_id": "c1",
        "resource_type": "BROKER",
        "resource_name": "1",
        "node_id": 1,
        "config_name": "x",
        "value": None,
        "value_hash": None,
        "is_sensitive": False,
        "config_type": "LONG",
        "source": "DEFAULT_CONFIG",
        "synonym": None,
        "source_offset": None,
        "source_timestamp": None,
        "kafka_release": "3.9",
        "value_set": None,
        "is_assumed": False,
    }
    assert not set(fields) - set(row)
    row.update(fields)
    if row["synonym"] is None:
        row["synonym"] = row["config_name"]
    return tuple(row[f.name] for f in EFFECTIVE_CONFIGS.fields)


def _df(spark: SparkSession, *rows: dict[str, Any]) -> DataFrame:
    return spark.createDataFrame([_row(**r) for r in rows], EFFECTIVE_CONFIGS)


def _by_key(df: DataFrame) -> dict[tuple[str, int | None, str], Any]:
    rows = {}
    for r in df.collect():
        key = (r.resource_name, r.node_id, r.config_name)
        assert key not in rows, f"duplicate {key}"
        rows[key] = r
    return rows


def _nodes(spark: SparkSession, *nodes: tuple[int, str]) -> DataFrame:
    return spark.createDataFrame(
        [("c1", n, rel, int(rel.split(".")[0]) * 1000 + int(rel.split(".")[1])) for n, rel in nodes],
        "cluster_id string, node_id int, catalog_release string, release_rank int",
    )


# --- the 3.6-3.9 timestamp fallback -----------------------------------------------------------------------------


def _broker_bounds(node: int, release: str, before: str, difference: str) -> list[dict[str, Any]]:
    base = {"resource_name": str(node), "node_id": node, "kafka_release": release}
    return [
        {**base, "config_name": BEFORE, "value": before, "source": "STATIC_BROKER_CONFIG" if before != MAX else None},
        {**base, "config_name": AFTER, "value": MAX, "is_assumed": True},
        {
            **base,
            "config_name": DIFF,
            "value": difference,
            "source": "DYNAMIC_DEFAULT_BROKER_CONFIG",
            "source_offset": 5,
        },
    ]


def _clean(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if v is not None or k != "source"} for r in rows]


def test_broker_bounds_at_their_default_use_the_difference_only_from_3_6_to_3_9(spark: SparkSession) -> None:
    df = _df(
        spark,
        *_clean(_broker_bounds(1, "3.9", MAX, "3600000")),
        *_clean(_broker_bounds(2, "4.0", MAX, "3600000")),  # 4.0: no fallback
        *_clean(_broker_bounds(3, "3.9", "60000", "3600000")),  # bound set: used as set
        *_clean(_broker_bounds(4, "3.5", MAX, "3600000")),  # before KIP-937
        *_clean(_broker_bounds(5, "3.6", MAX, MAX)),  # difference at its default too: nothing changes
    )
    rows = _by_key(df.transform(with_broker_timestamp_fallback))
    before = rows[("1", 1, BEFORE)]
    assert (before.value, before.value_set, before.source, before.synonym, before.source_offset) == (
        "3600000",
        MAX,
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
        DIFF,
        5,
    )
    after = rows[("1", 1, AFTER)]
    # the bound itself was an assumed default: server.properties might set it, so the value used is assumed too
    assert (after.value, after.value_set, after.is_assumed) == ("3600000", MAX, True)
    assert before.is_assumed is False
    for node, value in ((2, MAX), (3, "60000"), (4, MAX), (5, MAX)):
        row = rows[(str(node), node, BEFORE)]
        assert (row.value, row.value_set, row.synonym) == (value, None, BEFORE), node
    assert len(rows) == 15


def _view(node: int, key: str, value: str, source: str, synonym: str, release: str = "3.9") -> tuple[Any, ...]:
    return ("c1", node, key, value, source, synonym, release, int(release[0]) * 1000 + int(release[2]))


def test_topic_bounds_fall_back_on_the_broker_first_then_on_the_topic(spark: SparkSession) -> None:
    raw_df = spark.createDataFrame(
        [
            _view(1, "message.timestamp.before.max.ms", MAX, "DEFAULT_CONFIG", "message.timestamp.before.max.ms"),
            _view(1, "message.timestamp.difference.max.ms", "3600000", "STATIC_BROKER_CONFIG", DIFF),
            _view(2, "message.timestamp.before.max.ms", MAX, "DEFAULT_CONFIG", "message.timestamp.before.max.ms"),
            _view(2, "message.timestamp.difference.max.ms", MAX, "DEFAULT_CONFIG", DIFF),
        ],
        "cluster_id string, node_id int, config_name string, value string, source string, synonym string, "
        "kafka_release string, release_rank int",
    )
    views_df = raw_df.select(
        "cluster_id",
        "node_id",
        "config_name",
        resolved(
            value=raw_df.value,
            source=raw_df.source,
            synonym=raw_df.synonym,
            kafka_release=raw_df.kafka_release,
            release_rank=raw_df.release_rank,
        ).alias("r"),
    )
    views = {(r.node_id, r.config_name): r.r for r in views_df.transform(with_view_timestamp_fallback).collect()}
    # broker 1: extractLogConfigMap hands topics its derived bound, the broker's difference
    assert (
        views[(1, "message.timestamp.before.max.ms")].value,
        views[(1, "message.timestamp.before.max.ms")].synonym,
    ) == (
        "3600000",
        DIFF,
    )
    assert views[(2, "message.timestamp.before.max.ms")].value == MAX

    topic = {"resource_type": "TOPIC", "node_id": None}
    before, diff = "message.timestamp.before.max.ms", "message.timestamp.difference.max.ms"
    override = {"source": "DYNAMIC_TOPIC_CONFIG", "source_offset": 9, "kafka_release": None}
    topic_df = _df(
        spark,
        # on broker 1 (derived bound 3600000): a topic difference override does not matter
        {**topic, "resource_name": "on1", "config_name": before, "value": "3600000", "value_set": MAX, "synonym": DIFF},
        {**topic, "resource_name": "on1", "config_name": diff, "value": "60000", **override},
        # on broker 2 (bound and difference at their defaults): the topic's difference is used
        {**topic, "resource_name": "on2", "config_name": before, "value": MAX},
        {**topic, "resource_name": "on2", "config_name": diff, "value": "60000", **override},
        # hosted by both, no override: the difference differs per broker, so does the bound
        {**topic, "resource_name": "both", "config_name": before, "value": MAX},
        {**topic, "resource_name": "both", "config_name": diff, "node_id": 1, "value": "1000"},
        {**topic, "resource_name": "both", "config_name": diff, "node_id": 2, "value": MAX},
    )
    rows = _by_key(topic_df.transform(with_topic_timestamp_fallback, _nodes(spark, (1, "3.9"), (2, "3.9"))))
    assert (rows[("on1", None, before)].value, rows[("on1", None, before)].source) == ("3600000", "DEFAULT_CONFIG")
    on2 = rows[("on2", None, before)]
    assert (on2.value, on2.value_set, on2.source, on2.synonym, on2.source_offset) == (
        "60000",
        MAX,
        "DYNAMIC_TOPIC_CONFIG",
        diff,
        9,
    )
    assert (rows[("both", 1, before)].value, rows[("both", 1, before)].value_set) == ("1000", MAX)
    assert (rows[("both", 2, before)].value, rows[("both", 2, before)].value_set) == (MAX, None)
    assert ("both", None, before) not in rows

    # 4.0 reads the bound alone (the difference override would even be skipped on replay, KAFKA-19851)
    at_40_df = _df(
        spark,
        {**topic, "resource_name": "on2", "config_name": before, "value": MAX, "kafka_release": "4.0"},
        {**topic, "resource_name": "on2", "config_name": diff, "value": "60000", **override},
    )
    at_40 = _by_key(at_40_df.transform(with_topic_timestamp_fallback, _nodes(spark, (1, "4.0"))))
    assert (at_40[("on2", None, before)].value, at_40[("on2", None, before)].value_set) == (MAX, None)


def test_topic_fallback_changes_only_the_bounds_that_fall_back(spark: SparkSession) -> None:
    # LogConfig 3.9 (getMessageTimestampBeforeMaxMs / AfterMaxMs) reads only the two bounds and the difference; every
    # other row, and the difference itself, is what it was, once
    topic = {"resource_type": "TOPIC", "node_id": None}
    before, after, diff = (
        "message.timestamp.before.max.ms",
        "message.timestamp.after.max.ms",
        "message.timestamp.difference.max.ms",
    )
    given = [
        {**topic, "resource_name": "t", "config_name": "cleanup.policy", "value": "delete", "config_type": "LIST"},
        {**topic, "resource_name": "t", "config_name": "retention.ms", "node_id": 1, "value": "1000"},
        {**topic, "resource_name": "t", "config_name": "retention.ms", "node_id": 2, "value": "2000"},
        {**topic, "resource_name": "t", "config_name": before, "value": MAX},
        {**topic, "resource_name": "t", "config_name": after, "value": "5000", "source": "DYNAMIC_TOPIC_CONFIG"},
        {**topic, "resource_name": "t", "config_name": diff, "value": "60000", "source": "DYNAMIC_TOPIC_CONFIG"},
        # another topic's difference is not this topic's
        {**topic, "resource_name": "u", "config_name": diff, "value": "7", "source": "DYNAMIC_TOPIC_CONFIG"},
    ]
    rows = _by_key(_df(spark, *given).transform(with_topic_timestamp_fallback, _nodes(spark, (1, "3.9"), (2, "3.9"))))
    assert len(rows) == len(given)
    as_given = {(r["resource_name"], r["node_id"], r["config_name"]): _row(**r) for r in given}
    changed = ("t", None, before)
    assert {k: tuple(v) for k, v in rows.items() if k != changed} == {k: v for k, v in as_given.items() if k != changed}
    fallen = rows[changed]
    assert (fallen.value, fallen.value_set, fallen.source, fallen.synonym) == (
        "60000",
        MAX,
        "DYNAMIC_TOPIC_CONFIG",
        diff,
    )


# --- the 4.3+ clamps ------------------------------------------------------------------------------------------


def _interval(
    node: int, release: str, value: str, source: str, low: str = "500", high: str = "10000"
) -> list[dict[str, Any]]:
    base = {"resource_name": str(node), "node_id": node, "kafka_release": release, "config_type": "INT"}
    return [
        {
            **base,
            "config_name": "group.consumer.assignment.interval.ms",
            "value": value,
            "source": source,
            "source_offset": 3,
        },
        {
            **base,
            "config_name": "group.consumer.min.assignment.interval.ms",
            "value": low,
            "source": "STATIC_BROKER_CONFIG",
        },
        {**base, "config_name": "group.consumer.max.assignment.interval.ms", "value": high},
    ]


def test_broker_assignment_interval_is_capped_into_its_bounds_from_4_3(spark: SparkSession) -> None:
    df = _df(
        spark,
        *_interval(1, "4.3", "100", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
        *_interval(2, "4.2", "100", "DYNAMIC_DEFAULT_BROKER_CONFIG"),  # 4.2 does not clamp
        *_interval(3, "4.3", "1000", "DEFAULT_CONFIG", low="2000"),  # not set: absent from the props, left alone
        *_interval(4, "4.4", "20000", "DYNAMIC_BROKER_CONFIG"),  # above the maximum
    )
    clamped_df = df.transform(with_broker_clamps)
    rows = _by_key(clamped_df)
    key = "group.consumer.assignment.interval.ms"
    assert (rows[("1", 1, key)].value, rows[("1", 1, key)].value_set, rows[("1", 1, key)].source) == (
        "500",
        "100",
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
    )
    assert (rows[("2", 2, key)].value, rows[("2", 2, key)].value_set) == ("100", None)
    assert (rows[("3", 3, key)].value, rows[("3", 3, key)].value_set) == ("1000", None)
    assert (rows[("4", 4, key)].value, rows[("4", 4, key)].value_set) == ("10000", "20000")
    findings = sorted(to_clamped_findings(clamped_df).collect(), key=lambda f: f.resource_name)
    assert [(f.kind, f.resource_type, f.resource_name, f.config_name, f.offset) for f in findings] == [
        ("CLAMPED_DYNAMIC_CONFIG", "BROKER", "1", key, 3),
        ("CLAMPED_DYNAMIC_CONFIG", "BROKER", "4", key, 3),
    ]
    assert findings[0].message == (
        "config group.consumer.assignment.interval.ms=100 of broker 1 is below "
        "group.consumer.min.assignment.interval.ms = 500: Kafka 4.3 caps it and uses 500 "
        "(GroupCoordinatorConfig.clampDynamicConfigs)"
    )
    assert "is above group.consumer.max.assignment.interval.ms = 10000" in findings[1].message


def test_a_broker_whose_static_view_fails_the_bound_keeps_its_value_unclamped(spark: SparkSession) -> None:
    """At startup the broker builds its KafkaConfig from server.properties, unclamped, and GroupCoordinatorConfig
    requires the bound: it does not start (confluentinc/kafka 4.4 KafkaConfig.fromProps; the clamp is
    DynamicBrokerConfig.updateCurrentConfig's). ``failed_df``'s ``base`` names the static view's failed checks."""
    key = "group.consumer.assignment.interval.ms"
    df = _df(
        spark,
        *_interval(7, "4.4", "20000", "STATIC_BROKER_CONFIG"),  # its static view fails interval <= max
        *_interval(8, "4.4", "20000", "DYNAMIC_BROKER_CONFIG"),  # another key's check failed: still capped
        *_interval(9, "4.4", "20000", "DYNAMIC_BROKER_CONFIG"),  # no failed check: capped
    )
    failed_df = spark.createDataFrame(
        [
            ("c1", 7, [f"broker-{key}-le-group.consumer.max.assignment.interval.ms ({key} <= max)"]),
            ("c1", 8, ["broker-log.retention.ms-positive (retention >= 1 or -1)"]),
        ],
        "cluster_id string, node_id int, base array<string>",
    )
    rows = _by_key(with_broker_clamps(df, failed_df))
    assert (rows[("7", 7, key)].value, rows[("7", 7, key)].value_set) == ("20000", None)
    assert (rows[("8", 8, key)].value, rows[("8", 8, key)].value_set) == ("10000", "20000")
    assert (rows[("9", 9, key)].value, rows[("9", 9, key)].value_set) == ("10000", "20000")


def test_the_layer_checks_cap_the_interval_in_the_broker_map_as_in_its_rows(spark: SparkSession) -> None:
    """``with_broker_clamps_in_map`` (the layer checks' map of a broker's values) caps as ``with_broker_clamps``
    does: the same brokers as above, worked out by hand from GroupCoordinatorConfig.clampDynamicConfigs
    (confluentinc/kafka 4.3); a value that is not an int is left alone."""
    key = "group.consumer.assignment.interval.ms"
    df = _df(
        spark,
        *_interval(1, "4.3", "100", "DYNAMIC_DEFAULT_BROKER_CONFIG"),  # below the minimum 500
        *_interval(2, "4.2", "100", "DYNAMIC_DEFAULT_BROKER_CONFIG"),  # 4.2 does not clamp
        *_interval(3, "4.3", "1000", "DEFAULT_CONFIG", low="2000"),  # not set: left alone
        *_interval(4, "4.4", "20000", "DYNAMIC_BROKER_CONFIG"),  # above the maximum 10000
        *_interval(5, "4.3", "5000", "DYNAMIC_BROKER_CONFIG"),  # within the bounds
        *_interval(6, "4.3", "lots", "DYNAMIC_BROKER_CONFIG"),  # not an int
    )
    is_set = F.coalesce(F.col("source") != F.lit("DEFAULT_CONFIG"), F.lit(False))
    maps_df = df.groupBy("node_id").agg(
        F.map_from_entries(F.collect_list(F.struct("config_name", "value"))).alias("cfg"),
        F.collect_list(F.when(is_set, F.col("config_name"))).alias("set_keys"),
        F.min("kafka_release").alias("release"),
    )
    capped = with_broker_clamps_in_map(F.col("cfg"), F.col("set_keys"), release_rank_column(F.col("release")))
    got = {r.node_id: r.cfg for r in maps_df.select("node_id", capped.alias("cfg")).collect()}
    assert {node: cfg[key] for node, cfg in got.items()} == {
        1: "500",
        2: "100",
        3: "1000",
        4: "10000",
        5: "5000",
        6: "lots",
    }
    # the bounds themselves stay as they are
    assert {cfg["group.consumer.min.assignment.interval.ms"] for node, cfg in got.items() if node != 3} == {"500"}


def test_group_overrides_are_capped_per_coordinating_broker(spark: SparkSession) -> None:
    def bounds(node: int, release: str) -> list[dict[str, Any]]:
        base = {"resource_name": str(node), "node_id": node, "kafka_release": release, "config_type": "INT"}
        values = {
            "group.consumer.min.session.timeout.ms": "45000",
            "group.consumer.max.session.timeout.ms": "60000",
            "group.streams.max.warmup.replicas": "2",
        }
        return [{**base, "config_name": k, "value": v} for k, v in values.items()]

    brokers_df = _df(spark, *bounds(1, "4.3"), *bounds(2, "4.2"), *bounds(3, "4.4"))
    group = {"resource_type": "GROUP", "node_id": None, "kafka_release": None, "source": "DYNAMIC_GROUP_CONFIG"}
    groups_df = _df(
        spark,
        {
            **group,
            "resource_name": "g1",
            "config_name": "consumer.session.timeout.ms",
            "value": "5000",
            "source_offset": 7,
        },
        {**group, "resource_name": "g2", "config_name": "consumer.session.timeout.ms", "value": "50000"},
        {**group, "resource_name": "g3", "config_name": "streams.num.warmup.replicas", "value": "10"},
        {**group, "resource_name": "g4", "config_name": "share.isolation.level", "value": "read_committed"},
        # inherited from the broker: not the group's own props, never clamped
        {
            **group,
            "resource_name": "g4",
            "config_name": "consumer.session.timeout.ms",
            "value": "5000",
            "source": "DYNAMIC_DEFAULT_BROKER_CONFIG",
        },
    )
    nodes_df = _nodes(spark, (1, "4.3"), (2, "4.2"), (3, "4.4"))
    clamped_df = groups_df.transform(with_group_clamps, brokers_df, nodes_df)
    rows = {k: (r.value, r.value_set) for k, r in _by_key(clamped_df).items()}
    assert rows == {
        ("g1", 1, "consumer.session.timeout.ms"): ("45000", "5000"),
        ("g1", 2, "consumer.session.timeout.ms"): ("5000", None),
        ("g1", 3, "consumer.session.timeout.ms"): ("45000", "5000"),
        ("g2", None, "consumer.session.timeout.ms"): ("50000", None),
        # 4.3 has no warm-up clamp; 4.4 caps to group.streams.max.warmup.replicas
        ("g3", 1, "streams.num.warmup.replicas"): ("10", None),
        ("g3", 2, "streams.num.warmup.replicas"): ("10", None),
        ("g3", 3, "streams.num.warmup.replicas"): ("2", "10"),
        ("g4", None, "share.isolation.level"): ("read_committed", None),
        ("g4", None, "consumer.session.timeout.ms"): ("5000", None),
    }
    findings = sorted((f.resource_name, f.message) for f in to_clamped_findings(clamped_df).collect())
    assert [f[0] for f in findings] == ["g1", "g1", "g3"]
    assert findings[0][1] == (
        "config consumer.session.timeout.ms=5000 of group g1 on broker 1 is below "
        "group.consumer.min.session.timeout.ms = 45000: Kafka 4.3+ caps it and uses 45000 "
        "(GroupConfig.evaluate, GroupConfigManager.updateGroupConfig)"
    )


# --- wired into resolve_effective_configs: replay, then resolution at 3.9 and at 4.0 ----------------------------


def _timestamp_document(release: str) -> dict[str, Any]:
    """A release document with only the timestamp keys (defaults: confluentinc/kafka 3.9 / 4.0 ServerLogConfigs)."""
    has_difference = release == "3.9"
    after_default = MAX if has_difference else "3600000"  # 4.0: LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT = 1 h

    def entry(name: str, default: str, **extra: Any) -> dict[str, Any]:
        return {"name": name, "type": "LONG", "default": default, "importance": "MEDIUM", **extra}

    names = ["before", "after", *(["difference"] if has_difference else [])]
    defaults = {"before": MAX, "after": after_default, "difference": MAX}
    return {
        "release": release,
        "sources": {"repo": "hand-written", "ref": release, "commit": "0" * 40, "files_read": []},
        "broker": [entry(f"log.message.timestamp.{n}.max.ms", defaults[n], dynamic="cluster-wide") for n in names],
        "topic": [entry(f"message.timestamp.{n}.max.ms", defaults[n]) for n in names],
        "group": [],
        "client_metrics": [],
        "topic_synonyms": {
            f"message.timestamp.{n}.max.ms": [{"name": f"log.message.timestamp.{n}.max.ms", "converter": None}]
            for n in names
        },
        "broker_synonym_groups": [],
        "group_synonyms": {},
        "topic_configs_without_server_default": [],
        "cross_field_checks": [],
        "notes": [],
        "unresolved": [],
    }


# What the fixture below resolves to with each release's rules (worked from the module docstring's sources).
_AT_3_9: Final = {
    ("BROKER", "1", BEFORE): ("86400000", "DYNAMIC_BROKER_CONFIG", DIFF, MAX),
    ("BROKER", "2", BEFORE): (MAX, "DEFAULT_CONFIG", BEFORE, None),
    # on broker 1 the derived bound (86400000) is inherited and wins over the topic's difference
    ("TOPIC", "t8", "message.timestamp.before.max.ms"): ("86400000", "DYNAMIC_BROKER_CONFIG", DIFF, MAX),
    ("TOPIC", "t9", "message.timestamp.before.max.ms"): (
        "3600000",
        "DYNAMIC_TOPIC_CONFIG",
        "message.timestamp.difference.max.ms",
        MAX,
    ),
}
_AT_4_0: Final = {
    ("BROKER", "1", BEFORE): (MAX, "DEFAULT_CONFIG", BEFORE, None),
    ("TOPIC", "t9", "message.timestamp.before.max.ms"): (
        MAX,
        "DEFAULT_CONFIG",
        "message.timestamp.before.max.ms",
        None,
    ),
    ("TOPIC", "t9", "message.timestamp.after.max.ms"): (
        "3600000",
        "DEFAULT_CONFIG",
        "message.timestamp.after.max.ms",
        None,
    ),
}


def _timestamp_state(spark: SparkSession, mv_table: Any) -> Any:
    """Brokers 1 and 2 registered up to MV 21 (3.9-IV0: release 3.9); broker 1 sets the difference, and topics t8
    (on broker 1) and t9 (on broker 2) set their own."""
    bronze = records(
        spark,
        [
            feature(0, "metadata.version", 21),
            register(1, 1, mv_max=21),
            register(2, 2, mv_max=21),
            broker_config(3, 1, DIFF, "86400000"),
            topic(4, "t8", "T8T8T8T8T8T8T8T8T8T8TA"),
            partition(5, "T8T8T8T8T8T8T8T8T8T8TA", 0, [1]),
            topic_config(6, "t8", "message.timestamp.difference.max.ms", "3600000"),
            topic(7, "t9", "T9T9T9T9T9T9T9T9T9T9TA"),
            partition(8, "T9T9T9T9T9T9T9T9T9T9TA", 0, [2]),
            topic_config(9, "t9", "message.timestamp.difference.max.ms", "3600000"),
        ],
        cluster_id="c1",
    )
    return replay_state(bronze, no_static_configs(spark), mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS))


def _timestamp_frames(spark: SparkSession) -> CatalogFrames:
    catalog = KafkaCatalog(
        releases=tuple(
            release_catalog_from_document(_timestamp_document(r), source=f"{r} fixture") for r in ("3.9", "4.0")
        )
    )
    return held_catalog_frames(to_catalog_frames(spark, catalog))


def _timestamp_rows(effective_df: DataFrame) -> dict[tuple[str, ...], Any]:
    return {
        (r.resource_type, r.resource_name, r.config_name): (r.value, r.source, r.synonym, r.value_set)
        for r in effective_df.collect()
        if r.node_id is None or r.resource_type == "BROKER"
    }


@pytest.mark.parametrize(
    ("kafka_version", "expected"),
    [("3.9", _AT_3_9), ("4.0", _AT_4_0)],
    ids=["3.9-falls-back", "4.0-reads-the-bound"],
)
def test_resolution_applies_the_fallback_of_the_audited_release(
    interpreted_spark: SparkSession, mv_table: Any, kafka_version: str, expected: dict[tuple[str, ...], Any]
) -> None:
    spark = interpreted_spark
    effective_df = resolve_effective_configs(
        _timestamp_state(spark, mv_table),
        _timestamp_frames(spark),
        kafka_version=kafka_version,
        keep=Checkpoints(local_rows=LOCAL_ROWS),
    )
    rows = _timestamp_rows(effective_df)
    for key, value in expected.items():
        assert rows[key] == value, key


@pytest.mark.parametrize(("release", "expected"), [("3.9", _AT_3_9), ("4.0", _AT_4_0)], ids=["3.9", "4.0"])
def test_an_audit_at_a_release_plans_the_fallback_where_a_broker_may_apply_it(
    interpreted_spark: SparkSession, mv_table: Any, release: str, expected: dict[tuple[str, ...], Any]
) -> None:
    """As the audit resolves: every broker raised to the target's release at least, and that release given as
    ``oldest_release``. At 3.9 the brokers (3.9) still fall back, so the fallback must be planned; at 4.0 it is not,
    and the rows are those of 4.0's rules."""
    spark = interpreted_spark
    state = _timestamp_state(spark, mv_table)
    at_target = dataclasses.replace(state, brokers=with_release_at_least(state.brokers, release=release))
    effective_df = resolve_effective_configs(
        at_target, _timestamp_frames(spark), oldest_release=release, keep=Checkpoints(local_rows=LOCAL_ROWS)
    )
    rows = _timestamp_rows(effective_df)
    for key, value in expected.items():
        assert rows[key] == value, key


# Ranks of a catalog with every release from 3.3 to 4.4 (what conf/kafka ships).
_SHIPPED: Final = (*range(3003, 3010), *range(4000, 4005))


@pytest.mark.parametrize(
    ("ranks", "kafka_version", "oldest_release", "planned"),
    [
        (_SHIPPED, None, "4.4", False),  # every broker applies 4.4
        (_SHIPPED, None, "4.0", False),
        (_SHIPPED, None, "3.9", True),  # a broker may run 3.9
        (_SHIPPED, None, "3.2", True),  # older than the catalog: 3.3 is applied, and brokers may run 3.6-3.9
        (_SHIPPED, None, None, True),  # nothing known
        ((), None, "4.4", True),  # the catalog's releases unknown
        ((3006, 3009), None, "4.4", True),  # the newest catalog release not newer than 4.4 is 3.9
        ((4000, 4004), None, "3.3", False),  # older than the catalog: its oldest, 4.0, is applied
        (_SHIPPED, "3.7", "4.4", True),  # kafka_version is every broker's release
        (_SHIPPED, "3.9.1", None, True),
        (_SHIPPED, "3.5", None, False),  # 3.5's rules: no fallback yet
        (_SHIPPED, "4.0", "3.3", False),
    ],
)
def test_the_fallback_is_planned_unless_no_broker_can_apply_3_6_to_3_9(
    ranks: tuple[int, ...], kafka_version: str | None, oldest_release: str | None, planned: bool
) -> None:
    assert fallback_planned(ranks, kafka_version=kafka_version, oldest_release=oldest_release) is planned


# --- LIST values without repeated elements (4.2+) -----------------------------------------------------------------


def test_a_list_value_loses_its_repeated_elements_where_the_release_deduplicates_it(spark: SparkSession) -> None:
    # ConfigDef.parseValue (confluentinc/kafka 4.2 clients/.../config/ConfigDef.java, KAFKA-19875): first occurrences,
    # in order, joined with ","; measured: Kafka 4.2.0 describes a static classic,consumer,classic as classic,consumer
    key = "group.coordinator.rebalance.protocols"
    keys = frozenset({("4.2", "BROKER", key)})  # CatalogFrames.deduplicated_lists
    df = _df(
        spark,
        {
            "node_id": 1,
            "config_type": "LIST",
            "config_name": key,
            "value": "classic,consumer,classic",
            "kafka_release": "4.2",
        },
        {"node_id": 7, "config_name": key, "value": "a,a", "kafka_release": "4.2", "config_type": "STRING"},
        {
            "node_id": 2,
            "config_type": "LIST",
            "config_name": key,
            "value": "classic, consumer ,classic",
            "kafka_release": "4.2",
        },
        {
            "node_id": 3,
            "config_type": "LIST",
            "config_name": key,
            "value": "classic,consumer,classic",
            "kafka_release": "4.1",
        },
        {"node_id": 4, "config_type": "LIST", "config_name": key, "value": "consumer, classic", "kafka_release": "4.2"},
        {"node_id": 5, "config_type": "LIST", "config_name": key, "value": None, "kafka_release": "4.2"},
        {
            "node_id": 6,
            "config_type": "LIST",
            "config_name": "metric.reporters",
            "value": "a,a",
            "kafka_release": "4.2",
        },
    )
    values = {r.node_id: r.value for r in with_deduplicated_lists(df, keys).collect()}
    assert values == {
        1: "classic,consumer",
        2: "classic,consumer",
        3: "classic,consumer,classic",  # 4.1 parses without de-duplicating
        4: "consumer, classic",  # no repeated element: as set
        5: None,
        6: "a,a",  # not a key of the set
        7: "a,a",  # not a LIST
    }
