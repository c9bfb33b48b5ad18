"""Validator expressions of ``define(...)`` calls turned into the structured forms of ``conf/kafka/README.md``.

Range and value-set validators become ``at_least`` / ``between`` / ``in`` / ``list_in`` ...; validators that are code
become ``{kind: custom, name, description}`` with the description from the facts, unless the facts say the code is
exactly a structured form (``known``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tools.kafka_configs.facts.models import CustomDescription, KnownValidator
from tools.kafka_configs.lexer import match_close, split_args, text_of
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.source import ClassInfo, SourceFile
from tools.kafka_configs.values import Unresolved

__all__ = ["ValidatorParser", "vform"]


def vform(kind: str, **fields: Any) -> dict[str, Any]:
    """A validator in catalog form: ``{kind: ..., <fields in the given order>}``."""
    return {"kind": kind, **fields}


class ValidatorParser:
    """Parses validator expressions of one release."""

    def __init__(
        self,
        r: Resolver,
        kip1161: bool,
        known: Iterable[KnownValidator] = (),
        descriptions: Iterable[CustomDescription] = (),
    ) -> None:
        """Set up parsing.

        Args:
            r: evaluates validator arguments.
            kip1161: the release's ``ValidList`` follows KIP-1161 (empty/null flags, no duplicates).
            known: code validators that are exactly a structured form.
            descriptions: what the other code validators check.
        """
        self.r = r
        self.kip1161 = kip1161
        self.known: dict[str, dict[str, Any]] = {}
        for k in known:
            form = k.validator.model_dump(mode="json")
            # the source may call the factory with or without parentheses
            self.known[k.expression] = form
            self.known[k.expression + "()"] = form
        self.descriptions: dict[str, str] = {d.name: d.description for d in descriptions}
        # "Outer.Inner" descriptions also answer to the simple name (the first one wins), except the generic
        # "X.Validator", whose simple name says nothing
        for d in descriptions:
            short = d.name.split(".")[-1]
            if short != "Validator":
                self.descriptions.setdefault(short, d.description)

    def parse(self, sf: SourceFile, s: int, e: int) -> Any:
        """The structured form of the validator expression ``sf.toks[s:e]``.

        Returns:
            None for ``null``, a validator dict, or a list of them (``CompositeValidator.of``).
        """
        toks = sf.toks
        txt = text_of(toks, s, e)
        if txt == "null":
            return None
        key = re.sub(r"\s+", "", txt)
        if key in self.known:
            return self.known[key]
        j = s
        if toks[j].text == "new":
            j += 1
        # qualified call name
        parts: list[str] = []
        while j < e and (toks[j].kind == "id" or toks[j].text == "."):
            if toks[j].kind == "id":
                parts.append(toks[j].text)
            j += 1
        if j < e and toks[j].text == "(":
            close = match_close(toks, j)
            if close == e - 1:
                args = split_args(toks, j + 1, close)
                return self._call(sf, parts, args, txt, is_new=toks[s].text == "new")
        if j == e and parts:
            return self._named(sf, s, parts, txt)
        return self.custom(txt, txt)

    def _named(self, sf: SourceFile, s: int, parts: list[str], txt: str) -> Any:
        # a named validator: a constant, an object or Foo.INSTANCE
        if parts[-1] == "INSTANCE" or (len(parts) == 1 and sf.scala):
            cname = parts[-2] if parts[-1] == "INSTANCE" else parts[-1]
            hit = self.r.lookup_const(sf, sf.class_at(s), parts[0]) if len(parts) == 1 else None
            if hit is None:
                return self.custom(cname, txt)
        hit = None
        if len(parts) == 1:
            hit = self.r.lookup_const(sf, sf.class_at(s), parts[0])
        else:
            found = self.r.find_class(sf, parts[-2])
            if found is not None and parts[-1] in found[1].consts:
                hit = (found[0], found[1], parts[-1])
        if hit is not None:
            f, c, nm = hit
            cs, ce = c.consts[nm]
            v = self.parse(f, cs, ce)
            if isinstance(v, dict) and v.get("kind") == "custom":
                return self.custom(f"{c.name}.{nm}", text_of(f.toks, cs, ce))
            return v
        return self.custom(txt, txt)

    def _call(self, sf: SourceFile, parts: list[str], args: list[tuple[int, int]], txt: str, is_new: bool) -> Any:
        name = parts[-1] if parts else ""
        owner = parts[-2] if len(parts) >= 2 else ""

        def ev(a: tuple[int, int]) -> Any:
            return self.r.eval(sf, a[0], a[1])

        if name == "atLeast" and owner in ("", "Range"):
            return vform("at_least", min=_num_or_unresolved(ev(args[0])))
        if name == "between" and owner in ("", "Range"):
            return vform("between", min=_num_or_unresolved(ev(args[0])), max=_num_or_unresolved(ev(args[1])))
        if name == "in" and owner == "CaseInsensitiveValidString":
            return vform("in", values=_flat_values([ev(a) for a in args]), case_insensitive=True)
        if name == "in" and (owner == "ValidList" or (owner == "" and _bare_in_is_list(sf))):
            vals = [ev(a) for a in args]
            if self.kip1161:
                # 4.2+: ValidList.in(boolean isEmptyAllowed, String... validStrings); null is never allowed
                empty_ok = True
                if vals and isinstance(vals[0], bool):
                    empty_ok = vals[0]
                    vals = vals[1:]
                return vform(
                    "list_in", values=_flat_values(vals), empty_allowed=empty_ok, null_allowed=False, kip1161=True
                )
            return vform("list_in", values=_flat_values(vals), empty_allowed=True, null_allowed=True, kip1161=False)
        if name == "in" and owner in ("ValidString", ""):
            return vform("in", values=_flat_values([ev(a) for a in args]), case_insensitive=False)
        if name == "anyNonDuplicateValues":
            a, b = ev(args[0]), ev(args[1])
            return vform("non_duplicate_list", empty_allowed=a, null_allowed=b, kip1161=True)
        if name == "NonEmptyString" and is_new:
            return vform("non_empty_string")
        if name == "NonNullValidator" and is_new:
            return vform("non_null")
        if name == "of" and owner == "CompositeValidator":
            out = []
            for a in args:
                v = self.parse(sf, a[0], a[1])
                out.extend(v if isinstance(v, list) else [v])
            return out
        if is_new:
            return self.custom(self._stable_name(sf, parts), txt)
        return self.custom(".".join(parts) + "(...)", txt)

    def _stable_name(self, sf: SourceFile, parts: list[str]) -> str:
        """``Outer.Inner`` name of a validator class, whatever way the source spelled it."""
        parts = [p for p in parts if p != "ConfigDef"] or parts
        found = self.r.find_class(sf, parts[0])
        if found is None:
            return ".".join(parts)
        f, info = found
        for nested in parts[1:]:
            if nested in f.classes:
                info = f.classes[nested]
        chain = []
        c: ClassInfo | None = info
        while c is not None:
            chain.append(c.name)
            c = c.parent
        return ".".join(reversed(chain))

    def custom(self, name: str, txt: str) -> dict[str, Any]:
        """A ``custom`` validator; without a description in the facts it is flagged (``UNDESCRIBED``) for review."""
        desc = self.descriptions.get(name) or self.descriptions.get(name.split(".")[-1].split("(")[0])
        return vform("custom", name=name, description=desc or f"UNDESCRIBED code validator: {txt}")


def _bare_in_is_list(sf: SourceFile) -> bool:
    # a bare `in(...)` is ValidList.in when the file imports it statically
    for imp in sf.imports:
        if imp.path[-2:] == ["ValidList", "in"] or (imp.wildcard and imp.path[-1:] == ["ValidList"]):
            return True
    return False


def _num_or_unresolved(v: Any) -> Any:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    return f"UNRESOLVED: {v}"


def _flat_values(vals: list[Any]) -> list[Any]:
    # `in(A, B)` and `in(LIST)` / `in(ARRAY...)` both become one list of values
    out: list[Any] = []
    for v in vals:
        if isinstance(v, list):
            out.extend(v)
        else:
            out.append(v)
    return [x if not isinstance(x, Unresolved) else f"UNRESOLVED: {x.text}" for x in out]
