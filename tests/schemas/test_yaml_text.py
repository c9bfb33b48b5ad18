"""#58 item 6: the one loader of user YAML (catalogs, waivers, changes) refuses hostile documents in one line.

Each hostile document was a traceback and exit 1 with ``yaml.safe_load`` (RecursionError, MemoryError after
gigabytes, ValueError); here each is a ``ConfigError`` naming the file and the line, quickly and in little memory.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from schemas.changes import load_changes_text
from schemas.constraints import load_catalog_text
from schemas.errors import ConfigError
from schemas.lifecycle import load_waivers_text
from schemas.yaml_text import MAX_ALIAS_NODES, MAX_DEPTH, MAX_SCALAR_CHARS, MAX_USER_YAML_BYTES, load_user_yaml


def _flow_nesting(depth: int) -> str:
    return "constraints: " + "[" * depth + "]" * depth + "\n"


def _block_nesting(depth: int) -> str:
    return "".join(" " * level + "-\n" for level in range(depth))


def _billion_laughs(levels: int = 9) -> str:
    """The classic: nine levels of nine aliases each, 9**9 (387 million) strings once expanded."""
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        name, previous = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


LOADERS: dict[str, Callable[[str, str], Any]] = {
    "catalog": load_catalog_text,
    "waivers": load_waivers_text,
    "changes": load_changes_text,
}
HOSTILE: dict[str, tuple[str, str]] = {
    "flow-depth-5000": (_flow_nesting(5000), f"nested deeper than {MAX_DEPTH} levels"),
    "block-depth-2000": (_block_nesting(2000), f"nested deeper than {MAX_DEPTH} levels"),
    "billion-laughs": (_billion_laughs(), "aliases expand to more than"),
    "int-5000-digits": ("changes: " + "7" * 5000 + "\n", "an integer of 5,000 characters (at most 64)"),
    "int-sexagesimal": ("changes: 1" + ":59" * 2000 + "\n", "an integer of 6,001 characters"),
    "large-scalar": ("changes: " + "x" * (MAX_SCALAR_CHARS + 1) + "\n", "a value of 65,537 characters"),
    "self-alias": ("changes: &loop [*loop]\n", "an alias refers to a node that contains it"),
}


@pytest.mark.parametrize("loader", list(LOADERS.values()), ids=list(LOADERS))
@pytest.mark.parametrize(("text", "expected"), list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_user_yaml_loader_refuses_a_hostile_document_in_one_short_line(
    loader: Callable[[str, str], Any], text: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        loader(text, "team/hostile.yaml")
    message = str(caught.value)
    assert message.startswith("team/hostile.yaml: line ") and expected in message
    assert "\n" not in message and len(message) < 200  # the value is never quoted, let alone expanded


def test_a_billion_laughs_is_refused_before_it_is_expanded() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError, match="aliases expand to more than 100,000 nodes"):
            load_user_yaml(_billion_laughs(), "w.yaml")
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5 * 1024 * 1024  # expanded, the document is 387 million strings (over 3 GB)


def test_aliases_within_the_budget_load_as_shared_values() -> None:
    text = "defaults: &d {owner: team-a, reason: known}\nwaivers: [{<<: *d, id: w1}, {<<: *d, id: w2}]\n"
    data = load_user_yaml(text, "w.yaml")
    assert data["waivers"] == [
        {"owner": "team-a", "reason": "known", "id": "w1"},
        {"owner": "team-a", "reason": "known", "id": "w2"},
    ]


def test_the_alias_budget_counts_expanded_nodes_not_alias_uses() -> None:
    items = ", ".join(["1"] * 999)  # a list of 1,000 nodes (999 items and the list)

    def document(uses: int) -> str:
        return f"a: &x [{items}]\nb: [" + ", ".join(["*x"] * uses) + "]\n"

    uses = MAX_ALIAS_NODES // 1000
    assert len(load_user_yaml(document(uses), "f.yaml")["b"]) == uses
    with pytest.raises(ConfigError, match=f"line 2, column {4 * uses + 5}: aliases expand to more than"):
        load_user_yaml(document(uses + 1), "f.yaml")


def test_nesting_up_to_the_limit_loads() -> None:
    # MAX_DEPTH - 1 lists inside the top-level mapping's value: MAX_DEPTH levels in all.
    data = load_user_yaml("k: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1), "f.yaml")
    depth = 0
    value = data["k"]
    while isinstance(value, list):
        depth += 1
        value = value[0] if value else None
    assert depth == MAX_DEPTH - 1
    with pytest.raises(ConfigError, match="nested deeper than"):
        load_user_yaml("k: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH, "f.yaml")


def test_ordinary_integers_and_dates_still_load() -> None:
    data = load_user_yaml("big: 9223372036854775807\nhex: 0x10\nwhen: 2025-01-31\n", "f.yaml")
    assert data["big"] == 2**63 - 1 and data["hex"] == 16 and str(data["when"]) == "2025-01-31"


def test_an_impossible_date_is_a_config_error_not_a_value_error() -> None:
    with pytest.raises(ConfigError, match=r"^rules.yaml: line 1, column 14: not a date: day is out of range"):
        load_catalog_text("constraints: 2025-02-30\n", "rules.yaml")


def test_the_waivers_loader_keeps_dates_as_text_for_its_validator() -> None:
    assert load_user_yaml("expires: 2025-02-30\n", "w.yaml", dates_as_text=True) == {"expires": "2025-02-30"}
    text = "waivers: [{id: w1, owner: a, reason: r, expires: 2025-02-30, scope: {constraint_id: c}}]\n"
    with pytest.raises(ConfigError, match="waiver w1"):  # the validator names the waiver
        load_waivers_text(text, "w.yaml")


def test_text_over_the_size_limit_is_refused_before_parsing() -> None:
    with pytest.raises(ConfigError, match="larger than 4 MiB"):
        load_user_yaml("#" * (MAX_USER_YAML_BYTES + 1), "f.yaml")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: [", "not valid YAML: while parsing a flow node"),
        ("a: !!python/object/apply:os.system [true]", "could not determine a constructor"),
        ("a: 1\n---\nb: 2\n", "expected a single document"),
        ("a: *nowhere", "found undefined alias"),
    ],
    ids=["syntax", "python-tag", "two-documents", "undefined-alias"],
)
def test_malformed_yaml_is_one_line(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_user_yaml(text, "f.yaml")
    assert str(caught.value).startswith("f.yaml: ") and expected in str(caught.value)
    assert "\n" not in str(caught.value)
