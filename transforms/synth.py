"""Synthetic KRaft fleets: per cluster, the metadata records its controllers would have written, as log files.

Pure and deterministic: everything follows from ``FleetSpec.seed`` (no clock, no file I/O). A cluster is planned
from ``(seed, index)`` alone, so clusters can be generated in any order or in parallel processes and still come
out byte-identical. Records are produced lazily (``ClusterSynth.items``) and encoded segment by segment
(``ClusterEncoder.files``), so a fleet of millions of records never sits in memory; only the state needed for
the snapshot (one cluster, up to the cut) is kept.

What a cluster's log holds, in order: the bootstrap transaction (BEGIN, ``metadata.version`` and the other
finalized features of its release, END), controller and broker registrations (``RegisterBrokerRecord`` v5 with
``staticConfigs`` for ~60% of clusters, the MV's own version without them otherwise) and unfencing, cluster-default
and per-broker dynamic configs, client quotas, client-metrics subscriptions and group configs (by release), the
internal topics, the user topics (TopicRecord, ConfigRecords, PartitionRecords) with some background churn, and a
final churn phase: leader and ISR changes, config updates and deletes, a broker restart (controlled shutdown,
fence, re-registration, unfence), an unregistered broker, a removed topic, an aborted transaction, producer-id
blocks, NoOps and, for clusters whose MV lags their binaries, the ``metadata.version`` upgrade.

``violation_rate`` plants known-bad values (``Planted``) that are still in effect at the end of the log, and a few
*decoys*: bad values that are not in effect (inside an aborted transaction, on a removed topic, later overwritten
or deleted), which a correct replay must not report. Dynamic password configs with fake values (``secrets``)
exercise redaction (one per cluster). With ``violation_rate == 0`` none of the three is planted. A planted value
is never masked: no higher config layer sets the same key, and the churn never touches it.

Encoding: the files are exactly what ``transforms.binary.encode`` writes (``encode_log_segment``,
``encode_snapshot``); the hot record shapes are laid out by a hand-written fast path (``metadata_value``), which
the tests compare byte for byte with the generic writer.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import random
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

import crc32c

from schemas.metadata_version import MetadataVersionTable
from schemas.record_types import CONTROL_RECORD_IDS, METADATA_RECORD_TYPES
from transforms.binary.encode import (
    MetadataRecordSpec,
    encode_batch,
    encode_control_record,
    encode_metadata_record,
)

# apiKeys of the records the generator writes (schemas/record_types.py).
REGISTER_BROKER: Final = 0
UNREGISTER_BROKER: Final = 1
TOPIC: Final = 2
PARTITION: Final = 3
CONFIG: Final = 4
PARTITION_CHANGE: Final = 5
REMOVE_TOPIC: Final = 9
FEATURE_LEVEL: Final = 12
CLIENT_QUOTA: Final = 14
PRODUCER_IDS: Final = 15
BROKER_REGISTRATION_CHANGE: Final = 17
NO_OP: Final = 20
ZK_MIGRATION_STATE: Final = 21
BEGIN_TRANSACTION: Final = 23
END_TRANSACTION: Final = 24
ABORT_TRANSACTION: Final = 25
REGISTER_CONTROLLER: Final = 27
CLEAR_ELR: Final = 28

# ConfigRecord resource types.
RT_TOPIC: Final = 2
RT_BROKER: Final = 4
RT_CLIENT_METRICS: Final = 16
RT_GROUP: Final = 32
RESOURCE_TYPE_NAMES: Final = {
    RT_TOPIC: "TOPIC",
    RT_BROKER: "BROKER",
    RT_CLIENT_METRICS: "CLIENT_METRICS",
    RT_GROUP: "GROUP",
}

# Kafka releases a synthetic cluster runs, and how often each appears in a fleet.
RELEASES: Final = ("3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2", "4.3")
RELEASE_WEIGHTS: Final = (1, 2, 2, 3, 3, 3, 3, 2)

# Feature levels at which record layouts change (kafka-facts §4).
_MV_3_4_IV0: Final = 8
_MV_3_7_IV0: Final = 15  # RegisterControllerRecord
_MV_3_7_IV2: Final = 17  # JBOD: RegisterBrokerRecord v3, PartitionRecord v1, BRCR v2
_MV_4_0_IV0: Final = 22  # ZK migration gone from bootstrap
_MV_4_0_IV1: Final = 23  # PartitionRecord v2, ClearElrRecord
_MV_4_1_IV0: Final = 26  # ELR on by default
_MV_4_3_IV0: Final = 30  # RegisterBrokerRecord v4, BRCR v3
STATIC_CONFIGS_VERSION: Final = 5  # RegisterBrokerRecord v5 carries StaticConfigs (KIP-1294 seed)

SECRET_MARKER: Final = "synth-fake-secret-"  # prefix of every planted fake password
BASE_TIMESTAMP_MS: Final = 1_735_689_600_000  # 2025-01-01T00:00:00Z; clusters start up to ~300 days later
MIB: Final = 1024 * 1024

# Sources as the audit names them (CONTRACT §4), for the manifest.
SRC_TOPIC: Final = "DYNAMIC_TOPIC_CONFIG"
SRC_BROKER: Final = "DYNAMIC_BROKER_CONFIG"
SRC_DEFAULT_BROKER: Final = "DYNAMIC_DEFAULT_BROKER_CONFIG"
SRC_STATIC: Final = "STATIC_BROKER_CONFIG"
SRC_GROUP: Final = "DYNAMIC_GROUP_CONFIG"
SRC_CLIENT_METRICS: Final = "DYNAMIC_CLIENT_METRICS_CONFIG"


@dataclass(frozen=True)
class FleetSpec:
    """What to generate. Every count is exact: ``topics`` live user topics per cluster, each with ``partitions``
    partitions and ``topic_configs`` distinct overrides (capped by the override pool); ``brokers`` live brokers.

    ``release_levels`` maps each release in ``RELEASES`` to its current ``metadata.version`` level (the last IV
    of the release, see ``release_levels``).
    """

    release_levels: tuple[tuple[str, int], ...]
    clusters: int = 3
    brokers: int = 3
    topics: int = 20
    partitions: int = 3
    topic_configs: int = 3
    violation_rate: float = 0.05
    seed: int = 0
    snapshot: bool = True
    segment_records: int = 100_000
    records_per_batch: int = 64
    batch_interval_ms: int = 500  # time between consecutive batches (the controller's NoOp cadence)

    def __post_init__(self) -> None:
        problems = []
        for name, low in (("clusters", 1), ("brokers", 1), ("topics", 0), ("partitions", 1), ("topic_configs", 0)):
            if getattr(self, name) < low:
                problems.append(f"{name} must be at least {low}")
        if not 0.0 <= self.violation_rate <= 1.0:
            problems.append("violation_rate must be between 0 and 1")
        if self.segment_records < 10:
            problems.append("segment_records must be at least 10")
        if self.records_per_batch < 1:
            problems.append("records_per_batch must be at least 1")
        missing = [r for r in RELEASES if r not in dict(self.release_levels)]
        if missing:
            problems.append(f"release_levels lacks {missing}")
        if problems:
            raise ValueError("; ".join(problems))


def release_levels(table: MetadataVersionTable, releases: Sequence[str] = RELEASES) -> tuple[tuple[str, int], ...]:
    """The current ``metadata.version`` level of each release: the last production IV of that release.

    Args:
        table: The metadata.version table (``conf/metadata_versions.yaml``).
        releases: Releases to map.

    Returns:
        ``((release, level), ...)`` in the order of ``releases``.

    Raises:
        ValueError: A release has no production level in the table.
    """
    result = []
    for release in releases:
        levels = [v.level for v in table.levels if v.release == release and v.production]
        if not levels:
            raise ValueError(f"metadata.version table has no production level for release {release}")
        result.append((release, max(levels)))
    return tuple(result)


@dataclass(frozen=True)
class ClusterPlan:
    """The fixed facts of one synthetic cluster, drawn from ``(seed, index)``."""

    index: int
    name: str  # also its directory name
    cluster_id: str
    seed: int
    release: str
    level: int  # metadata.version level at the end of the log
    bootstrap_level: int  # level the cluster was formatted with (< level when its MV lags its binaries)
    static_configs: bool  # brokers register with RegisterBrokerRecord v5 staticConfigs
    dedicated_controllers: bool
    controller_ids: tuple[int, ...]
    broker_ids: tuple[int, ...]  # live brokers at the end of the log
    unregistered_broker_id: int  # registered, then decommissioned
    racks: tuple[str, ...] | None
    base_timestamp_ms: int
    first_epoch: int


@dataclass(frozen=True)
class Planted:
    """One planted value: a violation, a decoy (a bad value that is not in effect) or a fake secret."""

    cluster: str
    cluster_id: str
    resource_type: str  # BROKER, TOPIC, GROUP, CLIENT_METRICS
    resource_name: str  # "" = cluster default (BROKER), node id, topic, group or subscription name
    config: str
    value: str
    kind: str
    source: str  # DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, ..., STATIC_BROKER_CONFIG
    related: tuple[tuple[str, str], ...] = ()  # other keys of the entity the kind is about (e.g. the session timeout)
    reason: str = ""  # decoys: why the value is not in effect
    sensitive: bool = False  # a fake secret: the manifest carries its hash, never the value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the manifest; a sensitive value is replaced by its SHA-256 and ``SECRET_MARKER``
        (every fake secret starts with it, so a leak check can search any output for the marker)."""
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "cluster_id": self.cluster_id,
            "resource_type": self.resource_type,
            "resource_name": self.resource_name,
            "config": self.config,
            "value": "[redacted]" if self.sensitive else self.value,
            "kind": self.kind,
            "source": self.source,
        }
        if self.sensitive:
            out["value_sha256"] = hashlib.sha256(self.value.encode("utf-8")).hexdigest()
            out["marker"] = SECRET_MARKER
        if self.related:
            out["related"] = dict(self.related)
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class SnapshotCut:
    """Marks where the snapshot is taken: ``records`` is the cluster's state after every record before it."""

    records: list[MetadataRecordSpec]


# ---------------------------------------------------------------------------------------------------------------
# Value distributions
# ---------------------------------------------------------------------------------------------------------------

_ENVS: Final = ("prod", "prod", "prod", "staging", "staging", "dev")
_TEAMS: Final = (
    "payments",
    "orders",
    "search",
    "identity",
    "logistics",
    "ads",
    "risk",
    "telemetry",
    "billing",
    "catalog",
    "notifications",
    "analytics",
)
_DOMAINS: Final = ("orders", "payments", "users", "inventory", "shipments", "clicks", "audit", "pricing", "sessions")
_ENTITIES: Final = ("events", "commands", "changelog", "snapshots", "dlq", "enriched", "raw", "compacted", "retry")
_RACK_SETS: Final = (
    ("use1-az1", "use1-az2", "use1-az4"),
    ("euw1-az1", "euw1-az2", "euw1-az3"),
    ("rack-a", "rack-b"),
    ("dc1-row3", "dc1-row4", "dc1-row7", "dc1-row9"),
)

# Topic override pool: key -> benign values (valid in every release 3.6 ... 4.3). min.insync.replicas is drawn
# from 1..RF separately.
_TOPIC_POOL: Final[dict[str, tuple[str, ...]]] = {
    "retention.ms": ("86400000", "259200000", "604800000", "1209600000", "2592000000", "-1"),
    "retention.bytes": ("-1", "1073741824", "10737418240", "53687091200"),
    "segment.bytes": ("104857600", "268435456", "536870912", "1073741824"),
    "segment.ms": ("3600000", "86400000", "604800000"),
    "cleanup.policy": ("delete", "delete", "compact", "compact,delete"),
    "min.insync.replicas": (),
    "max.message.bytes": ("1048588", "2097152", "5242880", "10485760"),
    "compression.type": ("producer", "lz4", "zstd", "snappy", "gzip"),
    "min.cleanable.dirty.ratio": ("0.1", "0.25", "0.5"),
    "delete.retention.ms": ("3600000", "86400000", "172800000"),
    "message.timestamp.type": ("CreateTime", "LogAppendTime"),
    "unclean.leader.election.enable": ("false",),
    "segment.index.bytes": ("10485760", "20971520"),
    "file.delete.delay.ms": ("60000", "120000"),
    "min.compaction.lag.ms": ("0", "60000", "3600000"),
}
_TOPIC_POOL_KEYS: Final = tuple(_TOPIC_POOL)

# Dynamic broker configs: cluster default ("") and per node.
_DEFAULT_BROKER_POOL: Final[dict[str, tuple[str, ...]]] = {
    "log.retention.ms": ("259200000", "604800000", "1209600000"),
    "log.segment.bytes": ("268435456", "536870912", "1073741824"),
    "message.max.bytes": ("1048588", "2097152", "5242880"),
    "num.io.threads": ("8", "16"),
    "log.cleaner.threads": ("1", "2"),
    "num.replica.fetchers": ("1", "2", "4"),
    "log.cleanup.policy": ("delete",),
    "compression.type": ("producer", "lz4"),
    "max.connections.per.ip": ("1000", "2000"),
    "unclean.leader.election.enable": ("false",),
}
_NODE_BROKER_POOL: Final[dict[str, tuple[str, ...]]] = {
    "num.io.threads": ("8", "12", "16"),
    "num.network.threads": ("3", "6", "8"),
    "log.cleaner.threads": ("1", "2"),
    "num.replica.fetchers": ("2", "4"),
    "max.connections": ("5000", "10000"),
    "num.recovery.threads.per.data.dir": ("2", "4"),
    "background.threads": ("10", "20"),
}

# server.properties templates for StaticConfigs; node-specific keys are added per broker.
_STATIC_POOL: Final[dict[str, tuple[str, ...]]] = {
    "num.network.threads": ("3", "3", "8"),
    "num.io.threads": ("8", "8", "16"),
    "socket.send.buffer.bytes": ("102400",),
    "socket.receive.buffer.bytes": ("102400",),
    "socket.request.max.bytes": ("104857600",),
    "num.partitions": ("1", "3", "6", "12"),
    "num.recovery.threads.per.data.dir": ("1", "2"),
    "log.retention.hours": ("168", "168", "72", "24"),
    "log.segment.bytes": ("1073741824", "1073741824", "536870912", "268435456"),
    "log.retention.check.interval.ms": ("300000",),
    "auto.create.topics.enable": ("true", "false"),
    "group.initial.rebalance.delay.ms": ("0", "3000"),
    "message.max.bytes": ("1048588", "2097152"),
}

# Planted broker-level bad values: kind -> (key, candidate values).
_BROKER_BAD: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "log_segment_bytes_below_1mib": ("log.segment.bytes", ("524288", "1000000", "262144")),
    "log_segment_bytes_below_3mib": ("log.segment.bytes", ("1048576", "2097152", "3000000")),
    "message_max_bytes_negative": ("message.max.bytes", ("-1", "-1048588")),
    "num_io_threads_zero": ("num.io.threads", ("0",)),
    "cleanup_policy_empty_element": ("log.cleanup.policy", ("delete,,compact", "delete,")),
}
_STATIC_BAD: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "log_segment_bytes_below_3mib": ("log.segment.bytes", ("1048576", "2097152", "3000000")),
    "log_segment_bytes_below_1mib": ("log.segment.bytes", ("524288",)),
}
_TOPIC_BAD_KINDS: Final = (
    "segment_bytes_below_1mib",
    "cleanup_policy_empty_element",
    "cleanup_policy_duplicates",
    "min_insync_replicas_above_rf",
    "message_format_version_set",
    "retention_ms_below_minus_one",
)
_SECRET_KEYS: Final = (
    "listener.name.internal.ssl.key.password",
    "listener.name.internal.ssl.keystore.password",
    "listener.name.sasl_ssl.ssl.truststore.password",
)


def _seed_for(seed: int, *parts: object) -> int:
    """A stable 64-bit seed for a sub-stream (independent of Python's hash randomisation)."""
    text = ":".join(str(p) for p in (seed, *parts)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def new_uuid(rng: random.Random) -> str:
    """A Kafka uuid as 22-char URL-safe base64; like ``Uuid.randomUuid`` never one starting with ``-``."""
    while True:
        text = base64.urlsafe_b64encode(rng.randbytes(16)).decode("ascii")[:22]
        if text[0] != "-":
            return text


def plan_cluster(spec: FleetSpec, index: int) -> ClusterPlan:
    """Draw the fixed facts of cluster ``index`` from ``(spec.seed, index)``.

    Args:
        spec: The fleet.
        index: 0-based cluster index.

    Returns:
        The cluster's plan.
    """
    seed = _seed_for(spec.seed, "cluster", index)
    rng = random.Random(seed)
    levels = dict(spec.release_levels)
    release = rng.choices(RELEASES, weights=RELEASE_WEIGHTS)[0]
    level = levels[release]
    position = RELEASES.index(release)
    # One cluster in five runs new binaries at the previous release's MV and finalizes the upgrade later.
    lagging = position > 0 and rng.random() < 0.2
    bootstrap_level = levels[RELEASES[position - 1]] if lagging else level
    dedicated = rng.random() < 0.5
    n_controllers = 3 if dedicated or spec.brokers >= 3 else 1
    broker_ids = tuple(range(1, spec.brokers + 1))
    controller_ids = tuple(range(3000, 3000 + n_controllers)) if dedicated else broker_ids[:n_controllers]
    racks = rng.choice(_RACK_SETS) if rng.random() < 0.7 else None
    return ClusterPlan(
        index=index,
        name=f"{rng.choice(_ENVS)}-{rng.choice(_TEAMS)}-{index:03d}",
        cluster_id=new_uuid(rng),
        seed=seed,
        release=release,
        level=level,
        bootstrap_level=bootstrap_level,
        static_configs=rng.random() < 0.6,
        dedicated_controllers=dedicated,
        controller_ids=controller_ids,
        broker_ids=broker_ids,
        unregistered_broker_id=spec.brokers + 1,
        racks=racks,
        base_timestamp_ms=BASE_TIMESTAMP_MS + rng.randrange(300) * 86_400_000 + rng.randrange(86_400_000),
        first_epoch=rng.randint(1, 40),
    )


def plan_fleet(spec: FleetSpec) -> Iterator[ClusterPlan]:
    """The plans of every cluster of the fleet, lazily."""
    for index in range(spec.clusters):
        yield plan_cluster(spec, index)


# Record versions by metadata.version level (kafka-facts §4).
def register_broker_version(level: int) -> int:
    """RegisterBrokerRecord version a controller at ``level`` writes."""
    return 4 if level >= _MV_4_3_IV0 else 3 if level >= _MV_3_7_IV2 else 2 if level >= _MV_3_4_IV0 else 1


def partition_record_version(level: int) -> int:
    """PartitionRecord / PartitionChangeRecord version at ``level``."""
    return 2 if level >= _MV_4_0_IV1 else 1 if level >= _MV_3_7_IV2 else 0


def registration_change_version(level: int) -> int:
    """BrokerRegistrationChangeRecord version at ``level``."""
    return 3 if level >= _MV_4_3_IV0 else 2 if level >= _MV_3_7_IV2 else 1


def finalized_features(release: str) -> list[tuple[str, int]]:
    """Non-MV features ``kafka-storage format`` finalizes by default for a release (4.x)."""
    major_minor = tuple(int(p) for p in release.split("."))
    features: list[tuple[str, int]] = []
    if major_minor >= (4, 0):
        features += [("group.version", 1), ("transaction.version", 2)]
    if major_minor >= (4, 1):
        features.append(("eligible.leader.replicas.version", 1))
    if major_minor >= (4, 2):
        features += [("share.version", 1), ("streams.version", 1)]
    return features


def supported_features(release: str, level: int) -> list[dict[str, Any]]:
    """Features a node of ``release`` registers as supported (min .. max)."""
    major_minor = tuple(int(p) for p in release.split("."))
    out = [
        {
            "name": "metadata.version",
            "minSupportedVersion": 7 if major_minor >= (4, 0) else 1,
            "maxSupportedVersion": level,
        }
    ]
    if major_minor >= (3, 9):
        out.append({"name": "kraft.version", "minSupportedVersion": 0, "maxSupportedVersion": 1})
    out += [
        {"name": name, "minSupportedVersion": 0, "maxSupportedVersion": top}
        for name, top in finalized_features(release)
    ]
    return out


def bootstrap_records(plan: ClusterPlan) -> list[MetadataRecordSpec]:
    """What ``bootstrap.checkpoint`` holds: the finalized features the cluster was formatted with."""
    release = _release_of_level(plan)
    records: list[MetadataRecordSpec] = [
        (FEATURE_LEVEL, 0, {"name": "metadata.version", "featureLevel": plan.bootstrap_level})
    ]
    records += [(FEATURE_LEVEL, 0, {"name": n, "featureLevel": v}) for n, v in finalized_features(release)]
    return records


def _release_of_level(plan: ClusterPlan) -> str:
    """The release whose features the cluster was formatted with (the previous one when its MV lags)."""
    if plan.bootstrap_level == plan.level:
        return plan.release
    return RELEASES[RELEASES.index(plan.release) - 1]


class _Topic:
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


class _Image:
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


_CUT: Final = object()  # in-band marker from _log() to items()


class ClusterSynth:
    """The records of one cluster, generated lazily.

    Iterate ``items()`` once: it yields ``(apiKey, version, data)`` in log order and, when ``spec.snapshot`` is
    set, one ``SnapshotCut`` between two records (outside any transaction). ``violations``, ``decoys``,
    ``secrets`` and ``counts`` are complete once the iteration has finished.
    """

    def __init__(self, spec: FleetSpec, plan: ClusterPlan) -> None:
        self.spec = spec
        self.plan = plan
        self.rng = random.Random(_seed_for(plan.seed, "records"))
        self.violations: list[Planted] = []
        self.decoys: list[Planted] = []
        self.secrets: list[Planted] = []
        self.removed_topic: str | None = None
        self.aborted_topic: str | None = None
        self.internal_topics: list[str] = []
        self.level = plan.bootstrap_level
        self._counts = [0] * (max(METADATA_RECORD_TYPES) + 1)
        self._emitted = 0
        self._topics: list[_Topic] = []
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
        self._removed: _Topic | None = None

    # -- public -------------------------------------------------------------------------------------------------

    @property
    def counts(self) -> dict[str, int]:
        """Records generated so far by printed record type (snapshot-only copies not included)."""
        return {METADATA_RECORD_TYPES[k]: n for k, n in enumerate(self._counts) if n}

    @property
    def records_generated(self) -> int:
        """Metadata records generated so far."""
        return self._emitted

    def items(self) -> Iterator[MetadataRecordSpec | SnapshotCut]:
        """The cluster's log in order, with the snapshot cut when ``spec.snapshot`` is set."""
        counts = self._counts
        image: _Image | None = _Image() if self.spec.snapshot else None
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
        if self.level < _MV_4_0_IV0:
            yield (ZK_MIGRATION_STATE, 0, {"zkMigrationState": 0})
        yield (END_TRANSACTION, 0, {})

    def _register_quorum(self) -> Iterator[MetadataRecordSpec]:
        plan, rng = self.plan, self.rng
        features = supported_features(plan.release, plan.level)
        if self.level >= _MV_3_7_IV0:
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
        pool = {k: v for k, v in _DEFAULT_BROKER_POOL.items() if k not in self._static_planted}
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
            node_pool = {k: v for k, v in _NODE_BROKER_POOL.items() if k not in self._protected_default}
            if rng.random() < 0.6:
                for key in rng.sample(sorted(node_pool), k=min(len(node_pool), rng.randint(1, 3))):
                    yield self._config(RT_BROKER, str(broker), key, rng.choice(node_pool[key]))
            planted = self._planted_broker.get(str(broker))
            if planted is not None:
                yield self._plant_config(RT_BROKER, str(broker), *planted, source=SRC_BROKER)
        if self._plant:
            broker = rng.choice(self.plan.broker_ids)
            key = rng.choice(_SECRET_KEYS)
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
            kind = rng.choice(sorted(_BROKER_BAD))
            key, values = _BROKER_BAD[kind]
            self._planted_broker[""] = (key, rng.choice(values), kind)
            self._protected_default.add(key)
        for broker in self.plan.broker_ids:
            if rng.random() < rate:
                kind = rng.choice(sorted(_BROKER_BAD))
                key, values = _BROKER_BAD[kind]
                if key not in self._protected_default:
                    self._planted_broker[str(broker)] = (key, rng.choice(values), kind)
                    self._protected_node.setdefault(broker, set()).add(key)
            if self.plan.static_configs and rng.random() < rate:
                kind = rng.choice(sorted(_STATIC_BAD))
                key, values = _STATIC_BAD[kind]
                if key not in self._protected_default and key not in self._protected_node.get(broker, set()):
                    self._planted_static[broker] = (key, rng.choice(values), kind)
                    self._static_planted.add(key)

    def _quotas(self) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        yield self._quota([("user", None)], "producer_byte_rate", float(rng.choice((10, 20, 50)) * MIB))
        yield self._quota([("user", None)], "consumer_byte_rate", float(rng.choice((20, 50, 100)) * MIB))
        for team in rng.sample(_TEAMS, k=rng.randint(1, 4)):
            user = f"svc-{team}"
            yield self._quota([("user", user)], "producer_byte_rate", float(rng.choice((5, 10, 25)) * MIB))
            if rng.random() < 0.5:
                entity = [("user", user), ("client-id", f"{team}-ingest")]
                yield self._quota(entity, "request_percentage", float(rng.choice((50, 100, 200))))
        yield self._quota([("client-id", None)], "controller_mutation_rate", 10.0)

    def _client_metrics(self) -> Iterator[MetadataRecordSpec]:
        if self.level < _MV_3_7_IV0:
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
        if self.level < _MV_4_0_IV0:
            return
        rng = self.rng
        for index in range(max(1, min(50, self.spec.topics // 10))):
            group = f"{rng.choice(_TEAMS)}-{rng.choice(_DOMAINS)}-consumer-{index}"
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
            _Topic("__consumer_offsets", new_uuid(self.rng), 50, rf, self.rng.randrange(self.spec.brokers)),
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
            topic = _Topic("__transaction_state", new_uuid(self.rng), 50, rf, self.rng.randrange(self.spec.brokers))
            yield from self._topic_records(topic, configs)
            self.internal_topics.append("__transaction_state")

    def _create_topic(self, index: int) -> Iterator[MetadataRecordSpec]:
        rng = self.rng
        rf = rng.randint(self._rf_low, self._rf_high)
        name = f"{rng.choice(_DOMAINS)}.{rng.choice(_ENTITIES)}.{index:05d}"
        topic = _Topic(name, new_uuid(rng), self.spec.partitions, rf, rng.randrange(self.spec.brokers))
        keys = rng.sample(_TOPIC_POOL_KEYS, k=min(self.spec.topic_configs, len(_TOPIC_POOL_KEYS)))
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
        topic = _Topic(f"tmp.migration-{rng.randrange(10**6):06d}", new_uuid(rng), self.spec.partitions, 1, 0)
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
        key = rng.choice(_TOPIC_POOL_KEYS)
        if key in topic.protected:
            return
        value = self._benign_topic_value(key, topic.rf)
        topic.configs[key] = value
        yield self._config(RT_TOPIC, topic.name, key, value)
        if key == "min.insync.replicas" and self.level >= _MV_4_1_IV0:  # ELR on: Kafka clears the topic's ELR
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
        keys = sorted(k for k in _NODE_BROKER_POOL if k not in protected)
        key = rng.choice(keys)
        # The controller writes one record even when the value does not change (KAFKA-14136).
        yield self._config(RT_BROKER, str(broker), key, rng.choice(_NODE_BROKER_POOL[key]))

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
        topic = _Topic(f"aborted.{rng.choice(_ENTITIES)}-{rng.randrange(10**6):06d}", new_uuid(rng), 2, 1, 0)
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

    # -- record builders ----------------------------------------------------------------------------------------

    def _topic_records(self, topic: _Topic, configs: Mapping[str, str]) -> Iterator[MetadataRecordSpec]:
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

    def _replicas(self, topic: _Topic, partition: int) -> list[int]:
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
        template_rng = random.Random(_seed_for(plan.seed, "server.properties"))
        values = {key: template_rng.choice(choices) for key, choices in _STATIC_POOL.items()}
        drift_rng = random.Random(_seed_for(plan.seed, "server.properties", broker))
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
        return self.rng.choice(_TOPIC_POOL[key])

    def _bad_topic_value(self, rf: int) -> tuple[str, str, str]:
        rng = self.rng
        kind = rng.choice(_TOPIC_BAD_KINDS)
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


# ---------------------------------------------------------------------------------------------------------------
# Files: segments, snapshot, bootstrap.checkpoint, meta.properties
# ---------------------------------------------------------------------------------------------------------------

METADATA_DIR: Final = "__cluster_metadata-0"
_RUN_BATCHES: Final = 32  # batches encoded per call while a segment fills


@dataclass(frozen=True)
class FileInfo:
    """One written file of a cluster, for the manifest."""

    path: str  # relative to the cluster directory
    kind: str  # LOG_SEGMENT, SNAPSHOT, BOOTSTRAP_SNAPSHOT, META_PROPERTIES
    bytes: int
    records: int = 0  # records in the file, control records included
    base_offset: int | None = None  # segments: the first offset; snapshots: the end offset (exclusive)
    epoch: int | None = None  # snapshots: the epoch in the name


@dataclass
class ClusterEncoder:
    """Encodes one cluster's records into the files Kafka keeps in its metadata log directory.

    ``files()`` yields ``(relative path, bytes)``: ``meta.properties``, ``bootstrap.checkpoint``, then the
    ``__cluster_metadata-0/<base offset>.log`` segments (``spec.segment_records`` records each, control records
    included; a new leader epoch starts a segment with a LeaderChange record) and, with ``spec.snapshot``,
    ``<end offset>-<epoch>.checkpoint`` holding the state before the cut. As Kafka does once a snapshot exists,
    segments that end before the snapshot's end offset are deleted (not written); the segment holding the cut is
    kept, so its records below the end offset duplicate the snapshot. The attributes describe what was written
    once ``files()`` is exhausted.
    """

    synth: ClusterSynth
    written: list[FileInfo] = field(default_factory=list)
    deleted_segments: int = 0  # segments below the snapshot, not written
    deleted_records: int = 0
    end_offset: int = 0  # the log end offset (next offset to be written)
    snapshot_end_offset: int | None = None

    def files(self) -> Iterator[tuple[str, bytes]]:
        """Encode lazily; see the class docstring."""
        plan, spec = self.synth.plan, self.synth.spec
        yield self._file("meta.properties", "META_PROPERTIES", meta_properties(plan))
        bootstrap = bootstrap_records(plan)
        yield self._file(
            "bootstrap.checkpoint", "BOOTSTRAP_SNAPSHOT", snapshot_bytes(bootstrap, epoch=0), len(bootstrap) + 2
        )
        writer = _SegmentWriter(plan, spec)
        cut_seen = not spec.snapshot
        for item in self.synth.items():
            if isinstance(item, SnapshotCut):
                writer.flush()
                cut_seen = True
                self.snapshot_end_offset = writer.offset
                name = f"{METADATA_DIR}/{writer.offset:020d}-{writer.epoch:010d}.checkpoint"
                data = snapshot_bytes(
                    item.records,
                    epoch=writer.epoch,
                    last_contained_log_timestamp=writer.last_timestamp,
                    timestamp_ms=writer.last_timestamp,
                    records_per_batch=1000,
                )
                info = FileInfo(name, "SNAPSHOT", len(data), len(item.records) + 2, writer.offset, writer.epoch)
                self.written.append(info)
                yield name, data
                continue
            if writer.add(item):  # the segment is full
                yield from self._finish_segment(writer, cut_seen)
        yield from self._finish_segment(writer, cut_seen)
        self.end_offset = writer.offset

    def _finish_segment(self, writer: _SegmentWriter, cut_seen: bool) -> Iterator[tuple[str, bytes]]:
        base, records, data = writer.close()
        if not records:
            return
        if not cut_seen:
            self.deleted_segments += 1
            self.deleted_records += records
            return
        name = f"{METADATA_DIR}/{base:020d}.log"
        self.written.append(FileInfo(name, "LOG_SEGMENT", len(data), records, base))
        yield name, data

    def _file(self, path: str, kind: str, data: bytes, records: int = 0) -> tuple[str, bytes]:
        self.written.append(FileInfo(path, kind, len(data), records))
        return path, data


class _SegmentWriter:
    """Accumulates records into the current segment, encoding them in runs of whole batches."""

    def __init__(self, plan: ClusterPlan, spec: FleetSpec) -> None:
        self.rng = random.Random(_seed_for(plan.seed, "raft"))
        self.spec = spec
        self.voters = list(plan.controller_ids)
        self.offset = 0  # next offset to assign
        self.epoch = plan.first_epoch
        self.timestamp = plan.base_timestamp_ms  # timestamp of the next batch
        self.last_timestamp = 0  # timestamp of the last batch written
        self.run_size = spec.records_per_batch * _RUN_BATCHES
        self._start_segment(new_epoch=True)

    def _start_segment(self, *, new_epoch: bool) -> None:
        self.base_offset = self.offset
        self.parts: list[bytes] = []
        self.run: list[MetadataRecordSpec] = []
        self.leader_pending = new_epoch  # the segment opens with a LeaderChange control record
        self.count = 1 if new_epoch else 0  # records in the segment, the pending LeaderChange included

    def add(self, record: MetadataRecordSpec) -> bool:
        """Add one record; True when the segment is full."""
        self.run.append(record)
        self.count += 1
        if len(self.run) >= self.run_size:
            self.flush()
        return self.count >= self.spec.segment_records

    def flush(self) -> None:
        """Encode the pending run (call at a cut so the snapshot offset falls on a batch boundary)."""
        if not self.run:
            return
        spec = self.spec
        leader = self.rng.choice(self.voters) if self.leader_pending else None
        self.parts.append(
            log_segment_bytes(
                self.run,
                base_offset=self.offset,
                leader_epoch=self.epoch,
                timestamp_ms=self.timestamp,
                timestamp_step_ms=spec.batch_interval_ms,
                records_per_batch=spec.records_per_batch,
                leader_id=leader,
                voter_ids=self.voters,
            )
        )
        batches = -(-len(self.run) // spec.records_per_batch)
        self.offset += len(self.run) + (1 if leader is not None else 0)
        self.last_timestamp = self.timestamp + (batches - 1) * spec.batch_interval_ms
        self.timestamp += batches * spec.batch_interval_ms
        self.leader_pending = False
        self.run = []

    def close(self) -> tuple[int, int, bytes]:
        """Finish the segment: ``(base offset, records, bytes)``; then start the next one (maybe a new epoch)."""
        self.flush()
        result = (self.base_offset, self.offset - self.base_offset, b"".join(self.parts))
        new_epoch = self.rng.random() < 0.2  # a controller election now and then
        if new_epoch:
            self.epoch += 1
        self._start_segment(new_epoch=new_epoch)
        return result


def meta_properties(plan: ClusterPlan) -> bytes:
    """``meta.properties`` as ``kafka-storage format`` writes it into the metadata log directory."""
    rng = random.Random(_seed_for(plan.seed, "meta.properties"))
    stamp = datetime.fromtimestamp(plan.base_timestamp_ms / 1000, UTC).strftime("%a %b %d %H:%M:%S UTC %Y")
    lines = [
        "#",
        f"#{stamp}",
        f"node.id={plan.controller_ids[0]}",
        f"directory.id={new_uuid(rng)}",
        "version=1",
        f"cluster.id={plan.cluster_id}",
    ]
    return ("\n".join(lines) + "\n").encode("ascii")


# ---------------------------------------------------------------------------------------------------------------
# Fast encoding. The generic schema-driven writer (``transforms.binary.encode``) costs ~20 µs a record; the four
# record shapes that make up nearly all of a large log (Partition, Config, Topic, PartitionChange, NoOp) are laid
# out by hand here and everything else goes through the generic writer. ``log_segment_bytes`` and
# ``snapshot_bytes`` return exactly what ``encode_log_segment`` / ``encode_snapshot`` return for the same
# arguments (tests compare them byte for byte).
# ---------------------------------------------------------------------------------------------------------------

_INT32: Final = struct.Struct(">i")
_UVARINT_1: Final = tuple(bytes((i,)) for i in range(128))
_LEADER_CHANGE: Final = CONTROL_RECORD_IDS["LEADER_CHANGE"]
_SNAPSHOT_HEADER: Final = CONTROL_RECORD_IDS["SNAPSHOT_HEADER"]
_SNAPSHOT_FOOTER: Final = CONTROL_RECORD_IDS["SNAPSHOT_FOOTER"]
_PARTITION_KEYS_V0: Final = frozenset(
    ("partitionId", "topicId", "replicas", "isr", "leader", "leaderEpoch", "partitionEpoch")
)
_PARTITION_KEYS_V1: Final = _PARTITION_KEYS_V0 | {"directories"}


def _uvarint(value: int) -> bytes:
    if value < 0x80:
        return _UVARINT_1[value]
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _string(value: str | None) -> bytes:
    if value is None:
        return b"\x00"
    raw = value.encode("utf-8")
    return _uvarint(len(raw) + 1) + raw


@functools.lru_cache(maxsize=1 << 16)
def _uuid_bytes(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "==")


_INT32_ARRAYS: Final = tuple((bytes((n + 1,)), struct.Struct(f">{n}i").pack) for n in range(8))


def _int32_array(values: Sequence[int]) -> bytes:
    n = len(values)
    if n < len(_INT32_ARRAYS):
        prefix, pack = _INT32_ARRAYS[n]
        return prefix + pack(*values)
    return _uvarint(n + 1) + struct.pack(f">{n}i", *values)


def metadata_value(record: MetadataRecordSpec) -> bytes:
    """The framed value of one metadata record; identical to ``encode_metadata_record(*record)``."""
    api_key, version, data = record
    if api_key == PARTITION and (
        data.keys() == _PARTITION_KEYS_V0 if version == 0 else data.keys() == _PARTITION_KEYS_V1
    ):
        body = [
            _INT32.pack(data["partitionId"]),
            _uuid_bytes(data["topicId"]),
            _int32_array(data["replicas"]),
            _int32_array(data["isr"]),
            b"\x01\x01",  # removingReplicas, addingReplicas: empty
            _INT32.pack(data["leader"]),
            _INT32.pack(data["leaderEpoch"]),
            _INT32.pack(data["partitionEpoch"]),
        ]
        if version >= 1:
            directories = data["directories"]
            body.append(_uvarint(len(directories) + 1) + b"".join([_uuid_bytes(d) for d in directories]))
        return bytes((1, PARTITION, version)) + b"".join(body) + b"\x00"
    if api_key == CONFIG and version == 0 and len(data) == 4:
        return b"".join(
            (
                b"\x01\x04\x00",
                data["resourceType"].to_bytes(1, "big", signed=True),
                _string(data["resourceName"]),
                _string(data["name"]),
                _string(data["value"]),
                b"\x00",
            )
        )
    if api_key == TOPIC and version == 0 and len(data) == 2:
        return b"\x01\x02\x00" + _string(data["name"]) + _uuid_bytes(data["topicId"]) + b"\x00"
    if api_key == NO_OP and not data:
        return b"\x01\x14\x00\x00"
    if api_key == PARTITION_CHANGE and len(data) == 3:
        head = bytes((1, PARTITION_CHANGE, version)) + _INT32.pack(data["partitionId"]) + _uuid_bytes(data["topicId"])
        if "isr" in data:  # tag 0
            isr = _int32_array(data["isr"])
            return head + b"\x01\x00" + _uvarint(len(isr)) + isr
        if "leader" in data:  # tag 1
            return head + b"\x01\x01\x04" + _INT32.pack(data["leader"])
    return encode_metadata_record(api_key, version, data)


def log_segment_bytes(
    records: Sequence[MetadataRecordSpec],
    *,
    base_offset: int,
    leader_epoch: int,
    timestamp_ms: int,
    timestamp_step_ms: int,
    records_per_batch: int,
    leader_id: int | None = None,
    voter_ids: Sequence[int] = (),
) -> bytes:
    """``encode_log_segment`` with the fast value encoder (same arguments, same bytes; no compression)."""
    batches = []
    offset = base_offset
    if leader_id is not None:
        voters = [{"voterId": voter} for voter in voter_ids]
        body = {"version": 0, "leaderId": leader_id, "voters": voters, "grantingVoters": voters}
        batches.append(
            encode_batch(
                base_offset=offset,
                leader_epoch=leader_epoch,
                timestamp_ms=timestamp_ms,
                records=[encode_control_record(_LEADER_CHANGE, body)],
                control=True,
            )
        )
        offset += 1
    batches += _data_batches(records, offset, leader_epoch, timestamp_ms, timestamp_step_ms, records_per_batch)
    return b"".join(batches)


def snapshot_bytes(
    records: Sequence[MetadataRecordSpec],
    *,
    epoch: int,
    last_contained_log_timestamp: int = 0,
    timestamp_ms: int = 0,
    records_per_batch: int = 1000,
) -> bytes:
    """``encode_snapshot`` with the fast value encoder (same arguments, same bytes; no KRaft voters)."""
    header_body = {"version": 0, "lastContainedLogTimestamp": last_contained_log_timestamp}
    header = encode_batch(
        base_offset=0,
        leader_epoch=epoch,
        timestamp_ms=timestamp_ms,
        records=[encode_control_record(_SNAPSHOT_HEADER, header_body)],
        control=True,
    )
    data = _data_batches(records, 1, epoch, timestamp_ms, 0, records_per_batch)
    footer = encode_batch(
        base_offset=1 + len(records),
        leader_epoch=epoch,
        timestamp_ms=timestamp_ms,
        records=[encode_control_record(_SNAPSHOT_FOOTER, {"version": 0})],
        control=True,
    )
    return b"".join([header, *data, footer])


def _data_batches(
    records: Sequence[MetadataRecordSpec],
    base_offset: int,
    leader_epoch: int,
    timestamp_ms: int,
    timestamp_step_ms: int,
    records_per_batch: int,
) -> list[bytes]:
    batches = []
    offset, timestamp = base_offset, timestamp_ms
    for start in range(0, len(records), records_per_batch):
        chunk = records[start : start + records_per_batch]
        batches.append(_data_batch(offset, leader_epoch, timestamp, [metadata_value(record) for record in chunk]))
        offset += len(chunk)
        timestamp += timestamp_step_ms
    return batches


_BATCH_TAIL: Final = struct.Struct(">hiqqqhii")  # attributes .. records count (after the CRC)
_BATCH_HEAD: Final = struct.Struct(">qiibI")  # base offset, length, leader epoch, magic, CRC


def _data_batch(base_offset: int, leader_epoch: int, timestamp_ms: int, values: list[bytes]) -> bytes:
    """``build_batch`` for uncompressed metadata records with null keys, laid out by hand."""
    framed = []
    for delta, value in enumerate(values):
        offset_delta = _uvarint(delta << 1)  # zigzag varint of a non-negative delta
        value_length = _uvarint(len(value) << 1)
        # attributes 0, timestamp delta 0, offset delta, key length -1, value length, value, no headers
        body_length = 4 + len(offset_delta) + len(value_length) + len(value)
        framed.append(
            b"".join((_uvarint(body_length << 1), b"\x00\x00", offset_delta, b"\x01", value_length, value, b"\x00"))
        )
    count = len(values)
    after_crc = _BATCH_TAIL.pack(0, count - 1, timestamp_ms, timestamp_ms, -1, -1, -1, count) + b"".join(framed)
    return _BATCH_HEAD.pack(base_offset, len(after_crc) + 9, leader_epoch, 2, crc32c.crc32c(after_crc)) + after_crc
