"""The simulate changes file: incremental ops, legacy replacement, static layer (pure Python)."""

from __future__ import annotations

import pytest

from schemas.changes import (
    ChangeSet,
    ConfigOp,
    ResourceChange,
    changes_from_remediations,
    dump_changes,
    load_changes_text,
)
from schemas.errors import ConfigError

VALID = """
changes:
  - resource_type: topic
    resource_name: orders
    ops:
      - {op: set, key: segment.bytes, value: 3145728}
      - {op: DELETE, key: retention.ms}
      - {op: APPEND, key: cleanup.policy, value: compact}
  - resource_type: GROUP
    resource_name: payments
    replace: {consumer.session.timeout.ms: 45000, some.flag: true}
  - resource_type: BROKER
    resource_name: 1
    layer: static
    ops: [{op: SET, key: log.retention.hours, value: "168"}]
  - resource_type: BROKER
    resource_name: ""
    cluster_id: prod
    ops: [{op: SUBTRACT, key: log.cleanup.policy, value: compact}]
"""


def test_valid_changes_load_with_kafka_text_values() -> None:
    changes = load_changes_text(VALID, "c.yaml").changes
    assert changes[0].resource_type == "TOPIC"
    assert changes[0].ops == (
        ConfigOp(op="SET", key="segment.bytes", value="3145728"),
        ConfigOp(op="DELETE", key="retention.ms"),
        ConfigOp(op="APPEND", key="cleanup.policy", value="compact"),
    )
    assert changes[1].replace == {"consumer.session.timeout.ms": "45000", "some.flag": "true"}
    assert (changes[2].resource_name, changes[2].layer) == ("1", "static")
    assert (changes[3].resource_name, changes[3].cluster_id) == ("", "prod")


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("{resource_type: TOPIC, resource_name: t, ops: [{op: DELETE, key: k, value: x}]}", "takes no value"),
        ("{resource_type: TOPIC, resource_name: t, ops: [{op: SET, key: k}]}", "needs a value"),
        ("{resource_type: TOPIC, resource_name: t, ops: [{op: RENAME, key: k, value: x}]}", "SET"),
        ("{resource_type: TOPIC, resource_name: t}", "exactly one of `ops`"),
        ("{resource_type: TOPIC, resource_name: t, ops: [], replace: {}}", "exactly one of `ops`"),
        (
            "{resource_type: TOPIC, resource_name: t, ops: [{op: SET, key: k, value: 1}, {op: DELETE, key: k}]}",
            "more than one operation: k",
        ),
        ("{resource_type: TOPIC, resource_name: t, layer: static, ops: []}", "only for BROKER"),
        ("{resource_type: BROKER, resource_name: b1, ops: []}", "node id"),
        ("{resource_type: TOPIC, resource_name: '', ops: []}", "must not be empty"),
        ("{resource_type: ACL, resource_name: t, ops: []}", "resource_type"),
        ("{resource_type: controller_topic, resource_name: t, ops: []}", "change the TOPIC"),
    ],
    ids=[
        "delete-with-value",
        "set-without-value",
        "unknown-op",
        "neither-ops-nor-replace",
        "both-ops-and-replace",
        "key-twice",
        "static-topic",
        "broker-name-not-a-node",
        "empty-topic-name",
        "unknown-resource-type",
        "controller-view-is-not-a-resource",
    ],
)
def test_invalid_change_is_rejected_naming_file_and_entry(entry: str, reason: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_changes_text(f"changes: [{entry}]", "c.yaml")
    assert str(info.value).startswith("c.yaml: change #1")
    assert reason in str(info.value)


def test_same_resource_twice_is_rejected() -> None:
    text = """
changes:
  - {resource_type: TOPIC, resource_name: t, ops: [{op: SET, key: a, value: 1}]}
  - {resource_type: TOPIC, resource_name: t, ops: [{op: SET, key: b, value: 1}]}
"""
    with pytest.raises(ConfigError, match="appears twice"):
        load_changes_text(text, "c.yaml")


@pytest.mark.parametrize(
    "text", ["changes: [", "- a", "changes: {}\nextra: 1", "changes: 5"], ids=["yaml", "list", "extra", "scalar"]
)
def test_malformed_changes_file_is_rejected(text: str) -> None:
    with pytest.raises(ConfigError, match=r"^c.yaml: "):
        load_changes_text(text, "c.yaml")


def test_remediations_group_per_resource_and_prefer_the_highest_level() -> None:
    rows = [
        {
            "cluster_id": "c1",
            "resource_type": "BROKER",
            "resource_name": "",
            "layer": "dynamic",
            "op": "SET",
            "key": "log.segment.bytes",
            "value": "14",
            "constraint_level": None,
        },
        {
            "cluster_id": "c1",
            "resource_type": "BROKER",
            "resource_name": "",
            "layer": "dynamic",
            "op": "SET",
            "key": "log.segment.bytes",
            "value": "3145728",
            "constraint_level": 32,
        },
        {
            "cluster_id": "c1",
            "resource_type": "BROKER",
            "resource_name": "",
            "layer": "dynamic",
            "op": "SET",
            "key": "log.segment.bytes",
            "value": "1048576",
            "constraint_level": 26,
        },
        {
            "cluster_id": "c1",
            "resource_type": "TOPIC",
            "resource_name": "t",
            "layer": "dynamic",
            "op": "SET",
            "key": "segment.bytes",
            "value": "3145728",
            "constraint_level": 32,
        },
    ]
    changes = changes_from_remediations(rows)
    assert changes == ChangeSet(
        changes=(
            ResourceChange(
                cluster_id="c1",
                resource_type="BROKER",
                resource_name="",
                ops=(ConfigOp(op="SET", key="log.segment.bytes", value="3145728"),),
            ),
            ResourceChange(
                cluster_id="c1",
                resource_type="TOPIC",
                resource_name="t",
                ops=(ConfigOp(op="SET", key="segment.bytes", value="3145728"),),
            ),
        )
    )


def test_dumped_changes_load_back_unchanged() -> None:
    changes = load_changes_text(VALID, "c.yaml")
    assert load_changes_text(dump_changes(changes), "dumped.yaml") == changes


def test_set_wins_over_delete_at_equal_level_and_static_changes_carry_a_note() -> None:
    head = {"cluster_id": "c1", "resource_type": "BROKER", "resource_name": "", "layer": "dynamic"}
    rows = [
        {**head, "op": "DELETE", "key": "log.segment.bytes", "value": None, "constraint_level": None},
        {**head, "op": "SET", "key": "log.segment.bytes", "value": "3145728", "constraint_level": None},
        {**head, "op": "DELETE", "key": "log.retention.ms", "value": None, "constraint_level": None},
        {
            **head,
            "resource_name": "2",
            "layer": "static",
            "op": "SET",
            "key": "log.retention.hours",
            "value": "168",
            "constraint_level": None,
        },
    ]
    changes = changes_from_remediations(rows).changes
    assert changes[0].ops == (
        ConfigOp(op="SET", key="log.segment.bytes", value="3145728"),
        ConfigOp(op="DELETE", key="log.retention.ms"),
    )
    assert changes[0].note is None
    assert (changes[1].layer, changes[1].note) == (
        "static",
        "read-only key: edit server.properties of broker 2, then restart it (rolling restart); "
        "not a kafka-configs.sh change",
    )
    assert load_changes_text(dump_changes(ChangeSet(changes=changes)), "plan.yaml").changes == changes
