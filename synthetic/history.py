"""One cluster's history: its metadata records in log order, generated lazily, with the snapshot cut.

What a cluster's log holds, in order: the bootstrap transaction (BEGIN, ``metadata.version`` and the other
finalized features of its release, END), controller and broker registrations (``RegisterBrokerRecord`` v5 with
``staticConfigs`` for ~60% of clusters, the MV's own version without them otherwise) and unfencing, cluster-default
and per-broker dynamic configs, client quotas, client-metrics subscriptions and group configs (by release), the
internal topics, the user topics (TopicRecord, ConfigRecords, PartitionRecords) with some background churn, and a
final churn phase (``synthetic.churn``).

``violation_rate`` plants known-bad values (``Planted``) that are still in effect at the end of the log, and a few
*decoys*: bad values that are not in effect (inside an aborted transaction, on a removed topic, later overwritten
or deleted), which a correct replay must not report. Dynamic password configs with fake values (``secrets``)
exercise redaction (one per cluster). With ``violation_rate == 0`` none of the three is planted. A planted value
is never masked: no higher config layer sets the same key, and the churn never touches it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Final

from synthetic.churn import ClusterChurn
from synthetic.image import SnapshotCut, SnapshotImage
from synthetic.plan import new_uuid
from synthetic.planted import (
    SECRET_MARKER,
    SRC_BROKER,
    SRC_CLIENT_METRICS,
    SRC_DEFAULT_BROKER,
    SRC_GROUP,
    SRC_TOPIC,
)
from synthetic.pools import (
    BROKER_BAD,
    DEFAULT_BROKER_POOL,
    DOMAINS,
    ENTITIES,
    NODE_BROKER_POOL,
    SECRET_KEYS,
    STATIC_BAD,
    TEAMS,
    TOPIC_POOL_KEYS,
)
from synthetic.records import (
    BEGIN_TRANSACTION,
    END_TRANSACTION,
    MV_3_7_IV0,
    MV_4_0_IV0,
    NO_OP,
    REGISTER_CONTROLLER,
    RT_BROKER,
    RT_CLIENT_METRICS,
    RT_GROUP,
    RT_TOPIC,
    ZK_MIGRATION_STATE,
    bootstrap_records,
    supported_features,
)
from synthetic.state import Topic
from transforms.decode.binary.encode import MetadataRecordSpec

__all__ = ["ClusterSynth"]

MIB: Final = 1024 * 1024
_CUT: Final = object()  # in-band marker from _log() to items()


class ClusterSynth(ClusterChurn):
    """The records of one cluster, generated lazily.

    Iterate ``items()`` once: it yields ``(apiKey, version, data)`` in log order and, when ``spec.snapshot`` is
    set, one ``SnapshotCut`` between two records (outside any transaction). ``violations``, ``decoys``,
    ``secrets`` and ``counts`` are complete once the iteration has finished.
    """

    # -- public -------------------------------------------------------------------------------------------------

    def items(self) -> Iterator[MetadataRecordSpec | SnapshotCut]:
        """The cluster's log in order, with the snapshot cut when ``spec.snapshot`` is set."""
        counts = self._counts
        image: SnapshotImage | None = SnapshotImage() if self.spec.snapshot else None
        for item in self._log():
            if item is _CUT:
                if image is not None:
                    yield SnapshotCut(records=image.records())
                image = None
                continue
            counts[item[0]] += 1
            self._emitted += 1
            if image is not None:
                image.apply(item)
            yield item

    # -- phases -------------------------------------------------------------------------------------------------

    def _log(self) -> Iterator[Any]:
        yield from self._bootstrap()
        yield from self._register_quorum()
        yield from self._dynamic_broker_configs()
        yield from self._quotas()
        yield from self._client_metrics()
        yield from self._groups()
        yield from self._internal_topics()
        topics = self.spec.topics
        rng = self.rng
        cut_at = (2 * topics) // 3 if self.spec.snapshot else -1
        removed_at = rng.randrange(topics + 1)
        for index in range(topics):
            if index == cut_at:
                yield _CUT
            if index == removed_at:
                yield from self._create_removed_topic()
            yield from self._create_topic(index)
            roll = rng.random()
            if roll < 0.25:
                yield (NO_OP, 0, {})
            elif roll < 0.30:
                yield from self._background_churn()
        if self.spec.snapshot and topics == 0:
            yield _CUT
        if removed_at == topics:
            yield from self._create_removed_topic()
        yield from self._churn()

    def _bootstrap(self) -> Iterator[MetadataRecordSpec]:
        yield (BEGIN_TRANSACTION, 0, {"name": "Bootstrap records"})
        yield from bootstrap_records(self.plan)
        if self.level < MV_4_0_IV0:
            yield (ZK_MIGRATION_STATE, 0, {"zkMigrationState": 0})
        yield (END_TRANSACTION, 0, {})

    def _register_quorum(self) -> Iterator[MetadataRecordSpec]:
        plan, rng = self.plan, self.rng
        features = supported_features(plan.release, plan.level)
        if self.level >= MV_3_7_IV0:
            for controller in plan.controller_ids:
                yield (
                    REGISTER_CONTROLLER,
                    0,
                    {
                        "controllerId": controller,
                        "incarnationId": new_uuid(rng),
                        "zkMigrationReady": False,
                        "endPoints": [
                            {"name": "CONTROLLER", "host": self._host(controller), "port": 9093, "securityProtocol": 0}
                        ],
                        "features": features,
                    },
                )
        self._plan_static_and_dynamic_plants()
        brokers = (*plan.broker_ids, plan.unregistered_broker_id)
        for broker in brokers:
            self._dirs[broker] = [new_uuid(rng) for _ in range(2 if self._two_dirs else 1)]
            self._endpoints[broker] = self._broker_endpoints(broker)
            if plan.static_configs:
                self._static[broker] = self._static_configs(broker)
            yield self._registration(broker)
        for broker in brokers:
            yield self._registration_change(broker, fenced=-1)

    def _dynamic_broker_configs(self) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        pool = {k: v for k, v in DEFAULT_BROKER_POOL.items() if k not in self._static_planted}
        planted_default = self._planted_broker.get("")
        if planted_default is not None:
            pool.pop(planted_default[0], None)
        for key in rng.sample(sorted(pool), k=min(len(pool), rng.randint(2, 5))):
            yield self._config(RT_BROKER, "", key, rng.choice(pool[key]))
        if self._min_isr_default > 1 or rng.random() < 0.3:
            yield self._config(RT_BROKER, "", "min.insync.replicas", str(self._min_isr_default))
        if planted_default is not None:
            yield self._plant_config(RT_BROKER, "", *planted_default, source=SRC_DEFAULT_BROKER)
        for broker in self.plan.broker_ids:
            node_pool = {k: v for k, v in NODE_BROKER_POOL.items() if k not in self._protected_default}
            if rng.random() < 0.6:
                for key in rng.sample(sorted(node_pool), k=min(len(node_pool), rng.randint(1, 3))):
                    yield self._config(RT_BROKER, str(broker), key, rng.choice(node_pool[key]))
            planted = self._planted_broker.get(str(broker))
            if planted is not None:
                yield self._plant_config(RT_BROKER, str(broker), *planted, source=SRC_BROKER)
        if self._plant:
            broker = rng.choice(self.plan.broker_ids)
            key = rng.choice(SECRET_KEYS)
            value = f"{SECRET_MARKER}{rng.randbytes(6).hex()}"
            secret = self._planted(RT_BROKER, str(broker), key, value, "planted_secret", SRC_BROKER)
            self.secrets.append(dataclasses.replace(secret, sensitive=True))
            yield self._config(RT_BROKER, str(broker), key, value)

    def _plan_static_and_dynamic_plants(self) -> None:
        """Decide which broker layers get bad values before any benign key is chosen, so that no planted value is
        masked by a higher layer setting the same key (a dynamic layer removes the whole synonym group below it).
        """
        rng, rate = self.rng, self._rate
        if not self._plant:
            return
        if rng.random() < rate:
            kind = rng.choice(sorted(BROKER_BAD))
            key, values = BROKER_BAD[kind]
            self._planted_broker[""] = (key, rng.choice(values), kind)
            self._protected_default.add(key)
        for broker in self.plan.broker_ids:
            if rng.random() < rate:
                kind = rng.choice(sorted(BROKER_BAD))
                key, values = BROKER_BAD[kind]
                if key not in self._protected_default:
                    self._planted_broker[str(broker)] = (key, rng.choice(values), kind)
                    self._protected_node.setdefault(broker, set()).add(key)
            if self.plan.static_configs and rng.random() < rate:
                kind = rng.choice(sorted(STATIC_BAD))
                key, values = STATIC_BAD[kind]
                if key not in self._protected_default and key not in self._protected_node.get(broker, set()):
                    self._planted_static[broker] = (key, rng.choice(values), kind)
                    self._static_planted.add(key)

    def _quotas(self) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        yield self._quota([("user", None)], "producer_byte_rate", float(rng.choice((10, 20, 50)) * MIB))
        yield self._quota([("user", None)], "consumer_byte_rate", float(rng.choice((20, 50, 100)) * MIB))
        for team in rng.sample(TEAMS, k=rng.randint(1, 4)):
            user = f"svc-{team}"
            yield self._quota([("user", user)], "producer_byte_rate", float(rng.choice((5, 10, 25)) * MIB))
            if rng.random() < 0.5:
                entity = [("user", user), ("client-id", f"{team}-ingest")]
                yield self._quota(entity, "request_percentage", float(rng.choice((50, 100, 200))))
        yield self._quota([("client-id", None)], "controller_mutation_rate", 10.0)

    def _client_metrics(self) -> Iterator[MetadataRecordSpec]:
        if self.level < MV_3_7_IV0:
            return
        rng = self.rng
        for index in range(rng.randint(1, 2)):
            name = ("basic-producer-metrics", "consumer-lag-metrics")[index]
            metrics = ("org.apache.kafka.producer.", "org.apache.kafka.consumer.fetch.manager.")[index]
            yield self._config(RT_CLIENT_METRICS, name, "metrics", metrics)
            if self._plant and rng.random() < self._rate:
                yield self._plant_config(
                    RT_CLIENT_METRICS,
                    name,
                    "interval.ms",
                    rng.choice(("50", "0", "7200000")),
                    "client_metrics_interval_out_of_range",
                    source=SRC_CLIENT_METRICS,
                )
            else:
                yield self._config(RT_CLIENT_METRICS, name, "interval.ms", rng.choice(("30000", "60000", "300000")))
            yield self._config(RT_CLIENT_METRICS, name, "match", "client_software_name=apache-kafka-java")

    def _groups(self) -> Iterator[MetadataRecordSpec]:
        if self.level < MV_4_0_IV0:
            return
        rng = self.rng
        for index in range(max(1, min(50, self.spec.topics // 10))):
            group = f"{rng.choice(TEAMS)}-{rng.choice(DOMAINS)}-consumer-{index}"
            if self._plant and rng.random() < self._rate:
                session = rng.choice(("45000", "50000"))
                heartbeat = str(int(session) + rng.choice((0, 5000)))
                yield self._config(RT_GROUP, group, "consumer.session.timeout.ms", session)
                yield self._plant_config(
                    RT_GROUP,
                    group,
                    "consumer.heartbeat.interval.ms",
                    heartbeat,
                    "group_heartbeat_not_below_session",
                    source=SRC_GROUP,
                    related=(("consumer.session.timeout.ms", session),),
                )
                continue
            yield self._config(RT_GROUP, group, "consumer.session.timeout.ms", rng.choice(("45000", "50000", "60000")))
            if rng.random() < 0.6:
                yield self._config(RT_GROUP, group, "consumer.heartbeat.interval.ms", rng.choice(("5000", "10000")))

    def _internal_topics(self) -> Iterator[MetadataRecordSpec]:
        rf = min(3, self.spec.brokers)
        yield from self._topic_records(
            Topic("__consumer_offsets", new_uuid(self.rng), 50, rf, self.rng.randrange(self.spec.brokers)),
            {"compression.type": "producer", "cleanup.policy": "compact", "segment.bytes": "104857600"},
        )
        self.internal_topics.append("__consumer_offsets")
        if self.rng.random() < 0.4:
            configs = {
                "compression.type": "uncompressed",
                "cleanup.policy": "compact",
                "min.insync.replicas": str(min(2, rf)),
                "segment.bytes": "104857600",
                "unclean.leader.election.enable": "false",
            }
            topic = Topic("__transaction_state", new_uuid(self.rng), 50, rf, self.rng.randrange(self.spec.brokers))
            yield from self._topic_records(topic, configs)
            self.internal_topics.append("__transaction_state")

    def _create_topic(self, index: int) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        rf = rng.randint(self._rf_low, self._rf_high)
        name = f"{rng.choice(DOMAINS)}.{rng.choice(ENTITIES)}.{index:05d}"
        topic = Topic(name, new_uuid(rng), self.spec.partitions, rf, rng.randrange(self.spec.brokers))
        keys = rng.sample(TOPIC_POOL_KEYS, k=min(self.spec.topic_configs, len(TOPIC_POOL_KEYS)))
        configs = {key: self._benign_topic_value(key, rf) for key in keys}
        planted: tuple[str, str, str] | None = None
        if self._plant and keys and rng.random() < self._rate:
            planted = self._bad_topic_value(rf)
            bad_key = planted[0]
            if bad_key not in configs:
                del configs[keys[-1]]
            configs[bad_key] = planted[1]
            topic.protected.add(bad_key)
        self._topics.append(topic)
        yield from self._topic_records(topic, configs)
        if planted is not None:
            key, value, kind = planted
            related = (("replication.factor", str(rf)),) if kind == "min_insync_replicas_above_rf" else ()
            self.violations.append(self._planted(RT_TOPIC, name, key, value, kind, SRC_TOPIC, related=related))

    def _create_removed_topic(self) -> Iterator[MetadataRecordSpec]:
        """A short-lived topic, removed in the churn phase; a bad override on it is a decoy."""
        rng = self.rng
        topic = Topic(f"tmp.migration-{rng.randrange(10**6):06d}", new_uuid(rng), self.spec.partitions, 1, 0)
        configs = {"retention.ms": "3600000"}
        if self._plant:
            configs["segment.bytes"] = "524288"
            self.decoys.append(
                self._planted(
                    RT_TOPIC,
                    topic.name,
                    "segment.bytes",
                    "524288",
                    "segment_bytes_below_1mib",
                    SRC_TOPIC,
                    reason="topic_removed",
                )
            )
        self.removed_topic = topic.name
        self._removed = topic
        yield from self._topic_records(topic, configs)
