"""Parse ``server.properties`` text the way Kafka reads it: ``java.util.Properties.load``.

Kafka loads the file with ``Utils.loadProps`` → ``Properties.load(InputStream)``, which decodes bytes as
ISO-8859-1; a caller reproducing Kafka exactly decodes the file's bytes as ``latin-1`` before calling this.
The rules of ``Properties.load`` reproduced here:

* natural lines end at ``\\n``, ``\\r`` or ``\\r\\n``; leading spaces, tabs and form feeds are skipped;
* a line whose first non-blank character is ``#`` or ``!`` is a comment (and is never continued);
* a line ending in an odd number of backslashes continues on the next line, whose leading blanks are skipped;
* the key ends at the first unescaped ``=``, ``:`` or blank; blanks around the separator are skipped, a
  blank may be followed by one ``=`` or ``:``; the value is the rest of the line, **trailing blanks
  included** (Kafka's ``ConfigDef.parseType`` trims values of the keys it defines; unknown keys keep them);
* escapes: ``\\t``, ``\\n``, ``\\r``, ``\\f``, ``\\uXXXX`` (surrogate pairs combine); a backslash before any
  other character stands for that character (``\\:``, ``\\=``, ``\\ ``, ``\\\\``, ``\\#``);
* a key without a value maps to ``""``; a later duplicate key wins.

Where Java would throw (a malformed ``\\uXXXX`` escape fails the whole load), a line yields an empty key
(``=value``, which Kafka can never use) or a key or value holds a lone UTF-16 surrogate (``\\uD800`` alone: Java
keeps it, but it has no UTF-8 form, so no table can store it), the logical line is quarantined and the rest of the
file is kept. A quarantine excerpt holds only the raw key, never the value: server.properties holds passwords.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from schemas.decoded import QuarantineItem
from transforms.kit.bounds import is_utf8_encodable

EXCERPT_CHARS: Final = 120
_BLANKS: Final = " \t\f"
_NATURAL_LINE_END: Final = re.compile(r"\r\n|\r|\n")
_SIMPLE_ESCAPES: Final[dict[str, str]] = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX: Final = frozenset("0123456789abcdefABCDEF")


class _MalformedEscapeError(ValueError):
    """A ``\\u`` escape without four hexadecimal digits."""


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    natural = _NATURAL_LINE_END.split(text)
    index = 0
    while index < len(natural):
        first_line = index + 1
        line = natural[index].lstrip(_BLANKS)
        index += 1
        if not line or line[0] in "#!":
            continue
        parts = [line]
        while _ends_with_odd_backslashes(parts[-1]):
            parts[-1] = parts[-1][:-1]
            if index >= len(natural):
                break  # Java drops a trailing backslash at the end of the input
            parts.append(natural[index].lstrip(_BLANKS))
            index += 1
        yield first_line, "".join(parts)


def _ends_with_odd_backslashes(line: str) -> bool:
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _split_key_value(line: str) -> tuple[str, str]:
    key_end = len(line)
    value_start = len(line)
    has_separator = False
    preceding_backslash = False
    for position, char in enumerate(line):
        if not preceding_backslash and char in "=:":
            key_end, value_start, has_separator = position, position + 1, True
            break
        if not preceding_backslash and char in _BLANKS:
            key_end, value_start = position, position + 1
            break
        preceding_backslash = char == "\\" and not preceding_backslash
    while value_start < len(line):
        char = line[value_start]
        if char not in _BLANKS:
            if has_separator or char not in "=:":
                break
            has_separator = True
        value_start += 1
    return line[:key_end], line[value_start:]


def _unescape(raw: str) -> str:
    out: list[str] = []
    position = 0
    while position < len(raw):
        char = raw[position]
        position += 1
        if char != "\\" or position >= len(raw):
            out.append(char)
            continue
        char = raw[position]
        position += 1
        if char == "u":
            digits = raw[position : position + 4]
            if len(digits) != 4 or not set(digits) <= _HEX:
                raise _MalformedEscapeError
            out.append(chr(int(digits, 16)))
            position += 4
        else:
            out.append(_SIMPLE_ESCAPES.get(char, char))
    joined = "".join(out)
    # Java strings are UTF-16: \uD83D\uDE00 is one character; keep lone surrogates as they are.
    return joined.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def parse_server_properties(text: str) -> tuple[dict[str, str], list[QuarantineItem]]:
    """Parse ``.properties`` text with ``java.util.Properties.load`` semantics.

    Args:
        text: The file's content, already decoded (Kafka decodes as ISO-8859-1).

    Returns:
        The key → value map (later duplicates win; values unescaped, trailing blanks kept) and one
        ``QuarantineItem`` per logical line that cannot be used (malformed ``\\uXXXX`` escape, empty key, lone
        surrogate),
        with the 1-based number of its first natural line, ``extra["code"]`` and the raw key as excerpt.
    """
    properties: dict[str, str] = {}
    quarantined: list[QuarantineItem] = []
    for line_number, line in _logical_lines(text):
        raw_key, raw_value = _split_key_value(line)
        try:
            key = _unescape(raw_key)
            value = _unescape(raw_value)
        except _MalformedEscapeError:
            quarantined.append(
                QuarantineItem(
                    reason="malformed \\uXXXX escape (Java's Properties.load rejects the file)",
                    excerpt=raw_key[:EXCERPT_CHARS],
                    line_number=line_number,
                    extra={"code": "PROPERTIES_MALFORMED_ESCAPE"},
                )
            )
            continue
        if not (is_utf8_encodable(key) and is_utf8_encodable(value)):
            quarantined.append(
                QuarantineItem(
                    reason="a lone UTF-16 surrogate escape (\\uD800-\\uDFFF without its pair) has no UTF-8 form",
                    excerpt=raw_key[:EXCERPT_CHARS],
                    line_number=line_number,
                    extra={"code": "PROPERTIES_LONE_SURROGATE"},
                )
            )
            continue
        if not key:
            quarantined.append(
                QuarantineItem(
                    reason="line has an empty key",
                    excerpt="",
                    line_number=line_number,
                    extra={"code": "PROPERTIES_EMPTY_KEY"},
                )
            )
            continue
        properties[key] = value
    return properties, quarantined
