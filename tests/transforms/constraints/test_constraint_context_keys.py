"""Which keys an expression reads through ``cfg``: the evaluation prunes its context maps to them."""

from __future__ import annotations

import pytest

from schemas.constraints import CompiledConstraint, Constraint
from transforms.configdef.expressions import cfg_keys_read
from transforms.constraints.failures import context_keys

CASES = [
    ("cast(cfg['a'] as int) <= cast(cfg[\"b\"] as int) and cfg [ 'c' ] is null", frozenset({"a", "b", "c"})),
    ("CFG['x'] > 1 or cfg_x = 1", frozenset({"x"})),
    ("cfg['a'] = 'cfg' -- cfg", frozenset({"a"})),
    ("value is null", frozenset()),
    ("topic.partitions > 1", frozenset()),
    ("size(cfg) > 0", None),
    ("cfg[concat('a', 'b')] = '1'", None),
    ("cfg['it''s'] = '1'", None),
    ("map_keys(cfg)[0] = 'a' and cfg['a'] = '1'", None),
]


@pytest.mark.parametrize(("expr", "keys"), CASES, ids=[c[0] for c in CASES])
def test_cfg_keys_read_lists_literal_keys_or_none(expr: str, keys: frozenset[str] | None) -> None:
    assert cfg_keys_read(expr) == keys


def _expr(idx: int, resource: str, configs: tuple[str, ...], expr: str) -> CompiledConstraint:
    constraint = Constraint(id=f"e{idx}", resource=resource, configs=configs, expr=expr)  # type: ignore[arg-type]
    return CompiledConstraint(
        rule_idx=idx,
        constraint=constraint,
        source="t",
        level=None,
        since_mv=None,
        active_from=0,
        active_to=None,
        expr_sql=expr,
    )


def test_context_keys_prune_per_type_unless_a_rule_needs_the_whole_entity() -> None:
    rules = [
        _expr(
            0, "topic", ("min.insync.replicas",), "cast(cfg['min.insync.replicas'] as int) <= topic.replication_factor"
        ),
        _expr(1, "topic", ("retention.ms",), "value is null or cfg['retention.bytes'] is not null"),
        _expr(2, "broker", ("a",), "topic_free_policy(cfg) = 1"),
        _expr(3, "group", ("g",), "cluster.broker_count >= 3"),  # pure policy: every entity keeps its context
        _expr(4, "topic", ("segment.ms", "segment.bytes"), "true"),  # a retired check: a constant prunes nothing
    ]
    assert context_keys(rules) == {
        "TOPIC": ["min.insync.replicas", "retention.bytes", "retention.ms", "segment.bytes", "segment.ms"],
        "BROKER": None,
        "GROUP": None,
    }
