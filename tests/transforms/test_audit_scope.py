"""``filter_auditable``: which DEFAULT_CONFIG rows a constraint evaluation may judge."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import SparkSession

from schemas.gold import EFFECTIVE_CONFIGS
from transforms.audit_scope import filter_auditable

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
