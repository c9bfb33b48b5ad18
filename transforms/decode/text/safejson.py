"""``json.loads`` for one line of hostile text: every failure is a reason, never an exception.

Three things ``json.loads`` accepts or raises that the bronze tables cannot take:

* nesting deeper than the interpreter's recursion limit raises ``RecursionError`` (not ``ValueError``);
* nesting that parses but is absurdly deep (no Kafka record nests more than a few levels) would make every later
  step (redaction, re-encoding, Spark's JSON functions) walk it or fail on it;
* a ``\\ud800`` escape gives a string with a lone surrogate, which has no UTF-8 form for Arrow.

The checks cost nothing on ordinary lines: the depth walk runs only when the line holds many brackets and the
surrogate check only when it holds a ``\\u`` escape.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

from transforms.kit.bounds import is_utf8_encodable

MAX_DEPTH: Final = 64  # Kafka records nest at most four or five levels (arrays of structs of arrays)

Problem = Literal["invalid", "too_deep", "lone_surrogate"]
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, check_circular=False)


def load_json(text: str) -> tuple[Any, None, None] | tuple[None, Problem, str]:
    """Parse one JSON text.

    Args:
        text: The JSON text (one line).

    Returns:
        ``(value, None, None)``, or ``(None, problem, reason)`` where ``problem`` is ``invalid`` (not JSON),
        ``too_deep`` (nested deeper than ``MAX_DEPTH``) or ``lone_surrogate`` (a string cannot be UTF-8). The
        reason (without a prefix: callers say what the text was) never quotes the text.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        return None, "too_deep", f"nested deeper than {MAX_DEPTH} levels"
    except ValueError as exc:
        # JSONDecodeError's message names a position, never the text; other ValueErrors (an integer of more than
        # 4300 digits) are named by type only.
        return None, "invalid", str(exc) if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
    if text.count("{") + text.count("[") > MAX_DEPTH and depth_exceeds(value, MAX_DEPTH):
        return None, "too_deep", f"nested deeper than {MAX_DEPTH} levels"
    if "\\u" in text and not is_utf8_encodable(_ENCODER.encode(value)):
        return None, "lone_surrogate", "a string holds a lone UTF-16 surrogate (no UTF-8 form)"
    return value, None, None


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists/dicts more than ``limit`` levels deep (iterative: no recursion limit)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False
