"""Kafka's vocabulary enums: values as Kafka spells them, equal to the strings stored in tables (pure Python)."""

from __future__ import annotations

import typing

from schemas.constraints import ResourceKind
from schemas.kafka_vocabulary import (
    CONFIG_RESOURCE_IDS,
    CONFIG_RESOURCE_TYPES,
    RESOURCE_TYPES,
    AlterConfigOpType,
    ConfigSource,
    ResourceType,
)


def test_members_are_the_strings_stored_in_tables() -> None:
    for enum in (ConfigSource, ResourceType, AlterConfigOpType):
        for member in enum:
            assert member == member.name and f"{member}" == member.name
            assert {member: 1}[member.name] == 1  # same hash: a dict keyed by either finds the other


def test_config_resource_ids_are_kafkas() -> None:
    # ConfigResource.Type: GROUP 32, CLIENT_METRICS 16, BROKER_LOGGER 8 (never persisted), BROKER 4, TOPIC 2
    assert dict(CONFIG_RESOURCE_IDS) == {"TOPIC": 2, "BROKER": 4, "CLIENT_METRICS": 16, "GROUP": 32}
    assert CONFIG_RESOURCE_TYPES == ("BROKER", "TOPIC", "GROUP", "CLIENT_METRICS")
    assert RESOURCE_TYPES == ("BROKER", "TOPIC", "GROUP", "CLIENT_METRICS", "CLIENT", "CONTROLLER_TOPIC")


def test_catalog_resource_kinds_are_the_lower_case_resource_types() -> None:
    assert typing.get_args(ResourceKind) == tuple(t.kind for t in RESOURCE_TYPES)
