"""``filter_auditable``: which DEFAULT_CONFIG rows a constraint evaluation may judge; ``with_release_at_least``."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import SparkSession

from schemas.gold import EFFECTIVE_CONFIGS
from transforms.kit.audit_scope import filter_auditable, with_release_at_least

pytestmark = pytest.mark.spark


def _row(resource_type: str, name: str, value: str | None, source: str = "DEFAULT_CONFIG") -> tuple[Any, ...]:
    fields = {
        "cluster_id": "c",
        "resource_type": resource_type,
        "resource_name": "t",
        "node_id": None,
        "config_name": name,
        "value": value,
        "value_hash": None,
        "is_sensitive": False,
        "config_type": "INT",
        "source": source,
        "synonym": name,
        "source_offset": None,
        "source_timestamp": None,
        "kafka_release": "4.2",
        "value_set": None,
        "is_assumed": False,
    }
    return tuple(fields[f.name] for f in EFFECTIVE_CONFIGS.fields)


def test_controller_topic_defaults_are_judged_as_topic_keys(spark: SparkSession) -> None:
    effective_df = spark.createDataFrame(
        [
            _row("TOPIC", "min.insync.replicas", "1"),
            _row("CONTROLLER_TOPIC", "min.insync.replicas", "1"),  # a TOPIC key the target defines: kept
            _row("CONTROLLER_TOPIC", "message.format.version", "3.0-IV1"),  # not defined at the target: dropped
            _row("CONTROLLER_TOPIC", "gone.key", "x", source="DYNAMIC_TOPIC_CONFIG"),  # set: kept
            _row("BROKER", "process.roles", None),  # NULL default: dropped
        ],
        EFFECTIVE_CONFIGS,
    )
    keys_df = spark.createDataFrame(
        [("TOPIC", "min.insync.replicas"), ("BROKER", "process.roles")], "resource_type string, name string"
    )
    got = sorted(
        (r.resource_type, r.config_name) for r in filter_auditable(effective_df, target_keys_df=keys_df).collect()
    )
    assert got == [
        ("CONTROLLER_TOPIC", "gone.key"),
        ("CONTROLLER_TOPIC", "min.insync.replicas"),
        ("TOPIC", "min.insync.replicas"),
    ]


def test_every_broker_runs_the_target_release_at_least(spark: SparkSession) -> None:
    """Older, unknown (NULL) and unreadable releases are raised to the target's; newer ones are kept (a downgrade
    audit). The audit tells the resolution that no broker runs an older release (``oldest_release``), so none may
    be left below it."""
    brokers_df = spark.createDataFrame(
        [(1, "3.9"), (2, None), (3, "not-a-release"), (4, "4.4"), (5, "4.10"), (6, "4.1.2")],
        "node_id int, kafka_release string",
    )
    raised = {r.node_id: r.kafka_release for r in with_release_at_least(brokers_df, release="4.2").collect()}
    assert raised == {1: "4.2", 2: "4.2", 3: "4.2", 4: "4.4", 5: "4.10", 6: "4.2"}
