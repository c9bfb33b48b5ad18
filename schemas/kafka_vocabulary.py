"""Kafka's vocabulary, typed once: config sources, config resource types and alter operations.

The names are Kafka's Admin API names, spelled as confluent-kafka-python's admin module spells its enums
(``ConfigSource``, ``ResourceType``, ``AlterConfigOpType``). Every enum is a ``StrEnum``: a member equals the
string stored in the tables (``ConfigSource.DEFAULT_CONFIG == "DEFAULT_CONFIG"``), formats as that string, and
PySpark takes it wherever it takes a string (``F.lit(ConfigSource.DEFAULT_CONFIG)``,
``F.col("resource_type") == ResourceType.TOPIC``, ``col.isin(*CONFIG_RESOURCE_TYPES)``).

Only what the pipeline produces or reads is named: Kafka's ``DYNAMIC_BROKER_LOGGER_CONFIG`` / ``UNKNOWN`` sources
and its ``BROKER_LOGGER`` (8) / ``UNKNOWN`` (0) resource types never reach a table (broker logger levels are not
persisted in the metadata log; unknown codes are skipped by replay).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final

__all__ = [
    "CONFIG_RESOURCE_IDS",
    "CONFIG_RESOURCE_TYPES",
    "RESOURCE_TYPES",
    "AlterConfigOpType",
    "ConfigSource",
    "ResourceType",
]


class ConfigSource(StrEnum):
    """Where an effective value comes from (``EFFECTIVE_CONFIGS.source``, ``VIOLATIONS.value_source``).

    Kafka's ``ConfigEntry.ConfigSource`` names, plus ``DYNAMIC_CLIENT_CONFIG`` for client entities (quotas and
    the seed KIP's client configs), which Kafka's DescribeConfigs does not describe.
    """

    DYNAMIC_TOPIC_CONFIG = "DYNAMIC_TOPIC_CONFIG"
    DYNAMIC_BROKER_CONFIG = "DYNAMIC_BROKER_CONFIG"
    DYNAMIC_DEFAULT_BROKER_CONFIG = "DYNAMIC_DEFAULT_BROKER_CONFIG"
    STATIC_BROKER_CONFIG = "STATIC_BROKER_CONFIG"
    DEFAULT_CONFIG = "DEFAULT_CONFIG"
    DYNAMIC_GROUP_CONFIG = "DYNAMIC_GROUP_CONFIG"
    DYNAMIC_CLIENT_METRICS_CONFIG = "DYNAMIC_CLIENT_METRICS_CONFIG"
    DYNAMIC_CLIENT_CONFIG = "DYNAMIC_CLIENT_CONFIG"


class ResourceType(StrEnum):
    """The resource a config belongs to (``resource_type`` of every table, changes file and waiver).

    ``CLIENT`` is a client quota / client config entity (``user=alice,client-id=app``) and ``CONTROLLER_TOPIC`` a
    topic as the active controller resolves the keys it enforces (``ConfigurationControlManager.getTopicConfig``,
    docs/contract.md §4.8); neither is one of Kafka's ``ConfigResource`` types, the others are.
    """

    BROKER = "BROKER"
    TOPIC = "TOPIC"
    GROUP = "GROUP"
    CLIENT_METRICS = "CLIENT_METRICS"
    CLIENT = "CLIENT"
    CONTROLLER_TOPIC = "CONTROLLER_TOPIC"

    @property
    def kind(self) -> str:
        """The lower-case name catalogs, redaction rules and ``conf/kafka`` sections use, e.g. ``client_metrics``."""
        return self.value.lower()


class AlterConfigOpType(StrEnum):
    """An IncrementalAlterConfigs operation (Kafka's ``AlterConfigOp.OpType``)."""

    SET = "SET"
    DELETE = "DELETE"
    APPEND = "APPEND"  # LIST keys only
    SUBTRACT = "SUBTRACT"  # LIST keys only


# Every resource type, in the order tables and messages list them.
RESOURCE_TYPES: Final[tuple[ResourceType, ...]] = tuple(ResourceType)

# ConfigResource.Type ids of the types a ConfigRecord can carry, in id order (ConfigResource.java).
CONFIG_RESOURCE_IDS: Final[Mapping[ResourceType, int]] = {
    ResourceType.TOPIC: 2,
    ResourceType.BROKER: 4,
    ResourceType.CLIENT_METRICS: 16,
    ResourceType.GROUP: 32,
}

# The resource types with ConfigRecords and ConfigDef keys (every type but CLIENT), in RESOURCE_TYPES order.
CONFIG_RESOURCE_TYPES: Final[tuple[ResourceType, ...]] = tuple(t for t in ResourceType if t in CONFIG_RESOURCE_IDS)
