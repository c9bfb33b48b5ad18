"""What-if changes written into the configuration layers, then re-resolved: Kafka's fallbacks after a DELETE.

One replayed fleet (two clusters, the small two-release catalog of the effective tests) and one change set cover
every case; the state before and after are resolved together (``scenarios``) once per module, and each test reads
the rows it is about. The expected values follow Kafka's precedence by hand: per-broker dynamic > cluster-default
dynamic > server.properties > ConfigDef default, with synonym groups; topic override > the hosting brokers' views.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from jobs.runtime.holding import LOCAL_ROWS, Checkpoints
from jobs.runtime.lookups import held_catalog_frames
from schemas.changes import load_changes_text
from schemas.metadata_version import MetadataVersionTable
from schemas.silver import BROKER_STATIC_CONFIGS, CLIENT_ENTITY_CONFIGS, DYNAMIC_CONFIGS
from tests.transforms.effective.catalog_fixture import small_catalog
from tests.transforms.replay.bronze_rows import (
    broker_config,
    client_config,
    config,
    feature,
    no_static_configs,
    partition,
    quota,
    records,
    register,
    topic,
    topic_config,
)
from tests.transforms.replay.fixtures import interpreted_spark
from transforms.effective import resolve_effective_configs, to_catalog_frames
from transforms.replay import replay_state
from transforms.whatif.changes import apply_changes
from transforms.whatif.scenarios import union_scenarios, untagged, with_layers

pytestmark = pytest.mark.spark
__all__ = ["interpreted_spark"]

Key = tuple[str, str, str, int | None, str]  # cluster, resource type, name, node, key
Resolved = dict[Key, tuple[str | None, str | None, str | None]]  # value, source, synonym

C1 = [
    feature(0, "metadata.version", 29),
    register(1, 1, static=[("log.segment.bytes", "2000000"), ("log.retention.hours", "24")]),
    register(2, 2, static=[("log.segment.bytes", "4000000")]),
    broker_config(10, 1, "log.segment.bytes", "1000"),
    broker_config(11, "", "num.io.threads", "16"),
    broker_config(12, 2, "num.io.threads", "32"),
    broker_config(13, "", "log.retention.ms", "1000"),
    broker_config(14, 1, "log.roll.ms", "5000"),
    topic(20, "t", "TTTTTTTTTTTTTTTTTTTTTA"),
    partition(21, "TTTTTTTTTTTTTTTTTTTTTA", 0, [1, 2]),
    topic_config(22, "t", "segment.bytes", "100"),
    topic_config(23, "t", "cleanup.policy", "compact,delete"),
    topic(24, "u", "UUUUUUUUUUUUUUUUUUUUUA"),
    partition(25, "UUUUUUUUUUUUUUUUUUUUUA", 0, [2]),
    topic_config(26, "u", "retention.ms", "5"),
    config(30, 32, "g", "consumer.session.timeout.ms", "1000"),
    config(31, 32, "g", "share.isolation.level", "read_committed"),
    config(32, 16, "sub1", "interval.ms", "1000"),
    quota(40, {"user": "alice"}, "producer_byte_rate", 100),
    client_config(41, {"user": "alice"}, "acks", "all"),
]
C2 = [
    feature(0, "metadata.version", 29),
    register(1, 1, static=[("log.segment.bytes", "2000000")]),
    topic(2, "t", "VVVVVVVVVVVVVVVVVVVVVA"),
    partition(3, "VVVVVVVVVVVVVVVVVVVVVA", 0, [1]),
]
CHANGES = """
changes:
  - {resource_type: BROKER, resource_name: "1", cluster_id: c1, ops: [{op: DELETE, key: log.segment.bytes},
     {op: SET, key: listener.name.internal.ssl.keystore.password, value: s3cret}]}
  - {resource_type: BROKER, resource_name: "2", cluster_id: c1, ops: [{op: DELETE, key: num.io.threads}]}
  - {resource_type: BROKER, resource_name: "", cluster_id: c1, ops: [{op: DELETE, key: log.retention.ms},
     {op: APPEND, key: log.cleanup.policy, value: compact}]}
  - {resource_type: BROKER, resource_name: "2", cluster_id: c1, layer: static,
     ops: [{op: SET, key: log.segment.bytes, value: 5000000}]}
  - {resource_type: BROKER, resource_name: "1", cluster_id: c1, layer: static,
     ops: [{op: SET, key: log.roll.hours, value: 1}]}
  - {resource_type: TOPIC, resource_name: t, ops: [{op: DELETE, key: segment.bytes},
     {op: SUBTRACT, key: cleanup.policy, value: compact}]}
  - {resource_type: TOPIC, resource_name: u, replace: {segment.ms: 1000}}
  - {resource_type: GROUP, resource_name: g, cluster_id: c1, ops: [{op: DELETE, key: consumer.session.timeout.ms}]}
  - {resource_type: CLIENT_METRICS, resource_name: sub1, cluster_id: c1, ops: [{op: DELETE, key: interval.ms}]}
  - {resource_type: CLIENT, resource_name: user=alice, cluster_id: c1,
     ops: [{op: SET, key: producer_byte_rate, value: 200}, {op: DELETE, key: acks}]}
"""


def _redact(resource_type: str, key: str, value: str | None) -> tuple[str | None, str | None]:
    return ("[redacted]", "hmac:x") if "password" in key else (value, None)


@pytest.fixture(scope="module")
def resolved(interpreted_spark: SparkSession, mv_table: MetadataVersionTable) -> dict[str, Any]:
    spark = interpreted_spark
    bronze = reduce(
        DataFrame.unionByName,
        [records(spark, C1, cluster_id="c1"), records(spark, C2, cluster_id="c2", source_file="/in/c2/00.log")],
    )
    # held at the stage boundaries `kraft-audit simulate` holds (jobs.runtime.holding): the pure plan of replay,
    # changes and resolution of both scenarios is too large to plan in one piece
    state = replay_state(bronze, no_static_configs(spark), mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS))
    frames = held_catalog_frames(to_catalog_frames(spark, small_catalog()))
    defaults_df = frames.config_keys_df.where("release = '4.2'")
    layers = apply_changes(
        state,
        load_changes_text(CHANGES, "c.yaml"),
        defaults_df=defaults_df,
        redact=_redact,
        keep=Checkpoints(local_rows=LOCAL_ROWS),
    )
    both = union_scenarios({"before": state, "after": with_layers(state, layers)})
    effective_df = resolve_effective_configs(both, frames, keep=Checkpoints(local_rows=LOCAL_ROWS))
    out: dict[str, Any] = {"layers": {}}
    for tag in ("before", "after"):
        rows = untagged(effective_df, tag).collect()
        out[tag] = {
            (r.cluster_id, r.resource_type, r.resource_name, r.node_id, r.config_name): (r.value, r.source, r.synonym)
            for r in rows
        }
        assert len(out[tag]) == len(rows), "one row per entity, view and key"
    out["layers"] = {
        "dynamic": layers.dynamic_configs.collect(),
        "static": layers.broker_static_configs.collect(),
        "client": layers.client_entity_configs.collect(),
    }
    out["schemas"] = (
        layers.dynamic_configs.schema,
        layers.broker_static_configs.schema,
        layers.client_entity_configs.schema,
    )
    return out


def _broker(node: int, key: str, cluster: str = "c1") -> Key:
    return (cluster, "BROKER", str(node), node, key)


@pytest.mark.parametrize(
    ("key", "before", "after"),
    [
        (
            _broker(1, "log.segment.bytes"),
            ("1000", "DYNAMIC_BROKER_CONFIG", "log.segment.bytes"),
            ("2000000", "STATIC_BROKER_CONFIG", "log.segment.bytes"),
        ),
        (
            _broker(2, "num.io.threads"),
            ("32", "DYNAMIC_BROKER_CONFIG", "num.io.threads"),
            ("16", "DYNAMIC_DEFAULT_BROKER_CONFIG", "num.io.threads"),
        ),
        (
            _broker(1, "log.retention.ms"),
            ("1000", "DYNAMIC_DEFAULT_BROKER_CONFIG", "log.retention.ms"),
            ("86400000", "STATIC_BROKER_CONFIG", "log.retention.hours"),
        ),
        (
            _broker(2, "log.retention.ms"),
            ("1000", "DYNAMIC_DEFAULT_BROKER_CONFIG", "log.retention.ms"),
            ("604800000", "DEFAULT_CONFIG", "log.retention.hours"),
        ),
        (
            _broker(2, "log.segment.bytes"),
            ("4000000", "STATIC_BROKER_CONFIG", "log.segment.bytes"),
            ("5000000", "STATIC_BROKER_CONFIG", "log.segment.bytes"),
        ),
        (
            _broker(1, "log.roll.ms"),
            ("5000", "DYNAMIC_BROKER_CONFIG", "log.roll.ms"),
            ("5000", "DYNAMIC_BROKER_CONFIG", "log.roll.ms"),
        ),
        (
            _broker(1, "log.cleanup.policy"),
            ("delete", "DEFAULT_CONFIG", "log.cleanup.policy"),
            ("delete,compact", "DYNAMIC_DEFAULT_BROKER_CONFIG", "log.cleanup.policy"),
        ),
    ],
    ids=[
        "per-broker-delete-falls-back-to-static",
        "per-broker-delete-falls-back-to-cluster-default",
        "cluster-default-delete-falls-back-to-static-synonym",
        "cluster-default-delete-falls-back-to-default",
        "static-set-is-server-properties",
        "static-set-below-a-dynamic-value-stays-shadowed",
        "append-starts-from-the-configdef-default",
    ],
)
def test_broker_changes_re_resolve_through_the_layers(
    resolved: dict[str, Any], key: Key, before: tuple[str, ...], after: tuple[str, ...]
) -> None:
    assert (resolved["before"][key], resolved["after"][key]) == (before, after)


def test_topic_delete_falls_back_to_each_hosting_brokers_view(resolved: dict[str, Any]) -> None:
    before, after = resolved["before"], resolved["after"]
    assert before[("c1", "TOPIC", "t", None, "segment.bytes")] == ("100", "DYNAMIC_TOPIC_CONFIG", "segment.bytes")
    assert ("c1", "TOPIC", "t", None, "segment.bytes") not in after
    # the brokers now disagree (broker 1 fell back to its static 2000000, broker 2's static became 5000000)
    assert after[("c1", "TOPIC", "t", 1, "segment.bytes")] == ("2000000", "STATIC_BROKER_CONFIG", "log.segment.bytes")
    assert after[("c1", "TOPIC", "t", 2, "segment.bytes")] == ("5000000", "STATIC_BROKER_CONFIG", "log.segment.bytes")


def test_subtract_and_cluster_expansion(resolved: dict[str, Any]) -> None:
    after = resolved["after"]
    assert after[("c1", "TOPIC", "t", None, "cleanup.policy")] == ("delete", "DYNAMIC_TOPIC_CONFIG", "cleanup.policy")
    # no cluster named: every cluster with a topic t; c2's t had no override, so SUBTRACT starts from the default
    assert after[("c2", "TOPIC", "t", None, "cleanup.policy")] == ("delete", "DYNAMIC_TOPIC_CONFIG", "cleanup.policy")
    assert not any(k[0] == "c2" and k[2] == "u" for k in after), "u exists only in c1"


def test_legacy_replace_deletes_the_keys_it_does_not_list(resolved: dict[str, Any]) -> None:
    before, after = resolved["before"], resolved["after"]
    assert before[("c1", "TOPIC", "u", None, "retention.ms")] == ("5", "DYNAMIC_TOPIC_CONFIG", "retention.ms")
    assert after[("c1", "TOPIC", "u", None, "retention.ms")] == ("604800000", "DEFAULT_CONFIG", "retention.ms")
    assert after[("c1", "TOPIC", "u", None, "segment.ms")] == ("1000", "DYNAMIC_TOPIC_CONFIG", "segment.ms")


def test_group_metrics_and_client_changes(resolved: dict[str, Any]) -> None:
    before, after = resolved["before"], resolved["after"]
    group_key = ("c1", "GROUP", "g", None, "consumer.session.timeout.ms")
    assert before[group_key][:2] == ("1000", "DYNAMIC_GROUP_CONFIG")
    assert after[group_key] == ("45000", "DEFAULT_CONFIG", "group.consumer.session.timeout.ms")
    assert after[("c1", "GROUP", "g", None, "share.isolation.level")][0] == "read_committed"
    assert ("c1", "CLIENT_METRICS", "sub1", None, "interval.ms") in before
    assert not any(k[1] == "CLIENT_METRICS" for k in after), "client metrics have no defaults"
    assert after[("c1", "CLIENT", "user=alice", None, "producer_byte_rate")][:2] == ("200.0", "DYNAMIC_CLIENT_CONFIG")
    assert ("c1", "CLIENT", "user=alice", None, "acks") in before
    assert ("c1", "CLIENT", "user=alice", None, "acks") not in after


def test_layers_keep_their_schemas_and_no_secret(resolved: dict[str, Any]) -> None:
    assert [s.fieldNames() for s in resolved["schemas"]] == [
        DYNAMIC_CONFIGS.fieldNames(),
        BROKER_STATIC_CONFIGS.fieldNames(),
        CLIENT_ENTITY_CONFIGS.fieldNames(),
    ]
    stored = [r for r in resolved["layers"]["dynamic"] if r.name.endswith("password")]
    assert [(r.value, r.value_hash) for r in stored] == [("[redacted]", "hmac:x")]
    assert "s3cret" not in repr(resolved["layers"])


def test_unchanged_resources_resolve_as_before(resolved: dict[str, Any]) -> None:
    before, after = resolved["before"], resolved["after"]
    same = [k for k in before if k[0] == "c2" and k[1] == "BROKER"]
    assert same and all(before[k] == after[k] for k in same)
