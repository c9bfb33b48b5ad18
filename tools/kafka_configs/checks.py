"""Cross-field checks of one release: the hand-written ones from the facts plus comparisons read from messages.

A ``require(...)`` or ``throw new ...Exception(...)`` whose message renders as ``"<key> must be <comparison> <key>"``
(config-name constants substituted) is a comparison check between two keys; the facts say where to look
(``releases.yaml`` ``must_be_checks``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from tools.kafka_configs.facts.models import ChecksFacts, MustBeSource
from tools.kafka_configs.lexer import CLOSE, OPEN, Tok, match_close, split_args
from tools.kafka_configs.release import Release
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.source import SourceFile

__all__ = ["cross_field_checks", "must_be_checks", "render_message"]

# message phrase -> operator (longest phrases first: "greater than or equal to" before "greater than")
_CMP = [
    ("greater than or equals? to", ">="),
    ("less than or equals? to", "<="),
    ("greater than", ">"),
    ("less than", "<"),
]
OP_WORDS = {">=": "ge", "<=": "le", ">": "gt", "<": "lt"}


def render_message(r: Resolver, sf: SourceFile, s: int, e: int) -> str:
    """Render an exception message expression, substituting config-name constants; unknown parts become ``<?>``.

    Handles ``String.format(template, args...)``, ``+`` concatenation and Scala ``s"...${NAME}..."``.

    Args:
        r: evaluates the parts.
        sf: the file.
        s: first token of the message expression.
        e: end (exclusive).

    Returns:
        The message text.
    """
    toks = sf.toks
    if e - s >= 4 and toks[s].text == "String" and toks[s + 2].text == "format":
        close = match_close(toks, s + 3)
        args = split_args(toks, s + 4, close)
        tmpl = r.eval(sf, *args[0])
        vals = [r.eval(sf, *a) for a in args[1:]]
        if not isinstance(tmpl, str):
            return "<?>"
        out = tmpl
        for v in vals:
            # a function replacement: the value is inserted literally (no backslash processing)
            out = re.sub(r"%[sd]", _literal(v if isinstance(v, str) else "<?>"), out, count=1)
        return out
    parts = []
    for a, b in _split_plus(toks, s, e):
        if b - a == 2 and toks[a].text == "s" and toks[a + 1].kind == "str":
            txt = toks[a + 1].text

            def sub(m: re.Match[str]) -> str:
                v = r.eval_text(sf.path, m.group(1))
                return v if isinstance(v, str) else "<?>"

            parts.append(re.sub(r"\$\{([\w.]+)\}", sub, txt))
        elif b - a == 1 and toks[a].kind == "str":
            parts.append(toks[a].text)
        else:
            v = r.eval(sf, a, b)
            parts.append(v if isinstance(v, str) else "<?>")
    return "".join(parts)


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _m: text


def _split_plus(toks: Sequence[Tok], s: int, e: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    depth = 0
    start = s
    for j in range(s, e):
        t = toks[j]
        if t.kind == "op" and t.text in OPEN:
            depth += 1
        elif t.kind == "op" and t.text in CLOSE:
            depth -= 1
        elif t.kind == "op" and t.text == "+" and depth == 0:
            out.append((start, j))
            start = j + 1
    out.append((start, e))
    return out


def must_be_checks(
    r: Resolver, path: str, resource: str, lhs_names: set[str], rhs_names: set[str], within: str | None = None
) -> list[dict[str, Any]]:
    """Checks whose message reads ``"<key> must be <comparison> <key>"`` in ``path``.

    Args:
        r: the resolver.
        path: the file to scan.
        resource: ``broker`` or ``group`` (the check ids' prefix).
        lhs_names: keys allowed on the left.
        rhs_names: keys allowed on the right.
        within: only inside this method (None: the whole file).

    Returns:
        ``{id, resource, keys, rule, message, source}`` per distinct comparison, in source order.
    """
    sf = r.file(path)
    toks = sf.toks
    lo, hi = 0, len(toks)
    if within:
        for c in sf.all_classes:
            if within in c.methods:
                lo, hi = c.methods[within]
                break
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    j = lo
    while j < hi:
        t = toks[j]
        msg_rng = None
        if t.text == "require" and j + 1 < hi and toks[j + 1].text == "(":
            close = match_close(toks, j + 1)
            args = split_args(toks, j + 2, close)
            if len(args) == 2:
                msg_rng = args[1]
        elif t.text == "throw" and j + 2 < hi and toks[j + 1].text == "new":
            k = j + 2
            while k < hi and toks[k].text != "(":
                k += 1
            close = match_close(toks, k)
            args = split_args(toks, k + 1, close)
            if len(args) == 1:
                msg_rng = args[0]
        if msg_rng is None:
            j += 1
            continue
        msg = render_message(r, sf, *msg_rng)
        for phrase, op in _CMP:
            m = re.match(rf"^`?([\w.\-]+)`? (?:must|should) (?:always )?be {phrase} `?([\w.\-]+)`?\.?$", msg.strip())
            if m and m.group(1) in lhs_names and m.group(2) in rhs_names:
                a, b = m.group(1), m.group(2)
                cid = f"{resource}-{a}-{OP_WORDS[op]}-{b}"
                if cid not in seen:
                    seen.add(cid)
                    out.append(
                        {
                            "id": cid,
                            "resource": resource,
                            "keys": [a, b],
                            "rule": f"{a} {op} {b}",
                            "message": msg.strip(),
                            "source": f"{path}:{toks[j].line}",
                        }
                    )
                break
        j += 1
    return out


def cross_field_checks(
    release: Release,
    r: Resolver,
    facts: ChecksFacts,
    must_be_sources: Sequence[MustBeSource],
    broker_names: set[str],
    group_names: set[str],
) -> list[dict[str, Any]]:
    """All cross-field checks of a release in catalog form, hand-written ones first; the first check of an id wins.

    Args:
        release: the release.
        r: the resolver (for the checks read from messages).
        facts: the hand-written checks.
        must_be_sources: where to read comparison checks from messages.
        broker_names: the release's broker keys.
        group_names: the release's group keys.

    Returns:
        The checks, each ``{id, resource, keys, rule, expr, kafka_effect, source[, note]}`` (message-read ones:
        ``{id, resource, keys, rule, source, expr, kafka_effect, message}``).
    """
    checks: list[dict[str, Any]] = []
    for c in facts.checks:
        if not c.applies_to(release):
            continue
        keys = [k for k in c.keys if k in broker_names] if c.only_defined_keys else list(c.keys)
        d: dict[str, Any] = {
            "id": c.id,
            "resource": c.resource,
            "keys": keys,
            "rule": c.rule,
            "expr": c.expr,
            "kafka_effect": c.kafka_effect or facts.kafka_effects[c.resource],
            "source": c.source_for(release),
        }
        if c.note:
            d["note"] = c.note
        checks.append(d)
    for src in must_be_sources:
        lhs = broker_names if src.resource == "broker" else group_names
        for c2 in must_be_checks(r, src.file, src.resource, lhs, broker_names | group_names, within=src.method):
            checks.append(_comparison_check(c2, src.resource, lhs, broker_names, facts))
    out = []
    seen = set()
    for d in checks:
        if d["id"] in seen:
            continue
        seen.add(d["id"])
        out.append(d)
    return out


def _comparison_check(
    c: dict[str, Any], resource: str, lhs: set[str], broker_names: set[str], facts: ChecksFacts
) -> dict[str, Any]:
    a, b = c["keys"]
    op = c["rule"].split()[1]
    # a Spark expression only when both keys live in the same config (broker: both broker keys; group: a group key
    # compared with another group key); a group key bounded by a broker key reads another entity's value
    same = (a in lhs) and ((b in broker_names) == (resource == "broker"))
    c["expr"] = f"cast(cfg['{a}'] as long) {op} cast(cfg['{b}'] as long)" if same else None
    if resource == "group":
        c["rule"] += (
            " (checked on the group's overrides merged over the broker-derived group defaults; "
            "bounds on the right are the broker's current values)"
            if not same
            else " (on the group's overrides merged over the broker-derived group defaults)"
        )
        c["kafka_effect"] = facts.kafka_effects["group"]
    else:
        c["kafka_effect"] = facts.kafka_effects["broker"]
    c["message"] = c.pop("message")  # last, after expr and kafka_effect
    return c
