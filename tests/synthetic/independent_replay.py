"""An independent replay of decoded records (transactions, deletes, removals, registrations) and an independent
judge of bad values, to check what the generator says it planted against what its files hold."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from schemas.decoded import DecodedRecord
from tests.synthetic.fleets import Cluster

RT_NAMES = {2: "TOPIC", 4: "BROKER", 16: "CLIENT_METRICS", 32: "GROUP"}


@dataclass
class State:
    configs: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)
    topics: dict[str, str] = field(default_factory=dict)  # topic id -> name
    partitions: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    brokers: dict[int, dict[str, Any]] = field(default_factory=dict)
    features: dict[str, int] = field(default_factory=dict)

    def topic_by_name(self) -> dict[str, str]:
        return {name: topic_id for topic_id, name in self.topics.items()}

    def replication_factor(self, topic_id: str) -> int:
        return len(self.partitions[(topic_id, 0)]["replicas"])


def replay(records: Iterable[DecodedRecord], state: State | None = None, *, below: int | None = None) -> State:
    state = state or State()
    pending: list[DecodedRecord] | None = None
    for record in records:
        if record.is_control or (below is not None and record.offset >= below):
            continue
        kind = record.record_type
        if pending is not None:
            if kind == "END_TRANSACTION_RECORD":
                for item in pending:
                    apply(state, item)
                pending = None
            elif kind == "ABORT_TRANSACTION_RECORD":
                pending = None
            else:
                pending.append(record)
        elif kind == "BEGIN_TRANSACTION_RECORD":
            pending = []
        else:
            apply(state, record)
    return state


def apply(state: State, record: DecodedRecord) -> None:
    data, kind = record.data, record.record_type
    if kind == "CONFIG_RECORD":
        entries = state.configs.setdefault((data["resourceType"], data["resourceName"]), {})
        if data["value"] is None:
            entries.pop(data["name"], None)
        else:
            entries[data["name"]] = data["value"]
    elif kind == "TOPIC_RECORD":
        state.topics[data["topicId"]] = data["name"]
    elif kind == "REMOVE_TOPIC_RECORD":
        name = state.topics.pop(data["topicId"])
        state.configs.pop((2, name), None)
        for partition_key in [k for k in state.partitions if k[0] == data["topicId"]]:
            del state.partitions[partition_key]
    elif kind == "PARTITION_RECORD":
        state.partitions[(data["topicId"], data["partitionId"])] = dict(data)
    elif kind == "PARTITION_CHANGE_RECORD":
        partition = state.partitions[(data["topicId"], data["partitionId"])]
        for key in ("leader", "isr"):
            if key in data:
                partition[key] = data[key]
    elif kind == "REGISTER_BROKER_RECORD":
        state.brokers[data["brokerId"]] = dict(data)
    elif kind == "BROKER_REGISTRATION_CHANGE_RECORD":
        if data.get("fenced"):
            state.brokers[data["brokerId"]]["fenced"] = data["fenced"] == 1
        if data.get("inControlledShutdown") == 1:
            state.brokers[data["brokerId"]]["inControlledShutdown"] = True
    elif kind == "UNREGISTER_BROKER_RECORD":
        del state.brokers[data["brokerId"]]
    elif kind == "FEATURE_LEVEL_RECORD":
        state.features[data["name"]] = data["featureLevel"]


def nonempty(configs: dict[tuple[int, str], dict[str, str]]) -> dict[tuple[int, str], dict[str, str]]:
    """Kafka drops a resource whose last key was deleted."""
    return {key: entries for key, entries in configs.items() if entries}


def final_state(cluster: Cluster) -> State:
    """Newest snapshot, then the log from its end offset (docs/contract.md §4)."""
    snapshot = cluster.snapshot()
    log = [record for _, records in cluster.segments() for record in records]
    if snapshot is None:
        return replay(log)
    end_offset, _, snapshot_records = snapshot
    state = replay(snapshot_records)
    return replay([r for r in log if r.offset >= end_offset], state)


def bad_values(state: State) -> set[tuple[str, str, str, str, str]]:
    """Every known-bad value in effect, as (resource type, resource name, config, value, source)."""
    out = set()
    by_name = state.topic_by_name()
    for (resource_type, name), entries in state.configs.items():
        for key, value in entries.items():
            if resource_type == 2:
                bad = topic_value_is_bad(key, value, state.replication_factor(by_name[name]))
                source = "DYNAMIC_TOPIC_CONFIG"
            elif resource_type == 4:
                bad = broker_value_is_bad(key, value)
                source = "DYNAMIC_DEFAULT_BROKER_CONFIG" if name == "" else "DYNAMIC_BROKER_CONFIG"
            elif resource_type == 32:
                session = int(entries.get("consumer.session.timeout.ms", "45000"))
                bad = key == "consumer.heartbeat.interval.ms" and int(value) >= session
                source = "DYNAMIC_GROUP_CONFIG"
            else:
                bad = key == "interval.ms" and not 100 <= int(value) <= 3_600_000
                source = "DYNAMIC_CLIENT_METRICS_CONFIG"
            if bad:
                out.add((RT_NAMES[resource_type], name, key, value, source))
    for broker, registration in state.brokers.items():
        for entry in registration.get("staticConfigs", []):
            if broker_value_is_bad(entry["name"], entry["value"]):
                out.add(("BROKER", str(broker), entry["name"], entry["value"], "STATIC_BROKER_CONFIG"))
    return out


def list_is_bad(value: str) -> bool:
    elements = value.split(",")
    return "" in elements or len(set(elements)) != len(elements)


def topic_value_is_bad(key: str, value: str, replication_factor: int) -> bool:
    return (
        (key == "segment.bytes" and int(value) < 1024 * 1024)
        or (key == "cleanup.policy" and list_is_bad(value))
        or (key == "min.insync.replicas" and int(value) > replication_factor)
        or key == "message.format.version"
        or (key == "retention.ms" and int(value) < -1)
    )


def broker_value_is_bad(key: str, value: str | None) -> bool:
    if value is None or "password" in key:
        return False
    return (
        (key == "log.segment.bytes" and int(value) < 3 * 1024 * 1024)
        or (key == "message.max.bytes" and int(value) < 0)
        or (key == "num.io.threads" and int(value) < 1)
        or (key == "log.cleanup.policy" and list_is_bad(value))
    )


def planted_key(entry: dict[str, Any]) -> tuple[str, str, str, str, str]:
    return (entry["resource_type"], entry["resource_name"], entry["config"], entry["value"], entry["source"])
