"""Reading Spark SQL text without a parser: which parts are code, and the text without its comments."""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["code_segments", "sql_string", "without_comments"]


def code_segments(text: str) -> Iterator[tuple[bool, str]]:
    """Split SQL text into (is_code, segment): literals, `identifiers` and comments are not code."""
    i, start, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        end = -1
        if ch in ("'", '"', "`"):
            j = i + 1
            while j < n:
                if text[j] == "\\" and ch != "`":
                    j += 2
                    continue
                if text[j] == ch:
                    if j + 1 < n and text[j + 1] == ch:  # doubled quote escapes itself
                        j += 2
                        continue
                    break
                j += 1
            end = min(j + 1, n)
        elif text.startswith("--", i):
            nl = text.find("\n", i)
            end = n if nl < 0 else nl
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
        if end >= 0:
            if start < i:
                yield True, text[start:i]
            yield False, text[i:end]
            i = start = end
        else:
            i += 1
    if start < n:
        yield True, text[start:]


def without_comments(text: str) -> str:
    """The text with every comment replaced by one space (literals and quoted identifiers untouched).

    An expression is embedded in generated SQL (a CASE branch): a trailing ``-- comment`` would comment out the
    rest of the statement, so the text that is evaluated carries no comment at all.
    """
    return "".join(
        segment if is_code or not segment.startswith(("--", "/*")) else " " for is_code, segment in code_segments(text)
    )


def sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal (backslash escapes, Spark's default)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
