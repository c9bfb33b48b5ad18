"""The one YAML loader for files users hand the CLI: constraint catalogs, waivers, changes files.

``yaml.safe_load`` builds no arbitrary objects, but it trusts the shape of the text: a document nested a few
thousand levels deep is a ``RecursionError`` in the composer, a "billion laughs" of aliases is a small graph that
becomes gigabytes the moment anything walks it (validation, an error message), an integer of 5,000 digits is
Python's ``ValueError`` on int-from-text, and ``2025-02-30`` is a ``ValueError`` from ``datetime``. Each would be a
traceback and exit 1. :func:`load_user_yaml` loads with limits and turns every one into a one-line
:class:`ConfigError` naming the file, the line and the limit, never quoting the offending value.

The repo's own ``conf/`` YAML is trusted and keeps the fast libyaml loader (``jobs.conf_loader.load_yaml``).
"""

from __future__ import annotations

from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from schemas.errors import ConfigError

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_INT_CHARS",
    "MAX_SCALAR_CHARS",
    "MAX_USER_YAML_BYTES",
    "load_user_yaml",
]

# The shipped examples are 1-3 KiB and a catalog of a thousand rules is about 200 KiB; 4 MiB leaves room for
# generated catalogs while a pure-Python YAML parse of the whole file stays around a few seconds at worst.
MAX_USER_YAML_BYTES: Final = 4 * 1024 * 1024
# The deepest real file is a few levels (constraints -> entry -> check -> in list); 64 is generous and far below
# the interpreter's recursion limit, which the composer would otherwise hit around depth 1,000.
MAX_DEPTH: Final = 64
# Anchors and aliases are allowed (``<<: *defaults`` in every waiver is reasonable), but what they expand to is
# counted in nodes: the aliases of one document may stand for at most this many nodes. A billion-laughs file
# reaches it after a few levels, before anything is expanded; real files use a few hundred at most.
MAX_ALIAS_NODES: Final = 100_000
# One scalar (a rule's expr, a waiver's reason) is a line or a paragraph; 64 KiB is far beyond any real one.
MAX_SCALAR_CHARS: Final = 64 * 1024
# An integer config value fits in 64 bits (19 digits); longer text is refused before Python's int() sees it
# (int-from-text over 4,300 digits is a ValueError, and quadratic below that).
MAX_INT_CHARS: Final = 64

_TIMESTAMP_TAG: Final = "tag:yaml.org,2002:timestamp"


class _LimitError(yaml.MarkedYAMLError):
    """A user file beyond one of the limits above (a ``YAMLError`` so every caller's handler catches it)."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class _BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with a nesting depth, an alias expansion budget and a scalar size limit.

    The composer is recursive (one Python frame per nesting level), so the depth is counted there, before the
    frame that would overflow. Each composed node's size counts the nodes its aliases stand for, so a
    billion-laughs document is refused while its graph is still small.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._alias_nodes = 0
        self._sizes: dict[int, int] = {}  # id(node) -> nodes it stands for, aliases expanded (nodes stay alive)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)  # an undefined alias is PyYAML's ComposerError
            size = self._sizes.get(id(node))
            if size is None:
                raise _LimitError("an alias refers to a node that contains it", event.start_mark)
            self._alias_nodes += size
            if self._alias_nodes > MAX_ALIAS_NODES:
                raise _LimitError(f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes", event.start_mark)
            return node
        if self._depth >= MAX_DEPTH:
            raise _LimitError(f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is not None:
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(child), 1) for child in _children(node))
        return node

    def compose_scalar_node(self, anchor: Any) -> ScalarNode:  # the stubs type anchor as a dict; it is str | None
        event = self.peek_event()
        if len(event.value) > MAX_SCALAR_CHARS:
            raise _LimitError(
                f"a value of {len(event.value):,} characters (at most {MAX_SCALAR_CHARS:,})",
                event.start_mark,
            )
        node: ScalarNode = super().compose_scalar_node(anchor)
        return node

    def construct_bounded_int(self, node: ScalarNode) -> int:
        if len(node.value) > MAX_INT_CHARS:
            raise _LimitError(
                f"an integer of {len(node.value):,} characters (at most {MAX_INT_CHARS})", node.start_mark
            )
        value: int = self.construct_yaml_int(node)
        return value

    def construct_checked_timestamp(self, node: ScalarNode) -> Any:
        try:
            return self.construct_yaml_timestamp(node)
        except ValueError as error:  # 2025-02-30 matches the timestamp pattern; datetime refuses it
            raise _LimitError(f"not a date: {error}", node.start_mark) from None


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_bounded_int)
_BoundedLoader.add_constructor(_TIMESTAMP_TAG, _BoundedLoader.construct_checked_timestamp)


class _DatesAsTextLoader(_BoundedLoader):
    """:class:`_BoundedLoader` that leaves timestamps as text: a waivers file's ``expires: 2025-02-30`` is then
    refused by the waiver's validator, which names the waiver, instead of while loading."""


_DatesAsTextLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP_TAG]
    for first, resolvers in _BoundedLoader.yaml_implicit_resolvers.items()
}


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _where(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "?"


def _short(text: str, limit: int = 300) -> str:
    """One line of at most ``limit`` characters: PyYAML's messages span lines and quote a line of the input."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def load_user_yaml(text: str, source: str, *, dates_as_text: bool = False) -> Any:
    """One YAML document of a user file, safely and within the limits of this module.

    Args:
        text: the file's text (the job read it, with the size cap of ``MAX_USER_YAML_BYTES``).
        source: the file name, first in every error message.
        dates_as_text: leave ``2025-01-31``-like scalars as strings (waivers validate their dates themselves).

    Returns:
        What ``yaml.safe_load`` would return: plain dicts, lists, strings, numbers, booleans, None (dates too,
        unless ``dates_as_text``). Aliases share one object, as with ``safe_load``.

    Raises:
        ConfigError: one line naming ``source``: the text is not YAML, or exceeds a limit (size, depth, aliases,
            a scalar's size, an integer's digits), or holds an impossible date. The message never quotes the value.
    """
    if len(text) > MAX_USER_YAML_BYTES:
        raise ConfigError(f"{source}: larger than {MAX_USER_YAML_BYTES // (1024 * 1024)} MiB, the limit of a YAML file")
    loader = (_DatesAsTextLoader if dates_as_text else _BoundedLoader)(text)
    try:
        return loader.get_single_data()
    except _LimitError as error:
        raise ConfigError(f"{source}: {_where(error.problem_mark)}: {error.problem}") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not valid YAML: {_short(str(error))}") from None
    except ValueError as error:  # a constructor's own check of a value no pattern excludes (none known today)
        raise ConfigError(f"{source}: not valid YAML: {_short(str(error))}") from None
    finally:
        loader.dispose()
