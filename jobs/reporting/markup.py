"""A tiny HTML/SVG builder that escapes by default: the report's values come from user data (config values,
resource names, messages), so every string is escaped unless it is ``Markup`` built by this module."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9:_-]*$")
_VOID = frozenset({"meta", "br", "hr", "input", "img", "link", "col"})

# docs/contract.md §6: a sensitive value is stored as this marker and must be shown exactly so.
REDACTED = "[redacted]"


class Markup(str):
    """Text that is already safe HTML; composing it never escapes it again."""

    __slots__ = ()


def esc(value: object) -> Markup:
    """``value`` as escaped text (``None`` is empty); ``Markup`` passes through."""
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup("")
    return Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[object], sep: str = "") -> Markup:
    """Escape and concatenate; nested iterables (not strings) are flattened."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, str) or part is None or not isinstance(part, Iterable):
            out.append(esc(part))
        else:
            out.append(join(part))
    return Markup(esc(sep).join(out))


def el(tag: str, attrs: Mapping[str, object] | None = None, *children: object) -> Markup:
    """``<tag attrs>children</tag>``; attribute values and children are escaped unless ``Markup``.

    An attribute whose value is ``None`` or ``False`` is left out; ``True`` writes a bare attribute.
    """
    if not _NAME.match(tag):
        raise ValueError(f"bad tag name {tag!r}")
    parts = [f"<{tag}"]
    for name, value in (attrs or {}).items():
        if not _NAME.match(name):
            raise ValueError(f"bad attribute name {name!r}")
        if value is None or value is False:
            continue
        parts.append(f" {name}" if value is True else f' {name}="{esc(value)}"')
    if tag in _VOID:
        return Markup("".join(parts) + ">")
    return Markup("".join(parts) + ">" + join(children) + f"</{tag}>")


def fmt_int(value: int | None) -> str:
    """An integer with thousands separators; ``-`` for ``None``."""
    return "-" if value is None else f"{value:,}"


def fmt_ts(value: datetime | None) -> str:
    """A timestamp as ``YYYY-MM-DD HH:MM:SS UTC``. Spark hands naive datetimes in the process's local time."""
    if value is None:
        return "-"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def value_cell(value: str | None) -> Markup:
    """A config value for display: ``[redacted]`` exactly as stored, NULL as a dim marker, others escaped."""
    if value is None:
        return el("span", {"class": "null"}, "null")
    if value == REDACTED:
        return el("span", {"class": "redacted"}, REDACTED)
    return el("span", {"class": "value"}, value)
