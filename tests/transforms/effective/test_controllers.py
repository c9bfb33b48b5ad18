"""Controllers' configuration and the topic keys the active controller enforces (transforms.effective.controllers).

Expectations worked out by hand from confluentinc/kafka 4.2 (and unchanged in 4.4):

* ControllerServer.scala runs the same DynamicBrokerConfig as a broker (BrokerConfigHandler for ConfigType.BROKER):
  a controller's own config is resolved like a broker's, invalid dynamic values dropped per key
  (``removeInvalidConfigs``) and a layer failing KafkaConfig's checks not applied (``updateCurrentConfig``).
* ConfigurationControlManager.getTopicConfig → KafkaConfigSchema.resolveEffectiveTopicConfig(key, staticConfig,
  clusterConfig(), currentControllerConfig(), currentTopicConfig(topic)): topic override, else the controller's
  own BROKER "<id>" record, else BROKER "", else its server.properties (``config.originals``), else the topic
  default — from configData as replayed, with no validation (ControllerConfigurationValidator checks only the
  broker *name* of a BROKER resource).

Cluster ``k`` (4.2): brokers 1, 2 (v5 static ``min.insync.replicas=2``), controllers 3000 (file:
``min.insync.replicas=3``, ``unclean.leader.election.enable=true``) and 3001 (registered, no file); cluster default
``min.insync.replicas=0`` (offset 10, below LogConfig's ``atLeast(1)``); 3000's own ``num.io.threads=16`` (11) and
``log.segment.bytes=1000`` (12, below ``atLeast(1048576)``); topic t1 overrides ``unclean.leader.election.enable``
(13); t2 does not.

* brokers drop the ``0``: BROKER 1 ``min.insync.replicas`` = 2 (static), TOPIC t2 inherits 2;
* controller 3000's KafkaConfig drops it too: BROKER 3000 = 3 (its file), ``num.io.threads`` 16, segment default;
* the controller's view is unfiltered: CONTROLLER_TOPIC ``min.insync.replicas`` = ``0`` from the cluster default
  (offset 10) for both topics, known (both controllers read the same record); ``unclean.leader.election.enable``
  = ``true`` from 3000's file for t2 (3001 would use the default ``false``: the controllers differ and 3001 has no
  file → assumed, lowest id 3000 taken, one ASSUMED_CONTROLLER_CONFIG finding), ``false`` for t1 (its override).

Cluster ``k2``: controllers 3000 and 3001 both with a file setting ``unclean.leader.election.enable=true``: known,
no finding; 3001's own layer ``log.retention.ms=0`` + ``num.io.threads=20`` fails KafkaConfig's
``logRetentionTimeMillis >= 1 || == -1``, so 3001 keeps its file and the defaults (REJECTED_CONFIG_LAYER).
Cluster ``k3``: node 1 is combined (registered broker and controller): its static layer is its registration's, it
keeps its single BROKER row set, and its view is the controller view (``min.insync.replicas`` 2 known from its
registration; ``unclean.leader.election.enable`` falls to a server.properties nobody gave → assumed).
Cluster ``k4``: no controller known: no CONTROLLER_TOPIC row, no finding. Cluster ``k5`` runs 3.8: its controller
has ELR's min ISR (``getTopicEffectiveMinIsr``, 3.7+) but never reads ``unclean.leader.election.enable``
(3.3–3.8 ``uncleanLeaderElectionEnabledForTopic`` is ``return false; // TODO``): only the min ISR row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import Any

import pytest
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.testing import assertSchemaEqual

from jobs.runtime.holding import LOCAL_ROWS, Checkpoints
from jobs.runtime.lookups import held_catalog_frames
from schemas.gold import EFFECTIVE_CONFIGS
from schemas.kafka_catalog import KafkaCatalog, release_catalog_from_document
from schemas.metadata_version import MetadataVersionTable
from tests.transforms.effective.catalog_fixture import document
from tests.transforms.replay.bronze_rows import (
    broker_config,
    feature,
    partition,
    records,
    register,
    static_configs,
    topic,
    topic_config,
)
from transforms.effective import effective_findings, resolve_effective_configs, to_catalog_frames
from transforms.effective.catalog_frames import broker_key_check_rows, broker_layer_checks
from transforms.replay import replay_state

pytestmark = pytest.mark.spark

MIN_ISR, UNCLEAN = "min.insync.replicas", "unclean.leader.election.enable"


def _documents() -> list[tuple[str, dict[str, Any]]]:
    """The small fixture catalog plus the keys of this module, as conf/kafka/4.2.yaml defines them."""
    docs = []
    for release, io_threads in (("3.8", "2"), ("4.1", "4"), ("4.2", "8")):
        doc = document(release, io_threads=io_threads)
        doc["broker"] += [
            # LogConfig.java: INT, default 1, atLeast(1), cluster-wide
            {"name": MIN_ISR, "type": "INT", "default": "1", "dynamic": "cluster-wide", "importance": "HIGH",
             "validator": {"kind": "at_least", "min": 1}},
            # ReplicationConfigs.java: BOOLEAN, default false, cluster-wide
            {"name": UNCLEAN, "type": "BOOLEAN", "default": "false", "dynamic": "cluster-wide", "importance": "HIGH"},
            # KRaftConfigs.java: LIST, no default, read-only
            {"name": "process.roles", "type": "LIST", "default": None, "dynamic": "read-only", "importance": "HIGH"},
        ]  # fmt: skip
        doc["topic"] += [
            {"name": MIN_ISR, "type": "INT", "default": "1", "importance": "MEDIUM"},
            {"name": UNCLEAN, "type": "BOOLEAN", "default": "false", "importance": "MEDIUM"},
        ]
        doc["topic_synonyms"][MIN_ISR] = [{"name": MIN_ISR, "converter": None}]
        doc["topic_synonyms"][UNCLEAN] = [{"name": UNCLEAN, "converter": None}]
        docs.append((f"{release} fixture", doc))
    return docs


def _controller(offset: int, node: int) -> tuple[Any, ...]:
    features = [{"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 29}]
    data = {"controllerId": node, "incarnationId": f"c{node}", "zkMigrationReady": False, "endPoints": []}
    return (offset, "REGISTER_CONTROLLER_RECORD", {**data, "features": features})


def _k() -> list[Any]:
    return [
        feature(0, "metadata.version", 29),
        register(1, 1, static=[("process.roles", "broker"), (MIN_ISR, "2")]),
        register(2, 2, static=[("process.roles", "broker"), (MIN_ISR, "2")]),
        _controller(3, 3000),
        _controller(4, 3001),
        broker_config(10, "", MIN_ISR, "0"),
        broker_config(11, 3000, "num.io.threads", "16"),
        broker_config(12, 3000, "log.segment.bytes", "1000"),
        topic(20, "t1", "T1T1T1T1T1T1T1T1T1T1T1"),
        partition(21, "T1T1T1T1T1T1T1T1T1T1T1", 0, [1, 2]),
        topic(22, "t2", "T2T2T2T2T2T2T2T2T2T2T2"),
        partition(23, "T2T2T2T2T2T2T2T2T2T2T2", 0, [1, 2]),
        topic_config(13, "t1", UNCLEAN, "false"),
    ]


def _k2() -> list[Any]:
    return [
        feature(0, "metadata.version", 29),
        register(1, 1, static=[("process.roles", "broker")]),
        _controller(2, 3000),
        _controller(3, 3001),
        broker_config(10, 3001, "log.retention.ms", "0"),
        broker_config(11, 3001, "num.io.threads", "20"),
        topic(20, "t", "TTTTTTTTTTTTTTTTTTTTTT"),
        partition(21, "TTTTTTTTTTTTTTTTTTTTTT", 0, [1]),
    ]


def _k3() -> list[Any]:
    return [
        feature(0, "metadata.version", 29),
        register(1, 1, static=[("process.roles", "broker,controller"), (MIN_ISR, "2")]),
        _controller(2, 1),
        topic(20, "t", "TTTTTTTTTTTTTTTTTTTTTT"),
        partition(21, "TTTTTTTTTTTTTTTTTTTTTT", 0, [1]),
    ]


def _k5() -> list[Any]:
    """A 3.8 cluster: its controller reads min.insync.replicas (getTopicEffectiveMinIsr, since 3.7) but not
    unclean.leader.election.enable (3.8's uncleanLeaderElectionEnabledForTopic returns false)."""
    return [
        feature(0, "metadata.version", 20),
        register(1, 1, mv_max=20, static=[("process.roles", "broker")]),
        _controller(2, 3000),
        topic(20, "t", "TTTTTTTTTTTTTTTTTTTTTT"),
        partition(21, "TTTTTTTTTTTTTTTTTTTTTT", 0, [1]),
    ]


def _k4() -> list[Any]:
    return [
        feature(0, "metadata.version", 29),
        register(1, 1, static=[("process.roles", "broker")]),
        topic(20, "t", "TTTTTTTTTTTTTTTTTTTTTT"),
        partition(21, "TTTTTTTTTTTTTTTTTTTTTT", 0, [1]),
    ]


@dataclass(frozen=True)
class Result:
    rows: dict[tuple[str, str, str, int | None, str], Row]
    findings: list[Row]


@pytest.fixture(scope="module")
def result(interpreted_spark: SparkSession, mv_table: MetadataVersionTable) -> Result:
    spark = interpreted_spark
    bronze = reduce(
        DataFrame.unionByName,
        [
            records(spark, recs, cluster_id=c, source_file=f"/in/{c}/00.log")
            for c, recs in (("k", _k()), ("k2", _k2()), ("k3", _k3()), ("k4", _k4()), ("k5", _k5()))
        ],
    )
    controller = [("process.roles", "controller"), (MIN_ISR, "3"), (UNCLEAN, "true")]
    files = reduce(
        DataFrame.unionByName,
        [
            static_configs(spark, [(3000, n, v) for n, v in controller], cluster_id="k", source_file="/c/3000"),
            static_configs(spark, [(3000, UNCLEAN, "true")], cluster_id="k2", source_file="/c/a"),
            static_configs(
                spark,
                [(3001, "process.roles", "controller"), (3001, UNCLEAN, "true"), (3001, "log.retention.hours", "24")],
                cluster_id="k2",
                source_file="/c/b",
            ),
            static_configs(spark, [(3000, n, v) for n, v in controller], cluster_id="k5", source_file="/c/3000"),
            # a broker-only file of a node that is not registered: not a controller, not kept
            static_configs(spark, [(7, "process.roles", "broker")], cluster_id="k4", source_file="/c/7"),
        ],
    )
    state = replay_state(bronze, files, mv_table=mv_table, keep=Checkpoints(local_rows=LOCAL_ROWS))
    docs = _documents()
    catalog = KafkaCatalog(releases=tuple(release_catalog_from_document(d, source=n) for n, d in docs))
    frames = held_catalog_frames(
        to_catalog_frames(
            spark, catalog, key_checks=broker_key_check_rows(docs, mv_table), layer_checks=broker_layer_checks(docs)
        )
    )
    resolution = Checkpoints(local_rows=LOCAL_ROWS)
    effective_df = resolve_effective_configs(state, frames, keep=resolution)
    assertSchemaEqual(effective_df.schema, EFFECTIVE_CONFIGS, ignoreNullable=True)
    rows: dict[tuple[str, str, str, int | None, str], Row] = {}
    for r in effective_df.collect():
        key = (r.cluster_id, r.resource_type, r.resource_name, r.node_id, r.config_name)
        assert key not in rows, f"duplicate row {key}"
        rows[key] = r
    return Result(rows=rows, findings=effective_findings(state, frames, keep=resolution).collect())


def _summary(row: Row) -> tuple[Any, ...]:
    return (row.value, row.source, row.source_offset)


@pytest.mark.parametrize(
    ("cluster", "node", "key", "expected"),
    [
        ("k", 3000, "process.roles", ("controller", "STATIC_BROKER_CONFIG", None)),
        ("k", 3000, MIN_ISR, ("3", "STATIC_BROKER_CONFIG", None)),
        ("k", 3000, "num.io.threads", ("16", "DYNAMIC_BROKER_CONFIG", 11)),
        ("k", 3000, "log.segment.bytes", ("1073741824", "DEFAULT_CONFIG", None)),
        ("k", 1, MIN_ISR, ("2", "STATIC_BROKER_CONFIG", None)),
        ("k2", 3001, "num.io.threads", ("8", "DEFAULT_CONFIG", None)),
        ("k2", 3001, "log.retention.ms", ("86400000", "STATIC_BROKER_CONFIG", None)),
        ("k3", 1, MIN_ISR, ("2", "STATIC_BROKER_CONFIG", None)),
    ],
    ids=[
        "process-roles-marks-the-controller",
        "invalid-cluster-default-dropped-static-applies",
        "own-node-layer",
        "invalid-own-value-dropped",
        "broker-drops-the-same-value",
        "refused-own-layer",
        "refused-own-layer-keeps-the-file",
        "combined-node-is-its-broker-row",
    ],
)
def test_controller_broker_rows_resolve_like_a_broker(
    result: Result, cluster: str, node: int, key: str, expected: tuple[Any, ...]
) -> None:
    assert _summary(result.rows[(cluster, "BROKER", str(node), node, key)]) == expected


def test_only_controllers_with_a_file_get_broker_rows(result: Result) -> None:
    broker_nodes = {(c, n) for (c, t, _, n, _) in result.rows if t == "BROKER"}
    assert broker_nodes == {
        ("k", 1),
        ("k", 2),
        ("k", 3000),
        ("k2", 1),
        ("k2", 3000),
        ("k2", 3001),
        ("k3", 1),
        ("k4", 1),
        ("k5", 1),
        ("k5", 3000),
    }


@pytest.mark.parametrize(
    ("cluster", "topic_name", "key", "expected"),
    [
        ("k", "t1", MIN_ISR, (3000, "0", "DYNAMIC_DEFAULT_BROKER_CONFIG", 10)),
        ("k", "t2", MIN_ISR, (3000, "0", "DYNAMIC_DEFAULT_BROKER_CONFIG", 10)),
        ("k", "t1", UNCLEAN, (3000, "false", "DYNAMIC_TOPIC_CONFIG", 13)),
        ("k", "t2", UNCLEAN, (3000, "true", "STATIC_BROKER_CONFIG", None)),
        ("k2", "t", UNCLEAN, (3000, "true", "STATIC_BROKER_CONFIG", None)),
        ("k2", "t", MIN_ISR, (3000, "1", "DEFAULT_CONFIG", None)),
        ("k3", "t", MIN_ISR, (1, "2", "STATIC_BROKER_CONFIG", None)),
        ("k3", "t", UNCLEAN, (1, "false", "DEFAULT_CONFIG", None)),
    ],
    ids=[
        "unfiltered-cluster-default",
        "unfiltered-cluster-default-2",
        "topic-override-first",
        "controller-static-not-brokers",
        "agreeing-files",
        "default-known-from-files",
        "combined-node-static",
        "combined-node-default",
    ],
)
def test_controller_topic_rows_use_the_controllers_view(
    result: Result, cluster: str, topic_name: str, key: str, expected: tuple[Any, ...]
) -> None:
    node = expected[0]
    assert (node, *_summary(result.rows[(cluster, "CONTROLLER_TOPIC", topic_name, node, key)])) == expected


def test_controller_topic_rows_without_an_override_are_assumed_where_the_view_is(result: Result) -> None:
    # by hand from the clusters above: k's unclean.leader.election.enable differs between 3000 (file, true) and
    # 3001 (no file, default) -> t2's row is assumed, t1's is its override; k's min ISR is one record both
    # controllers read; k2's files agree; k3's min ISR is its registration's, its unclean default would come from a
    # server.properties nobody gave; k5's controller has a file
    got = {(k[0], k[2], k[4]): r.is_assumed for k, r in result.rows.items() if k[1] == "CONTROLLER_TOPIC"}
    assert got == {
        ("k", "t1", MIN_ISR): False,
        ("k", "t2", MIN_ISR): False,
        ("k", "t1", UNCLEAN): False,
        ("k", "t2", UNCLEAN): True,
        ("k2", "t", UNCLEAN): False,
        ("k2", "t", MIN_ISR): False,
        ("k3", "t", MIN_ISR): False,
        ("k3", "t", UNCLEAN): True,
        ("k5", "t", MIN_ISR): False,
    }


def test_a_key_appears_only_where_the_controllers_release_reads_it(result: Result) -> None:
    got = {(k[3], k[4]): _summary(r) for k, r in result.rows.items() if k[0] == "k5" and k[1] == "CONTROLLER_TOPIC"}
    assert got == {(3000, MIN_ISR): ("3", "STATIC_BROKER_CONFIG", None)}
    assert result.rows[("k5", "BROKER", "3000", 3000, UNCLEAN)].kafka_release == "3.8"


def test_brokers_topic_rows_keep_the_brokers_view(result: Result) -> None:
    assert _summary(result.rows[("k", "TOPIC", "t2", None, MIN_ISR)]) == ("2", "STATIC_BROKER_CONFIG", None)
    assert _summary(result.rows[("k", "TOPIC", "t2", None, UNCLEAN)]) == ("false", "DEFAULT_CONFIG", None)


def test_no_controller_known_no_controller_rows(result: Result) -> None:
    assert not [k for k in result.rows if k[0] == "k4" and k[1] == "CONTROLLER_TOPIC"]
    assert not [k for k in result.rows if k[0] == "k4" and k[2] == "7"]


def test_assumed_controller_view_findings(result: Result) -> None:
    assumed = sorted(
        (f.cluster_id, f.resource_type, f.config_name) for f in result.findings if f.kind == "ASSUMED_CONTROLLER_CONFIG"
    )
    assert assumed == [("k", "CONTROLLER_TOPIC", UNCLEAN), ("k3", "CONTROLLER_TOPIC", UNCLEAN)]
    (k,) = [f for f in result.findings if f.kind == "ASSUMED_CONTROLLER_CONFIG" and f.cluster_id == "k"]
    assert "for 1 topic(s) without a topic override" in k.message
    assert "controller 3000's view (true from STATIC_BROKER_CONFIG)" in k.message
    assert "the controllers resolve it differently" in k.message
    assert "controller(s) 3001 have no --static-config" in k.message
    assert "3000=true (STATIC_BROKER_CONFIG), 3001=false (DEFAULT_CONFIG)" in k.message


def test_controller_layer_findings_are_a_brokers(result: Result) -> None:
    got = sorted(
        (f.cluster_id, f.kind, f.resource_name, f.config_name)
        for f in result.findings
        if f.kind in ("INVALID_DYNAMIC_CONFIG", "REJECTED_CONFIG_LAYER")
    )
    assert got == [
        ("k", "INVALID_DYNAMIC_CONFIG", "", MIN_ISR),
        ("k", "INVALID_DYNAMIC_CONFIG", "3000", "log.segment.bytes"),
        ("k2", "REJECTED_CONFIG_LAYER", "3001", None),
    ]
