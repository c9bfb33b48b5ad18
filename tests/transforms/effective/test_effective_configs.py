"""Effective configs of one hand-built fleet: every precedence layer, synonym group, view split and hierarchy.

One replay + resolution of two clusters feeds all tests of this module (a module-scoped fixture collects the
result once); each test reads the rows it is about. Cluster ``c1`` is a 4.2 cluster whose brokers each exercise
one case (see ``_c1``); ``c0`` is a pre-3.3 log without any metadata.version.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import reduce
from typing import Any

import pytest
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.testing import assertSchemaEqual

from jobs.runtime.holding import LOCAL_ROWS, Checkpoints
from jobs.runtime.lookups import held_catalog_frames
from schemas.gold import EFFECTIVE_CONFIGS
from schemas.metadata_version import MetadataVersionTable
from schemas.whatif import FALLBACK_COLUMNS
from tests.transforms.effective.catalog_fixture import small_catalog, small_key_checks, small_layer_checks
from tests.transforms.replay.bronze_rows import (
    broker_config,
    client_config,
    config,
    feature,
    partition,
    quota,
    records,
    register,
    remove_topic,
    static_configs,
    topic,
    topic_config,
    unregister,
)
from transforms.effective import (
    effective_findings,
    resolve_effective_configs,
    resolve_without_overrides,
    to_catalog_frames,
)
from transforms.effective.catalog_frames import CatalogFrames
from transforms.kit.checkpoints import Plan, planned
from transforms.replay import replay_state
from transforms.replay.state import ReplayResult
from transforms.whatif.fallbacks import resolve_fallbacks

pytestmark = pytest.mark.spark

RETENTION = ("log.retention.ms", "log.retention.minutes", "log.retention.hours")
STATIC_SEG = ("log.segment.bytes", "2000000")


def _c1() -> list[Any]:
    return [
        feature(0, "metadata.version", 29),
        register(1, 1, static=[STATIC_SEG, ("log.retention.hours", "24"), ("log.roll.hours", "2")]),
        register(2, 2, static=[STATIC_SEG, ("log.retention.minutes", "30"), ("log.retention.hours", "24")]),
        register(3, 3, static=[STATIC_SEG, ("log.retention.hours", "-1")]),
        register(4, 4, static=[("log.retention.minutes", "30"), ("log.retention.hours", "24")]),
        register(5, 5),  # no static configs: coverage gap
        register(6, 6),  # static configs from a --static-config file
        register(7, 7),
        unregister(8, 7),
        register(9, 8, epoch=1),
        unregister(10, 8, epoch=1),
        register(11, 8, epoch=2),  # re-registered, no static configs
        register(12, 9, mv_max=26, static=[STATIC_SEG]),  # a 4.1 broker
        register(13, 10, static=[("log.retention.ms", "-1"), ("log.retention.hours", "24")]),
        register(14, 11, static=[("log.retention.hours", "24")]),
        broker_config(20, "", "num.io.threads", "16"),
        broker_config(21, "", "log.retention.hours", "1"),  # read-only: ignored
        broker_config(22, "", "listeners", "PLAINTEXT://:9093"),  # per-broker at the default: ignored
        broker_config(23, 2, "num.io.threads", "32"),
        broker_config(24, 2, "log.retention.ms", "1000"),
        broker_config(25, 1, "ssl.keystore.location", "/x"),  # needs a listener prefix: ignored
        broker_config(26, 1, "listener.name.internal.ssl.keystore.location", "/y"),
        broker_config(27, 1, "log.segment.bytes", "5000000"),
        broker_config(28, 1, "log.segment.bytes", None),  # deleted again
        broker_config(29, "", "group.consumer.session.timeout.ms", "50000"),
        broker_config(30, 11, "log.retention.ms", "-1"),
        broker_config(31, "", "log.segment.bytes", "1000"),  # below 4.x's 1 MiB minimum: rejected
        broker_config(32, 3, "num.io.threads", "many"),  # not an INT: rejected, the cluster default applies
        # 4.1 has no ConfigDef validator, but its DynamicThreadPool refuses the layer; 4.2's atLeast(1) drops the key
        broker_config(33, 9, "num.replica.fetchers", "0"),
        broker_config(34, 5, "num.replica.fetchers", "0"),
        topic(40, "mixed", "MMMMMMMMMMMMMMMMMMMMMA"),
        partition(41, "MMMMMMMMMMMMMMMMMMMMMA", 0, [1, 2]),
        topic(42, "same", "SSSSSSSSSSSSSSSSSSSSSA"),
        partition(43, "SSSSSSSSSSSSSSSSSSSSSA", 0, [5, 8]),
        partition(44, "SSSSSSSSSSSSSSSSSSSSSA", 1, [8, 5]),
        topic(45, "override", "OOOOOOOOOOOOOOOOOOOOOA"),
        partition(46, "OOOOOOOOOOOOOOOOOOOOOA", 0, [1]),
        topic_config(47, "override", "retention.ms", "5000"),
        topic(48, "gone", "GGGGGGGGGGGGGGGGGGGGG1"),
        partition(49, "GGGGGGGGGGGGGGGGGGGGG1", 0, [1]),
        topic_config(50, "gone", "retention.ms", "1"),
        remove_topic(51, "GGGGGGGGGGGGGGGGGGGGG1"),
        topic(52, "gone", "GGGGGGGGGGGGGGGGGGGGG2"),
        partition(53, "GGGGGGGGGGGGGGGGGGGGG2", 0, [5]),
        topic(54, "norep", "NNNNNNNNNNNNNNNNNNNNNA"),
        topic(55, "unlimited", "UUUUUUUUUUUUUUUUUUUUUA"),
        partition(56, "UUUUUUUUUUUUUUUUUUUUUA", 0, [10, 11]),
        config(60, 32, "g1", "share.isolation.level", "read_committed"),
        config(61, 16, "sub1", "interval.ms", "1000"),
        config(62, 16, "sub2", "metrics", "org.apache.kafka.producer."),  # interval.ms from the default
        topic_config(63, "override", "message.format.version", "2.8"),  # unknown to 4.2: skipped on replay
        config(64, 32, "g1", "no.such.group.key", "x"),  # skipped on replay
        broker_config(65, 2, "custom.plugin.key", "x"),  # broker keys are never skipped
        quota(70, {"user": "alice"}, "producer_byte_rate", 100),
        quota(71, {"user": "alice", "client-id": "app"}, "producer_byte_rate", 200),
        quota(72, {"user": None}, "producer_byte_rate", 10),
        quota(73, {"user": None}, "consumer_byte_rate", 20),
        quota(74, {"client-id": "app"}, "consumer_byte_rate", 30),
        quota(75, {"user": "bob", "client-id": None}, "producer_byte_rate", 300),
        quota(76, {"user": "bob", "client-id": None}, "producer_byte_rate", 0, remove=True),
        client_config(77, {"user": "alice"}, "acks", "all"),
        quota(78, {"ip": "1.2.3.4"}, "connection_creation_rate", 5),
        quota(79, {"ip": None}, "connection_creation_rate", 1),
    ]


def _c2() -> list[Any]:
    """Whole dynamic layers brokers refuse (KafkaConfig's log.retention.ms check), one case per broker."""
    return [
        feature(0, "metadata.version", 29),
        register(1, 1, static=[("log.retention.hours", "24")]),
        register(2, 2, static=[("log.retention.hours", "24")]),
        register(3, 3, static=[("log.retention.hours", "24")]),
        broker_config(10, "", "num.io.threads", "12"),
        broker_config(11, 1, "log.retention.ms", "0"),  # no ConfigDef validator, but KafkaConfig refuses it
        broker_config(12, 1, "num.io.threads", "20"),
        broker_config(13, 2, "log.retention.ms", "-5"),  # negative → -1 (unlimited): valid
    ]


def _c3() -> list[Any]:
    """A cluster-default layer that fails: refused, and so is every per-broker layer built on it, unless the
    per-broker layer repairs the config."""
    return [
        feature(0, "metadata.version", 29),
        register(1, 1, static=[("log.retention.hours", "24")]),
        register(2, 2, static=[("log.retention.hours", "24")]),
        broker_config(10, "", "log.retention.ms", "0"),
        broker_config(11, "", "num.io.threads", "12"),
        broker_config(12, 1, "num.io.threads", "20"),
        broker_config(13, 2, "log.retention.ms", "5000"),
    ]


@dataclass(frozen=True)
class Result:
    rows: dict[tuple[str, str, str, int | None, str], Row]
    findings: list[Row]
    schema_ok: bool


@dataclass(frozen=True)
class Inputs:
    """The replayed state of the four clusters and the small catalog's frames, held once for the module."""

    state: ReplayResult
    frames: CatalogFrames


@pytest.fixture(scope="module")
def inputs(interpreted_spark: SparkSession, mv_table: MetadataVersionTable) -> Inputs:
    spark = interpreted_spark
    bronze = reduce(
        DataFrame.unionByName,
        [
            records(spark, _c1(), cluster_id="c1"),
            records(spark, [register(0, 1, mv_max=None)], cluster_id="c0", source_file="/in/c0/00.log"),
            records(spark, _c2(), cluster_id="c2", source_file="/in/c2/00.log"),
            records(spark, _c3(), cluster_id="c3", source_file="/in/c3/00.log"),
        ],
    )
    files = static_configs(spark, [(6, "log.segment.bytes", "3000000"), (6, "log.roll.ms", None)])
    # held at the stage boundaries the audit job holds (jobs.runtime.holding): replay and resolution in one pure plan
    # take minutes to plan
    state = replay_state(bronze, files, mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS))
    frames = held_catalog_frames(
        to_catalog_frames(
            spark, small_catalog(), key_checks=small_key_checks(mv_table), layer_checks=small_layer_checks()
        )
    )
    return Inputs(state=state, frames=frames)


def _resolve(inputs: Inputs, **kw: Any) -> tuple[DataFrame, DataFrame]:
    """The effective configurations and findings of ``inputs``, resolved again (a new resolution each call)."""
    findings_kw = {k: v for k, v in kw.items() if k != "resource_types"}
    resolution = Checkpoints(local_rows=LOCAL_ROWS)
    return (
        resolve_effective_configs(inputs.state, inputs.frames, keep=resolution, **kw),
        effective_findings(inputs.state, inputs.frames, keep=resolution, **findings_kw),
    )


@pytest.fixture(scope="module")
def result(inputs: Inputs) -> Result:
    effective_df, findings_df = _resolve(inputs)
    assertSchemaEqual(effective_df.schema, EFFECTIVE_CONFIGS, ignoreNullable=True)
    rows = {}
    for r in effective_df.collect():
        key = (r.cluster_id, r.resource_type, r.resource_name, r.node_id, r.config_name)
        assert key not in rows, f"duplicate row {key}"
        rows[key] = r
    return Result(rows=rows, findings=findings_df.collect(), schema_ok=True)


def _broker(result: Result, node: int, key: str, cluster: str = "c1") -> Row:
    return result.rows[(cluster, "BROKER", str(node), node, key)]


def _summary(row: Row) -> tuple[Any, ...]:
    return (row.value, row.source, row.synonym, row.source_offset)


# --- brokers: layers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node", "key", "expected"),
    [
        (5, "log.segment.bytes", ("1073741824", "DEFAULT_CONFIG", "log.segment.bytes", None)),
        (9, "log.segment.bytes", ("2000000", "STATIC_BROKER_CONFIG", "log.segment.bytes", None)),
        (6, "log.segment.bytes", ("3000000", "STATIC_BROKER_CONFIG", "log.segment.bytes", None)),
        (1, "num.io.threads", ("16", "DYNAMIC_DEFAULT_BROKER_CONFIG", "num.io.threads", 20)),
        (2, "num.io.threads", ("32", "DYNAMIC_BROKER_CONFIG", "num.io.threads", 23)),
        (1, "log.segment.bytes", ("2000000", "STATIC_BROKER_CONFIG", "log.segment.bytes", None)),
        (
            8,
            "group.consumer.session.timeout.ms",
            ("50000", "DYNAMIC_DEFAULT_BROKER_CONFIG", "group.consumer.session.timeout.ms", 29),
        ),
    ],
    ids=[
        "default",
        "static-registration",
        "static-file",
        "cluster-default-over-static",
        "per-broker-over-cluster-default",
        "deleted-dynamic-falls-back-to-static",
        "cluster-default-group-key",
    ],
)
def test_broker_precedence_layers(result: Result, node: int, key: str, expected: tuple[Any, ...]) -> None:
    assert _summary(_broker(result, node, key)) == expected


@pytest.mark.parametrize(
    ("node", "key", "expected"),
    [
        (1, "log.retention.ms", ("86400000", "STATIC_BROKER_CONFIG", "log.retention.hours", None)),
        (1, "log.retention.hours", ("24", "STATIC_BROKER_CONFIG", "log.retention.hours", None)),
        (4, "log.retention.ms", ("1800000", "STATIC_BROKER_CONFIG", "log.retention.minutes", None)),
        (2, "log.retention.ms", ("1000", "DYNAMIC_BROKER_CONFIG", "log.retention.ms", 24)),
        (2, "log.retention.minutes", (None, "DEFAULT_CONFIG", "log.retention.minutes", None)),
        (2, "log.retention.hours", ("168", "DEFAULT_CONFIG", "log.retention.hours", None)),
        (3, "log.retention.ms", ("-1", "STATIC_BROKER_CONFIG", "log.retention.hours", None)),
        (5, "log.retention.ms", ("604800000", "DEFAULT_CONFIG", "log.retention.hours", None)),
        (1, "log.roll.ms", ("7200000", "STATIC_BROKER_CONFIG", "log.roll.hours", None)),
        (6, "log.roll.ms", ("604800000", "DEFAULT_CONFIG", "log.roll.hours", None)),
        (10, "log.retention.ms", ("-1", "STATIC_BROKER_CONFIG", "log.retention.ms", None)),
        (11, "log.retention.ms", ("-1", "DYNAMIC_BROKER_CONFIG", "log.retention.ms", 30)),
        (11, "log.retention.hours", ("168", "DEFAULT_CONFIG", "log.retention.hours", None)),
    ],
    ids=[
        "hours-converted-to-ms",
        "member-keeps-own-value",
        "minutes-over-hours-in-one-layer",
        "higher-layer-ms-wins-over-static-minutes",
        "higher-layer-removes-lower-minutes",
        "higher-layer-removes-lower-hours",
        "negative-retention-is-minus-one",
        "group-default-from-hours-default",
        "roll-hours-converted",
        "null-static-value-is-unset",
        "static-ms-minus-one-over-hours",
        "dynamic-ms-minus-one",
        "dynamic-ms-removes-static-hours",
    ],
)
def test_broker_synonym_groups(result: Result, node: int, key: str, expected: tuple[Any, ...]) -> None:
    assert _summary(_broker(result, node, key)) == expected


@pytest.mark.parametrize(
    ("node", "key", "expected"),
    [
        (1, "log.retention.hours", "24"),
        (5, "log.retention.hours", "168"),
        (1, "listeners", "PLAINTEXT://:9092"),
        (1, "ssl.keystore.location", None),
    ],
    ids=[
        "read-only-at-default-over-static",
        "read-only-at-default-over-default",
        "per-broker-key-at-default",
        "security-key-without-listener-prefix",
    ],
)
def test_ignored_dynamic_configs_are_not_applied(result: Result, node: int, key: str, expected: str | None) -> None:
    row = _broker(result, node, key)
    assert row.value == expected
    assert row.source in ("STATIC_BROKER_CONFIG", "DEFAULT_CONFIG")


@pytest.mark.parametrize(
    ("resource_name", "key", "offset"),
    [("", "log.retention.hours", 21), ("", "listeners", 22), ("1", "ssl.keystore.location", 25)],
    ids=["read-only", "per-broker-at-default", "listener-prefix-required"],
)
def test_ignored_dynamic_configs_are_findings(result: Result, resource_name: str, key: str, offset: int) -> None:
    matches = [
        f
        for f in result.findings
        if f.kind == "IGNORED_DYNAMIC_CONFIG"
        and (f.resource_name, f.config_name, f.offset) == (resource_name, key, offset)
    ]
    assert len(matches) == 1 and "ignored by brokers" in matches[0].message


def test_only_ignored_keys_are_reported_as_ignored(result: Result) -> None:
    ignored = sorted(f.config_name for f in result.findings if f.kind == "IGNORED_DYNAMIC_CONFIG")
    assert ignored == ["listeners", "log.retention.hours", "ssl.keystore.location"]


# --- brokers: values the release's ConfigDef parse rejects (DynamicBrokerConfig.removeInvalidConfigs) --------


@pytest.mark.parametrize(
    ("node", "key", "expected"),
    [
        (5, "log.segment.bytes", ("1073741824", "DEFAULT_CONFIG", "log.segment.bytes", None)),
        (1, "log.segment.bytes", ("2000000", "STATIC_BROKER_CONFIG", "log.segment.bytes", None)),
        (3, "num.io.threads", ("16", "DYNAMIC_DEFAULT_BROKER_CONFIG", "num.io.threads", 20)),
        (9, "num.replica.fetchers", ("1", "DEFAULT_CONFIG", "num.replica.fetchers", None)),
        (5, "num.replica.fetchers", ("1", "DEFAULT_CONFIG", "num.replica.fetchers", None)),
    ],
    ids=["below-min-default", "below-min-static", "not-an-int", "4.1-thread-pool-refuses-layer", "4.2-rejects"],
)
def test_rejected_dynamic_values_are_not_applied(
    result: Result, node: int, key: str, expected: tuple[Any, ...]
) -> None:
    assert _summary(_broker(result, node, key)) == expected


def test_rejected_dynamic_values_are_not_inherited_by_topics(result: Result) -> None:
    # topic "same" is hosted by 5 and 8 (no static configs): the rejected cluster default does not reach it
    row = result.rows[("c1", "TOPIC", "same", None, "segment.bytes")]
    assert (row.value, row.source) == ("1073741824", "DEFAULT_CONFIG")


def test_rejected_dynamic_values_are_findings(result: Result) -> None:
    invalid = sorted(
        (f.resource_name, f.config_name, f.offset, f.message)
        for f in result.findings
        if f.kind == "INVALID_DYNAMIC_CONFIG" and f.cluster_id == "c1"
    )
    # the cluster default is judged by the 4.1 broker (9) and the 4.2 brokers: one finding per release's reason
    assert [i[:3] for i in invalid] == [
        ("", "log.segment.bytes", 31),
        ("", "log.segment.bytes", 31),
        ("3", "num.io.threads", 32),
        ("5", "num.replica.fetchers", 34),
    ]
    assert all("log.segment.bytes=1000 is below the minimum 1048576" in i[3] for i in invalid[:2])
    assert ["Kafka 4.1 broker" in invalid[0][3], "Kafka 4.2 broker" in invalid[1][3]] == [True, True]
    assert "Kafka 4.2 broker ConfigDef" in invalid[3][3] and "num.replica.fetchers=0" in invalid[3][3]
    assert "'many' is not a valid int" in invalid[2][3]


# --- brokers: whole layers KafkaConfig's cross-field checks refuse (DynamicBrokerConfig.updateCurrentConfig) ---


@pytest.mark.parametrize(
    ("cluster", "node", "key", "expected"),
    [
        ("c2", 1, "log.retention.ms", ("86400000", "STATIC_BROKER_CONFIG", "log.retention.hours", None)),
        ("c2", 1, "num.io.threads", ("12", "DYNAMIC_DEFAULT_BROKER_CONFIG", "num.io.threads", 10)),
        ("c2", 2, "log.retention.ms", ("-1", "DYNAMIC_BROKER_CONFIG", "log.retention.ms", 13)),
        ("c2", 3, "num.io.threads", ("12", "DYNAMIC_DEFAULT_BROKER_CONFIG", "num.io.threads", 10)),
        ("c3", 1, "log.retention.ms", ("86400000", "STATIC_BROKER_CONFIG", "log.retention.hours", None)),
        ("c3", 1, "num.io.threads", ("8", "DEFAULT_CONFIG", "num.io.threads", None)),
        ("c3", 2, "log.retention.ms", ("5000", "DYNAMIC_BROKER_CONFIG", "log.retention.ms", 13)),
        ("c3", 2, "num.io.threads", ("12", "DYNAMIC_DEFAULT_BROKER_CONFIG", "num.io.threads", 11)),
    ],
    ids=[
        "per-broker-layer-refused",
        "per-broker-layer-refused-keeps-default",
        "negative-is-unlimited-not-refused",
        "untouched-broker",
        "default-layer-refused",
        "per-broker-on-refused-default-refused",
        "per-broker-layer-repairs-default",
        "repaired-default-applies",
    ],
)
def test_refused_layers_are_not_applied(
    result: Result, cluster: str, node: int, key: str, expected: tuple[Any, ...]
) -> None:
    assert _summary(_broker(result, node, key, cluster)) == expected


def test_refused_layers_are_findings(result: Result) -> None:
    refused = sorted(
        (f.cluster_id, f.resource_name, f.offset, f.message)
        for f in result.findings
        if f.kind == "REJECTED_CONFIG_LAYER"
    )
    # c3 broker 2 repairs the cluster default with its own log.retention.ms: nothing refused there; c1 broker 9
    # (4.1): DynamicThreadPool refuses num.replica.fetchers=0 (at least 1), so its per-broker layer is not applied
    assert [r[:3] for r in refused] == [("c1", "9", 33), ("c2", "1", 12), ("c3", "1", 11), ("c3", "1", 12)]
    assert "reconfigurable-num.replica.fetchers (DynamicThreadPool: num.replica.fetchers=0" in refused[0][3]
    c2 = refused[1][3]
    assert "per-broker dynamic config layer (2 keys: log.retention.ms, num.io.threads)" in c2
    assert "broker-log-retention-ms-not-zero" in c2
    assert "cluster-default dynamic config layer (2 keys: log.retention.ms, num.io.threads)" in refused[2][3]
    assert "stored cluster-default layer" in refused[3][3]
    assert not [f for f in result.findings if f.cluster_id in ("c2", "c3") and f.kind == "IGNORED_DYNAMIC_CONFIG"]


def test_layers_whose_outcome_depends_on_their_order_at_a_restart_are_findings(result: Result) -> None:
    """A KRaft broker applies its stored cluster-default and per-broker layers at a restart in HashMap order
    (DynamicConfigPublisher over ConfigurationsDelta.changes(), confluentinc/kafka 3.9-4.4); each update validates
    static + both stored layers against what the broker runs, and a refused layer stays stored. Worked out by hand:

    * c1 broker 2 (4.2, io threads 8 by default): cluster default num.io.threads=16, per-broker 32. Default first:
      8 → 16 → 32, each within double: both apply. Per-broker first: 8 → 32 refused; then the default's update
      carries the stored 32 again: refused. Neither applies.
    * c1 broker 9 (4.1): per-broker num.replica.fetchers=0. Default first: the default applies, the per-broker
      layer is refused (DynamicThreadPool: at least 1). Per-broker first: refused; the default's update carries 0:
      refused too.
    * c2 broker 1: per-broker log.retention.ms=0 (KafkaConfig refuses it): default only, or neither.
    * Not order-dependent: c2 broker 2 (both layers valid either way), c3 (the default fails KafkaConfig either
      way; broker 2 mends it either way), brokers with one applied layer, and layers whose orders leave the same
      values."""
    found = {(f.cluster_id, f.resource_name): f.message for f in result.findings if f.kind == "LAYER_ORDER_DEPENDENT"}
    assert sorted(found) == [("c1", "2"), ("c1", "9"), ("c2", "1")]
    assert (
        "cluster default first, both layers (the effective configs shown); per-broker first, neither layer"
        in (found[("c1", "2")])
    )
    assert "reconfigurable-num.io.threads (DynamicThreadPool: num.io.threads=32" in found[("c1", "2")]
    for where in (("c1", "9"), ("c2", "1")):
        assert "cluster default first, the cluster-default layer only" in found[where]
        assert "per-broker first, neither layer" in found[where]
    assert "broker-log-retention-ms-not-zero" in found[("c2", "1")]
    # the cluster default's num.io.threads is what either order leaves different (16 or 12 against the default)
    for message in found.values():
        differ = message.split("the keys whose values differ: ")[1].split(";")[0].split(", ")
        assert "num.io.threads" in differ
        assert "num.replica.fetchers" not in differ  # refused in both orders on broker 9
    assert not [f for f in result.findings if f.kind == "LAYER_ORDER_DEPENDENT" and f.is_blocking]


def test_listener_prefixed_key_is_applied_per_broker(result: Result) -> None:
    row = _broker(result, 1, "listener.name.internal.ssl.keystore.location")
    assert (row.value, row.source, row.config_type, row.is_sensitive) == ("/y", "DYNAMIC_BROKER_CONFIG", None, True)


def test_registered_brokers_only(result: Result) -> None:
    nodes = {k[3] for k in result.rows if k[0] == "c1" and k[1] == "BROKER"}
    assert nodes == {1, 2, 3, 4, 5, 6, 8, 9, 10, 11}


def test_internal_keys_appear_only_when_set(result: Result) -> None:
    assert not [k for k in result.rows if k[4] == "internal.only"]


@pytest.mark.parametrize(
    ("cluster", "node", "release", "io_default"),
    [("c1", 9, "4.1", None), ("c1", 5, "4.2", None), ("c0", 1, "4.1", "10")],
    ids=["release-from-registered-mv", "newest-release", "no-mv-uses-oldest-catalog-release"],
)
def test_defaults_follow_the_broker_release(
    result: Result, cluster: str, node: int, release: str, io_default: str | None
) -> None:
    row = _broker(result, node, "num.io.threads", cluster)
    assert row.kafka_release == release
    if io_default is not None:
        assert (row.value, row.source) == (io_default, "DEFAULT_CONFIG")


def test_kafka_version_overrides_inferred_release(inputs: Inputs) -> None:
    effective_df, findings_df = _resolve(inputs, kafka_version="4.1.2")
    releases = {
        r.kafka_release for r in effective_df.where("resource_type = 'BROKER'").select("kafka_release").collect()
    }
    assert releases == {"4.1"}
    # 4.1 still defines the topic key 4.2 skips: its override applies and is no replay finding
    kept = effective_df.where("resource_name = 'override' and config_name = 'message.format.version'").collect()
    assert [(r.value, r.source) for r in kept] == [("2.8", "DYNAMIC_TOPIC_CONFIG")]
    skipped = findings_df.where("kind = 'SKIPPED_ON_REPLAY'").select("config_name").collect()
    assert [r.config_name for r in skipped] == ["no.such.group.key"]


# --- coverage ---------------------------------------------------------------------------------------------------


def test_brokers_without_static_configs_are_coverage_gaps(result: Result) -> None:
    gaps = sorted(
        (f.cluster_id, f.resource_name)
        for f in result.findings
        if f.kind == "COVERAGE_GAP" and "registered no static configs" in f.message
    )
    assert gaps == [("c0", "1"), ("c1", "5"), ("c1", "8")]
    message = next(f.message for f in result.findings if f.kind == "COVERAGE_GAP" and f.resource_name == "5")
    assert "4 read-only configs" in message
    assert message.endswith("broker.rack, log.retention.hours, log.retention.minutes, log.roll.hours")


def test_registration_static_configs_are_a_partial_layer(result: Result) -> None:
    partial = {
        (f.cluster_id, f.resource_name): f.message
        for f in result.findings
        if f.kind == "COVERAGE_GAP" and "RegisterBrokerRecord v5 StaticConfigs" in f.message
    }
    # every broker registered with StaticConfigs and without a --static-config file (6 has the file)
    assert sorted(partial) == [
        ("c1", "1"), ("c1", "10"), ("c1", "11"), ("c1", "2"), ("c1", "3"), ("c1", "4"), ("c1", "9"),
        ("c2", "1"), ("c2", "2"), ("c2", "3"), ("c3", "1"), ("c3", "2"),
    ]  # fmt: skip
    # c2 broker 3: 14 non-internal keys of the fixture's 4.2; the retention group (3 keys) is set statically and
    # num.io.threads at the cluster default: 10 keys assumed
    assert "StaticConfigs (1 keys)" in partial[("c2", "3")]
    assert "10 keys no layer sets were resolved to Kafka 4.2's defaults by assumption" in partial[("c2", "3")]


@pytest.mark.parametrize(
    ("node", "key", "assumed"),
    [
        (1, "log.cleanup.policy", True),
        (1, "log.segment.bytes", False),
        (1, "num.io.threads", False),
        (6, "log.cleanup.policy", False),
        (5, "log.cleanup.policy", True),
        (2, "log.retention.hours", False),
        (5, "log.retention.ms", True),
    ],
    ids=[
        "registration-only-default",
        "carried-by-static-configs",
        "set-at-the-cluster-default",
        "static-config-file-known-in-full",
        "no-static-configs-at-all",
        "synonym-group-set-by-another-member",
        "synonym-group-unset",
    ],
)
def test_defaults_of_brokers_without_their_server_properties_are_assumed(
    result: Result, node: int, key: str, assumed: bool
) -> None:
    row = _broker(result, node, key)
    assert row.is_assumed is assumed
    assert row.value_set is None


def test_assumed_rows_are_the_keys_the_coverage_gap_counts(result: Result) -> None:
    # c2 broker 3: the COVERAGE_GAP message says 10 keys (test_registration_static_configs_are_a_partial_layer)
    assumed = [k for k, r in result.rows.items() if k[:4] == ("c2", "BROKER", "3", 3) and r.is_assumed]
    assert len(assumed) == 10


@pytest.mark.parametrize(
    ("topic", "key", "assumed"),
    [
        ("same", "segment.bytes", True),  # hosted by 5 and 8, no static configs: log.segment.bytes may be set
        ("same", "remote.storage.enable", False),  # no broker synonym: LogConfig's own default
        ("override", "retention.ms", False),  # the topic's override
        ("override", "segment.ms", False),  # broker 1's static log.roll.hours
        ("override", "cleanup.policy", True),  # broker 1's log.cleanup.policy: registration only, unset
    ],
    ids=["inherited-assumed-default", "no-server-default", "override", "inherited-static", "inherited-unset"],
)
def test_topics_inheriting_an_assumed_broker_default_are_assumed(
    result: Result, topic: str, key: str, assumed: bool
) -> None:
    assert _topic_rows(result, topic)[(None, key)].is_assumed is assumed


# --- topics -----------------------------------------------------------------------------------------------------


def _topic_rows(result: Result, name: str) -> dict[tuple[int | None, str], Row]:
    return {(k[3], k[4]): r for k, r in result.rows.items() if k[1] == "TOPIC" and k[2] == name}


def test_topic_hosted_by_agreeing_brokers_has_one_row_per_key(result: Result) -> None:
    rows = _topic_rows(result, "same")
    assert set(rows) == {
        (None, k) for k in ("cleanup.policy", "remote.storage.enable", "retention.ms", "segment.bytes", "segment.ms")
    }
    assert _summary(rows[(None, "retention.ms")]) == ("604800000", "DEFAULT_CONFIG", "retention.ms", None)


def test_topic_rows_per_node_only_for_keys_whose_views_differ(result: Result) -> None:
    rows = _topic_rows(result, "mixed")
    assert sorted((n or 0, k) for n, k in rows) == sorted(
        [
            (0, "cleanup.policy"),
            (0, "remote.storage.enable"),
            (0, "segment.bytes"),
            (1, "retention.ms"),
            (2, "retention.ms"),
            (1, "segment.ms"),
            (2, "segment.ms"),
        ]
    )
    assert _summary(rows[(None, "segment.bytes")]) == ("2000000", "STATIC_BROKER_CONFIG", "log.segment.bytes", None)
    assert _summary(rows[(1, "retention.ms")]) == ("86400000", "STATIC_BROKER_CONFIG", "log.retention.hours", None)
    assert _summary(rows[(2, "retention.ms")]) == ("1000", "DYNAMIC_BROKER_CONFIG", "log.retention.ms", 24)
    assert _summary(rows[(1, "segment.ms")]) == ("7200000", "STATIC_BROKER_CONFIG", "log.roll.hours", None)


def test_topic_override_wins(result: Result) -> None:
    rows = _topic_rows(result, "override")
    assert _summary(rows[(None, "retention.ms")]) == ("5000", "DYNAMIC_TOPIC_CONFIG", "retention.ms", 47)
    assert rows[(None, "retention.ms")].kafka_release is None
    assert rows[(None, "segment.ms")].value == "7200000"


def test_recreated_topic_starts_without_the_removed_topics_overrides(result: Result) -> None:
    rows = _topic_rows(result, "gone")
    assert _summary(rows[(None, "retention.ms")]) == ("604800000", "DEFAULT_CONFIG", "retention.ms", None)


def test_negative_broker_retention_reaches_topics_as_minus_one(result: Result) -> None:
    rows = _topic_rows(result, "norep")  # hosted by every registered broker: one row per differing node
    assert _summary(rows[(3, "retention.ms")]) == ("-1", "STATIC_BROKER_CONFIG", "log.retention.hours", None)
    assert _summary(rows[(4, "retention.ms")]) == ("1800000", "STATIC_BROKER_CONFIG", "log.retention.minutes", None)
    assert {n for n, k in rows if k == "retention.ms"} == {1, 2, 3, 4, 5, 6, 8, 9, 10, 11}


def test_unlimited_retention_reaches_topics_from_every_layer(result: Result) -> None:
    rows = _topic_rows(result, "unlimited")
    assert _summary(rows[(10, "retention.ms")]) == ("-1", "STATIC_BROKER_CONFIG", "log.retention.ms", None)
    assert _summary(rows[(11, "retention.ms")]) == ("-1", "DYNAMIC_BROKER_CONFIG", "log.retention.ms", 30)


def test_topic_key_without_server_default_ignores_brokers(result: Result) -> None:
    row = _topic_rows(result, "mixed")[(None, "remote.storage.enable")]
    assert (row.value, row.source) == ("false", "DEFAULT_CONFIG")


# --- groups, client metrics, client entities ----------------------------------------------------------------------


def test_group_override_and_inherited_broker_synonym(result: Result) -> None:
    rows = {(k[3], k[4]): r for k, r in result.rows.items() if k[1] == "GROUP" and k[2] == "g1"}
    assert set(rows) == {(None, "share.isolation.level"), (None, "consumer.session.timeout.ms")}
    assert _summary(rows[(None, "share.isolation.level")]) == (
        "read_committed",
        "DYNAMIC_GROUP_CONFIG",
        "share.isolation.level",
        60,
    )
    assert _summary(rows[(None, "consumer.session.timeout.ms")]) == (
        "50000",
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "group.consumer.session.timeout.ms",
        29,
    )


def test_client_metrics_subscriptions_have_defaults(result: Result) -> None:
    # ClientMetricsConfigs: interval.ms 300000, metrics [] (the fixture's 4.2 defines interval.ms and metrics)
    rows = sorted((k[2], k[4], r.value, r.source) for k, r in result.rows.items() if k[1] == "CLIENT_METRICS")
    assert rows == [
        ("sub1", "interval.ms", "1000", "DYNAMIC_CLIENT_METRICS_CONFIG"),
        ("sub1", "metrics", "", "DEFAULT_CONFIG"),
        ("sub2", "interval.ms", "300000", "DEFAULT_CONFIG"),
        ("sub2", "metrics", "org.apache.kafka.producer.", "DYNAMIC_CLIENT_METRICS_CONFIG"),
    ]


def test_unsupported_keys_are_skipped_on_replay(result: Result) -> None:
    # KAFKA-19851: 4.x skips TOPIC / GROUP / CLIENT_METRICS keys its ConfigDefs do not define, never BROKER keys
    assert ("c1", "TOPIC", "override", None, "message.format.version") not in result.rows
    assert not [k for k in result.rows if k[1] == "GROUP" and k[4] == "no.such.group.key"]
    assert _broker(result, 2, "custom.plugin.key").source == "DYNAMIC_BROKER_CONFIG"
    skipped = sorted(
        (f.resource_type, f.resource_name, f.config_name, f.offset, f.message)
        for f in result.findings
        if f.kind == "SKIPPED_ON_REPLAY"
    )
    assert [s[:4] for s in skipped] == [
        ("GROUP", "g1", "no.such.group.key", 64),
        ("TOPIC", "override", "message.format.version", 63),
    ]
    assert "is not a config of any Kafka release" in skipped[0][4]
    assert "was removed after Kafka 4.1: Kafka 4.2.1 and later ignore it on replay (KAFKA-19851)" in skipped[1][4]


def test_what_each_release_line_does_with_a_removed_key_on_replay(spark: SparkSession) -> None:
    """KAFKA-19851's SupportedConfigChecker is in the jars of 4.2.1, 4.2.2, 4.3.0, 4.3.1 and 4.4.0, not in those of
    4.0.2, 4.1.2 and 4.2.0 (read from the releases fetched with Maven)."""
    from transforms.effective.findings import _replay_of_removed_keys

    releases = spark.createDataFrame([("4.0",), ("4.1",), ("4.2",), ("4.3",), ("4.4",)], "release string")
    said = {r[0]: r[1] for r in releases.select("release", _replay_of_removed_keys(F.col("release"))).collect()}
    assert said["4.0"].startswith("Kafka 4.0 does not apply it but keeps it in its metadata image")
    assert said["4.1"].startswith("Kafka 4.1 does not apply it but keeps it")
    assert said["4.2"].startswith("Kafka 4.2.1 and later ignore it on replay (KAFKA-19851)")
    assert "4.2.0 does not apply it but keeps it" in said["4.2"]
    assert said["4.3"] == "Kafka 4.3 ignores it on replay (KAFKA-19851) and does not apply it"
    assert said["4.4"] == "Kafka 4.4 ignores it on replay (KAFKA-19851) and does not apply it"


@pytest.mark.parametrize(
    ("entity", "key", "value", "offset"),
    [
        ("user=alice,client-id=app", "producer_byte_rate", "200.0", 71),
        ("user=alice,client-id=app", "consumer_byte_rate", "20.0", 73),
        ("user=alice,client-id=app", "acks", "all", 77),
        ("user=alice", "producer_byte_rate", "100.0", 70),
        ("user=alice", "consumer_byte_rate", "20.0", 73),
        ("client-id=app", "consumer_byte_rate", "20.0", 73),
        ("client-id=app", "producer_byte_rate", "10.0", 72),
        ("user=<default>", "producer_byte_rate", "10.0", 72),
        ("ip=1.2.3.4", "connection_creation_rate", "5.0", 78),
        ("ip=<default>", "connection_creation_rate", "1.0", 79),
    ],
    ids=[
        "user-client-own",
        "user-client-from-default-user",
        "user-client-config-from-user",
        "user-own",
        "user-from-default-user",
        "client-default-user-over-client-only",
        "client-from-default-user",
        "default-user",
        "ip-own",
        "ip-default",
    ],
)
def test_client_entity_precedence(result: Result, entity: str, key: str, value: str, offset: int) -> None:
    row = result.rows[("c1", "CLIENT", entity, None, key)]
    assert (row.value, row.source, row.source_offset) == (value, "DYNAMIC_CLIENT_CONFIG", offset)


def test_removed_quota_leaves_no_entity(result: Result) -> None:
    assert not [k for k in result.rows if k[1] == "CLIENT" and k[2].startswith("user=bob")]


@pytest.mark.parametrize("resource_types", [("TOPIC",), ("BROKER", "GROUP"), ("GROUP",), ("CLIENT", "CLIENT_METRICS")])
def test_resolving_some_resource_types_gives_exactly_their_rows(
    inputs: Inputs, result: Result, resource_types: tuple[str, ...]
) -> None:
    effective_df, _ = _resolve(inputs, resource_types=resource_types)
    rows = {
        (r.cluster_id, r.resource_type, r.resource_name, r.node_id, r.config_name): r for r in effective_df.collect()
    }
    expected = {key: row for key, row in result.rows.items() if key[1] in resource_types}
    assert expected, "the fixture has rows of every type asked for"
    assert rows == expected


def test_resolving_an_unknown_resource_type_is_refused(inputs: Inputs) -> None:
    with pytest.raises(ValueError, match="resource_types"):
        _resolve(inputs, resource_types=("TOPICS",))


def test_fallbacks_resolve_only_the_layers_and_types_asked_for(
    interpreted_spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    spark = interpreted_spark
    bronze = records(spark, _c1(), cluster_id="c1")
    state = replay_state(bronze, static_configs(spark, []), mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS))
    frames = held_catalog_frames(to_catalog_frames(spark, small_catalog()))
    schema = "cluster_id string, resource_type string, resource_name string, value_source string"

    def fallbacks(*needed: tuple[str, str, str, str]) -> dict[tuple[Any, ...], tuple[str, str]]:
        layers = {source for *_, source in needed}
        fallback_df = resolve_fallbacks(
            state,
            frames,
            spark.createDataFrame(list(needed), schema),
            layers=layers,
            keep=Checkpoints(local_rows=LOCAL_ROWS),
        )
        assert tuple(fallback_df.columns) == FALLBACK_COLUMNS
        rows = fallback_df.collect()
        return {
            (r.resource_type, r.resource_name, r.node_id, r.config_name, r.deleted_source): (r.value, r.source)
            for r in rows
        }

    nothing = resolve_fallbacks(state, frames, spark.createDataFrame([], schema), layers=())
    assert tuple(nothing.columns) == FALLBACK_COLUMNS
    assert nothing.count() == 0
    with pytest.raises(ValueError, match="layers"):
        resolve_fallbacks(state, frames, spark.createDataFrame([], schema), layers=("STATIC_BROKER_CONFIG",))

    got = fallbacks(("c1", "BROKER", "2", "DYNAMIC_BROKER_CONFIG"), ("c1", "TOPIC", "override", "DYNAMIC_TOPIC_CONFIG"))
    assert {(k[0], k[1], k[4]) for k in got} == {
        ("BROKER", "2", "DYNAMIC_BROKER_CONFIG"),
        ("TOPIC", "override", "DYNAMIC_TOPIC_CONFIG"),
    }, "only the brokers and topics asked for, each with the layer removed"
    # broker 2 without its per-broker layer: the cluster default, then the static minutes (the read-only
    # cluster-default log.retention.hours is ignored)
    assert got[("BROKER", "2", 2, "num.io.threads", "DYNAMIC_BROKER_CONFIG")] == ("16", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    assert got[("BROKER", "2", 2, "log.retention.ms", "DYNAMIC_BROKER_CONFIG")] == ("1800000", "STATIC_BROKER_CONFIG")
    # the topic without its override: the view of broker 1, which hosts it (static log.retention.hours=24)
    assert got[("TOPIC", "override", None, "retention.ms", "DYNAMIC_TOPIC_CONFIG")] == (
        "86400000",
        "STATIC_BROKER_CONFIG",
    )

    # broker 2 without the cluster-default layer keeps its own per-broker value
    defaults = fallbacks(("c1", "BROKER", "2", "DYNAMIC_DEFAULT_BROKER_CONFIG"))
    assert {(k[0], k[1], k[4]) for k in defaults} == {("BROKER", "2", "DYNAMIC_DEFAULT_BROKER_CONFIG")}
    assert defaults[("BROKER", "2", 2, "num.io.threads", "DYNAMIC_DEFAULT_BROKER_CONFIG")] == (
        "32",
        "DYNAMIC_BROKER_CONFIG",
    )

    groups = fallbacks(("c1", "GROUP", "g1", "DYNAMIC_GROUP_CONFIG"))
    assert groups and {(k[0], k[1], k[4]) for k in groups} == {("GROUP", "g1", "DYNAMIC_GROUP_CONFIG")}
    assert all(source != "DYNAMIC_GROUP_CONFIG" for _, source in groups.values())
    # g1 without its share.isolation.level override: GroupConfig's default (catalog_fixture: read_uncommitted);
    # consumer.session.timeout.ms still inherits the brokers' cluster default of its synonym (offset 29)
    assert groups == {
        ("GROUP", "g1", None, "share.isolation.level", "DYNAMIC_GROUP_CONFIG"): ("read_uncommitted", "DEFAULT_CONFIG"),
        ("GROUP", "g1", None, "consumer.session.timeout.ms", "DYNAMIC_GROUP_CONFIG"): (
            "50000",
            "DYNAMIC_DEFAULT_BROKER_CONFIG",
        ),
    }

    # on the state's own resolution, as the audit plans them: each call gets the rows of its own topics
    resolution = Checkpoints(local_rows=LOCAL_ROWS)
    resolve_effective_configs(state, frames, keep=resolution)

    def topics_on_resolution(name: str) -> set[tuple[str, str]]:
        needed_df = spark.createDataFrame([("c1", "TOPIC", name, "DYNAMIC_TOPIC_CONFIG")], schema)
        layers = ("DYNAMIC_TOPIC_CONFIG",)
        fallback_df = resolve_fallbacks(
            state, frames, needed_df, layers=layers, keep=Checkpoints(local_rows=LOCAL_ROWS), resolution_keep=resolution
        )
        return {(r.resource_name, r.config_name) for r in fallback_df.collect()}

    assert ("override", "retention.ms") in topics_on_resolution("override")
    assert {topic for topic, _ in topics_on_resolution("same")} == {"same"}


def test_a_per_broker_fallback_is_what_the_broker_resolves_without_that_layer(inputs: Inputs) -> None:
    """Deleting a broker's per-broker layer (a DELETE remediation's fallback) is planned on the audit's own
    resolution (``resolve_without_node_layer``). Oracle: the state without those records, resolved from scratch.

    By hand (confluentinc/kafka 4.2, core/src/main/scala/kafka/server/DynamicBrokerConfig.scala: a broker builds
    its KafkaConfig from static + cluster default + per-broker props, and keeps the layers below when
    ``KafkaConfig.validateValues`` fails, here ``logRetentionTimeMillis >= 1 || == -1``):

    * c3 broker 2: its ``log.retention.ms=5000`` repairs the cluster default's ``0``. Without it static + cluster
      default fails, so the cluster-default layer is refused too: 24 h from the static hours, ``num.io.threads`` the
      ConfigDef default 8 (the audited broker applies the cluster default's 12);
    * c2 broker 1: its own layer (``log.retention.ms=0``) is the refused one. Without it static + cluster default
      passes: ``num.io.threads`` 12 from the cluster default.
    """
    state, frames = inputs.state, inputs.frames
    spark = state.topics.sparkSession
    per_broker = [
        (r.cluster_id, r.resource_name)
        for r in state.dynamic_configs.where("resource_type = 'BROKER' AND resource_name != ''")
        .select("cluster_id", "resource_name")
        .distinct()
        .collect()
    ]
    assert {("c3", "2"), ("c2", "1"), ("c1", "2")} <= set(per_broker)
    schema = "cluster_id string, resource_type string, resource_name string, value_source string"
    needed_df = spark.createDataFrame([(c, "BROKER", n, "DYNAMIC_BROKER_CONFIG") for c, n in per_broker], schema)

    resolution = _Recording()
    resolve_effective_configs(state, frames, keep=resolution)
    resolved = list(resolution.built)
    fallback_df = resolve_fallbacks(
        state,
        frames,
        needed_df,
        layers=("DYNAMIC_BROKER_CONFIG",),
        keep=Checkpoints(local_rows=LOCAL_ROWS),
        resolution_keep=resolution,
    )
    columns = ["value", "value_hash", "is_sensitive", "config_type", "source", "synonym"]
    got = {
        (r.cluster_id, r.resource_name, r.node_id, r.config_name): tuple(r[c] for c in columns)
        for r in fallback_df.collect()
    }
    assert resolution.built == resolved, "no frame of the audit's resolution is planned again"
    assert {r.deleted_source for r in fallback_df.select("deleted_source").distinct().collect()} == {
        "DYNAMIC_BROKER_CONFIG"
    }

    without_df = state.dynamic_configs.where("NOT (resource_type = 'BROKER' AND resource_name != '')")
    oracle_df = resolve_effective_configs(
        replace(state, dynamic_configs=without_df),
        frames,
        resource_types=("BROKER",),
        keep=Checkpoints(local_rows=LOCAL_ROWS),
    )
    wanted = set(per_broker)
    expected = {
        (r.cluster_id, r.resource_name, r.node_id, r.config_name): tuple(r[c] for c in columns)
        for r in oracle_df.collect()
        if (r.cluster_id, r.resource_name) in wanted
    }
    assert got == expected

    def value(cluster: str, node: int, key: str) -> tuple[str, str]:
        row = got[(cluster, str(node), node, key)]
        return (row[0], row[4])

    assert value("c3", 2, "log.retention.ms") == ("86400000", "STATIC_BROKER_CONFIG")
    assert value("c3", 2, "num.io.threads") == ("8", "DEFAULT_CONFIG")
    assert value("c2", 1, "num.io.threads") == ("12", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    assert value("c2", 1, "log.retention.ms") == ("86400000", "STATIC_BROKER_CONFIG")


class _Recording(Checkpoints):
    """``Checkpoints`` that records the name of every plan built for it: a frame handed over as a DataFrame was
    built by the caller; one handed over as a function, when the keep calls it."""

    def __init__(self) -> None:
        super().__init__(local_rows=LOCAL_ROWS)
        self.built: list[str] = []

    def __call__(self, name: str, plan: Plan, /) -> DataFrame:
        if isinstance(plan, DataFrame):
            self.built.append(name)
            return super().__call__(name, plan)

        def recorded() -> DataFrame:
            self.built.append(name)
            return planned(plan)

        return super().__call__(name, recorded)


def test_plans_over_a_held_resolution_build_none_of_its_kept_frames_again(inputs: Inputs) -> None:
    """The findings and the topic and group fallbacks read the resolution's kept frames: the keep returns them, and
    their plans are not built a second time only to be discarded (transforms.kit.checkpoints)."""
    resolution = _Recording()
    effective_df = resolve_effective_configs(inputs.state, inputs.frames, keep=resolution)
    resolved = list(resolution.built)
    assert {"nodes", "node_layers", "applied_layers", "broker_rows", "topic_views", "group_views"} <= set(resolved)
    assert len(resolved) == len(set(resolved))
    effective_findings(inputs.state, inputs.frames, keep=resolution, effective_df=effective_df)
    assert resolution.built == resolved
    spark = inputs.state.topics.sparkSession
    resolve_without_overrides(
        inputs.state,
        inputs.frames,
        topics_df=spark.createDataFrame([("c1", "override")], "cluster_id string, topic_name string"),
        groups_df=spark.createDataFrame([("c1", "g1")], "cluster_id string, resource_name string"),
        keep=resolution,
    )
    assert resolution.built == [*resolved, "fallback_topic_rows", "fallback_group_rows"]


# --- the resolution's plan -------------------------------------------------------------------------------------

# The held part of each resource type's rows (resolve_effective_configs) and the one type it holds.
PART_TYPES = {
    "broker_rows": "BROKER",
    "controller_broker_rows": "BROKER",
    "controller_topic_rows": "CONTROLLER_TOPIC",
    "topic_rows": "TOPIC",
    "group_rows": "GROUP",
    "client_metrics_rows": "CLIENT_METRICS",
    "client_rows": "CLIENT",
}


def test_a_filter_on_the_resource_type_plans_only_the_parts_of_that_type(inputs: Inputs) -> None:
    # held as a large input holds them (local checkpoints), the parts carry their type only row by row
    resolution = Checkpoints()
    effective_df = resolve_effective_configs(inputs.state, inputs.frames, keep=resolution)
    for name, resource_type in PART_TYPES.items():  # what naming each part's type as a literal rests on
        stored = {r.resource_type for r in resolution.kept[name].select("resource_type").distinct().collect()}
        assert stored <= {resource_type}, name
    wanted = effective_df.where(F.col("resource_type").isin("BROKER", "GROUP"))
    leaves = wanted._jdf.queryExecution().optimizedPlan().collectLeaves()
    scanned = [str(leaves.apply(i).nodeName()) for i in range(leaves.size())]
    assert scanned == ["LogicalRDD"] * 3  # broker_rows, controller_broker_rows, group_rows
    every_row = effective_df.collect()
    assert sorted(wanted.collect()) == sorted(r for r in every_row if r.resource_type in ("BROKER", "GROUP"))


def test_a_static_node_id_alone_gives_broker_id_the_same_value_and_the_other_way_round(spark: SparkSession) -> None:
    """KafkaConfig.populateSynonyms (confluentinc/kafka 3.9 KafkaConfig.scala, 4.4 AbstractKafkaConfig.java); Kafka
    3.9.1, 4.2.0 and 4.4.0 describe broker.id = 1, STATIC_BROKER_CONFIG, for a node.id=1 file (oracle scenario
    broker-id-mirrors-node-id)."""
    from schemas.silver import BROKER_STATIC_CONFIGS
    from transforms.effective.brokers import _with_id_synonyms

    rows = [
        ("c", 1, "node.id", "1", None, "FILE", None),
        ("c", 2, "broker.id", "2", None, "FILE", None),
        ("c", 3, "node.id", "3", None, "FILE", None),
        ("c", 3, "broker.id", "7", None, "FILE", None),  # both set: neither is copied (KafkaConfig refuses them)
        ("c", 4, "log.segment.bytes", "2000000", None, "FILE", None),
    ]
    got = _with_id_synonyms(spark.createDataFrame(rows, BROKER_STATIC_CONFIGS)).collect()
    assert sorted((r.node_id, r.name, r.value) for r in got) == [
        (1, "broker.id", "1"),
        (1, "node.id", "1"),
        (2, "broker.id", "2"),
        (2, "node.id", "2"),
        (3, "broker.id", "7"),
        (3, "node.id", "3"),
        (4, "log.segment.bytes", "2000000"),
    ]


def test_the_lines_that_keep_a_removed_key_follow_the_patch_release_when_it_is_known() -> None:
    """Measured with Kafka's brokers (oracle scenario binary-upgrade-keeps-a-removed-topic-config): 4.0.2, 4.1.2 and
    4.2.0 keep a removed topic key in their image; 4.3.1 and 4.4.0 skip it. A line without its patch (inferred from
    a registration) is taken at its newest patch, which skips from 4.2.1."""
    from transforms.effective.common import keeping_lines

    assert keeping_lines(None) == ("4.0", "4.1")
    assert keeping_lines("4.2") == ("4.0", "4.1")
    assert keeping_lines("4.2.0") == ("4.0", "4.1", "4.2")
    assert keeping_lines("4.2.1") == ("4.0", "4.1")
    assert keeping_lines("4.4.0") == ("4.0", "4.1")
