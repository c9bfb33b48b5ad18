"""What a synthetic cluster's names and config values are drawn from: benign pools, and the known-bad values the
generator plants (each pool is valid, or deliberately invalid, in every release 3.6 ... 4.3)."""

from __future__ import annotations

from typing import Final

__all__ = [
    "BROKER_BAD",
    "DEFAULT_BROKER_POOL",
    "DOMAINS",
    "ENTITIES",
    "ENVS",
    "NODE_BROKER_POOL",
    "RACK_SETS",
    "SECRET_KEYS",
    "STATIC_BAD",
    "STATIC_POOL",
    "TEAMS",
    "TOPIC_BAD_KINDS",
    "TOPIC_POOL",
    "TOPIC_POOL_KEYS",
]

ENVS: Final = ("prod", "prod", "prod", "staging", "staging", "dev")
TEAMS: Final = (
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
DOMAINS: Final = ("orders", "payments", "users", "inventory", "shipments", "clicks", "audit", "pricing", "sessions")
ENTITIES: Final = ("events", "commands", "changelog", "snapshots", "dlq", "enriched", "raw", "compacted", "retry")
RACK_SETS: Final = (
    ("use1-az1", "use1-az2", "use1-az4"),
    ("euw1-az1", "euw1-az2", "euw1-az3"),
    ("rack-a", "rack-b"),
    ("dc1-row3", "dc1-row4", "dc1-row7", "dc1-row9"),
)

# Topic override pool: key -> benign values (valid in every release 3.6 ... 4.3). min.insync.replicas is drawn
# from 1..RF separately.
TOPIC_POOL: Final[dict[str, tuple[str, ...]]] = {
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
TOPIC_POOL_KEYS: Final = tuple(TOPIC_POOL)

# Dynamic broker configs: cluster default ("") and per node.
DEFAULT_BROKER_POOL: Final[dict[str, tuple[str, ...]]] = {
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
NODE_BROKER_POOL: Final[dict[str, tuple[str, ...]]] = {
    "num.io.threads": ("8", "12", "16"),
    "num.network.threads": ("3", "6", "8"),
    "log.cleaner.threads": ("1", "2"),
    "num.replica.fetchers": ("2", "4"),
    "max.connections": ("5000", "10000"),
    "num.recovery.threads.per.data.dir": ("2", "4"),
    "background.threads": ("10", "20"),
}

# server.properties templates for StaticConfigs; node-specific keys are added per broker.
STATIC_POOL: Final[dict[str, tuple[str, ...]]] = {
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
BROKER_BAD: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "log_segment_bytes_below_1mib": ("log.segment.bytes", ("524288", "1000000", "262144")),
    "log_segment_bytes_below_3mib": ("log.segment.bytes", ("1048576", "2097152", "3000000")),
    "message_max_bytes_negative": ("message.max.bytes", ("-1", "-1048588")),
    "num_io_threads_zero": ("num.io.threads", ("0",)),
    "cleanup_policy_empty_element": ("log.cleanup.policy", ("delete,,compact", "delete,")),
}
STATIC_BAD: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "log_segment_bytes_below_3mib": ("log.segment.bytes", ("1048576", "2097152", "3000000")),
    "log_segment_bytes_below_1mib": ("log.segment.bytes", ("524288",)),
}
TOPIC_BAD_KINDS: Final = (
    "segment_bytes_below_1mib",
    "cleanup_policy_empty_element",
    "cleanup_policy_duplicates",
    "min_insync_replicas_above_rf",
    "message_format_version_set",
    "retention_ms_below_minus_one",
)
SECRET_KEYS: Final = (
    "listener.name.internal.ssl.key.password",
    "listener.name.internal.ssl.keystore.password",
    "listener.name.sasl_ssl.ssl.truststore.password",
)
