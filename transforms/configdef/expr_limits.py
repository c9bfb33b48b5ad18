"""What an expression may not do to the run: size limits and the literal arguments of costly functions (pure Python).

A catalog expression that Spark parses and analyses can still fail or exhaust the audit when it runs; what can be
known from its text is refused when the catalog is loaded, each with a one-line reason:

* **Size** (:func:`size_problem`, from the text, before Spark): at most ``MAX_EXPR_CHARS`` characters,
  ``MAX_NESTING`` levels of parentheses and brackets, ``MAX_OPERATORS`` operators. Spark's parser and analyser
  recurse once per level of the tree: an expression nested a few thousand deep overflows the driver's stack (a
  ``StackOverflowError``, measured near 400 parentheses or 700 chained ``+``); these limits keep the tree a few
  hundred levels deep at most, the shipped catalogs' deepest expression being 6 levels.
* **Literal arguments** (:func:`call_problem`, on the arguments Spark's parser read): a regex must be a string
  literal, compile as a Java regex (checked by ``expressions`` with ``java.util.regex``) and pass
  :func:`regex_problem`; ``regexp_extract`` / ``regexp_extract_all`` / ``regexp_instr`` take a literal group index
  within the pattern's groups (the default index is 1: a pattern without a group needs an index of 0);
  ``regexp_replace`` / ``replace`` take a literal replacement of at most ``MAX_REPLACEMENT_CHARS``, and nested ones
  may together make a text at most that many times longer (each level multiplies it); a ``regexp_replace`` pattern
  replaced by a non-empty text may not match the empty string (it would insert the text between every two
  characters);
  ``format_string`` / ``printf`` take a literal format whose widths and precisions are at most
  ``MAX_FORMAT_WIDTH``, ``format_number`` a literal number of decimals within that bound; ``aggregate`` / ``reduce``
  may read the accumulator once in their merge function (``concat(acc, acc)`` doubles it per element).

:func:`regex_problem` is a conservative static check for catastrophic backtracking, not a proof: it refuses a
repeated group that itself contains a quantifier (``(a+)+``, ``(a*b?)*``) and a repeated alternation whose branches
are not distinct single characters (``(a|a)*``, ``(ab|a)+``), unless the repetition is possessive (``*+``, ``++``)
or the group atomic (``(?>...)``), which never backtrack. It accepts polynomial patterns such as ``.*a.*a.*`` and
backreferences; config values are short, and what still fails at run time is a "could not evaluate" result of its
rule (``expressions``), never a failed run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from transforms.configdef.sql_text import code_segments

__all__ = [
    "GROWING",
    "MAX_EXPR_CHARS",
    "MAX_FORMAT_WIDTH",
    "MAX_NESTING",
    "MAX_OPERATORS",
    "MAX_REPLACEMENT_CHARS",
    "REGEX_ARGUMENTS",
    "Argument",
    "Lambda",
    "NotLiteral",
    "call_problem",
    "capturing_groups",
    "regex_problem",
    "replacement_factor",
    "shown",
    "size_problem",
]

MAX_EXPR_CHARS: Final = 4000
MAX_NESTING: Final = 48
MAX_OPERATORS: Final = 200
MAX_FORMAT_WIDTH: Final = 1000
MAX_REPLACEMENT_CHARS: Final = 64

_OPERATOR: Final = re.compile(
    r"<=>|<=|>=|==|!=|<>|\|\||->|[-+*/%&|^~<>=!]|(?<![\w$])(?:and|or|not|is|in|between|like|ilike|rlike|regexp|"
    r"when|case)(?![\w$])",
    re.IGNORECASE,
)


def shown(text: str, limit: int = 60) -> str:
    """``text`` quoted for a one-line message: escapes for line breaks and quotes, cut at ``limit`` characters."""
    cut = text if len(text) <= limit else text[:limit] + "..."
    return repr(cut)


def size_problem(text: str) -> str | None:
    """Why an expression is too large for Spark's parser to take safely, from its text alone; None when it is not."""
    if len(text) > MAX_EXPR_CHARS:
        return f"is {len(text)} characters long; at most {MAX_EXPR_CHARS} are allowed"
    depth = deepest = operators = 0
    for is_code, segment in code_segments(text):
        if not is_code:
            continue
        operators += len(_OPERATOR.findall(segment))
        for ch in segment:
            if ch in "([":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in ")]":
                depth -= 1
    if deepest > MAX_NESTING:
        return f"nests parentheses or brackets {deepest} levels deep; at most {MAX_NESTING} are allowed"
    if operators > MAX_OPERATORS:
        return f"has {operators} operators; at most {MAX_OPERATORS} are allowed"
    return None


# --- regexes -------------------------------------------------------------------------------------------------------


@dataclass
class _Group:
    atomic: bool = False
    repeats_inside: bool = False  # a quantifier applies to something inside
    branches: list[list[str]] = field(default_factory=lambda: [[]])  # atoms per branch ("" = not one character)


_QUANTIFIER = re.compile(r"[*+?]|\{\d*(?:,\d*)?\}")
_INLINE_FLAGS = re.compile(r"\(\?[a-zA-Z-]*\)")
_GROUP_OPENER = re.compile(r"\((\?(?:<[A-Za-z][A-Za-z0-9]*>|<=|<!|[:=!>]|[a-zA-Z-]*:))?")


def _quantifier_at(pattern: str, i: int) -> tuple[int, bool, bool, bool] | None:
    """(length, lets its atom match more than once, possessive, variable count) of the quantifier at ``i``; None if
    there is none."""
    m = _QUANTIFIER.match(pattern, i)
    if m is None:
        return None
    token, end = m.group(0), m.end()
    possessive = pattern.startswith("+", end)
    if pattern[end : end + 1] in ("+", "?") and end < len(pattern):
        end += 1
    if token in ("*", "+", "?"):
        return end - i, token != "?", possessive, True
    bounds = token[1:-1].split(",")
    repeats = bounds[-1] == "" or int(bounds[-1]) > 1
    return end - i, repeats, possessive, len(bounds) == 2 and bounds[0] != bounds[1]


def _class_end(pattern: str, i: int) -> int:
    """The index after the character class that opens at ``i`` (nested classes and escapes included)."""
    j, depth = i + 1, 1
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):
        j += 1
    while j < len(pattern) and depth:
        if pattern[j] == "\\":
            j += 2
            continue
        depth += pattern[j] == "["
        depth -= pattern[j] == "]"
        j += 1
    return j


def _scan(pattern: str) -> tuple[int, str | None]:
    """(capturing groups, the first catastrophic construct or None) of a Java regex, read without compiling it."""
    groups = 0
    stack = [_Group()]
    i, n = 0, len(pattern)
    while i < n:
        ch, current = pattern[i], stack[-1]
        quantifier = _quantifier_at(pattern, i)
        if ch == "\\" and pattern.startswith("\\Q", i):
            close = pattern.find("\\E", i + 2)
            i = n if close < 0 else close + 2
            current.branches[-1].append("")
        elif ch == "\\":
            escaped = pattern[i + 1 : i + 2]
            current.branches[-1].append("" if not escaped or escaped.isalnum() else escaped)  # \d is a class
            i += 2
        elif ch == "[":
            current.branches[-1].append("")
            i = _class_end(pattern, i)
        elif (flags := _INLINE_FLAGS.match(pattern, i)) is not None:
            i = flags.end()
        elif ch == "(":
            opener = _GROUP_OPENER.match(pattern, i)
            assert opener is not None  # the group is optional: "(" alone matches
            kind = opener.group(1) or ""
            groups += kind == "" or (kind.startswith("?<") and kind not in ("?<=", "?<!"))
            stack.append(_Group(atomic=kind == "?>"))
            i = opener.end()
        elif ch == ")" and len(stack) > 1:
            closed = stack.pop()
            stack[-1].branches[-1].append("")
            stack[-1].repeats_inside |= closed.repeats_inside
            i += 1
            after = _quantifier_at(pattern, i)
            if after is None:
                continue
            length, repeats, possessive, variable = after
            if repeats and not possessive and not closed.atomic:
                if closed.repeats_inside:
                    return groups, "repeats a group that itself repeats"
                if len(closed.branches) > 1 and not _distinct_characters(closed.branches):
                    return groups, "repeats an alternation whose branches can match the same text"
            stack[-1].repeats_inside |= variable
            i += length
        elif ch == "|":
            current.branches.append([])
            i += 1
        elif quantifier is not None:
            current.repeats_inside |= quantifier[3]
            if current.branches[-1]:
                current.branches[-1][-1] = ""
            i += quantifier[0]
        else:
            current.branches[-1].append("" if ch in ".^$" else ch)
            i += 1
    return groups, None


def _distinct_characters(branches: Sequence[Sequence[str]]) -> bool:
    atoms = [branch[0] if len(branch) == 1 else "" for branch in branches]
    return all(atoms) and len(set(atoms)) == len(atoms)


def capturing_groups(pattern: str) -> int:
    """The number of capturing groups of a Java regex (``(...)`` and ``(?<name>...)``)."""
    return _scan(pattern)[0]


def regex_problem(pattern: str) -> str | None:
    """Why a regex may backtrack catastrophically (see the module docstring), or None."""
    problem = _scan(pattern)[1]
    if problem is None:
        return None
    return (
        f"pattern {shown(pattern)} {problem} (catastrophic backtracking); make the repetition possessive "
        "(*+, ++) or the group atomic ((?>...))"
    )


# --- calls ---------------------------------------------------------------------------------------------------------


class NotLiteral:
    """An argument that is not a literal (a column, a call, an expression)."""

    def __init__(self, growth: int = 1) -> None:
        self.growth = growth  # how many times longer than its input the replacements inside it can make a text

    def __repr__(self) -> str:
        return f"NotLiteral(growth={self.growth})"


@dataclass(frozen=True)
class Lambda:
    """A lambda argument: its parameter names and how often its body reads each."""

    params: tuple[str, ...]
    reads: Mapping[str, int]


Argument = str | int | Lambda | NotLiteral | None  # None: a NULL literal

# function -> positions of its regex arguments (0-based); the infix `x RLIKE p` is ``rlike`` too
REGEX_ARGUMENTS: Final[Mapping[str, tuple[int, ...]]] = {
    "rlike": (1,),
    "regexp": (1,),
    "regexp_like": (1,),
    "regexp_count": (1,),
    "regexp_extract": (1,),
    "regexp_extract_all": (1,),
    "regexp_instr": (1,),
    "regexp_replace": (1,),
    "regexp_substr": (1,),
    "split": (1,),
    "str_to_map": (1, 2),
}
# function -> (position of the group index, its default)
_GROUP_INDEX: Final[Mapping[str, tuple[int, int]]] = {
    "regexp_extract": (2, 1),
    "regexp_extract_all": (2, 1),
    "regexp_instr": (2, 0),
}
GROWING: Final = frozenset({"regexp_replace", "replace"})
_FORMAT_SPEC: Final = re.compile(r"%(?:\d+\$|<)?[-#+ 0,(]*(\d+)?(?:\.(\d+))?[a-zA-Z%]")


def _format_problem(name: str, fmt: str) -> str | None:
    for m in _FORMAT_SPEC.finditer(fmt):
        for what, number in (("width", m.group(1)), ("precision", m.group(2))):
            if number is not None and int(number) > MAX_FORMAT_WIDTH:
                return f"calls {name}() with {what} {number} in {shown(fmt)}; at most {MAX_FORMAT_WIDTH} is allowed"
    return None


def replacement_factor(name: str, args: Sequence[Argument]) -> int:
    """How many times longer a replacement call can make its subject: each match (at least one character, see the
    empty-match rule) becomes the replacement. 1 for any other call; above the limit for a replacement that is not a
    literal."""
    if name.lower() not in GROWING:
        return 1
    replacement = args[2] if len(args) > 2 else ""
    return max(1, len(replacement)) if isinstance(replacement, str) else MAX_REPLACEMENT_CHARS + 1


def call_problem(name: str, args: Sequence[Argument]) -> str | None:
    """Why a call with these arguments may fail or exhaust the run whatever the row holds; None when it may run.

    ``args`` are the arguments as Spark's parser read them: ``str`` / ``int`` literals, :class:`Lambda`,
    :class:`NotLiteral` for anything else. Java-compiling a regex is the caller's part.
    """
    lowered = name.lower()
    for position in REGEX_ARGUMENTS.get(lowered, ()):
        if position >= len(args):
            continue
        pattern = args[position]
        if not isinstance(pattern, str):
            return f"calls {name}() with a pattern that is not a string literal; write the regex out"
        if (problem := regex_problem(pattern)) is not None:
            return f"calls {name}() with a {problem}"
    if lowered in _GROUP_INDEX and len(args) >= 2 and isinstance(args[1], str):
        position, default = _GROUP_INDEX[lowered]
        index = args[position] if position < len(args) else default
        if not isinstance(index, int):
            return f"calls {name}() with a group index that is not an integer literal"
        groups = capturing_groups(args[1])
        if not 0 <= index <= groups:
            return (
                f"calls {name}() with group {index}, but pattern {shown(args[1])} has {groups} capturing group(s)"
                + (" (the default group is 1: pass 0 for the whole match)" if position >= len(args) else "")
            )
    if lowered in GROWING and len(args) >= 3:
        if lowered == "regexp_replace" and args[1] == "" and args[2] != "":
            return f"calls {name}() with an empty pattern, which inserts the replacement between every character"
        replacement = args[2]
        if not isinstance(replacement, str):
            return f"calls {name}() with a replacement that is not a string literal"
        if len(replacement) > MAX_REPLACEMENT_CHARS:
            return (
                f"calls {name}() with a replacement of {len(replacement)} characters; at most {MAX_REPLACEMENT_CHARS}"
            )
        inner = args[0].growth if isinstance(args[0], NotLiteral) else 1
        if (growth := replacement_factor(lowered, args) * inner) > MAX_REPLACEMENT_CHARS:
            return (
                f"nests {name}() around other replacements that together make a text up to {growth} times longer; "
                f"at most {MAX_REPLACEMENT_CHARS}"
            )
    if lowered in ("format_string", "printf") and args:
        if not isinstance(args[0], str):
            return f"calls {name}() with a format that is not a string literal"
        if (problem := _format_problem(name, args[0])) is not None:
            return problem
    if lowered == "format_number" and len(args) >= 2:
        decimals = args[1]
        if isinstance(decimals, int) and decimals > MAX_FORMAT_WIDTH:
            return f"calls {name}() with {decimals} decimals; at most {MAX_FORMAT_WIDTH} are allowed"
        if not isinstance(decimals, int | str):
            return f"calls {name}() with a number of decimals that is not a literal"
    if lowered in ("aggregate", "reduce") and len(args) >= 3 and isinstance(args[2], Lambda) and args[2].params:
        accumulator = args[2].params[0]
        if (reads := args[2].reads.get(accumulator, 0)) > 1:
            return (
                f"calls {name}() whose merge function reads its accumulator {accumulator} {reads} times; "
                "read it once (the result could double with every element)"
            )
    return None
