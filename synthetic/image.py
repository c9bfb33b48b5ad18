"""The snapshot side of a cluster's history: the state a ``<end offset>-<epoch>.checkpoint`` holds, built by
replaying the generated records the way Kafka's ``MetadataImage`` does, and the cut that carries it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synthetic.records import (
    ABORT_TRANSACTION,
    BEGIN_TRANSACTION,
    BROKER_REGISTRATION_CHANGE,
    CLIENT_QUOTA,
    CONFIG,
    END_TRANSACTION,
    FEATURE_LEVEL,
    PARTITION,
    PARTITION_CHANGE,
    PRODUCER_IDS,
    REGISTER_BROKER,
    REGISTER_CONTROLLER,
    REMOVE_TOPIC,
    RT_TOPIC,
    TOPIC,
    UNREGISTER_BROKER,
    ZK_MIGRATION_STATE,
)
from transforms.decode.binary.encode import MetadataRecordSpec

__all__ = ["SnapshotCut", "SnapshotImage"]


@dataclass(frozen=True)
class SnapshotCut:
    """Marks where the snapshot is taken: ``records`` is the cluster's state after every record before it."""

    records: list[MetadataRecordSpec]


class SnapshotImage:
    """The cluster state the snapshot writes (``MetadataImage``), kept only until the snapshot cut."""

    def __init__(self) -> None:
        self.features: dict[str, int] = {}
        self.zk_state: int | None = None
        self.brokers: dict[int, tuple[int, dict[str, Any]]] = {}
        self.controllers: dict[int, tuple[int, dict[str, Any]]] = {}
        self.topics: dict[str, tuple[str, dict[int, tuple[int, dict[str, Any]]]]] = {}
        self.configs: dict[tuple[int, str], dict[str, str]] = {}
        self.quotas: dict[tuple[tuple[str, str | None], ...], dict[str, float]] = {}
        self.producer_ids: dict[str, Any] | None = None
        self._txn: list[MetadataRecordSpec] | None = None

    def apply(self, record: MetadataRecordSpec) -> None:
        """Replay one record: transactions apply at END and vanish at ABORT (``MetadataBatchLoader``)."""
        api_key = record[0]
        if self._txn is not None:
            if api_key == END_TRANSACTION:
                pending, self._txn = self._txn, None
                for item in pending:
                    self._apply(item)
            elif api_key == ABORT_TRANSACTION:
                self._txn = None
            else:
                self._txn.append(record)
            return
        if api_key == BEGIN_TRANSACTION:
            self._txn = []
            return
        self._apply(record)

    def _apply(self, record: MetadataRecordSpec) -> None:
        api_key, version, data = record
        if api_key == CONFIG:
            key = (data["resourceType"], data["resourceName"])
            if data["value"] is None:
                entries = self.configs.get(key)
                if entries is not None:
                    entries.pop(data["name"], None)
                    if not entries:
                        del self.configs[key]
            else:
                self.configs.setdefault(key, {})[data["name"]] = data["value"]
        elif api_key == PARTITION:
            self.topics[data["topicId"]][1][data["partitionId"]] = (version, dict(data))
        elif api_key == PARTITION_CHANGE:
            part = self.topics[data["topicId"]][1][data["partitionId"]][1]
            if "leader" in data:
                part["leader"] = data["leader"]
                part["leaderEpoch"] = part["leaderEpoch"] + 1
            if "isr" in data:
                part["isr"] = list(data["isr"])
            part["partitionEpoch"] = part["partitionEpoch"] + 1
        elif api_key == TOPIC:
            self.topics[data["topicId"]] = (data["name"], {})
        elif api_key == REMOVE_TOPIC:
            name, _ = self.topics.pop(data["topicId"])
            self.configs.pop((RT_TOPIC, name), None)
        elif api_key == REGISTER_BROKER:
            self.brokers[data["brokerId"]] = (version, dict(data))
        elif api_key == BROKER_REGISTRATION_CHANGE:
            _, broker = self.brokers[data["brokerId"]]
            if data.get("fenced"):
                broker["fenced"] = data["fenced"] == 1
            if data.get("inControlledShutdown") == 1:
                broker["inControlledShutdown"] = True
        elif api_key == UNREGISTER_BROKER:
            self.brokers.pop(data["brokerId"], None)
        elif api_key == REGISTER_CONTROLLER:
            self.controllers[data["controllerId"]] = (version, data)
        elif api_key == FEATURE_LEVEL:
            if data["featureLevel"]:
                self.features[data["name"]] = data["featureLevel"]
            else:
                self.features.pop(data["name"], None)
        elif api_key == ZK_MIGRATION_STATE:
            self.zk_state = data["zkMigrationState"]
        elif api_key == CLIENT_QUOTA:
            entity = tuple((e["entityType"], e["entityName"]) for e in data["entity"])
            if data["remove"]:
                values = self.quotas.get(entity, {})
                values.pop(data["key"], None)
                if not values:
                    self.quotas.pop(entity, None)
            else:
                self.quotas.setdefault(entity, {})[data["key"]] = data["value"]
        elif api_key == PRODUCER_IDS:
            self.producer_ids = data

    def records(self) -> list[MetadataRecordSpec]:
        """The image as snapshot records, in ``MetadataImage.write`` order: features, cluster, topics, configs,
        client quotas, producer ids."""
        out: list[MetadataRecordSpec] = []
        for name in sorted(self.features, key=lambda n: (n != "metadata.version", n)):
            out.append((FEATURE_LEVEL, 0, {"name": name, "featureLevel": self.features[name]}))
        if self.zk_state is not None:
            out.append((ZK_MIGRATION_STATE, 0, {"zkMigrationState": self.zk_state}))
        out += [(REGISTER_BROKER, v, d) for _, (v, d) in sorted(self.brokers.items())]
        out += [(REGISTER_CONTROLLER, v, d) for _, (v, d) in sorted(self.controllers.items())]
        for topic_id, (name, partitions) in self.topics.items():
            out.append((TOPIC, 0, {"name": name, "topicId": topic_id}))
            out += [(PARTITION, v, d) for _, (v, d) in sorted(partitions.items())]
        for (resource_type, resource_name), entries in self.configs.items():
            out += [
                (CONFIG, 0, {"resourceType": resource_type, "resourceName": resource_name, "name": k, "value": v})
                for k, v in entries.items()
            ]
        for entity, values in self.quotas.items():
            entity_data = [{"entityType": t, "entityName": n} for t, n in entity]
            out += [
                (CLIENT_QUOTA, 0, {"entity": entity_data, "key": k, "value": v, "remove": False})
                for k, v in values.items()
            ]
        if self.producer_ids is not None:
            out.append((PRODUCER_IDS, 0, self.producer_ids))
        return out
