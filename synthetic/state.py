"""What the generator remembers about one cluster while it writes the log, and the record builders that read and
update that memory. ``ClusterState`` is the base of ``ClusterChurn`` (``synthetic.churn``), which is the base of
``ClusterSynth`` (``synthetic.history``): one object, split by phase so each part reads in one sitting."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from schemas.record_types import METADATA_RECORD_TYPES
from synthetic.plan import ClusterPlan, new_uuid, seed_for
from synthetic.planted import SRC_STATIC, Planted
from synthetic.pools import STATIC_POOL, TOPIC_BAD_KINDS, TOPIC_POOL
from synthetic.records import (
    BROKER_REGISTRATION_CHANGE,
    CLIENT_QUOTA,
    CONFIG,
    PARTITION,
    PRODUCER_IDS,
    REGISTER_BROKER,
    RESOURCE_TYPE_NAMES,
    RT_BROKER,
    RT_TOPIC,
    STATIC_CONFIGS_VERSION,
    TOPIC,
    partition_record_version,
    register_broker_version,
    registration_change_version,
    supported_features,
)
from synthetic.spec import FleetSpec
from transforms.decode.binary.encode import MetadataRecordSpec

__all__ = ["ClusterState", "Topic"]


class Topic:
    """What the generator remembers about a live topic (not its records)."""

    __slots__ = ("configs", "name", "partitions", "protected", "rf", "start", "topic_id")

    def __init__(self, name: str, topic_id: str, partitions: int, rf: int, start: int) -> None:
        self.name = name
        self.topic_id = topic_id
        self.partitions = partitions
        self.rf = rf
        self.start = start  # replica assignment: partition p -> brokers[(start + p + k) % n] for k < rf
        self.configs: dict[str, str] = {}
        self.protected: set[str] = set()  # keys holding planted values: churn never touches them


class ClusterState:
    """The memory of one cluster's generator: its random stream, live topics, brokers, planting decisions and
    what it planted. Holds no records: they are yielded as they are built.
    """

    def __init__(self, spec: FleetSpec, plan: ClusterPlan) -> None:
        self.spec = spec
        self.plan = plan
        self.rng = random.Random(seed_for(plan.seed, "records"))
        self.violations: list[Planted] = []
        self.decoys: list[Planted] = []
        self.secrets: list[Planted] = []
        self.removed_topic: str | None = None
        self.aborted_topic: str | None = None
        self.internal_topics: list[str] = []
        self.level = plan.bootstrap_level
        self._counts = [0] * (max(METADATA_RECORD_TYPES) + 1)
        self._emitted = 0
        self._topics: list[Topic] = []
        self._leaders: dict[tuple[int, int], int] = {}
        self._broker_epochs: dict[int, int] = {}
        self._dirs: dict[int, list[str]] = {}
        self._static: dict[int, list[dict[str, str | None]]] = {}
        self._endpoints: dict[int, list[dict[str, Any]]] = {}
        self._producer_id = 0
        rate = spec.violation_rate
        self._plant = rate > 0
        self._rate = rate
        rng = self.rng
        self._min_isr_default = 2 if spec.brokers >= 3 and rng.random() < 0.5 else 1
        self._rf_high = min(3, spec.brokers)
        self._rf_low = max(self._min_isr_default, min(2, self._rf_high) if rng.random() < 0.6 else 1)
        self._two_dirs = rng.random() < 0.3
        self._protected_default: set[str] = set()  # broker keys with a planted cluster-default value
        self._protected_node: dict[int, set[str]] = {}
        self._static_planted: set[str] = set()
        self._planted_broker: dict[str, tuple[str, str, str]] = {}  # resource name -> (key, value, kind)
        self._planted_static: dict[int, tuple[str, str, str]] = {}
        self._removed: Topic | None = None

    # -- counters -----------------------------------------------------------------------------------------------

    @property
    def counts(self) -> dict[str, int]:
        """Records generated so far by printed record type (snapshot-only copies not included)."""
        return {METADATA_RECORD_TYPES[k]: n for k, n in enumerate(self._counts) if n}

    @property
    def records_generated(self) -> int:
        """Metadata records generated so far."""
        return self._emitted

    # -- record builders ----------------------------------------------------------------------------------------

    def _topic_records(self, topic: Topic, configs: Mapping[str, str]) -> Iterator[MetadataRecordSpec]:
        """CreateTopics: TopicRecord, its ConfigRecords, then one PartitionRecord per partition."""
        yield (TOPIC, 0, {"name": topic.name, "topicId": topic.topic_id})
        for key, value in configs.items():
            topic.configs[key] = value
            yield self._config(RT_TOPIC, topic.name, key, value)
        version = partition_record_version(self.level)
        for partition in range(topic.partitions):
            replicas = self._replicas(topic, partition)
            data: dict[str, Any] = {
                "partitionId": partition,
                "topicId": topic.topic_id,
                "replicas": replicas,
                "isr": replicas,
                "leader": replicas[0],
                "leaderEpoch": 0,
                "partitionEpoch": 0,
            }
            if version >= 1:
                data["directories"] = [self._dirs[r][partition % len(self._dirs[r])] for r in replicas]
            yield (PARTITION, version, data)

    def _replicas(self, topic: Topic, partition: int) -> list[int]:
        brokers = self.plan.broker_ids
        n = len(brokers)
        first = topic.start + partition
        return [brokers[(first + k) % n] for k in range(topic.rf)]

    def _registration(self, broker: int) -> MetadataRecordSpec:
        plan = self.plan
        version = STATIC_CONFIGS_VERSION if plan.static_configs else register_broker_version(self.level)
        epoch = self._emitted + 1
        self._broker_epochs[broker] = epoch
        data: dict[str, Any] = {
            "brokerId": broker,
            "incarnationId": new_uuid(self.rng),
            "brokerEpoch": epoch,
            "endPoints": self._endpoints[broker],
            "features": supported_features(plan.release, plan.level),
            "rack": plan.racks[broker % len(plan.racks)] if plan.racks else None,
            "fenced": True,
            "inControlledShutdown": False,
        }
        if version >= 2:
            data["isMigratingZkBroker"] = False
        if version >= 3:
            data["logDirs"] = self._dirs[broker]
        if version >= STATIC_CONFIGS_VERSION:
            data["staticConfigs"] = self._static[broker]
        return (REGISTER_BROKER, version, data)

    def _registration_change(
        self, broker: int, *, fenced: int = 0, in_controlled_shutdown: bool = False
    ) -> MetadataRecordSpec:
        data: dict[str, Any] = {"brokerId": broker, "brokerEpoch": self._broker_epochs[broker]}
        if fenced:
            data["fenced"] = fenced
        if in_controlled_shutdown:
            data["inControlledShutdown"] = 1
        return (BROKER_REGISTRATION_CHANGE, registration_change_version(self.level), data)

    def _broker_endpoints(self, broker: int) -> list[dict[str, Any]]:
        host = self._host(broker)
        if self.plan.index % 3 == 0:
            return [{"name": "PLAINTEXT", "host": host, "port": 9092, "securityProtocol": 0}]
        return [
            {"name": "INTERNAL", "host": host, "port": 9094, "securityProtocol": 1},
            {"name": "SASL_SSL", "host": host, "port": 9093, "securityProtocol": 3},
        ]

    def _host(self, node: int) -> str:
        return f"{self.plan.name}-{node}.kafka.internal"

    def _static_configs(self, broker: int) -> list[dict[str, str | None]]:
        """A plausible server.properties for one broker (the cluster's template plus node-specific keys)."""
        plan = self.plan
        template_rng = random.Random(seed_for(plan.seed, "server.properties"))
        values = {key: template_rng.choice(choices) for key, choices in STATIC_POOL.items()}
        drift_rng = random.Random(seed_for(plan.seed, "server.properties", broker))
        if drift_rng.random() < 0.15:  # one broker in seven was hand-tuned
            values["num.io.threads"] = drift_rng.choice(("12", "24"))
        rf = str(min(3, len(plan.broker_ids)))
        out: dict[str, str | None] = {
            "node.id": str(broker),
            "process.roles": "broker" if plan.dedicated_controllers else "broker,controller",
            "listeners": ",".join(f"{e['name']}://:{e['port']}" for e in self._endpoints[broker]),
            "controller.listener.names": "CONTROLLER",
            "log.dirs": ",".join(f"/var/lib/kafka/data-{i}" for i in range(len(self._dirs[broker]))),
            **values,
            "offsets.topic.replication.factor": rf,
            "transaction.state.log.replication.factor": rf,
            "transaction.state.log.min.isr": str(min(2, len(plan.broker_ids))),
            "default.replication.factor": rf,
            "min.insync.replicas": str(self._min_isr_default),
        }
        planted = self._planted_static.get(broker)
        if planted is not None:
            key, value, kind = planted
            out[key] = value
            self.violations.append(self._planted(RT_BROKER, str(broker), key, value, kind, SRC_STATIC))
        return [{"name": k, "value": v} for k, v in out.items()]

    def _benign_topic_value(self, key: str, rf: int) -> str:
        if key == "min.insync.replicas":
            return str(self.rng.randint(1, rf))
        return self.rng.choice(TOPIC_POOL[key])

    def _bad_topic_value(self, rf: int) -> tuple[str, str, str]:
        rng = self.rng
        kind = rng.choice(TOPIC_BAD_KINDS)
        if kind == "segment_bytes_below_1mib":
            return "segment.bytes", rng.choice(("1024", "102400", "524288", "1048575")), kind
        if kind == "cleanup_policy_empty_element":
            return "cleanup.policy", rng.choice(("delete,,compact", ",delete", "compact,")), kind
        if kind == "cleanup_policy_duplicates":
            return "cleanup.policy", rng.choice(("delete,delete", "compact,compact", "compact,delete,compact")), kind
        if kind == "min_insync_replicas_above_rf":
            return "min.insync.replicas", str(rf + rng.randint(1, 2)), kind
        if kind == "message_format_version_set":
            return "message.format.version", rng.choice(("2.8-IV1", "3.0-IV1", "0.10.2")), kind
        return "retention.ms", rng.choice(("-2", "-100")), kind

    def _config(self, resource_type: int, resource_name: str, key: str, value: str | None) -> MetadataRecordSpec:
        return (CONFIG, 0, {"resourceType": resource_type, "resourceName": resource_name, "name": key, "value": value})

    def _plant_config(
        self,
        resource_type: int,
        resource_name: str,
        key: str,
        value: str,
        kind: str,
        *,
        source: str,
        related: tuple[tuple[str, str], ...] = (),
    ) -> MetadataRecordSpec:
        self.violations.append(self._planted(resource_type, resource_name, key, value, kind, source, related=related))
        return self._config(resource_type, resource_name, key, value)

    def _planted(
        self,
        resource_type: int,
        resource_name: str,
        key: str,
        value: str,
        kind: str,
        source: str,
        *,
        related: tuple[tuple[str, str], ...] = (),
        reason: str = "",
    ) -> Planted:
        return Planted(
            cluster=self.plan.name,
            cluster_id=self.plan.cluster_id,
            resource_type=RESOURCE_TYPE_NAMES[resource_type],
            resource_name=resource_name,
            config=key,
            value=value,
            kind=kind,
            source=source,
            related=related,
            reason=reason,
        )

    def _quota(self, entity: Sequence[tuple[str, str | None]], key: str, value: float) -> MetadataRecordSpec:
        entity_data = [{"entityType": t, "entityName": n} for t, n in entity]
        return (CLIENT_QUOTA, 0, {"entity": entity_data, "key": key, "value": value, "remove": False})

    def _producer_ids(self) -> MetadataRecordSpec:
        broker = self.rng.choice(self.plan.broker_ids)
        self._producer_id += 1000
        return (
            PRODUCER_IDS,
            0,
            {"brokerId": broker, "brokerEpoch": self._broker_epochs[broker], "nextProducerId": self._producer_id},
        )
