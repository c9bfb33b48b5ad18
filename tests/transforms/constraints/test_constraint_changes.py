"""apply_changes: IncrementalAlterConfigs SET/DELETE/APPEND/SUBTRACT and legacy replacement on effective configs.

Most scenarios touch distinct resources, so one change set (module fixture) covers them; each test asserts its
own resource. Scenarios that interact (per-node DELETE with and without a lower SET) get their own change set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pyspark.testing import assertSchemaEqual

from schemas.changes import load_changes_text
from schemas.gold import EFFECTIVE_CONFIGS
from transforms.constraints.changes import apply_changes

pytestmark = pytest.mark.spark

TOPIC_SYNONYMS = {"segment.bytes": "log.segment.bytes", "cleanup.policy": "log.cleanup.policy"}
GROUP_SYNONYMS = {"consumer.session.timeout.ms": "group.consumer.session.timeout.ms"}
After = dict[tuple[str, str, int | None, str], tuple[str | None, str]]

LIST_OPS = [
    ("append-present", "APPEND", "delete", "compact,delete"),
    ("append-new", "APPEND", "foo,compact", "compact,delete,foo"),
    ("subtract-one", "SUBTRACT", "compact", "delete"),
    ("subtract-all", "SUBTRACT", "compact,delete", ""),
    ("subtract-absent", "SUBTRACT", "absent", "compact,delete"),
]


@pytest.fixture(scope="module")
def before_df(effective_df_of: Callable[..., Any]) -> Any:
    seg = {"config_name": "log.segment.bytes", "synonym": "log.segment.bytes"}
    topic = {"resource_type": "TOPIC"}
    override = {**topic, "source": "DYNAMIC_TOPIC_CONFIG"}
    policy = {"config_name": "cleanup.policy", "config_type": "LIST", "synonym": "cleanup.policy"}
    return effective_df_of(
        {**seg, "resource_name": "1", "value": "1048576"},
        {**seg, "resource_name": "2", "value": "2097152", "source": "DYNAMIC_BROKER_CONFIG", "source_offset": 3},
        {"resource_name": "1", "config_name": "log.cleanup.policy", "value": "delete", "config_type": "LIST"},
        {"resource_name": "2", "config_name": "log.cleanup.policy", "value": "delete", "config_type": "LIST"},
        {"resource_name": "1", "config_name": "group.consumer.session.timeout.ms", "value": "45000"},
        {"resource_name": "2", "config_name": "group.consumer.session.timeout.ms", "value": "45000"},
        {"resource_name": "1", "config_name": "log.cleaner.threads", "value": "1"},
        {"resource_name": "2", "config_name": "log.cleaner.threads", "value": "4", "source": "DYNAMIC_BROKER_CONFIG"},
        {
            **topic,
            "resource_name": "inherits",
            "config_name": "segment.bytes",
            "value": "1048576",
            "synonym": "log.segment.bytes",
        },
        {
            **topic,
            "resource_name": "inh-append",
            "config_name": "segment.bytes",
            "value": "1048576",
            "synonym": "log.segment.bytes",
        },
        {**override, "resource_name": "orders", "config_name": "segment.bytes", "value": "100"},
        {**topic, "resource_name": "orders", "node_id": 1, "config_name": "retention.ms", "value": "1"},
        {**topic, "resource_name": "orders", "node_id": 2, "config_name": "retention.ms", "value": "2"},
        {**override, "resource_name": "del-seg", "config_name": "segment.bytes", "value": "100"},
        {**override, **policy, "resource_name": "del-cp", "value": "compact"},
        *[{**override, **policy, "resource_name": f"list-{case}", "value": "compact,delete"} for case, *_ in LIST_OPS],
        {
            "resource_type": "GROUP",
            "resource_name": "g",
            "config_name": "consumer.session.timeout.ms",
            "value": "1000",
            "source": "DYNAMIC_GROUP_CONFIG",
        },
        {
            "resource_type": "GROUP",
            "resource_name": "g",
            "config_name": "consumer.heartbeat.interval.ms",
            "value": "100",
            "source": "DYNAMIC_GROUP_CONFIG",
        },
        {
            "resource_type": "CLIENT_METRICS",
            "resource_name": "sub",
            "config_name": "interval.ms",
            "value": "10",
            "source": "DYNAMIC_CLIENT_METRICS_CONFIG",
        },
    )


def _apply(before_df: Any, text: str) -> After:
    after_df = apply_changes(
        before_df, load_changes_text(text, "c.yaml"), topic_synonyms=TOPIC_SYNONYMS, group_synonyms=GROUP_SYNONYMS
    )
    assertSchemaEqual(after_df.schema, EFFECTIVE_CONFIGS, ignoreNullable=True)
    rows = after_df.collect()
    keys = [(r.resource_type, r.resource_name, r.node_id, r.config_name) for r in rows]
    assert len(keys) == len(set(keys)), "one row per entity, view and key"
    return {k: (r.value, r.source) for k, r in zip(keys, rows, strict=True)}


LIST_CHANGES = "\n".join(
    f"  - {{resource_type: TOPIC, resource_name: list-{case}, ops: [{{op: {op}, key: cleanup.policy, "
    f'value: "{value}"}}]}}'
    for case, op, value, _ in LIST_OPS
)


@pytest.fixture(scope="module")
def after(before_df: Any) -> After:
    return _apply(
        before_df,
        f"""
changes:
  - {{resource_type: BROKER, resource_name: "", ops: [{{op: SET, key: log.segment.bytes, value: 3145728}}]}}
  - {{resource_type: BROKER, resource_name: "1", layer: static, ops: [{{op: SET, key: log.cleaner.threads, value: 2}}]}}
  - {{resource_type: BROKER, resource_name: "2", layer: static, ops: [{{op: SET, key: log.cleaner.threads, value: 8}}]}}
  - resource_type: TOPIC
    resource_name: orders
    ops: [{{op: SET, key: retention.ms, value: 86400000}}, {{op: SET, key: max.message.bytes, value: 1048588}}]
  - {{resource_type: TOPIC, resource_name: del-seg, ops: [{{op: DELETE, key: segment.bytes}}]}}
  - {{resource_type: TOPIC, resource_name: del-cp, ops: [{{op: DELETE, key: cleanup.policy}}]}}
  - {{resource_type: TOPIC, resource_name: inherits, ops: [{{op: DELETE, key: not.set.here}}]}}
  - {{resource_type: TOPIC, resource_name: inh-append, ops: [{{op: APPEND, key: segment.bytes, value: "5"}}]}}
  - {{resource_type: GROUP, resource_name: g, replace: {{consumer.heartbeat.interval.ms: 5000}}}}
  - {{resource_type: CLIENT_METRICS, resource_name: sub, ops: [{{op: DELETE, key: interval.ms}}]}}
{LIST_CHANGES}
""",
    )


def test_no_changes_keep_every_row(before_df: Any) -> None:
    assert len(_apply(before_df, "changes: []")) == before_df.count()


def test_set_on_the_cluster_default_updates_lower_layers_and_inheriting_topics_only(after: After) -> None:
    assert after[("BROKER", "1", None, "log.segment.bytes")] == ("3145728", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    # node 2's per-broker dynamic value still wins over the cluster default
    assert after[("BROKER", "2", None, "log.segment.bytes")] == ("2097152", "DYNAMIC_BROKER_CONFIG")
    assert after[("TOPIC", "inherits", None, "segment.bytes")] == ("3145728", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    assert after[("TOPIC", "orders", None, "segment.bytes")] == ("100", "DYNAMIC_TOPIC_CONFIG")


def test_static_change_applies_unless_a_dynamic_layer_shadows_it(after: After) -> None:
    assert after[("BROKER", "1", None, "log.cleaner.threads")] == ("2", "STATIC_BROKER_CONFIG")
    assert after[("BROKER", "2", None, "log.cleaner.threads")] == ("4", "DYNAMIC_BROKER_CONFIG")


def test_set_on_a_topic_overrides_every_broker_view_with_one_row(after: After) -> None:
    assert after[("TOPIC", "orders", None, "retention.ms")] == ("86400000", "DYNAMIC_TOPIC_CONFIG")
    assert ("TOPIC", "orders", 1, "retention.ms") not in after
    assert after[("TOPIC", "orders", None, "max.message.bytes")] == ("1048588", "DYNAMIC_TOPIC_CONFIG")  # inserted


def test_delete_of_a_topic_override_falls_back_to_each_brokers_synonym(after: After) -> None:
    # brokers disagree after the change (3145728 cluster default on node 1, 2097152 per-broker on node 2)
    assert after[("TOPIC", "del-seg", 1, "segment.bytes")] == ("3145728", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    assert after[("TOPIC", "del-seg", 2, "segment.bytes")] == ("2097152", "DYNAMIC_BROKER_CONFIG")
    assert ("TOPIC", "del-seg", None, "segment.bytes") not in after


def test_delete_where_all_brokers_agree_gives_one_row(after: After) -> None:
    assert after[("TOPIC", "del-cp", None, "cleanup.policy")] == ("delete", "STATIC_BROKER_CONFIG")


def test_delete_of_an_unset_key_changes_nothing_and_client_metrics_have_no_default(after: After) -> None:
    assert ("TOPIC", "inherits", None, "not.set.here") not in after
    assert ("CLIENT_METRICS", "sub", None, "interval.ms") not in after


@pytest.mark.parametrize(("case", "expected"), [(c[0], c[3]) for c in LIST_OPS], ids=[c[0] for c in LIST_OPS])
def test_append_and_subtract_on_lists_like_kafka(after: After, case: str, expected: str) -> None:
    assert after[("TOPIC", f"list-{case}", None, "cleanup.policy")] == (expected, "DYNAMIC_TOPIC_CONFIG")


def test_append_to_an_inherited_value_starts_from_the_layer_not_the_inherited_value(after: After) -> None:
    # Kafka appends to the value set at that layer (else the ConfigDef default): the broker's value is not copied
    assert after[("TOPIC", "inh-append", None, "segment.bytes")] == ("5", "DYNAMIC_TOPIC_CONFIG")


def test_legacy_replace_sets_listed_keys_and_deletes_the_others(after: After) -> None:
    assert after[("GROUP", "g", None, "consumer.heartbeat.interval.ms")] == ("5000", "DYNAMIC_GROUP_CONFIG")
    # consumer.session.timeout.ms was not listed: deleted, it inherits the brokers' group.* value again
    assert after[("GROUP", "g", None, "consumer.session.timeout.ms")] == ("45000", "STATIC_BROKER_CONFIG")


def test_broker_delete_without_a_known_lower_layer_is_unresolved(before_df: Any) -> None:
    after = _apply(
        before_df,
        """
changes:
  - {resource_type: BROKER, resource_name: "2", ops: [{op: DELETE, key: log.segment.bytes}]}
""",
    )
    assert after[("BROKER", "2", None, "log.segment.bytes")] == (None, "UNRESOLVED")


def test_delete_with_a_lower_set_in_the_same_change_set_uses_it(before_df: Any) -> None:
    after = _apply(
        before_df,
        """
changes:
  - {resource_type: BROKER, resource_name: "2", ops: [{op: DELETE, key: log.segment.bytes}]}
  - {resource_type: BROKER, resource_name: "", ops: [{op: SET, key: log.segment.bytes, value: 3145728}]}
""",
    )
    assert after[("BROKER", "2", None, "log.segment.bytes")] == ("3145728", "DYNAMIC_DEFAULT_BROKER_CONFIG")
