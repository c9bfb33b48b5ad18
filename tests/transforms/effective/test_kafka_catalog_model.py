"""The reduced catalog model and its adapter from ``conf/kafka/<release>.yaml`` (pure Python, no Spark)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schemas.errors import ConfigError
from schemas.kafka_catalog import KafkaCatalog, normalize_release, release_catalog_from_document, release_rank
from tests.transforms.effective.catalog_fixture import document

CONF_KAFKA = Path(__file__).resolve().parents[3] / "conf" / "kafka"


@pytest.fixture(scope="module")
def real_catalog() -> KafkaCatalog:
    files = sorted(CONF_KAFKA.glob("*.yaml"))
    if not files:
        pytest.skip(f"no catalogs in {CONF_KAFKA}")
    return KafkaCatalog(
        releases=tuple(
            release_catalog_from_document(yaml.load(p.read_text(), Loader=yaml.CSafeLoader), source=p.name)
            for p in files
        )
    )


def test_every_shipped_release_loads(real_catalog: KafkaCatalog) -> None:
    releases = [r.release for r in real_catalog.releases]
    assert releases[0] == "3.3" and releases[-1] == "4.4" and len(releases) == len(set(releases))


@pytest.mark.parametrize(
    ("release", "key", "dynamic", "default"),
    [
        ("4.2", "log.retention.ms", "cluster-wide", None),
        ("4.2", "log.retention.hours", "read-only", "168"),
        ("4.2", "log.segment.bytes", "cluster-wide", "1073741824"),
        ("3.6", "num.io.threads", "cluster-wide", "8"),
    ],
    ids=["primary-synonym-dynamic", "hours-read-only", "segment-bytes", "old-release"],
)
def test_real_broker_keys(
    real_catalog: KafkaCatalog, release: str, key: str, dynamic: str, default: str | None
) -> None:
    rel = real_catalog.release(release)
    assert rel is not None
    entry = next(k for k in rel.broker if k.name == key)
    assert (entry.dynamic, entry.default) == (dynamic, default)


def test_list_keys_with_a_kip_1161_validator_deduplicate_from_4_2(real_catalog: KafkaCatalog) -> None:
    # ConfigDef.parseValue de-duplicates a ValidList's value (KAFKA-19875, 4.2+); Kafka 4.2.0 ... 4.4.0 describe a
    # static classic,consumer,classic as classic,consumer, 4.1.2 as set (oracle duplicate-list-elements-at-start)
    def deduplicates(release: str, kind: str, key: str) -> bool:
        rel = real_catalog.release(release)
        assert rel is not None
        return next(k for k in getattr(rel, kind) if k.name == key).deduplicates

    assert not deduplicates("4.1", "broker", "group.coordinator.rebalance.protocols")
    for release in ("4.2", "4.3", "4.4"):
        assert deduplicates(release, "broker", "group.coordinator.rebalance.protocols")
        assert deduplicates(release, "topic", "cleanup.policy")
        assert not deduplicates(release, "broker", "num.io.threads")


def test_real_retention_group_is_ordered_primary_first(real_catalog: KafkaCatalog) -> None:
    rel = real_catalog.release("4.2")
    assert rel is not None
    group = next(g for g in rel.broker_synonym_groups if g.primary == "log.retention.ms")
    assert [(m.name, m.converter) for m in group.members] == [
        ("log.retention.ms", "NONE"),
        ("log.retention.minutes", "MINUTES_TO_MS"),
        ("log.retention.hours", "HOURS_TO_MS"),
    ]


def test_real_ssl_keys_need_a_listener_prefix(real_catalog: KafkaCatalog) -> None:
    rel = real_catalog.release("4.2")
    assert rel is not None
    flagged = {k.name for k in rel.broker if k.listener_prefix_required}
    assert {"ssl.keystore.location", "ssl.truststore.password"} <= flagged
    assert "listeners" not in flagged


def test_group_synonyms_without_broker_key_are_dropped() -> None:
    rel = release_catalog_from_document(document("4.2", io_threads="8"), source="fixture")
    assert [(g.group_config, g.broker_config) for g in rel.group_synonyms] == [
        ("consumer.session.timeout.ms", "group.consumer.session.timeout.ms")
    ]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("release"), "KeyError"),
        (lambda d: d["broker"].append(dict(d["broker"][0])), "duplicate broker keys"),
        (lambda d: d["broker"][0].update(dynamic="sometimes"), "dynamic"),
        (lambda d: d["topic_synonyms"]["segment.bytes"][0].update(converter="days_to_ms"), "KeyError"),
        (lambda d: d.update(release="four"), "not a Kafka release"),
    ],
    ids=["missing-release", "duplicate-key", "bad-dynamic-scope", "unknown-converter", "bad-release-name"],
)
def test_bad_documents_are_config_errors_naming_the_file(mutate: Any, message: str) -> None:
    doc = document("4.2", io_threads="8")
    mutate(doc)
    with pytest.raises(ConfigError, match=message) as err:
        release_catalog_from_document(doc, source="conf/kafka/4.2.yaml")
    assert "conf/kafka/4.2.yaml" in str(err.value)


@pytest.mark.parametrize(
    ("text", "rank", "normal"),
    [("4.2", 4002, "4.2"), ("4.2.1", 4002, "4.2"), ("3.10", 3010, "3.10"), ("4.0.0-SNAPSHOT", 4000, "4.0")],
    ids=["release", "patch-version", "two-digit-minor", "snapshot-suffix"],
)
def test_release_rank(text: str, rank: int, normal: str) -> None:
    assert (release_rank(text), normalize_release(text)) == (rank, normal)


def test_release_rank_rejects_non_releases() -> None:
    with pytest.raises(ConfigError, match="not a Kafka release"):
        release_rank("latest")
