"""A small hand-written Kafka config catalog in the ``conf/kafka/<release>.yaml`` format (two releases).

Values mirror Kafka's (docs/kafka-semantics.md §5, §6) where they exist; ``num.io.threads`` differs between the
releases only so tests can tell which release's defaults were applied.
"""

from __future__ import annotations

from typing import Any

from schemas.kafka_catalog import KafkaCatalog, release_catalog_from_document
from schemas.metadata_version import MetadataVersionTable
from transforms.effective.catalog_frames import LayerCheck, broker_key_check_rows, broker_layer_checks


def _broker(name: str, type_: str, default: str | None, dynamic: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, "default": default, "dynamic": dynamic, "importance": "HIGH", **extra}


def _key(name: str, type_: str, default: str | None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, "default": default, "importance": "MEDIUM", **extra}


def document(release: str, *, io_threads: str) -> dict[str, Any]:
    """One release document."""
    return {
        "release": release,
        "sources": {"repo": "hand-written", "ref": release, "commit": "0" * 40, "files_read": []},
        "broker": [
            _broker("broker.rack", "STRING", None, "read-only"),
            _broker("group.consumer.session.timeout.ms", "INT", "45000", "cluster-wide"),
            _broker("internal.only", "INT", "1", "read-only", internal=True),
            _broker("listeners", "LIST", "PLAINTEXT://:9092", "per-broker"),
            _broker("log.cleanup.policy", "LIST", "delete", "cluster-wide"),
            _broker("log.retention.hours", "INT", "168", "read-only"),
            _broker("log.retention.minutes", "INT", None, "read-only"),
            _broker("log.retention.ms", "LONG", None, "cluster-wide"),
            _broker("log.roll.hours", "INT", "168", "read-only"),
            _broker("log.roll.ms", "LONG", None, "cluster-wide"),
            # confluentinc/kafka 4.1, 4.2: LogConfig.java atLeast(1024 * 1024)
            _broker(
                "log.segment.bytes", "INT", "1073741824", "cluster-wide", validator={"kind": "at_least", "min": 1048576}
            ),
            # ServerConfigs.java: NUM_IO_THREADS atLeast(1)
            _broker("num.io.threads", "INT", io_threads, "cluster-wide", validator={"kind": "at_least", "min": 1}),
            # ReplicationConfigs.java: no validator in 4.1, atLeast(1) from 4.2
            _broker(
                "num.replica.fetchers",
                "INT",
                "1",
                "cluster-wide",
                validator={"kind": "at_least", "min": 1} if release != "4.1" else None,
            ),
            _broker("ssl.keystore.location", "STRING", None, "per-broker", listener_prefix_required=True),
            _broker(
                "ssl.keystore.password", "PASSWORD", None, "per-broker", sensitive=True, listener_prefix_required=True
            ),
        ],
        "topic": [
            # a topic key 4.2 no longer defines (stands for message.format.version, removed in 4.0)
            *([_key("message.format.version", "STRING", "3.0-IV1")] if release == "4.1" else []),
            _key("cleanup.policy", "LIST", "delete"),
            _key("remote.storage.enable", "BOOLEAN", "false"),
            _key("retention.ms", "LONG", "604800000"),
            _key("segment.bytes", "INT", "1073741824"),
            _key("segment.ms", "LONG", "604800000"),
        ],
        "group": [
            _key("consumer.session.timeout.ms", "INT", "45000"),
            _key("share.isolation.level", "STRING", "read_uncommitted"),
        ],
        "client_metrics": [_key("interval.ms", "INT", "300000"), _key("metrics", "LIST", "")],
        "topic_synonyms": {
            "segment.bytes": [{"name": "log.segment.bytes", "converter": None}],
            "segment.ms": [
                {"name": "log.roll.ms", "converter": None},
                {"name": "log.roll.hours", "converter": "hours_to_ms"},
            ],
            "retention.ms": [
                {"name": "log.retention.ms", "converter": None},
                {"name": "log.retention.minutes", "converter": "minutes_to_ms"},
                {"name": "log.retention.hours", "converter": "hours_to_ms"},
            ],
            "cleanup.policy": [{"name": "log.cleanup.policy", "converter": None}],
        },
        "broker_synonym_groups": [
            {
                "primary": "log.roll.ms",
                "members": [{"name": "log.roll.ms", "unit": "ms"}, {"name": "log.roll.hours", "unit": "hours"}],
            },
            {
                "primary": "log.retention.ms",
                "members": [
                    {"name": "log.retention.ms", "unit": "ms"},
                    {"name": "log.retention.minutes", "unit": "minutes"},
                    {"name": "log.retention.hours", "unit": "hours"},
                ],
            },
        ],
        "group_synonyms": {
            "consumer.session.timeout.ms": "group.consumer.session.timeout.ms",
            "share.isolation.level": None,
        },
        "topic_configs_without_server_default": ["remote.storage.enable"],
        # confluentinc/kafka 4.2: KafkaConfig.scala validateValues
        # require(logRetentionTimeMillis >= 1 || logRetentionTimeMillis == -1, ...)
        "cross_field_checks": [
            {
                "id": "broker-log-retention-ms-not-zero",
                "resource": "broker",
                "keys": ["log.retention.ms", "log.retention.minutes", "log.retention.hours"],
                "rule": "the effective log.retention.ms must be -1 or >= 1",
                "expr": "cast(cfg['log.retention.ms'] as long) != 0",
                "kafka_effect": "broker refuses to start (KafkaConfig construction fails)",
                "source": "core/src/main/scala/kafka/server/KafkaConfig.scala: validateValues",
            },
            {
                "id": "broker-heartbeat-not-enforced",
                "resource": "broker",
                "keys": ["num.io.threads"],
                "rule": "a check Kafka only logs",
                "expr": "cast(cfg['num.io.threads'] as int) != 12",
                "kafka_effect": "ERROR log only (not enforced)",
            },
        ],
        "notes": [],
        "unresolved": [],
    }


def _documents() -> list[tuple[str, dict[str, Any]]]:
    # 10, not Kafka's 8: a value of its own, yet within half and double of the fixtures' cluster default 16, which a
    # 4.1 broker's DynamicThreadPool would otherwise refuse (transforms/effective/reconfigurables.py)
    return [("4.1 fixture", document("4.1", io_threads="10")), ("4.2 fixture", document("4.2", io_threads="8"))]


def small_catalog() -> KafkaCatalog:
    """Releases 4.1 (``num.io.threads`` default 10) and 4.2 (default 8)."""
    return KafkaCatalog(releases=tuple(release_catalog_from_document(doc, source=name) for name, doc in _documents()))


def small_key_checks(mv_table: MetadataVersionTable) -> list[tuple[object, ...]]:
    """The ``CATALOG_KEY_CHECKS`` rows of ``small_catalog``'s documents."""
    return broker_key_check_rows(_documents(), mv_table)


def small_layer_checks() -> tuple[LayerCheck, ...]:
    """The enforced broker cross-field checks of ``small_catalog``'s documents."""
    return broker_layer_checks(_documents())
