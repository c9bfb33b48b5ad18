"""``define(...)`` calls turned into catalog entries (name, type, default, validator, importance, ...)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tools.kafka_configs.defines import Define, find_defines, merged_sources
from tools.kafka_configs.facts.models import ConfigDefRef, MergedConfigDefs
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.validators import ValidatorParser
from tools.kafka_configs.values import NO_DEFAULT, ClassRef, Unresolved, java_double, jstr

__all__ = ["collect", "define_to_entry", "render_default"]

IMPORTANCE = {"HIGH", "MEDIUM", "LOW"}


def render_default(v: Any, typ: str) -> tuple[Any, bool, str | None]:
    """A default value as ``ConfigDef.convertToString`` renders it for a key of type ``typ``.

    Args:
        v: the evaluated default.
        typ: the ConfigDef type (``INT``, ``LIST``, ...).

    Returns:
        ``(rendered default or None, required, problem)``; required is True for ``NO_DEFAULT_VALUE``.
    """
    if v is NO_DEFAULT:
        return None, True, None
    if isinstance(v, Unresolved):
        return f"UNRESOLVED: {v.text}", False, v.text
    if v is None:
        return None, False, None
    if typ == "LIST":
        if isinstance(v, list):
            return ",".join(jstr(x) for x in v), False, None
        if isinstance(v, str):
            t = v.strip()
            return ",".join(re.split(r"\s*,\s*", t)) if t else "", False, None
    if typ == "CLASS":
        if isinstance(v, ClassRef):
            return v.fqcn, False, None
        if isinstance(v, str):
            return v, False, None
    if typ == "BOOLEAN":
        if isinstance(v, bool):
            return "true" if v else "false", False, None
        if isinstance(v, str) and v.strip().lower() in ("true", "false"):
            return v.strip().lower(), False, None
    if typ in ("INT", "LONG", "SHORT"):
        if isinstance(v, str):
            try:
                return str(int(v.strip())), False, None
            except ValueError:
                return f"UNRESOLVED: {v}", False, v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return str(int(v)), False, None
    if typ == "DOUBLE":
        if isinstance(v, str):
            return java_double(float(v)), False, None
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return java_double(float(v)), False, None
    if typ in ("STRING", "PASSWORD"):
        if isinstance(v, (str, int, float, bool)):
            return jstr(v), False, None
        if isinstance(v, ClassRef):
            return v.fqcn, False, None
    return f"UNRESOLVED: {v!r}", False, repr(v)


def define_to_entry(r: Resolver, vp: ValidatorParser, d: Define) -> dict[str, Any]:
    """The catalog entry of one ``define(name, type, [default, [validator,]] importance, doc, ...)`` call.

    Args:
        r: evaluates the name and default.
        vp: parses the validator.
        d: the call.

    Returns:
        The entry; ``_source`` holds ``file:line`` and ``_problems`` anything unresolved (both are removed or
        renamed when the document is assembled).
    """
    sf = r.file(d.file)
    toks = sf.toks
    # the importance argument is the first (from the third on) ending in HIGH/MEDIUM/LOW; default and validator
    # are optional before it
    imp_idx = None
    for k, (_s, e) in enumerate(d.args):
        last = toks[e - 1].text
        if toks[e - 1].kind == "id" and last in IMPORTANCE and k >= 2:
            imp_idx = k
            break
    problems: list[str] = []
    name = r.eval(sf, *d.args[0])
    typ = toks[d.args[1][1] - 1].text
    entry: dict[str, Any] = {"name": name if isinstance(name, str) else f"UNRESOLVED: {name}", "type": typ}
    if imp_idx is None:
        problems.append("importance not found")
        imp_idx = len(d.args)
    between = d.args[2:imp_idx]
    default: Any = NO_DEFAULT
    validator_rng = None
    if len(between) >= 1:
        default = r.eval(sf, *between[0])
    if len(between) >= 2:
        validator_rng = between[1]
    rendered, required, prob = render_default(default, typ)
    if prob:
        problems.append(f"default: {prob}")
    entry["default"] = rendered
    if required:
        entry["required"] = True
    validator = vp.parse(sf, *validator_rng) if validator_rng else None
    entry["validator"] = validator
    entry["importance"] = toks[d.args[imp_idx][1] - 1].text if imp_idx < len(d.args) else None
    if typ == "PASSWORD":
        entry["sensitive"] = True
    if d.internal:
        entry["internal"] = True
    entry["_source"] = f"{d.file}:{d.line}"
    if "UNRESOLVED" in repr(validator):
        problems.append(f"validator: {validator}")
    if problems:
        entry["_problems"] = problems
    return entry


def collect(
    r: Resolver,
    vp: ValidatorParser,
    sources: Sequence[ConfigDefRef | MergedConfigDefs],
    problems: list[str],
) -> list[dict[str, Any]]:
    """The entries of the ConfigDefs ``sources``, in source order; the first definition of a key wins.

    Args:
        r: the resolver.
        vp: the validator parser.
        sources: ConfigDefs from the release facts.
        problems: gets a line for every missing file or ConfigDef.

    Returns:
        One entry per key.
    """
    entries: dict[str, dict[str, Any]] = {}
    expanded: list[tuple[str, str]] = []
    for src in sources:
        if isinstance(src, MergedConfigDefs):
            expanded.extend(merged_sources(r, src.file, src.merge_configs, problems))
        else:
            expanded.append((src.file, src.owner))
    for path, owner in expanded:
        if not r.tree.exists(path):
            problems.append(f"missing source file {path}")
            continue
        sf = r.file(path)
        all_defs = find_defines(sf)
        defs = [d for d in all_defs if d.owner == owner]
        if not defs:
            problems.append(f"no defines for owner {owner} in {path} (owners: {sorted({d.owner for d in all_defs})})")
        for d in defs:
            if d.single_key:
                continue
            e = define_to_entry(r, vp, d)
            if e["name"] in entries:
                # ConfigDef.define throws on duplicates within one def; Utils.mergeConfigs keeps the first
                continue
            entries[e["name"]] = e
    return list(entries.values())
