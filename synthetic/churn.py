"""Life after creation: the bulk of partition, config and broker changes proportional to the cluster's size, plus
the one-off events (a broker restart, a decommission, a removed topic, an aborted transaction, decoys that are
fixed later, the ``metadata.version`` upgrade of a lagging cluster) at random positions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from synthetic.plan import new_uuid
from synthetic.planted import SRC_BROKER, SRC_TOPIC
from synthetic.pools import ENTITIES, NODE_BROKER_POOL, TOPIC_POOL_KEYS
from synthetic.records import (
    ABORT_TRANSACTION,
    BEGIN_TRANSACTION,
    CLEAR_ELR,
    CLIENT_QUOTA,
    FEATURE_LEVEL,
    MV_4_1_IV0,
    NO_OP,
    PARTITION_CHANGE,
    REMOVE_TOPIC,
    RT_BROKER,
    RT_TOPIC,
    UNREGISTER_BROKER,
    partition_record_version,
)
from synthetic.state import ClusterState, Topic
from transforms.decode.binary.encode import MetadataRecordSpec

__all__ = ["ClusterChurn"]


class ClusterChurn(ClusterState):
    """The churn phase of a cluster's log (``_churn``) and the background churn that also runs between topic
    creations (``_background_churn``)."""

    def _churn(self) -> Iterator[MetadataRecordSpec]:
        """Life after creation: the bulk proportional to size, plus the one-off events at random positions."""
        rng = self.rng
        total_partitions = sum(t.partitions for t in self._topics)
        n = max(20, total_partitions // 10 + len(self._topics) // 5)
        events: list[Any] = [
            self._restart_broker,
            self._unregister_broker,
            self._remove_topic,
            self._aborted_transaction,
            self._remove_quota,
        ]
        if self._plant:
            events += [self._superseded_decoy, self._deleted_decoy]
        if self.plan.bootstrap_level < self.plan.level:
            events.append(self._upgrade_metadata_version)
        positions = dict(zip(rng.sample(range(n), k=len(events)), events, strict=True))
        for step in range(n):
            event = positions.get(step)
            if event is not None:
                yield from event()
                continue
            yield from self._background_churn()
            if rng.random() < 0.3:
                yield (NO_OP, 0, {})

    def _background_churn(self) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        roll = rng.random()
        if not self._topics:
            yield (NO_OP, 0, {})
        elif roll < 0.55:
            yield from self._partition_change()
        elif roll < 0.80:
            yield from self._topic_config_update()
        elif roll < 0.90:
            yield from self._topic_config_delete()
        elif roll < 0.95:
            yield self._producer_ids()
        else:
            yield from self._broker_config_update()

    # -- churn events -------------------------------------------------------------------------------------------

    def _partition_change(self) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        topic_index = rng.randrange(len(self._topics))
        topic = self._topics[topic_index]
        partition = rng.randrange(topic.partitions)
        replicas = self._replicas(topic, partition)
        version = partition_record_version(self.level)
        base = {"partitionId": partition, "topicId": topic.topic_id}
        if len(replicas) > 1 and rng.random() < 0.5:
            current = self._leaders.get((topic_index, partition), replicas[0])
            leader = rng.choice([r for r in replicas if r != current])
            self._leaders[(topic_index, partition)] = leader
            yield (PARTITION_CHANGE, version, {**base, "leader": leader})
        elif len(replicas) > 1:
            follower = replicas[-1]
            if follower == self._leaders.get((topic_index, partition), replicas[0]):
                follower = replicas[0]
            yield (PARTITION_CHANGE, version, {**base, "isr": [r for r in replicas if r != follower]})
            yield (PARTITION_CHANGE, version, {**base, "isr": list(replicas)})
        else:
            yield (NO_OP, 0, {})  # a single replica has no leader or ISR to change

    def _topic_config_update(self) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        topic = rng.choice(self._topics)
        key = rng.choice(TOPIC_POOL_KEYS)
        if key in topic.protected:
            return
        value = self._benign_topic_value(key, topic.rf)
        topic.configs[key] = value
        yield self._config(RT_TOPIC, topic.name, key, value)
        if key == "min.insync.replicas" and self.level >= MV_4_1_IV0:  # ELR on: Kafka clears the topic's ELR
            yield (CLEAR_ELR, 0, {"topicName": topic.name})

    def _topic_config_delete(self) -> Iterator[MetadataRecordSpec]:
        topic = self.rng.choice(self._topics)
        deletable = sorted(k for k in topic.configs if k not in topic.protected)
        if deletable:
            key = self.rng.choice(deletable)
            del topic.configs[key]
            yield self._config(RT_TOPIC, topic.name, key, None)

    def _broker_config_update(self) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        broker = rng.choice(self.plan.broker_ids)
        protected = self._protected_default | self._protected_node.get(broker, set())
        keys = sorted(k for k in NODE_BROKER_POOL if k not in protected)
        key = rng.choice(keys)
        # The controller writes one record even when the value does not change (KAFKA-14136).
        yield self._config(RT_BROKER, str(broker), key, rng.choice(NODE_BROKER_POOL[key]))

    def _restart_broker(self) -> Iterator[MetadataRecordSpec]:
        """Rolling restart of one broker: controlled shutdown, fence, re-register (new epoch), unfence."""
        broker = self.rng.choice(self.plan.broker_ids)
        yield self._registration_change(broker, in_controlled_shutdown=True)
        yield self._registration_change(broker, fenced=1)
        yield (NO_OP, 0, {})
        yield self._registration(broker)
        yield self._registration_change(broker, fenced=-1)

    def _unregister_broker(self) -> Iterator[MetadataRecordSpec]:
        broker = self.plan.unregistered_broker_id
        yield self._registration_change(broker, fenced=1)
        yield (UNREGISTER_BROKER, 0, {"brokerId": broker, "brokerEpoch": self._broker_epochs[broker]})

    def _remove_topic(self) -> Iterator[MetadataRecordSpec]:
        if self._removed is not None:
            yield (REMOVE_TOPIC, 0, {"topicId": self._removed.topic_id})

    def _aborted_transaction(self) -> Iterator[MetadataRecordSpec]:
        """A topic creation inside a metadata transaction that the controller aborted."""
        rng = self.rng
        topic = Topic(f"aborted.{rng.choice(ENTITIES)}-{rng.randrange(10**6):06d}", new_uuid(rng), 2, 1, 0)
        self.aborted_topic = topic.name
        configs = {"cleanup.policy": "compact"}
        if self._plant:
            configs["cleanup.policy"] = "compact,,delete"
            self.decoys.append(
                self._planted(
                    RT_TOPIC,
                    topic.name,
                    "cleanup.policy",
                    "compact,,delete",
                    "cleanup_policy_empty_element",
                    SRC_TOPIC,
                    reason="aborted_transaction",
                )
            )
        yield (BEGIN_TRANSACTION, 0, {"name": "CreateTopics"})
        yield from self._topic_records(topic, configs)
        yield (ABORT_TRANSACTION, 0, {"reason": "controller failover during CreateTopics"})

    def _remove_quota(self) -> Iterator[MetadataRecordSpec]:
        yield (
            CLIENT_QUOTA,
            0,
            {
                "entity": [{"entityType": "client-id", "entityName": None}],
                "key": "controller_mutation_rate",
                "value": 0.0,
                "remove": True,
            },
        )

    def _superseded_decoy(self) -> Iterator[MetadataRecordSpec]:
        """A bad per-broker value that an operator fixed a little later."""
        broker = self.rng.choice(self.plan.broker_ids)
        if "num.io.threads" in self._protected_default | self._protected_node.get(broker, set()):
            return
        self.decoys.append(
            self._planted(
                RT_BROKER, str(broker), "num.io.threads", "0", "num_io_threads_zero", SRC_BROKER, reason="superseded"
            )
        )
        yield self._config(RT_BROKER, str(broker), "num.io.threads", "0")
        yield (NO_OP, 0, {})
        yield self._config(RT_BROKER, str(broker), "num.io.threads", self.rng.choice(("8", "16")))

    def _deleted_decoy(self) -> Iterator[MetadataRecordSpec]:
        """A bad topic override that was later deleted (null value)."""
        candidates = [t for t in self._topics if "segment.bytes" not in t.protected]
        if not candidates:
            return
        topic = self.rng.choice(candidates)
        self.decoys.append(
            self._planted(
                RT_TOPIC, topic.name, "segment.bytes", "1024", "segment_bytes_below_1mib", SRC_TOPIC, reason="deleted"
            )
        )
        topic.configs.pop("segment.bytes", None)
        yield self._config(RT_TOPIC, topic.name, "segment.bytes", "1024")
        yield (NO_OP, 0, {})
        yield self._config(RT_TOPIC, topic.name, "segment.bytes", None)

    def _upgrade_metadata_version(self) -> Iterator[MetadataRecordSpec]:
        self.level = self.plan.level
        yield (FEATURE_LEVEL, 0, {"name": "metadata.version", "featureLevel": self.plan.level})
