"""Finding ``define(...)`` / ``defineInternal(...)`` calls and the ConfigDef each one builds.

A define belongs to an *owner*: the variable a ``new ConfigDef()...`` chain is assigned to
(``CONFIG = new ConfigDef().define(..)``), the receiver of ``X.define(..)`` statements, or ``method()`` for
``return new ConfigDef()...`` inside ``method``. The release facts name ConfigDefs by ``(file, owner)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.kafka_configs.lexer import match_close, split_args
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.source import SourceFile

__all__ = ["Define", "chain_owner", "find_defines", "merged_sources"]


@dataclass
class Define:
    """One ``define(...)`` call: its arguments as token ranges of ``file``."""

    owner: str  # ConfigDef variable / method the define belongs to
    file: str
    line: int
    args: list[tuple[int, int]]
    internal: bool
    single_key: bool = False  # define(ConfigKey)


def find_defines(sf: SourceFile) -> list[Define]:
    """Every ``.define(...)`` / ``.defineInternal(...)`` call of a file, in source order.

    Args:
        sf: the parsed file.

    Returns:
        The calls with their owners (see the module docstring).
    """
    toks = sf.toks
    out: list[Define] = []
    n = len(toks)
    i = 0
    while i < n:
        t = toks[i]
        if (
            t.kind == "id"
            and t.text in ("define", "defineInternal")
            and i > 0
            and toks[i - 1].text == "."
            and i + 1 < n
            and toks[i + 1].text == "("
        ):
            close = match_close(toks, i + 1)
            args = split_args(toks, i + 2, close)
            owner = chain_owner(sf, i - 1)
            single = len(args) == 1
            out.append(Define(owner, sf.path, t.line, args, t.text == "defineInternal", single))
            i = close + 1
            continue
        i += 1
    return out


def chain_owner(sf: SourceFile, dot: int) -> str:
    """Walk back from the ``.`` before ``define`` over the call chain to its head and name the ConfigDef.

    Args:
        sf: the file.
        dot: index of the ``.`` token before ``define``.

    Returns:
        The owner: a variable name, ``method()``, ``<self>`` (``this.define``) or ``<unknown>``.
    """
    toks = sf.toks
    j = dot - 1
    while j >= 0:
        t = toks[j]
        if t.text in (")", "]"):
            # skip balanced group
            depth = 0
            while j >= 0:
                if toks[j].text in (")", "]"):
                    depth += 1
                elif toks[j].text in ("(", "["):
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            j -= 1
            continue
        if t.kind == "id":
            if j > 0 and toks[j - 1].text == ".":
                j -= 2
                continue
            if j > 0 and toks[j - 1].text == "new":
                # head is `new XConfigDef(...)`: owner is the assignment target or the enclosing method
                return _assignment_target(sf, j - 1)
            if t.text in ("super", "this"):
                return "<self>"
            return t.text
        return "<unknown>"
    return "<unknown>"


def _assignment_target(sf: SourceFile, new_idx: int) -> str:
    toks = sf.toks
    j = new_idx - 1
    # skip Scala block openers and import statements inside `val configDef = { import ...; new ConfigDef() ...`
    depth = 0
    while j >= 0:
        t = toks[j]
        if t.text == "}":
            depth += 1
        elif t.text == "{":
            if depth == 0:
                j -= 1
                continue
            depth -= 1
        elif depth == 0 and t.text == "=" and j > 0 and toks[j - 1].kind == "id":
            return toks[j - 1].text
        elif depth == 0 and t.text == "=" and j > 0 and toks[j - 1].text == "]":
            # Scala val x: Map[A, B] = ...
            k = j - 1
            while k >= 0 and toks[k].text != ":":
                k -= 1
            return toks[k - 1].text
        elif depth == 0 and t.text == "return":
            cls = sf.class_at(j)
            if cls is not None:
                for mname, (s, e) in cls.methods.items():
                    if s <= j < e:
                        return mname + "()"
            return "<return>"
        elif depth == 0 and t.text == ";":
            break
        j -= 1
    return "<unknown>"


def merged_sources(r: Resolver, path: str, const: str, problems: list[str]) -> list[tuple[str, str]]:
    """The ConfigDefs listed in ``CONST = Utils.mergeConfigs(List.of(A.X, B.y(), ...))`` in ``path``.

    Reading the list from the source follows moved or renamed config classes without new release facts.

    Args:
        r: the resolver (finds the classes named in the list).
        path: the file holding the constant.
        const: the constant's name.
        problems: gets a line for anything not found.

    Returns:
        ``(file, owner)`` per listed ConfigDef, in list order; ``y()`` entries have owner ``"y()"``.
    """
    sf = r.file(path)
    toks = sf.toks
    for info in sf.all_classes:
        if const in info.consts:
            s, e = info.consts[const]
            break
    else:
        problems.append(f"{const} not found in {path}")
        return []
    k = next(j for j in range(s, e) if toks[j].text == "mergeConfigs")
    inner = next(j for j in range(k + 2, e) if toks[j].text == "(")  # List.of( / Arrays.asList(
    close = match_close(toks, inner)
    out: list[tuple[str, str]] = []
    for a, b in split_args(toks, inner + 1, close):
        parts = [t.text for t in toks[a:b]]
        cls, member = parts[0], parts[2]
        owner = member + "()" if len(parts) > 3 and parts[3] == "(" else member
        found = r.find_class(sf, cls)
        if found is None:
            problems.append(f"mergeConfigs: class {cls} not found")
            continue
        out.append((found[0].path, owner))
    return out
