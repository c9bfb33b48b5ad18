"""The broker checks resolution takes from the shipped catalogs (pure Python, no Spark).

Expected values read in Kafka's source: confluentinc/kafka 3.9 / 4.0
storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java (``log.segment.bytes``
``atLeast(LegacyRecord.RECORD_OVERHEAD_V0)`` = 14, then ``atLeast(1024 * 1024)``), 4.1 / 4.2
server/src/main/java/org/apache/kafka/server/config/ReplicationConfigs.java (``num.replica.fetchers`` without, then
with ``atLeast(1)``), KafkaConfig.scala ``validateValues`` (``log.retention.ms`` must be -1 or >= 1, every release).
"""

from __future__ import annotations

from jobs import conf_loader
from transforms.effective.catalog_frames import broker_key_check_rows, broker_layer_checks


def _mins(rows: list[tuple[object, ...]], release: str, key: str) -> list[object]:
    return [r[4] for r in rows if r[0] == release and r[2] == key and r[3] == "min"]


def test_key_checks_follow_each_release() -> None:
    rows = broker_key_check_rows(conf_loader.kafka_catalog_documents(), conf_loader.metadata_versions())
    assert _mins(rows, "3.9", "log.segment.bytes") == [14.0]
    assert _mins(rows, "4.0", "log.segment.bytes") == [1048576.0]
    assert _mins(rows, "4.1", "num.replica.fetchers") == []
    assert _mins(rows, "4.2", "num.replica.fetchers") == [1.0]
    assert {r[1] for r in rows} == {"BROKER"}


def test_layer_checks_are_the_enforced_cross_field_checks() -> None:
    checks = {c.check_id: c for c in broker_layer_checks(conf_loader.kafka_catalog_documents())}
    retention = checks["broker-log-retention-ms-not-zero"]
    assert retention.releases == tuple(release for release, _ in conf_loader.kafka_catalog_documents())
    assert "try_cast(cfg['log.retention.ms'] as long)" in retention.expr_sql
    assert "broker-heartbeat-at-most-half-session" not in checks  # Kafka only logs it
