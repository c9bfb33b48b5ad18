"""KIP-1294 selection (mvValidators + floorEntry) and the level intervals used to evaluate all levels at once."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from schemas.constraints import CompiledCatalog, load_catalog_text
from schemas.errors import ConfigError
from schemas.metadata_version import MetadataVersionTable
from transforms.configdef.selection import active_at, compile_catalog

# segment rules on one key: a base validator, a strict 4.1 validator replaced by a *relaxed* 4.3 one, and two
# validators registered at 4.4-IV1; plus an unrelated key that only has a validator from 4.4-IV0.
CATALOG = """
constraints:
  - {id: base, resource: broker, config: log.segment.bytes, check: {type: int}}
  - {id: strict-41, resource: broker, config: log.segment.bytes, since: 4.1-IV0, check: {min: 2097152}}
  - {id: relaxed-43, resource: broker, config: log.segment.bytes, since: "4.3", check: {min: 1048576}}
  - {id: min-441, resource: broker, config: log.segment.bytes, since: IBP_4_4_IV1, check: {min: 3145728}}
  - {id: max-441, resource: broker, config: log.segment.bytes, since: 32, check: {max: 1073741824}}
  - {id: other-key, resource: broker, config: log.roll.ms, since: 4.4-IV0, check: {min: 1}}
  - {id: topic-same-name, resource: topic, config: log.segment.bytes, since: 4.0-IV0, check: {min: 1}}
"""


def _ids(rules: CompiledCatalog, level: int) -> set[str]:
    return {r.constraint.id for r in active_at(rules, level)}


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (21, {"base"}),  # 3.9: no registered level <= target for any keyed rule
        (22, {"base", "topic-same-name"}),
        (26, {"base", "strict-41", "topic-same-name"}),
        (29, {"base", "strict-41", "topic-same-name"}),
        (30, {"base", "relaxed-43", "topic-same-name"}),
        (31, {"base", "relaxed-43", "other-key", "topic-same-name"}),
        (32, {"base", "min-441", "max-441", "other-key", "topic-same-name"}),
        (33, {"base", "min-441", "max-441", "other-key", "topic-same-name"}),
    ],
    ids=[
        "3.9-none-keyed",
        "4.0-IV0",
        "4.1-IV0",
        "4.2-IV1",
        "4.3-relaxed-replaces-strict",
        "4.4-IV0",
        "4.4-IV1-two-at-one-level",
        "above-all",
    ],
)
def test_floor_entry_selects_the_greatest_level_not_above_the_target(
    compile_yaml: Callable[..., CompiledCatalog], level: int, expected: set[str]
) -> None:
    assert _ids(compile_yaml(CATALOG), level) == expected


def test_level_intervals_are_half_open_up_to_the_next_registered_level(
    compile_yaml: Callable[..., CompiledCatalog],
) -> None:
    rules = {r.constraint.id: r for r in compile_yaml(CATALOG).rules}
    assert (rules["base"].level, rules["base"].active_from, rules["base"].active_to) == (None, 0, None)
    assert (rules["strict-41"].active_from, rules["strict-41"].active_to) == (26, 30)
    assert (rules["relaxed-43"].active_from, rules["relaxed-43"].active_to) == (30, 32)
    assert (rules["min-441"].since_mv, rules["min-441"].active_to) == ("4.4-IV1", None)
    assert rules["max-441"].level == 32
    assert (rules["other-key"].active_from, rules["other-key"].active_to) == (31, None)


def test_base_validators_apply_even_below_every_registered_level(compile_yaml: Callable[..., CompiledCatalog]) -> None:
    assert _ids(compile_yaml(CATALOG), 7) == {"base"}


def test_expression_rules_are_keyed_by_their_sorted_configs(compile_yaml: Callable[..., CompiledCatalog]) -> None:
    rules = compile_yaml(
        """
constraints:
  - {id: ab-old, resource: topic, configs: [b, a], since: 4.0-IV0, expr: "cfg['a'] < cfg['b']"}
  - {id: ab-new, resource: topic, configs: [a, b], since: 4.2-IV0, expr: "cfg['a'] <= cfg['b']"}
  - {id: a-only, resource: topic, configs: [a], since: 4.0-IV0, expr: "cfg['a'] is not null"}
  - {id: a-check, resource: topic, config: a, since: 4.1-IV0, check: {min: 1}}
"""
    )
    assert _ids(rules, 27) == {"ab-old", "a-check"}  # a single-key expr and a check on `a` share one map
    assert _ids(rules, 28) == {"ab-new", "a-check"}
    assert _ids(rules, 25) == {"ab-old", "a-only"}


def test_since_names_an_unknown_mv_names_file_and_id(mv_table: MetadataVersionTable) -> None:
    catalog = load_catalog_text(
        "constraints: [{id: future, resource: broker, config: k, since: 9.9-IV0, check: {min: 1}}]", "mine.yaml"
    )
    with pytest.raises(ConfigError, match=r"^mine.yaml: constraint future: since: unknown metadata.version"):
        compile_catalog([catalog], mv_table)


def test_ids_must_be_unique_across_compiled_files(compile_yaml: Callable[..., CompiledCatalog]) -> None:
    one = "constraints: [{id: dup, resource: broker, config: a, check: {min: 1}}]"
    with pytest.raises(ConfigError, match=r"a\.yaml and b\.yaml: constraint dup"):
        compile_yaml(**{"a.yaml": one, "b.yaml": one})


def test_compiled_catalog_splits_checks_and_expressions_and_rewrites_casts(
    compile_yaml: Callable[..., CompiledCatalog],
) -> None:
    rules = compile_yaml(
        """
constraints:
  - {id: c, resource: broker, config: a, check: {min: 1}}
  - {id: e, resource: topic, configs: [a], expr: "CAST(cfg['a'] AS int) > 0"}
"""
    )
    assert [r.constraint.id for r in rules.checks] == ["c"]
    assert [r.expr_sql for r in rules.expressions] == ["try_cast(cfg['a'] AS int) > 0"]
    assert len(rules.fingerprint) == 64 and rules.max_level == 33
