"""The structure of one source file: package, imports, classes with their constants, enum constants and methods.

Only token ranges are recorded (a constant's initializer, a method's body); values are computed on demand by
:mod:`tools.kafka_configs.resolver`. Scala companions (``class X`` / ``object X``) are merged into one entry.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

from tools.kafka_configs.lexer import CLOSE, OPEN, Tok, lex, match_close, split_args

__all__ = ["ClassInfo", "Import", "SourceFile"]


@dataclass
class ClassInfo:
    """A class, interface, enum, object, trait or record and the token ranges of its members."""

    name: str
    kind: str  # class interface enum object trait record
    parent: ClassInfo | None
    body_start: int
    body_end: int
    consts: dict[str, tuple[int, int]] = field(default_factory=dict)  # initializer ranges
    enum_consts: dict[str, tuple[int, int]] = field(default_factory=dict)  # argument ranges (may be empty)
    enum_order: list[str] = field(default_factory=list)
    methods: dict[str, tuple[int, int]] = field(default_factory=dict)  # body ranges
    supers: list[str] = field(default_factory=list)


@dataclass
class Import:
    """One imported name (Java ``import [static] a.b.C[.m]``, Scala ``import a.b.{C, D => E, _}``)."""

    path: list[str]  # package + class (+ member)
    member: str | None  # imported member (static / Scala) or None
    alias: str | None
    wildcard: bool
    static: bool


@dataclass
class _Frame:
    kind: str  # class method block
    cls: ClassInfo | None


KEYWORDS_CLASS = {"class", "interface", "enum", "object", "trait", "record"}

# A Scala line ending in one of these continues on the next line.
SCALA_CONT_END = {
    ".",
    ",",
    "(",
    "[",
    "{",
    "=",
    "+",
    "-",
    "*",
    "/",
    "++",
    "&&",
    "||",
    "->",
    "=>",
    ":",
    "::",
    "with",
    "extends",
    "new",
    "<-",
    "!",
    "%",
    ":+",
    "+:",
}


class SourceFile:
    """One lexed Java or Scala file and its structure."""

    def __init__(self, path: str, src: str) -> None:
        """Lex and index a file.

        Args:
            path: repo path (``.scala`` switches to Scala statement rules).
            src: the file's text.
        """
        self.path = path
        self.scala = path.endswith(".scala")
        self.toks = lex(src)
        self.pkg = ""
        self.imports: list[Import] = []
        self.classes: dict[str, ClassInfo] = {}  # simple name -> info (first wins; companions merged into it)
        self.all_classes: list[ClassInfo] = []
        self._parse()
        # Scala companions (class X / object X) and same-named nested classes: merge into the first one
        for c in self.all_classes:
            first = self.classes[c.name]
            if first is not c:
                self._merge(first, c)

    def with_tokens_appended(self, extra: Sequence[Tok]) -> SourceFile:
        """A view of this file with ``extra`` tokens after its own, sharing imports and classes.

        Expressions written for a file (e.g. the dynamic-config tables) are evaluated as if they were in it.

        Args:
            extra: tokens of the expression.

        Returns:
            A shallow copy whose ``toks`` end with ``extra``.
        """
        view = copy.copy(self)
        view.toks = [*self.toks, *extra]
        return view

    def class_at(self, idx: int) -> ClassInfo | None:
        """The innermost class whose body contains token ``idx``."""
        best: ClassInfo | None = None
        for c in self.all_classes:
            if c.body_start <= idx < c.body_end and (best is None or c.body_start > best.body_start):
                best = c
        return best

    # ---- structure
    def _parse(self) -> None:
        toks = self.toks
        i = 0
        n = len(toks)
        stack: list[_Frame] = []
        stmt_start = 0
        while i < n:
            t = toks[i]
            if t.kind == "id" and t.text == "package" and not stack:
                j = i + 1
                parts = []
                while j < n and (toks[j].kind == "id" or toks[j].text == "."):
                    if toks[j].kind == "id":
                        parts.append(toks[j].text)
                    j += 1
                    if j < n and toks[j].nl_before:
                        break
                self.pkg = ".".join(parts)
                i = j
                stmt_start = i
                continue
            if t.kind == "id" and t.text == "import":
                i = self._parse_import(i)
                stmt_start = i
                continue
            if t.kind == "op" and t.text == "{":
                header = toks[stmt_start:i]
                cls = self._class_header(header)
                parent = self._innermost_class(stack)
                if cls is not None:
                    kind, name, supers = cls
                    info = ClassInfo(name, kind, parent, i + 1, match_close(toks, i), supers=supers)
                    self.all_classes.append(info)
                    self.classes.setdefault(name, info)
                    stack.append(_Frame("class", info))
                    if kind == "enum":
                        self._parse_enum(info)
                else:
                    mname = self._method_name(header)
                    if mname and stack and stack[-1].kind == "class" and parent is not None:
                        parent.methods.setdefault(mname, (i + 1, match_close(toks, i)))
                    stack.append(_Frame("method" if mname else "block", None))
                i += 1
                stmt_start = i
                continue
            if t.kind == "op" and t.text == "}":
                if stack:
                    stack.pop()
                i += 1
                stmt_start = i
                continue
            if t.kind == "op" and t.text == ";":
                i += 1
                stmt_start = i
                continue
            if self.scala and t.nl_before and i > stmt_start and self._scala_stmt_break(i):
                stmt_start = i
            # constants directly in a class body
            if t.kind == "op" and t.text == "=" and stack and stack[-1].cls is not None:
                info = stack[-1].cls
                const = self._decl_name(toks[stmt_start:i])
                if const:
                    end = self._expr_end(i + 1)
                    info.consts.setdefault(const, (i + 1, end))
                    # skip over the expression (define chains are found by a separate scan over all tokens)
                    i = end
                    stmt_start = i
                    continue
            # skip balanced parens/brackets so that `{` inside lambdas in arguments doesn't confuse headers
            if t.kind == "op" and t.text in ("(", "["):
                i = match_close(toks, i) + 1
                continue
            i += 1

    def _scala_stmt_break(self, i: int) -> bool:
        prev = self.toks[i - 1]
        cur = self.toks[i]
        if prev.text in SCALA_CONT_END and prev.kind in ("op", "id"):
            return False
        if cur.kind == "op" and cur.text in (".", ")", "]", "}", ",", "+", "++", "=", "::", "=>"):
            return False
        return not (cur.kind == "id" and cur.text in ("extends", "with", "else", "catch", "finally", "match"))

    @staticmethod
    def _innermost_class(stack: list[_Frame]) -> ClassInfo | None:
        for frame in reversed(stack):
            if frame.cls is not None:
                return frame.cls
        return None

    @staticmethod
    def _merge(old: ClassInfo, new: ClassInfo) -> None:
        for k, v in new.consts.items():
            old.consts.setdefault(k, v)
        for k, v in new.enum_consts.items():
            old.enum_consts.setdefault(k, v)
        for k, v in new.methods.items():
            old.methods.setdefault(k, v)

    @staticmethod
    def _class_header(header: Sequence[Tok]) -> tuple[str, str, list[str]] | None:
        for k, t in enumerate(header):
            if t.kind == "id" and t.text in KEYWORDS_CLASS and k + 1 < len(header) and header[k + 1].kind == "id":
                if k > 0 and header[k - 1].text in ("@", "."):
                    continue  # @interface, X.class
                supers = [
                    h.text
                    for h in header[k + 2 :]
                    if h.kind == "id" and h.text not in ("extends", "implements", "with")
                ]
                return t.text, header[k + 1].text, supers
        return None

    @staticmethod
    def _method_name(header: Sequence[Tok]) -> str | None:
        texts = [t.text for t in header]
        if "def" in texts:
            k = texts.index("def")
            return texts[k + 1] if k + 1 < len(texts) else None
        if "new" in texts or "=" in texts or "->" in texts or "=>" in texts:
            return None
        for k in range(len(header) - 1):
            if (
                header[k].kind == "id"
                and header[k + 1].text == "("
                and header[k].text not in ("if", "for", "while", "switch", "catch", "synchronized", "try")
            ):
                return header[k].text
        return None

    def _decl_name(self, head: Sequence[Tok]) -> str | None:
        head = self._strip_annotations(head)
        texts = [t.text for t in head]
        if not texts:
            return None
        if self.scala:
            for kw in ("val", "var"):
                if kw in texts:
                    k = texts.index(kw)
                    if k + 1 < len(head) and head[k + 1].kind == "id":
                        return head[k + 1].text
            return None
        if "(" in texts or "return" in texts:
            return None
        # Java: [modifiers] Type[<..>][[]] NAME
        last = head[-1]
        if last.kind == "id" and len(head) >= 2:
            return last.text
        return None

    @staticmethod
    def _strip_annotations(head: Sequence[Tok]) -> list[Tok]:
        out: list[Tok] = []
        k = 0
        while k < len(head):
            if head[k].text == "@" and k + 1 < len(head) and head[k + 1].kind == "id":
                k += 2
                while k + 1 < len(head) and head[k].text == "." and head[k + 1].kind == "id":
                    k += 2
                if k < len(head) and head[k].text == "(":
                    depth = 0
                    while k < len(head):
                        if head[k].text == "(":
                            depth += 1
                        elif head[k].text == ")":
                            depth -= 1
                            if depth == 0:
                                k += 1
                                break
                        k += 1
                continue
            out.append(head[k])
            k += 1
        return out

    def _expr_end(self, start: int) -> int:
        toks = self.toks
        depth = 0
        j = start
        while j < len(toks):
            t = toks[j]
            if t.kind == "op":
                if t.text in OPEN:
                    depth += 1
                elif t.text in CLOSE:
                    if depth == 0:
                        return j
                    depth -= 1
                elif t.text == ";" and depth == 0:
                    return j
            if self.scala and depth == 0 and j > start and t.nl_before and self._scala_stmt_break(j):
                return j
            j += 1
        return j

    def _parse_import(self, i: int) -> int:
        toks = self.toks
        j = i + 1
        static = False
        if j < len(toks) and toks[j].text == "static":
            static = True
            j += 1
        parts: list[str] = []
        while j < len(toks):
            t = toks[j]
            if self.scala and t.nl_before and j > i + 1 and parts and toks[j - 1].text != ".":
                break
            if t.text == "*" or t.text == "_":
                self.imports.append(Import(parts, None, None, True, static))
                return j + 1
            if t.kind == "id":
                parts.append(t.text)
                j += 1
            elif t.text == ".":
                j += 1
            elif t.text == "{":
                end = match_close(toks, j)
                for s, e in split_args(toks, j + 1, end):
                    seg = [x.text for x in toks[s:e]]
                    if seg == ["_"]:
                        self.imports.append(Import(parts, None, None, True, static))
                    elif len(seg) >= 3 and seg[1] in ("=>", "as"):
                        self.imports.append(Import([*parts, seg[0]], seg[0], seg[2], False, static))
                    elif seg:
                        self.imports.append(Import([*parts, seg[0]], seg[0], None, False, static))
                return end + 1
            elif t.text == ";":
                j += 1
                break
            else:
                break
        if parts:
            self.imports.append(Import(parts, parts[-1], None, False, static))
        return j

    def _parse_enum(self, info: ClassInfo) -> None:
        toks = self.toks
        j = info.body_start
        end = info.body_end
        # enum constants run until the first ';' at depth 0 (or the end of the body)
        k = j
        depth = 0
        while k < end:
            t = toks[k]
            if t.kind == "op" and t.text in OPEN:
                depth += 1
            elif t.kind == "op" and t.text in CLOSE:
                depth -= 1
            elif t.text == ";" and depth == 0:
                break
            k += 1
        for s, e in split_args(toks, j, k):
            while s < e and toks[s].text == "@":
                s += 2
            if s < e and toks[s].kind == "id":
                name = toks[s].text
                if s + 1 < e and toks[s + 1].text == "(":
                    close = match_close(toks, s + 1)
                    info.enum_consts[name] = (s + 2, close)
                else:
                    info.enum_consts[name] = (s + 1, s + 1)
                info.enum_order.append(name)
