"""One catalog built end to end from a miniature Kafka source tree and miniature facts (no git mirror)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.tools.kafka_configs.memory_tree import MemoryTree
from tools.kafka_configs.build import build
from tools.kafka_configs.facts import Facts
from tools.kafka_configs.facts.models import (
    ChecksFacts,
    ConstantsFacts,
    DynamicFacts,
    ManualFacts,
    ReleasesFacts,
    SynonymsFacts,
    ValidatorsFacts,
)
from tools.kafka_configs.release import Release
from tools.kafka_configs.writer import dump

PKG = "server/src/main/java/org/example"
SERVER = f"{PKG}/ServerConfigs.java"
TOPIC = f"{PKG}/TopicConfigs.java"
SYNONYMS = f"{PKG}/Synonyms.java"
DYNAMIC = f"{PKG}/DynamicBrokerConfig.java"
QUOTA = f"{PKG}/QuotaConfig.java"

FILES = {
    SERVER: """
package org.example;

public class ServerConfigs {
    public static final String NUM_THREADS = "num.threads";
    public static final String MAX_THREADS = "max.threads";

    public static final ConfigDef CONFIG = new ConfigDef()
        .define(NUM_THREADS, INT, 8, Range.atLeast(1), HIGH, "doc")
        .define(MAX_THREADS, INT, 16, HIGH, "doc")
        .define("log.retention.ms", LONG, null, MEDIUM, "doc")
        .define("log.retention.hours", INT, 24 * 7, HIGH, "doc")
        .define("ssl.protocol", STRING, SslConfigs.DEFAULT_SSL_PROTOCOL, MEDIUM, "doc")
        .define("listeners", STRING, "PLAINTEXT://:9092", HIGH, "doc")
        .define("max.connections", INT, Integer.MAX_VALUE, MEDIUM, "doc");

    static void validate(int numThreads, int maxThreads) {
        if (numThreads > maxThreads)
            throw new ConfigException(NUM_THREADS + " must be less than or equal to " + MAX_THREADS);
    }
}
""",
    TOPIC: """
package org.example;

public class TopicConfigs {
    public static final ConfigDef CONFIG = new ConfigDef()
        .define("retention.ms", LONG, 604800000L, MEDIUM, "doc")
        .define("cleanup.policy", LIST, "delete", ValidList.in("delete", "compact"), MEDIUM, "doc");
}
""",
    SYNONYMS: """
package org.example;

public class Synonyms {
    public static final Map<String, List<ConfigSynonym>> ALL = Map.of(
        "retention.ms", List.of(new ConfigSynonym("log.retention.ms"),
                                new ConfigSynonym("log.retention.hours", ConfigSynonym.HOURS_TO_MILLISECONDS)));
}
""",
    DYNAMIC: """
package org.example;

public class DynamicBrokerConfig {
    static final List<String> SECURITY = List.of("ssl.protocol");
    static final List<String> LISTENER = List.of("listeners", "max.connections");
    static final List<String> CLUSTER_LEVEL = List.of("max.connections");
    static final List<String> THREADS = List.of(ServerConfigs.NUM_THREADS);
}
""",
    QUOTA: """
package org.example;

public class QuotaConfig {
    public static ConfigDef brokerQuotaConfigs() {
        return new ConfigDef()
            .define("leader.replication.throttled.rate", LONG, Long.MAX_VALUE, Range.atLeast(0), MEDIUM, "doc");
    }
}
""",
}

LIST_VALIDATION = [
    {"kip1161": False, "parse": "split", "dedup_before_validate": False, "rules": "membership"},
    {"kip1161": True, "parse": "split", "dedup_before_validate": True, "rules": "KIP-1161"},
]


def miniature_facts() -> Facts:
    """Facts for one release "4.10" of the miniature tree; ranges around it test release ordering."""
    check = {"resource": "broker", "keys": ["num.threads"], "expr": None, "source": f"{SERVER}: validate"}
    return Facts(
        releases=ReleasesFacts.model_validate(
            {
                "releases": {
                    "4.10": {
                        "note": "test",
                        "broker": [{"file": SERVER, "owner": "CONFIG"}],
                        "topic": [{"file": TOPIC, "owner": "CONFIG"}],
                        "group": [],
                        "client_metrics": [],
                        "broker_dynamic_only": [{"file": QUOTA, "owner": "brokerQuotaConfigs()"}],
                        "kip1161": False,
                        "topic_synonyms": {"file": SYNONYMS, "class_name": "Synonyms", "constant": "ALL"},
                        "group_synonyms": None,
                        "must_be_checks": [{"file": SERVER, "resource": "broker", "method": "validate"}],
                    }
                },
                "list_validation": LIST_VALIDATION,
            }
        ),
        dynamic=DynamicFacts.model_validate(
            {
                "dynamic": {
                    "4.10": {
                        "file": DYNAMIC,
                        "all_dynamic": ["SECURITY", "LISTENER", "THREADS", {"dynamic_log_config_except": []}],
                        "security": "SECURITY",
                        "listener": "LISTENER",
                        "cluster_level_listener": "CLUSTER_LEVEL",
                    }
                }
            }
        ),
        validators=ValidatorsFacts(known=(), descriptions=()),
        constants=ConstantsFacts(compression_default_levels=(), jvm_defaults=()),
        manual=ManualFacts.model_validate(
            {
                "entry_fixes": [
                    {
                        "resource": "broker",
                        "key": "ssl.protocol",
                        "until": "4.11",
                        "values": {"default": "TLSv1.3"},
                        "why": "JVM-dependent",
                    }
                ],
                "notes": [
                    {"since": "4.10", "text": "applies"},
                    {"until": "4.10", "text": "older releases only"},
                    {"since": "4.2", "until": "4.9", "text": "not this one either"},
                ],
            }
        ),
        synonyms=SynonymsFacts.model_validate(
            {
                "broker_synonym_groups": [
                    {
                        "primary": "log.retention.ms",
                        "members": [
                            {"name": "log.retention.ms", "unit": "ms"},
                            {"name": "log.retention.hours", "unit": "hours"},
                        ],
                    }
                ],
                "group_synonyms": [{"key": "g", "broker_key": "b", "since": "4.0", "until": "4.3"}],
                "group_synonyms_note": {"since": "4.0", "until": "4.3", "text": "only 4.0-4.2"},
            }
        ),
        checks=ChecksFacts.model_validate(
            {
                "kafka_effects": {"broker": "broker fails", "topic": "topic fails", "group": "group fails"},
                "checks": [
                    {**check, "id": "broker-new", "rule": "new rule", "since": "4.10"},
                    {**check, "id": "broker-old", "rule": "old rule", "until": "4.10"},
                ],
                "client_metrics_code_checks": {},
            }
        ),
    )


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    previous = {"release": "4.9", "broker": [{"name": "num.threads"}, {"name": "gone.key"}], "topic": []}
    return build(Release(4, 10), "example/kafka", MemoryTree(FILES), "4.10", "0" * 40, miniature_facts(), previous)


def by_name(doc: dict[str, Any], resource: str) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in doc[resource]}


def test_everything_resolved(doc: dict[str, Any]) -> None:
    assert doc["unresolved"] == []
    assert doc["counts"] == {"broker": 8, "topic": 2, "group": 0, "client_metrics": 0}
    assert doc["sources"]["files_read"] == sorted([SERVER, TOPIC, SYNONYMS, DYNAMIC, QUOTA])


def test_entries_fixes_and_dynamic_scopes(doc: dict[str, Any]) -> None:
    broker = by_name(doc, "broker")
    assert broker["num.threads"]["validator"] == {"kind": "at_least", "min": 1}
    assert broker["num.threads"]["dynamic"] == "cluster-wide"
    assert broker["log.retention.hours"]["default"] == "168"
    assert broker["log.retention.ms"]["dynamic"] == "cluster-wide"  # primary synonym of retention.ms
    assert broker["log.retention.hours"]["dynamic"] == "read-only"
    assert broker["ssl.protocol"]["default"] == "TLSv1.3"
    assert broker["ssl.protocol"]["hand_checked"] is True
    assert broker["ssl.protocol"]["dynamic"] == "per-broker"
    assert broker["ssl.protocol"]["listener_prefix_required"] is True
    assert broker["listeners"]["dynamic"] == "per-broker"
    assert broker["max.connections"]["dynamic"] == "cluster-wide"  # cluster-level listener config
    assert broker["max.threads"]["dynamic"] == "read-only"
    throttle = broker["leader.replication.throttled.rate"]
    assert throttle["dynamic_only"] is True
    assert throttle["dynamic"] == "cluster-wide"
    assert list(broker) == sorted(broker)


def test_synonyms_checks_notes(doc: dict[str, Any]) -> None:
    assert doc["topic_synonyms"] == {
        "retention.ms": [
            {"name": "log.retention.ms", "converter": None},
            {"name": "log.retention.hours", "converter": "hours_to_ms"},
        ]
    }
    assert doc["topic_configs_without_server_default"] == ["cleanup.policy"]
    assert doc["group_synonyms"] == {}
    assert doc["group_synonyms_note"] is None
    assert doc["notes"] == ["applies"]
    assert doc["removed_since"] == {"previous_release": "4.9", "keys": {"broker": ["gone.key"]}}
    assert doc["list_validation"]["kip1161"] is False
    ids = [c["id"] for c in doc["cross_field_checks"]]
    assert ids == ["broker-new", "broker-num.threads-le-max.threads"]
    read = doc["cross_field_checks"][1]
    assert read == {
        "id": "broker-num.threads-le-max.threads",
        "resource": "broker",
        "keys": ["num.threads", "max.threads"],
        "rule": "num.threads <= max.threads",
        "source": f"{SERVER}:19",
        "expr": "cast(cfg['num.threads'] as long) <= cast(cfg['max.threads'] as long)",
        "kafka_effect": "broker fails",
        "message": "num.threads must be less than or equal to max.threads",
    }


def test_yaml_output(doc: dict[str, Any]) -> None:
    text = dump(doc)
    lines = text.splitlines()
    assert lines[2] == 'release: "4.10"'
    assert "  - name: cleanup.policy" in lines
    assert (
        "    validator: {kind: list_in, values: [delete, compact], empty_allowed: true, null_allowed: true, "
        "kip1161: false}" in lines
    )
    loaded = yaml.safe_load(text)
    assert loaded["counts"] == doc["counts"]
    assert loaded["broker"] == doc["broker"]
    assert loaded["cross_field_checks"] == doc["cross_field_checks"]
    assert loaded["unresolved"] == []
