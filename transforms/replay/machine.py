"""Replay of one cluster's bronze records, in one ordered pass (the state machine ``transforms.replay.state`` runs
per cluster with ``applyInArrow``).

The rules are those of docs/contract.md §4 and docs/kafka-semantics.md §2, module by module:
``transforms.replay.ordering`` (as-of bounds, snapshot choice, replica copies, metadata transactions),
``transforms.replay.topics``, ``configs``, ``brokers``, ``clients``, ``features``, ``cluster`` and ``findings``
(their docstrings give Kafka's sources). Payload fields are read as Spark's ``from_json`` reads them and replica
copies compared by Spark's normal form (``transforms.replay.json_reading``), so the tables do not depend on
where a payload is read.

``replay_cluster`` takes the cluster's records as columns (``PASS_INPUT``) and returns its rows per output
(``OUTPUTS``): plain Python values, timestamps as microseconds since the epoch. ``transforms.replay.stream`` picks
the records it applies and their order; this module applies them and reads the final state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from schemas.kafka_vocabulary import CONFIG_RESOURCE_IDS
from schemas.replay import PAYLOAD_DDL
from transforms.replay.json_reading import NO_VALUE, has_raw, java_double, parse, read_fields, type_spec
from transforms.replay.ordering import BEGIN, TXN_MARKERS
from transforms.replay.stream import StreamEntry, choose_bounds, replay_stream, transaction_states

DEFAULT_ENTITY: Final = "<default>"
INTERNAL_TOPICS: Final = ("__consumer_offsets", "__transaction_state", "__share_group_state")

_SPECS: Final = {record_type: type_spec(ddl) for record_type, ddl in PAYLOAD_DDL.items()}
_RESOURCE_NAMES: Final = {code: str(name) for name, code in CONFIG_RESOURCE_IDS.items()}

# What the pass reads per record (bronze METADATA_RECORDS; timestamps as epoch microseconds).
PASS_INPUT: Final = (
    "input_kind",
    "source_file",
    "offset",
    "snapshot_end_offset",
    "timestamp_us",
    "is_control",
    "record_type",
    "record_version",
    "payload",
    "is_unknown",
    "leader_epoch",
)

# The outputs, in the order of their fields (transforms.replay.state gives their Spark types).
OUTPUTS: Final[Mapping[str, tuple[str, ...]]] = {
    "cluster": (
        "snapshot_end_offset",
        "snapshot_kind",
        "snapshot_timestamp_us",
        "last_offset",
        "last_timestamp_us",
        "records_applied",
        "stream_records",
        "current_level",
        "broker_count",
        "rack_count",
        "topic_count",
    ),
    "broker": (
        "node_id",
        "incarnation_id",
        "broker_epoch",
        "rack",
        "fenced",
        "in_controlled_shutdown",
        "min_supported_mv",
        "max_supported_mv",
        "features",
        "registration_version",
        "has_registration_configs",
        "registration_offset",
        "static_configs",
    ),
    "controller": (
        "controller_id",
        "incarnation_id",
        "min_supported_mv",
        "max_supported_mv",
        "registration_offset",
    ),
    "topic": (
        "topic_id",
        "topic_name",
        "partitions",
        "replication_factor",
        "internal",
        "replica_nodes",
        "created_offset",
    ),
    "dynamic_config": (
        "resource_type",
        "resource_name",
        "name",
        "value",
        "value_hash",
        "source_offset",
        "source_timestamp_us",
        "from_snapshot",
    ),
    "client_entity_config": (
        "entity_user",
        "entity_client_id",
        "entity_ip",
        "kind",
        "name",
        "value",
        "value_hash",
        "source_offset",
        "source_timestamp_us",
    ),
    "feature": ("feature", "level", "source_offset"),
    "finding": ("resource_type", "resource_name", "kind", "config_name", "message", "offset", "is_blocking"),
}


def _position_text(entry: StreamEntry) -> str:
    return f"snapshot record {entry.file_offset}" if entry.from_snapshot else f"offset {entry.file_offset}"


def _finding(kind: str, message: str, offset: int | None, *, blocking: bool = False) -> tuple[Any, ...]:
    return (None, None, kind, None, message, offset, blocking)


def _replica_conflict(entry: StreamEntry, conflict_files: tuple[str, ...]) -> tuple[Any, ...]:
    """The blocking finding for copies of one position that differ (rare: kept out of the per-record loop)."""
    return _finding(
        "REPLICA_CONFLICT",
        f"{entry.copies} copies of {_position_text(entry)} differ (files: "
        f"{', '.join(conflict_files)}); applied the {entry.record_type} from {entry.source_file} "
        "(highest leader epoch, then first file name)",
        entry.offset,
        blocking=True,
    )


def _undecoded_record(entry: StreamEntry) -> tuple[Any, ...]:
    """The finding for a record the decoder kept raw (rare: kept out of the per-record loop)."""
    version = str(entry.record_version) if entry.record_version is not None else "?"
    return _finding(
        "UNDECODED_RECORD",
        f"{entry.record_type} v{version} at {_position_text(entry)} could not be decoded (unknown apiKey "
        "or version) and was not replayed",
        entry.offset,
    )


def _unterminated_transaction(begin: StreamEntry, skipped: int) -> tuple[Any, ...]:
    """The finding for a metadata transaction with no END before the end of the stream or the next BEGIN."""
    return _finding(
        "UNTERMINATED_TRANSACTION",
        f"metadata transaction begun at {_position_text(begin)} has no END_TRANSACTION_RECORD before the end "
        f"of the replayed log or the next BEGIN; its {skipped} records were not applied",
        begin.offset,
    )


def _mv_range(features: list[Any] | None) -> tuple[int | None, int | None]:
    for feature in features or ():
        if feature is not None and feature["name"] == "metadata.version":
            return feature["minSupportedVersion"], feature["maxSupportedVersion"]
    return None, None


def _entity_part(entity: list[Any], entity_type: str) -> str | None:
    for part in entity:
        if part is not None and part["entityType"] == entity_type:
            return part["entityName"] if part["entityName"] is not None else DEFAULT_ENTITY
    return None


def _replication_factor(replicas: list[Any], adding: list[Any] | None) -> int:
    """``size(array_except(replicas, adding))``: distinct replicas that are not adding."""
    removed = set(adding or ())
    return len({r for r in replicas if r not in removed})


class _State:
    """The cluster's state as the applied records change it, in replay order (``seq`` = 1-based position)."""

    def __init__(self) -> None:
        self.registrations: dict[int, tuple[int, dict[str, Any], int | None, int | None]] = {}
        self.broker_changes: dict[int, list[Any]] = {}  # node -> [fence, shutdown] since its registration
        self.controllers: dict[int, tuple[int, dict[str, Any], int | None]] = {}
        self.topics_created: dict[str, tuple[str, int, int | None]] = {}  # id -> (name, seq, offset)
        self.topics_removed: dict[str, int] = {}  # id -> last removal seq
        self.partitions: dict[tuple[str, int], list[Any]] = {}  # -> [created, replicas, adding]
        self.configs: dict[tuple[str, str, str], tuple[Any, ...]] = {}
        self.clients: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.features: dict[str, tuple[int, int | None]] = {}

    def apply(self, seq: int, entry: StreamEntry, p: dict[str, Any]) -> None:
        record_type = entry.record_type
        offset = entry.offset
        if record_type == "CONFIG_RECORD":
            resource_type = _RESOURCE_NAMES.get(p["resourceType"]) if p["resourceType"] is not None else None
            if resource_type is not None and p["resourceName"] is not None and p["name"] is not None:
                self.configs[(resource_type, p["resourceName"], p["name"])] = (
                    seq,
                    p["value"],
                    p["valueHash"],
                    offset,
                    entry.timestamp_us,
                    entry.from_snapshot,
                )
        elif record_type == "TOPIC_RECORD":
            if p["topicId"] is not None and p["name"] is not None:
                self.topics_created[p["topicId"]] = (p["name"], seq, offset)
        elif record_type == "REMOVE_TOPIC_RECORD":
            if p["topicId"] is not None:
                self.topics_removed[p["topicId"]] = seq
        elif record_type in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
            if p["topicId"] is not None and p["partitionId"] is not None:
                partition = self.partitions.setdefault((p["topicId"], p["partitionId"]), [False, None, None])
                adding = p["addingReplicas"]
                if record_type == "PARTITION_RECORD":
                    partition[0] = True
                    adding = adding if adding is not None else []
                if p["replicas"] is not None:
                    partition[1] = p["replicas"]
                if adding is not None:
                    partition[2] = adding
        elif record_type == "REGISTER_BROKER_RECORD":
            if p["brokerId"] is not None:
                self.registrations[p["brokerId"]] = (seq, p, offset, entry.record_version)
                self.broker_changes[p["brokerId"]] = [None, None]
        elif record_type == "UNREGISTER_BROKER_RECORD":
            if p["brokerId"] is not None:
                self.registrations.pop(p["brokerId"], None)
        elif record_type in ("FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD", "BROKER_REGISTRATION_CHANGE_RECORD"):
            self._change_broker(record_type, p)
        elif record_type == "REGISTER_CONTROLLER_RECORD":
            if p["controllerId"] is not None:
                self.controllers[p["controllerId"]] = (seq, p, offset)
        elif record_type == "UNREGISTER_CONTROLLER_RECORD":
            if p["controllerId"] is not None:
                self.controllers.pop(p["controllerId"], None)
        elif record_type == "FEATURE_LEVEL_RECORD":
            if p["name"] is not None and p["featureLevel"] is not None:
                self.features[p["name"]] = (p["featureLevel"], offset)
        elif record_type in ("CLIENT_QUOTA_RECORD", "CLIENT_CONFIG_RECORD"):
            self._client(seq, entry, p)

    def _change_broker(self, record_type: str, p: dict[str, Any]) -> None:
        if record_type == "BROKER_REGISTRATION_CHANGE_RECORD":
            node, epoch = p["brokerId"], p["brokerEpoch"]
            fence = True if p["fenced"] == 1 else False if p["fenced"] == -1 else None
            shutdown = True if p["inControlledShutdown"] == 1 else None
        else:
            node, epoch = p["id"], p["epoch"]
            fence, shutdown = record_type == "FENCE_BROKER_RECORD", None
        registration = self.registrations.get(node) if node is not None else None
        if registration is None:
            return
        registered_epoch = registration[1]["brokerEpoch"]
        if epoch is not None and (registered_epoch is None or epoch != registered_epoch):
            return  # Kafka raises on an epoch mismatch; replay skips the record
        change = self.broker_changes[node]
        if fence is not None:
            change[0] = fence
        if shutdown:
            change[1] = True

    def _client(self, seq: int, entry: StreamEntry, p: dict[str, Any]) -> None:
        entity = p["entity"]
        if p["key"] is None or not entity:
            return
        if entry.record_type == "CLIENT_QUOTA_RECORD":
            kind = "QUOTA"
            value = None if p["remove"] or p["value"] is None else java_double(p["value"])
            value_hash = None
        else:
            kind, value, value_hash = "CLIENT_CONFIG", p["value"], p["valueHash"]
        key = (
            _entity_part(entity, "user"),
            _entity_part(entity, "client-id"),
            _entity_part(entity, "ip"),
            kind,
            p["key"],
        )
        self.clients[key] = (value, value_hash, entry.offset, entry.timestamp_us)

    # --- the final state as rows ---

    def broker_rows(self) -> list[tuple[Any, ...]]:
        rows = []
        for node, (_seq, p, offset, version) in self.registrations.items():
            fence, shutdown = self.broker_changes[node]
            low, high = _mv_range(p["features"])
            statics: dict[str, tuple[Any, ...]] = {}
            for entry in p["staticConfigs"] or ():
                if entry is not None and entry["name"] is not None:
                    statics.pop(entry["name"], None)
                    statics[entry["name"]] = (entry["name"], entry["value"], entry["valueHash"])
            rows.append(
                (
                    node,
                    p["incarnationId"],
                    p["brokerEpoch"],
                    p["rack"],
                    fence if fence is not None else p["fenced"] if p["fenced"] is not None else True,
                    shutdown if shutdown is not None else bool(p["inControlledShutdown"]),
                    low,
                    high,
                    p["features"],
                    version,
                    bool(p["staticConfigs"]),
                    offset,
                    list(statics.values()),
                )
            )
        return rows

    def controller_rows(self) -> list[tuple[Any, ...]]:
        rows = []
        for controller, (_seq, p, offset) in self.controllers.items():
            low, high = _mv_range(p["features"])
            rows.append((controller, p["incarnationId"], low, high, offset))
        return rows

    def _live_topics(self) -> dict[str, tuple[str, int, int | None]]:
        live = {}
        for topic_id, created in self.topics_created.items():
            removed = self.topics_removed.get(topic_id)
            if removed is None or removed < created[1]:
                live[topic_id] = created
        return live

    def topic_rows(self) -> list[tuple[Any, ...]]:
        per_topic: dict[str, list[Any]] = {}  # id -> [partitions, rf, has_replicas, nodes]
        for (topic_id, _partition), (created, replicas, adding) in self.partitions.items():
            if not created:
                continue
            topic = per_topic.setdefault(topic_id, [0, 0, False, set()])
            topic[0] += 1
            if replicas is not None:
                topic[1] = max(topic[1], _replication_factor(replicas, adding))
                topic[2] = True
                topic[3].update(r for r in replicas if r is not None)
        rows = []
        for topic_id, (name, _seq, offset) in self._live_topics().items():
            partitions, rf, has_replicas, nodes = per_topic.get(topic_id, (0, 0, False, set()))
            internal = name in INTERNAL_TOPICS
            rows.append((topic_id, name, partitions, rf if has_replicas else None, internal, sorted(nodes), offset))
        return rows

    def dynamic_config_rows(self) -> list[tuple[Any, ...]]:
        removed_names: dict[str, int] = {}  # topic name -> last removal of a topic of that name
        for topic_id, (name, created_seq, _offset) in self.topics_created.items():
            removed = self.topics_removed.get(topic_id)
            if removed is not None and removed > created_seq:
                removed_names[name] = max(removed_names.get(name, removed), removed)
        rows = []
        for (resource_type, resource_name, name), (seq, value, value_hash, offset, ts, snap) in self.configs.items():
            if value is None:
                continue
            if resource_type == "TOPIC" and seq <= removed_names.get(resource_name, 0):
                continue
            rows.append((resource_type, resource_name, name, value, value_hash, offset, ts, snap))
        return rows

    def client_rows(self) -> list[tuple[Any, ...]]:
        return [(*key, *value) for key, value in self.clients.items() if value[0] is not None]

    def feature_rows(self) -> list[tuple[Any, ...]]:
        return [(name, level, offset) for name, (level, offset) in self.features.items() if level != 0]


def replay_cluster(
    columns: Mapping[str, Sequence[Any]], *, as_of_offset: int | None, as_of_time_us: int | None
) -> dict[str, list[tuple[Any, ...]]]:
    """One cluster's silver state, replay findings and counts (``OUTPUTS``) from its bronze records."""
    bounds = choose_bounds(columns, as_of_offset=as_of_offset, as_of_time_us=as_of_time_us)
    stream = replay_stream(columns, bounds)
    txn = transaction_states(stream)
    state = _State()
    findings: list[tuple[Any, ...]] = []
    # (from_snapshot, BEGIN's file offset) -> [BEGIN, records it left unapplied]
    unterminated: dict[tuple[bool, int | None], list[Any]] = {}
    applied = 0
    last_log: StreamEntry | None = None
    for seq, (entry, (txn_state, begin_offset)) in enumerate(zip(stream, txn, strict=True), start=1):
        if entry.conflict_files is not None:
            findings.append(_replica_conflict(entry, entry.conflict_files))
        is_marker = entry.record_type in TXN_MARKERS
        if txn_state == "UNTERMINATED":
            if entry.record_type == BEGIN:
                unterminated[(entry.from_snapshot, entry.file_offset)] = [entry, 0]
            elif not is_marker and (entry.from_snapshot, begin_offset) in unterminated:
                unterminated[(entry.from_snapshot, begin_offset)][1] += 1
        if is_marker or txn_state not in ("NONE", "COMMITTED"):
            continue
        applied += 1
        if not entry.from_snapshot:
            last_log = entry
        spec = _SPECS.get(entry.record_type)
        needs_raw = entry.is_unknown
        if spec is None and not needs_raw:
            continue
        parsed = parse(entry.payload)
        if needs_raw and has_raw(parsed):
            findings.append(_undecoded_record(entry))
        if spec is not None and parsed is not NO_VALUE:
            state.apply(seq, entry, read_fields(parsed, spec))
    for begin, skipped in unterminated.values():
        findings.append(_unterminated_transaction(begin, skipped))
    brokers = state.broker_rows()
    live = [row for row in brokers if not row[4]]
    topics = state.topic_rows()
    level = state.features.get("metadata.version")
    cluster = (
        bounds.snapshot_end_offset,
        bounds.snapshot_kind,
        bounds.snapshot_timestamp_us,
        last_log.offset if last_log is not None else bounds.snapshot_last_offset,
        last_log.timestamp_us if last_log is not None else bounds.snapshot_timestamp_us,
        applied,
        len(stream),
        level[0] if level is not None and level[0] != 0 else None,
        len(live),
        len({row[3] for row in live if row[3] is not None}),
        len(topics),
    )
    return {
        "cluster": [cluster],
        "broker": brokers,
        "controller": state.controller_rows(),
        "topic": topics,
        "dynamic_config": state.dynamic_config_rows(),
        "client_entity_config": state.client_rows(),
        "feature": state.feature_rows(),
        "finding": findings,
    }
