"""A small lexer for the Java and Scala sources of Kafka, and helpers over its token lists.

It only needs to be right for what the extractor reads: identifiers, literals, operators and brackets, with
comments dropped and line numbers kept (for ``source:``); Scala statement ends are newlines, so every token
records whether a newline precedes it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CLOSE", "OPEN", "Tok", "lex", "match_close", "split_args", "text_of"]

TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f]+)
  | (?P<nl>\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<tstr>\"\"\".*?\"\"\"+)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])')
  | (?P<num>0[xX][0-9a-fA-F_]+[lL]?|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?[lLfFdD]?)
  | (?P<id>`[^`]+`|[A-Za-z_$][\w$]*)
  | (?P<op>>>>=|<<=|>>=|>>>|\+\+=|::|->|=>|<-|\+\+|--|&&|\|\||==|!=|<=|>=|\+=|-=|\*=|/=|<<|:\+|\+:
          |[{}()\[\];,.=<>+\-*/%!?:&|^~@#])
  | (?P<other>.)
    """,
    re.S | re.X,
)

OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")", "]", "}"}

# Java escapes; anything else after a backslash stands for itself.
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


@dataclass(frozen=True)
class Tok:
    """One token: ``kind`` is id, str, num, op, char or other; ``str`` tokens hold the unescaped text."""

    kind: str
    text: str
    line: int
    nl_before: bool  # a newline separates this token from the previous one (Scala statement ends)


def lex(src: str) -> list[Tok]:
    """Tokenise Java or Scala source; comments and whitespace are dropped.

    Args:
        src: the file's text.

    Returns:
        The tokens in order. String literals (also Scala triple-quoted ones) carry their content without quotes,
        backticked Scala identifiers their name without backticks.
    """
    toks: list[Tok] = []
    line = 1
    nl = False
    for m in TOKEN_RE.finditer(src):
        kind = m.lastgroup
        text = m.group()
        if kind == "ws":
            continue
        if kind == "nl":
            line += 1
            nl = True
            continue
        if kind in ("lcomment", "bcomment"):
            n = text.count("\n")
            line += n
            if n:
                nl = True
            continue
        if kind == "tstr":
            toks.append(Tok("str", text[3:-3], line, nl))
            line += text.count("\n")
            nl = False
            continue
        if kind == "str":
            toks.append(Tok("str", _unescape(text[1:-1]), line, nl))
        elif kind == "id" and text.startswith("`"):
            toks.append(Tok("id", text[1:-1], line, nl))
        else:
            toks.append(Tok(kind or "other", text, line, nl))
        nl = False
    return toks


def _unescape_one(m: re.Match[str]) -> str:
    esc = m.group(1)
    if esc in _ESCAPES:
        return _ESCAPES[esc]
    return chr(int(esc[1:], 16)) if esc.startswith("u") else esc


def _unescape(s: str) -> str:
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", _unescape_one, s)


def match_close(toks: Sequence[Tok], i: int) -> int:
    """Index of the bracket closing the one at ``i``.

    Args:
        toks: the tokens.
        i: index of an opening ``(``, ``[`` or ``{``.

    Returns:
        The index of its closing bracket (brackets of any kind are counted together).

    Raises:
        ValueError: when the bracket is not closed.
    """
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if toks[j].kind == "op":
            if t in OPEN:
                depth += 1
            elif t in CLOSE:
                depth -= 1
                if depth == 0:
                    return j
    raise ValueError(f"unbalanced bracket at line {toks[i].line}")


def split_args(toks: Sequence[Tok], start: int, end: int) -> list[tuple[int, int]]:
    """Split ``toks[start:end]`` at top-level commas.

    Args:
        toks: the tokens.
        start: first token of the argument list (after the opening bracket).
        end: index of the closing bracket.

    Returns:
        ``[start, end)`` ranges, one per argument (none for an empty list).
    """
    out: list[tuple[int, int]] = []
    depth = 0
    s = start
    for j in range(start, end):
        t = toks[j]
        if t.kind == "op":
            if t.text in OPEN:
                depth += 1
            elif t.text in CLOSE:
                depth -= 1
            elif t.text == "," and depth == 0:
                out.append((s, j))
                s = j + 1
    if s < end:
        out.append((s, end))
    return out


_SPACED_BEFORE = ("+", "-", "*", "/", "=>", "->", "==", "&&", "||", "?", ":")
_SPACED_AFTER = ("+", "*", "/", "=>", "->", "==", "&&", "||", ",", "?")


def text_of(toks: Sequence[Tok], s: int, e: int) -> str:
    """Source-like text of ``toks[s:e]`` (normalised spacing), used in messages and to match validators.

    Args:
        toks: the tokens.
        s: first token.
        e: end (exclusive).

    Returns:
        The tokens joined, string literals re-quoted (without re-escaping).
    """
    out = ""
    prev: Tok | None = None
    for t in toks[s:e]:
        txt = f'"{t.text}"' if t.kind == "str" else t.text
        if prev is not None and (
            (prev.kind in ("id", "num", "str") and t.kind in ("id", "num", "str"))
            or t.text in _SPACED_BEFORE
            or prev.text in _SPACED_AFTER
        ):
            out += " "
        out += txt
        prev = t
    return out
