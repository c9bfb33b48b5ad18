"""Splitting text inputs into lines the way their writers end lines: at ``\\n`` only.

``str.splitlines`` also splits at U+2028, U+2029, U+0085, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e`` and a lone ``\\r``.
Those may sit inside a valid JSON string (JSON escapes none of them), so splitting there breaks one good record
into two quarantined fragments and shifts every later line number. kafka-dump-log and JSON-lines writers end
lines with ``\\n`` (``\\r\\n`` on Windows; the parsers strip the ``\\r``).
"""

from __future__ import annotations


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, split at ``\\n`` only (a ``\\r`` before it stays on the line).

    Args:
        text: A whole decoded text input.

    Returns:
        The lines without their ``\\n``; no empty last line for a text that ends with ``\\n`` (as
        ``str.splitlines``), and no line at all for an empty text.
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
