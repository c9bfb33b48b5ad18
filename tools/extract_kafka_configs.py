#!/usr/bin/env python3
"""Extract Kafka's config definitions for one release from a git mirror into a YAML catalog.

Run by hand, never by tests or CI::

    .venv/bin/python tools/extract_kafka_configs.py --git-dir /work/.mirror/confluentinc+kafka/repo \\
        --repo confluentinc/kafka --ref 4.4 --release 4.4 --out conf/kafka/4.4.yaml

How it works (see conf/kafka/README.md for the output format):

* A small lexer tokenises the Java and Scala sources of the release (read with ``git show <ref>:<path>``,
  no work tree needed).
* Every ``define(...)`` / ``defineInternal(...)`` call is found and attributed to the ConfigDef it builds
  (``X = new ConfigDef().define(..)...``, ``X.define(..)`` statements, ``return new ConfigDef()...`` in
  method ``X``).  The release tables below (``RELEASES``) list which ConfigDefs make up each resource
  (broker / topic / group / client_metrics); they were written by reading each release's merge code
  (KafkaConfig.configDef / AbstractKafkaConfig.CONFIG_DEF, LogConfig, GroupConfig, ClientMetricsConfigs).
* Names and defaults are resolved by evaluating constant expressions across files (string concatenation,
  integer arithmetic, ``Long.MAX_VALUE``, ``TimeUnit.X.toMillis``, list builders, enum names, class names,
  Scala ``Defaults`` objects, static and Scala imports).
* Validators are turned into the structured form of the README.  Validators that are code (lambdas,
  custom classes) become ``{kind: custom}``; where a custom validator is exactly a range or a value set,
  ``KNOWN_VALIDATORS`` maps it (each entry was checked by reading the validator's code).
* The broker dynamic scopes are computed from the reconfigurable sets that each release's
  DynamicBrokerConfig unions (``DYNAMIC`` tables below, composition read by hand from the source; the
  members of each set are extracted from the code).
* ``MANUAL`` holds hand-checked facts the extractor cannot derive (cross-field checks, expressions it
  cannot evaluate).  Anything still unresolved is listed under ``unresolved:`` in the output and makes
  the script exit with status 3, so a human has to look at it.

Only facts are written (names, types, defaults, validators, importance, dynamic scopes, synonyms).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import yaml

# --------------------------------------------------------------------------------------------------
# git access


class Git:
    """Reads files of one ref of a bare git mirror."""

    def __init__(self, git_dir: str, ref: str) -> None:
        self.git_dir = git_dir
        self.ref = ref
        self.commit = self._run("rev-parse", f"{ref}^{{commit}}").strip()
        names = self._run("ls-tree", "-r", "--name-only", self.commit).splitlines()
        self.paths = [p for p in names if p.endswith((".java", ".scala")) and "/src/main/" in p]
        self.by_basename: dict[str, list[str]] = {}
        for p in self.paths:
            base = p.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            self.by_basename.setdefault(base, []).append(p)
        self._cache: dict[str, str] = {}

    def _run(self, *args: str) -> str:
        out = subprocess.run(["git", f"--git-dir={self.git_dir}", *args], check=True, capture_output=True, text=True)
        return out.stdout

    def read(self, path: str) -> str:
        if path not in self._cache:
            self._cache[path] = self._run("show", f"{self.commit}:{path}")
        return self._cache[path]

    def exists(self, path: str) -> bool:
        return path in self.paths


# --------------------------------------------------------------------------------------------------
# lexer

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


@dataclass(frozen=True)
class Tok:
    kind: str  # id str num op char
    text: str
    line: int
    nl_before: bool  # a newline separates this token from the previous one (Scala statement ends)


def lex(src: str) -> list[Tok]:
    toks: list[Tok] = []
    line = 1
    nl = False
    for m in TOKEN_RE.finditer(src):
        kind = m.lastgroup
        text = m.group()
        if kind in ("ws",):
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


def _unescape(s: str) -> str:
    return re.sub(
        r"\\(u[0-9a-fA-F]{4}|.)",
        lambda m: {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}.get(
            m.group(1), chr(int(m.group(1)[1:], 16)) if m.group(1).startswith("u") else m.group(1)
        ),
        s,
    )


OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")", "]", "}"}


def match_close(toks: Sequence[Tok], i: int) -> int:
    """Index of the bracket closing the one at ``i``."""
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
    """Split toks[start:end] at top-level commas; returns [start, end) ranges."""
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


def text_of(toks: Sequence[Tok], s: int, e: int) -> str:
    out = ""
    prev: Tok | None = None
    for t in toks[s:e]:
        txt = f'"{t.text}"' if t.kind == "str" else t.text
        if (prev is not None and (prev.kind in ("id", "num", "str") and t.kind in ("id", "num", "str"))) or (
            (prev is not None and t.text in ("+", "-", "*", "/", "=>", "->", "==", "&&", "||", "?", ":"))
            or (prev is not None and prev.text in ("+", "*", "/", "=>", "->", "==", "&&", "||", ",", "?"))
        ):
            out += " "
        out += txt
        prev = t
    return out


# --------------------------------------------------------------------------------------------------
# source files: imports, classes, constants


@dataclass
class ClassInfo:
    name: str
    kind: str  # class interface enum object trait record
    parent: ClassInfo | None
    body_start: int
    body_end: int
    consts: dict[str, tuple[int, int]] = field(default_factory=dict)
    enum_consts: dict[str, tuple[int, int]] = field(default_factory=dict)  # arg range (may be empty)
    enum_order: list[str] = field(default_factory=list)
    methods: dict[str, tuple[int, int]] = field(default_factory=dict)  # body ranges
    supers: list[str] = field(default_factory=list)


@dataclass
class Import:
    path: list[str]  # package + class (+ member)
    member: str | None  # imported member (static / Scala) or None
    alias: str | None
    wildcard: bool
    static: bool


KEYWORDS_CLASS = {"class", "interface", "enum", "object", "trait", "record"}
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
    def __init__(self, path: str, src: str) -> None:
        self.path = path
        self.scala = path.endswith(".scala")
        self.toks = lex(src)
        self.pkg = ""
        self.imports: list[Import] = []
        self.classes: dict[str, ClassInfo] = {}  # simple name -> info (last wins; Scala companions merged)
        self.all_classes: list[ClassInfo] = []
        self._parse()
        # Scala companions (class X / object X) and same-named nested classes: merge into the first one
        for c in self.all_classes:
            first = self.classes[c.name]
            if first is not c:
                self._merge(first, c)

    # ---- structure
    def _parse(self) -> None:
        toks = self.toks
        i = 0
        n = len(toks)
        stack: list[tuple[str, Any, int]] = []  # (kind, ClassInfo|name, open index)
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
                if cls is not None:
                    kind, name, supers = cls
                    parent = self._innermost_class(stack)
                    info = ClassInfo(name, kind, parent, i + 1, match_close(toks, i), supers=supers)
                    self.all_classes.append(info)
                    self.classes.setdefault(name, info)
                    stack.append(("class", info, i))
                    if kind == "enum":
                        self._parse_enum(info)
                else:
                    mname = self._method_name(header)
                    parent = self._innermost_class(stack)
                    if mname and stack and stack[-1][0] == "class" and parent is not None:
                        parent.methods.setdefault(mname, (i + 1, match_close(toks, i)))
                    stack.append(("method" if mname else "block", mname, i))
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
            if t.kind == "op" and t.text == "=" and stack and stack[-1][0] == "class":
                info = stack[-1][1]
                name = self._decl_name(toks[stmt_start:i])
                if name:
                    end = self._expr_end(i + 1)
                    info.consts.setdefault(name, (i + 1, end))
                    # skip over the expression, but keep scanning nested blocks for defines later
                    # (define chains are found by a separate scan over all tokens)
                    k = i + 1
                    while k < end:
                        if toks[k].kind == "op" and toks[k].text in OPEN:
                            k = match_close(toks, k) + 1
                        else:
                            k += 1
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
    def _innermost_class(stack: list[tuple[str, Any, int]]) -> ClassInfo | None:
        for kind, obj, _ in reversed(stack):
            if kind == "class":
                return obj
        return None

    @staticmethod
    def _merge(old: ClassInfo, new: ClassInfo) -> None:
        for k, v in new.consts.items():
            old.consts.setdefault(k, v)
        for k, v in new.enum_consts.items():
            old.enum_consts.setdefault(k, v)
        for k, v in new.methods.items():
            old.methods.setdefault(k, v)

    def _class_header(self, header: Sequence[Tok]) -> tuple[str, str, list[str]] | None:
        for k, t in enumerate(header):
            if t.kind == "id" and t.text in KEYWORDS_CLASS and k + 1 < len(header) and header[k + 1].kind == "id":
                if k > 0 and header[k - 1].text in ("@", "."):
                    continue
                if t.text == "object" and k > 0 and header[k - 1].text == "case":
                    pass
                supers = [
                    h.text
                    for h in header[k + 2 :]
                    if h.kind == "id" and h.text not in ("extends", "implements", "with")
                ]
                return t.text, header[k + 1].text, supers
        return None

    def _method_name(self, header: Sequence[Tok]) -> str | None:
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

    def class_at(self, idx: int) -> ClassInfo | None:
        best: ClassInfo | None = None
        for c in self.all_classes:
            if c.body_start <= idx < c.body_end and (best is None or c.body_start > best.body_start):
                best = c
        return best


# --------------------------------------------------------------------------------------------------
# values


class NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT_VALUE"


NO_DEFAULT = NoDefault()


@dataclass(frozen=True)
class Unresolved:
    text: str


@dataclass(frozen=True)
class ClassRef:
    fqcn: str
    path: str | None = None  # defining file, when the class was found
    name: str | None = None


@dataclass(frozen=True)
class EnumRef:
    file: str
    cls: str
    name: str


@dataclass(frozen=True)
class ObjRef:
    """An instance created with ``new X()`` (no arguments); getters returning constants can be evaluated."""

    file: str
    cls: str


@dataclass(frozen=True)
class SynonymRef:
    name: str
    converter: str | None


JDK_CONSTS: dict[str, Any] = {
    "Long.MAX_VALUE": 9223372036854775807,
    "Long.MIN_VALUE": -9223372036854775808,
    "Integer.MAX_VALUE": 2147483647,
    "Integer.MIN_VALUE": -2147483648,
    "Short.MAX_VALUE": 32767,
    "Int.MaxValue": 2147483647,
    "Int.MinValue": -2147483648,
    "Long.MaxValue": 9223372036854775807,
    "Short.MaxValue": 32767,
    "Double.MAX_VALUE": 1.7976931348623157e308,
    "Deflater.BEST_SPEED": 1,
    "Deflater.BEST_COMPRESSION": 9,
    "Deflater.DEFAULT_COMPRESSION": -1,
    "ConfigDef.NO_DEFAULT_VALUE": NO_DEFAULT,
    "NO_DEFAULT_VALUE": NO_DEFAULT,
    "StandardCharsets.UTF_8": "UTF-8",
    "Double.MaxValue": 1.7976931348623157e308,
    "Locale.ROOT": "",
}
TIMEUNIT_MS = {
    "NANOSECONDS": 1e-6,
    "MICROSECONDS": 1e-3,
    "MILLISECONDS": 1,
    "SECONDS": 1000,
    "MINUTES": 60000,
    "HOURS": 3600000,
    "DAYS": 86400000,
}
CONVERTERS = {"HOURS_TO_MILLISECONDS": "hours_to_ms", "MINUTES_TO_MILLISECONDS": "minutes_to_ms"}


# The private helpers of ServerTopicConfigSynonyms (identical semantics in 3.5 ... 4.4, read in each release).
SYNONYM_HELPERS: dict[str, Any] = {
    "sameName": lambda c: (c, [SynonymRef(c, None)]),
    "sameNameWithLogPrefix": lambda c: (c, [SynonymRef("log." + c, None)]),
    "sameNameWithLogCleanerPrefix": lambda c: (c, [SynonymRef("log.cleaner." + c, None)]),
    "singleWithLogPrefix": lambda t, b: (t, [SynonymRef("log." + b, None)]),
    "singleWithLogCleanerPrefix": lambda t, b: (t, [SynonymRef("log.cleaner." + b, None)]),
    "listWithLogPrefix": lambda t, *syns: (t, [SynonymRef("log." + s.name, s.converter) for s in syns]),
    "single": lambda t, b: (t, [SynonymRef(b, None)]),
}


class Resolver:
    """Evaluates constant expressions across the files of one ref."""

    def __init__(self, git: Git) -> None:
        self.git = git
        self.files: dict[str, SourceFile] = {}
        self.notes: list[str] = []
        self._evaluating: set[tuple[str, int]] = set()
        self.synonyms: dict[str, list[SynonymRef]] | None = None
        self.synonym_source: tuple[str, str, str] | None = None
        self.global_guesses: set[tuple[str, str, str]] = set()

    def topic_synonyms(self) -> dict[str, list[SynonymRef]]:
        if self.synonyms is None:
            if self.synonym_source is None:
                raise _EvalError("no synonym source")
            path, cls, const = self.synonym_source
            f = self.file(path)
            v = self.const_value(f, f.classes[cls], const)
            if not isinstance(v, dict):
                raise _EvalError(f"synonyms did not evaluate: {v!r}")
            self.synonyms = v
        return self.synonyms

    def file(self, path: str) -> SourceFile:
        if path not in self.files:
            self.files[path] = SourceFile(path, self.git.read(path))
        return self.files[path]

    # ---- class lookup
    def find_class(self, sf: SourceFile, name: str) -> tuple[SourceFile, ClassInfo] | None:
        # nested or top-level class of the same file
        if name in sf.classes:
            return sf, sf.classes[name]
        cands: list[str] = []
        # explicit imports
        for imp in sf.imports:
            if imp.wildcard:
                continue
            last = imp.alias or imp.path[-1]
            if last == name:
                cands.extend(self._paths_for(imp.path[:-1], imp.path[-1]))
                # import of an outer class member: a.b.Outer.Inner
                if len(imp.path) >= 2:
                    cands.extend(self._paths_for(imp.path[:-2], imp.path[-2]))
        # same package
        pkgdir = sf.path.rsplit("/", 1)[0]
        for ext in (".java", ".scala"):
            p = f"{pkgdir}/{name}{ext}"
            if self.git.exists(p):
                cands.append(p)
        # wildcard imports of packages
        for imp in sf.imports:
            if imp.wildcard and not imp.static:
                cands.extend(self._paths_for(imp.path, name))
        # Scala: classes in the same package declared in another file (e.g. object Defaults)
        for p in self.git.paths:
            if p.rsplit("/", 1)[0] == pkgdir and p not in cands and p.endswith(".scala") and sf.scala:
                cands.append(p)
        # global by basename (a guess: recorded in self.global_guesses for review)
        n_specific = len(cands)
        cands.extend(self.git.by_basename.get(name, []))
        seen = set()
        for idx, p in enumerate(cands):
            if p in seen or not self.git.exists(p):
                continue
            seen.add(p)
            f = self.file(p)
            if name in f.classes:
                if idx >= n_specific:
                    self.global_guesses.add((sf.path, name, p))
                return f, f.classes[name]
        return None

    def _paths_for(self, pkg: list[str], cls: str) -> list[str]:
        suffix_java = "/".join([*pkg, cls]) + ".java"
        suffix_scala = "/".join([*pkg, cls]) + ".scala"
        out = [p for p in self.git.by_basename.get(cls, []) if p.endswith(suffix_java) or p.endswith(suffix_scala)]
        if not out:
            # Scala files may hold several top-level objects; search the package directory
            pdir = "/".join(pkg)
            out = [p for p in self.git.paths if p.rsplit("/", 1)[0].endswith(pdir) and pdir]
        return out

    def fqcn(self, sf: SourceFile, name: str) -> str:
        found = self.find_class(sf, name.split(".")[0])
        if found is None:
            return name
        f, info = found
        chain = []
        c: ClassInfo | None = info
        while c is not None:
            chain.append(c.name)
            c = c.parent
        outer = ".".join(reversed(chain[1:]))
        rest = name.split(".")[1:]
        nested = "$".join([chain[0], *rest])
        return ".".join(x for x in (f.pkg, outer) if x) + ("." if f.pkg or outer else "") + nested

    # ---- constant lookup
    def lookup_const(
        self, sf: SourceFile, ctx: ClassInfo | None, name: str
    ) -> tuple[SourceFile, ClassInfo, str] | None:
        c = ctx
        while c is not None:
            if name in c.consts or name in c.enum_consts:
                return sf, c, name
            # companion object / class of the same name in this file
            comp = sf.classes.get(c.name)
            if comp is not None and comp is not c and (name in comp.consts):
                return sf, comp, name
            for sup in c.supers:
                found = self.find_class(sf, sup)
                if found is not None and name in found[1].consts:
                    return found[0], found[1], name
            c = c.parent
        for imp in sf.imports:
            if (
                not imp.wildcard
                and imp.member is not None
                and (imp.alias or imp.member) == name
                and (imp.static or sf.scala)
            ):
                owner = imp.path[-2] if len(imp.path) >= 2 else None
                if owner:
                    found = self.find_class(sf, owner) or self._class_by_path(imp.path[:-2], owner)
                    if found is not None and (imp.member in found[1].consts or imp.member in found[1].enum_consts):
                        return found[0], found[1], imp.member
        for imp in sf.imports:
            if imp.wildcard and imp.path and (imp.static or sf.scala):
                owner = imp.path[-1]
                found = self._class_by_path(imp.path[:-1], owner) or self.find_class(sf, owner)
                if found is not None and (name in found[1].consts or name in found[1].enum_consts):
                    return found[0], found[1], name
        return None

    def _class_by_path(self, pkg: list[str], cls: str) -> tuple[SourceFile, ClassInfo] | None:
        for p in self._paths_for(pkg, cls):
            f = self.file(p)
            if cls in f.classes:
                return f, f.classes[cls]
        # nested: pkg[-1] is an outer class
        if pkg:
            outer = self._class_by_path(pkg[:-1], pkg[-1])
            if outer is not None:
                f, _ = outer
                if cls in f.classes:
                    return f, f.classes[cls]
        return None

    def const_value(self, sf: SourceFile, cls: ClassInfo, name: str) -> Any:
        if name in cls.consts:
            s, e = cls.consts[name]
            key = (sf.path, s)
            if key in self._evaluating:
                return Unresolved(f"{cls.name}.{name} (cycle)")
            self._evaluating.add(key)
            try:
                return self.eval(sf, s, e)
            finally:
                self._evaluating.discard(key)
        if name in cls.enum_consts:
            return EnumRef(sf.path, cls.name, name)
        return Unresolved(f"{cls.name}.{name}")

    # ---- expression evaluation
    def eval(self, sf: SourceFile, s: int, e: int) -> Any:
        try:
            p = _Parser(self, sf, s, e)
            v = p.expr()
            if p.i < e:
                return Unresolved(text_of(sf.toks, s, e))
            return v
        except _EvalError:
            return Unresolved(text_of(sf.toks, s, e))

    def enum_string(self, ref: EnumRef, member: str, call: bool) -> Any:
        """Value of ``Enum.CONST.member`` (field) or ``Enum.CONST.member()`` (call)."""
        f = self.file(ref.file)
        info = f.classes[ref.cls]
        s, e = info.enum_consts[ref.name]
        args = [self.eval(f, a, b) for a, b in split_args(f.toks, s, e)]
        strs = [a for a in args if isinstance(a, str)]
        nums = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
        if ref.cls == "MetadataVersion" and member in ("version", "toString", "shortVersion"):
            if member == "shortVersion":
                return strs[0]
            return f"{strs[0]}-{strs[1]}" if len(strs) >= 2 else strs[0]
        if ref.cls == "CompressionType" and member == "defaultLevel":
            return COMPRESSION_DEFAULT_LEVELS.get(ref.name, Unresolved(f"{ref.name}.defaultLevel()"))
        if member == "name" and call:
            return ref.name  # Enum.name() is final
        if member == "toString":
            return self.enum_tostring(ref)
        if member in ("name", "altName") and not call and strs:
            return strs[0]
        if member == "id" and nums:
            return nums[0]
        return Unresolved(f"{ref.cls}.{ref.name}.{member}")

    def enum_tostring(self, ref: EnumRef) -> Any:
        """Enum.toString(): the constant name unless the enum overrides toString (read its body)."""
        f = self.file(ref.file)
        info = f.classes[ref.cls]
        if "toString" not in info.methods:
            return ref.name
        ms, me = info.methods["toString"]
        body = text_of(f.toks, ms, me).replace(" ", "")
        s, e = info.enum_consts[ref.name]
        strs = [a for a in (self.eval(f, a, b) for a, b in split_args(f.toks, s, e)) if isinstance(a, str)]
        if body in ("returnname;", "returnthis.name;") and strs:
            return strs[0]
        if body.startswith("returnsuper.toString().toLowerCase(") or body.startswith("returnname().toLowerCase("):
            return ref.name.lower()
        return Unresolved(f"{ref.cls}.{ref.name}.toString(): {body}")

    def enum_options(self, f: SourceFile, info: ClassInfo, exclude: Iterable[str] = ()) -> list[Any]:
        return [self.enum_tostring(EnumRef(f.path, info.name, c)) for c in info.enum_order if c not in exclude]


# Default levels of CompressionType (3.8+: constants in CompressionType's enum bodies / *Compression classes):
# gzip Deflater.DEFAULT_COMPRESSION = -1, lz4 9, zstd 3 (checked in each release's source).
COMPRESSION_DEFAULT_LEVELS = {"GZIP": -1, "LZ4": 9, "ZSTD": 3}


class _EvalError(Exception):
    pass


class _Parser:
    """Pratt parser + evaluator for the constant subset of Java/Scala expressions."""

    BINARY: ClassVar[dict[str, int]] = {
        "||": 1,
        "&&": 2,
        "==": 3,
        "!=": 3,
        "<": 4,
        ">": 4,
        "<=": 4,
        ">=": 4,
        "++": 5,
        "+": 5,
        "-": 5,
        "--": 5,
        "->": 5,
        "*": 6,
        "/": 6,
        "%": 6,
        "<<": 5,
    }

    def __init__(self, r: Resolver, sf: SourceFile, s: int, e: int) -> None:
        self.r = r
        self.sf = sf
        self.toks = sf.toks
        self.i = s
        self.e = e
        self.ctx = sf.class_at(s)

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < self.e else None

    def take(self, text: str | None = None) -> Tok:
        t = self.peek()
        if t is None or (text is not None and t.text != text):
            raise _EvalError(f"expected {text}")
        self.i += 1
        return t

    def expr(self, prec: int = 0) -> Any:
        left = self.unary()
        while True:
            t = self.peek()
            if t is None or t.kind != "op" or t.text not in self.BINARY or self.BINARY[t.text] <= prec:
                if t is not None and t.text == "?" and prec == 0:
                    self.i += 1
                    a = self.expr()
                    self.take(":")
                    b = self.expr()
                    if isinstance(left, bool):
                        return a if left else b
                    raise _EvalError("ternary")
                return left
            self.i += 1
            right = self.expr(self.BINARY[t.text])
            left = self.binop(t.text, left, right)

    def binop(self, op: str, a: Any, b: Any) -> Any:
        if isinstance(a, Unresolved) or isinstance(b, Unresolved):
            raise _EvalError("unresolved operand")
        if op == "->":
            return (a, b)
        if op == "--" and isinstance(a, list) and isinstance(b, list):
            return [x for x in a if x not in b]
        if op == "+" and (isinstance(a, str) or isinstance(b, str)):
            return _jstr(a) + _jstr(b)
        if op == "++" and isinstance(a, list) and isinstance(b, list):
            return a + [x for x in b if x not in a]
        if isinstance(a, bool) or isinstance(b, bool):
            if op == "&&":
                return a and b
            if op == "||":
                return a or b
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            if op == "==":
                return a == b
            raise _EvalError(f"bad operands for {op}")
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if isinstance(a, int) and isinstance(b, int):
                q = abs(a) // abs(b)
                return q if (a >= 0) == (b >= 0) else -q
            return a / b
        if op == "%":
            return a % b
        if op == "<<":
            return a << b
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
        raise _EvalError(op)

    def unary(self) -> Any:
        t = self.peek()
        if t is None:
            raise _EvalError("eof")
        if t.text == "-" and t.kind == "op":
            self.i += 1
            v = self.unary()
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v
            raise _EvalError("neg")
        if t.text == "!" and t.kind == "op":
            self.i += 1
            v = self.unary()
            if isinstance(v, bool):
                return not v
            raise _EvalError("not")
        # casts: (int) x, (long) x
        if (
            t.text == "("
            and self.peek(1) is not None
            and self.peek(1).text
            in ("int", "long", "short", "double", "float", "byte", "Integer", "Long", "Short", "Double")
            and self.peek(2) is not None
            and self.peek(2).text == ")"
        ):
            cast = self.peek(1).text
            self.i += 3
            v = self.unary()
            if isinstance(v, (int, float)) and cast in ("int", "long", "short", "byte", "Integer", "Long", "Short"):
                return int(v)
            if isinstance(v, (int, float)) and cast in ("double", "float", "Double"):
                return float(v)
            return v
        return self.postfix(self.primary())

    def primary(self) -> Any:
        t = self.take()
        if t.kind == "str":
            return t.text
        if t.kind == "char":
            return t.text[1:-1]
        if t.kind == "num":
            return _num(t.text)
        if t.text == "(":
            v = self.expr()
            self.take(")")
            return v
        if t.kind == "id":
            if t.text == "true":
                return True
            if t.text == "false":
                return False
            if t.text == "null":
                return None
            if t.text == "new":
                return self.new_expr()
            if t.text == "classOf" and self.peek() is not None and self.peek().text == "[":
                self.take("[")
                name = self.qualified()
                self.take("]")
                found = self._class_chain(name.split("."))
                return ClassRef(
                    self.r.fqcn(self.sf, name), found[0].path if found else None, found[1].name if found else None
                )
            return self.name_expr(t.text)
        raise _EvalError(f"unexpected {t.text}")

    def qualified(self) -> str:
        parts = [self.take().text]
        while (
            self.peek() is not None
            and self.peek().text == "."
            and self.peek(1) is not None
            and self.peek(1).kind == "id"
        ):
            self.i += 1
            parts.append(self.take().text)
        return ".".join(parts)

    def new_expr(self) -> Any:
        name = self.qualified()
        if self.peek() is not None and self.peek().text == "<":
            # generics
            depth = 0
            while self.peek() is not None:
                x = self.take().text
                if x == "<":
                    depth += 1
                elif x == ">":
                    depth -= 1
                    if depth == 0:
                        break
        if self.peek() is not None and self.peek().text == "[":
            self.take("[")
            if self.peek().text != "]":
                self.expr()
            self.take("]")
            if self.peek() is not None and self.peek().text == "{":
                return self.arglist("{", "}")
            return []
        args = self.arglist("(", ")") if self.peek() is not None and self.peek().text == "(" else []
        if self.peek() is not None and self.peek().text == "{":
            raise _EvalError("anonymous class")
        simple = name.split(".")[-1]
        if simple == "ConfigSynonym":
            conv = args[1] if len(args) > 1 else None
            return SynonymRef(args[0], conv if isinstance(conv, str) else None)
        if simple in ("ArrayList", "HashSet", "LinkedHashSet") and len(args) == 1 and isinstance(args[0], list):
            return list(args[0])
        if simple in ("ArrayList", "HashSet") and not args:
            return []
        if simple == "Password":
            return args[0] if args else None
        if not args:
            found = self.r.find_class(self.sf, simple)
            if found is not None:
                return ObjRef(found[0].path, found[1].name)
        raise _EvalError(f"new {name}")

    def arglist(self, o: str, c: str) -> list[Any]:
        self.take(o)
        out: list[Any] = []
        while self.peek() is not None and self.peek().text != c:
            out.append(self.expr())
            if self.peek() is not None and self.peek().text == ",":
                self.i += 1
        self.take(c)
        return out

    def name_expr(self, first: str) -> Any:
        if self.peek() is not None and self.peek().text == "::" and self.peek(1) is not None:
            self.i += 2
            return ("methodref", first + "::" + self.toks[self.i - 1].text)
        parts = [first]
        while (
            self.peek() is not None
            and self.peek().text == "."
            and self.peek(1) is not None
            and self.peek(1).kind == "id"
        ):
            if self.peek(2) is not None and self.peek(2).text == "(":
                break
            # stop before method-ish members on values; handled in postfix
            self.i += 1
            parts.append(self.take().text)
        # method call on a qualified receiver: X.Y.m(...)
        if (
            self.peek() is not None
            and self.peek().text == "."
            and self.peek(2) is not None
            and self.peek(2).text == "("
        ):
            self.i += 1
            meth = self.take().text
            args = self.arglist("(", ")")
            return self.call(parts, meth, args)
        if self.peek() is not None and self.peek().text == "[" and self.sf.scala:
            # Scala type arguments: Collections.emptyList[String]()
            self.i = match_close(self.toks, self.i) + 1
            if self.peek() is not None and self.peek().text == "(":
                pass
        if self.peek() is not None and self.peek().text == "(":
            # bare function call: f(...)  /  Scala List(...), Set(...), Seq(...)
            args = self.arglist("(", ")")
            return self.call(parts[:-1], parts[-1], args)
        if (
            self.peek() is not None
            and self.peek().text == ":"
            and self.peek(1) is not None
            and self.peek(1).text == "_"
        ):
            pass
        return self.resolve_parts(parts)

    def resolve_parts(self, parts: list[str]) -> Any:
        full = ".".join(parts)
        if parts[-1] == "class" and len(parts) >= 2:
            found = self._class_chain(parts[:-1])
            return ClassRef(
                self.r.fqcn(self.sf, ".".join(parts[:-1])),
                found[0].path if found else None,
                found[1].name if found else None,
            )
        if full in JDK_CONSTS:
            return JDK_CONSTS[full]
        if len(parts) >= 2 and parts[-2] == "TimeUnit":
            return ("TimeUnit", parts[-1])
        if len(parts) >= 2 and parts[-1] in CONVERTERS and parts[-2] == "ConfigSynonym":
            return CONVERTERS[parts[-1]]
        if parts[-1] in CONVERTERS and len(parts) == 1:
            return CONVERTERS[parts[-1]]
        # walk: first part as constant, else as class
        sf, ctx = self.sf, self.ctx
        if len(parts) == 1:
            hit = self.r.lookup_const(sf, ctx, parts[0])
            if hit is None:
                raise _EvalError(f"unknown name {parts[0]}")
            return self.r.const_value(*hit)
        # qualified: find the longest class prefix
        for k in range(len(parts) - 1, 0, -1):
            found = self._class_chain(parts[:k])
            if found is None:
                continue
            f, info = found
            member = parts[k]
            if (
                member not in info.consts
                and member not in info.enum_consts
                and member in ("names", "values", "latest", "latestProduction", "VALUES")
            ):
                v = self.call(parts[:k], member, [])
                for extra in parts[k + 1 :]:
                    v = self.member(v, extra, None)
                return v
            if member in info.consts or member in info.enum_consts:
                v = self.r.const_value(f, info, member)
                for extra in parts[k + 1 :]:
                    v = self.member(v, extra, None)
                return v
        # a constant followed by members (e.g. SOME_ENUM_CONST.name)
        hit = self.r.lookup_const(sf, ctx, parts[0])
        if hit is not None:
            v = self.r.const_value(*hit)
            for extra in parts[1:]:
                v = self.member(v, extra, None)
            return v
        raise _EvalError(f"unknown name {full}")

    def _class_chain(self, parts: list[str]) -> tuple[SourceFile, ClassInfo] | None:
        found = self.r.find_class(self.sf, parts[0])
        if found is None and len(parts) >= 2:
            # fully qualified: a.b.c.Class
            for k in range(len(parts) - 1, 0, -1):
                found = self.r._class_by_path(parts[:k], parts[k])
                if found is not None:
                    parts = parts[k:]
                    break
        if found is None:
            return None
        f, info = found
        for nested in parts[1:]:
            if nested in f.classes and f.classes[nested].parent is not None:
                info = f.classes[nested]
            else:
                return None
        return f, info

    def postfix(self, v: Any) -> Any:
        while True:
            t = self.peek()
            if t is None:
                return v
            if t.text == "." and self.peek(1) is not None and self.peek(1).kind == "id":
                self.i += 1
                name = self.take().text
                args = None
                if self.peek() is not None and self.peek().text == "(":
                    args = self.arglist("(", ")")
                v = self.member(v, name, args)
                continue
            if (
                t.text == ":"
                and self.peek(1) is not None
                and self.peek(1).text == "_"
                and self.peek(2) is not None
                and self.peek(2).text == "*"
            ):
                self.i += 3
                continue
            return v

    def member(self, v: Any, name: str, args: list[Any] | None) -> Any:
        if isinstance(v, Unresolved):
            raise _EvalError("unresolved receiver")
        if name in (
            "asJava",
            "asScala",
            "toList",
            "toSeq",
            "toSet",
            "toBuffer",
            "stream",
            "toArray",
            "sorted",
            "unmodifiableList",
        ) and isinstance(v, list):
            return v
        if isinstance(v, dict) and name in ("asJava", "asScala", "toMap") and not args:
            return v
        if isinstance(v, dict) and name in ("values", "keySet", "keys") and not args:
            return list(v.values()) if name == "values" else list(v.keys())
        if (
            name in ("toInt", "toShort", "toLong", "intValue", "longValue", "shortValue")
            and not args
            and isinstance(v, (int, float))
            and not isinstance(v, bool)
        ):
            return int(v)
        if name in ("toDouble", "doubleValue") and not args and isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        if name == "map" and isinstance(v, list) and args and isinstance(args[0], tuple) and args[0][0] == "methodref":
            meth = args[0][1].split("::")[1]
            return [self.member(x, meth, []) for x in v]
        if isinstance(v, ObjRef) and args == []:
            f = self.r.file(v.file)
            info = f.classes[v.cls]
            if name in info.methods:
                ms, me = info.methods[name]
                toks = f.toks
                if me - ms == 3 and toks[ms].text == "return" and toks[me - 1].text == ";":
                    return self.r.eval(f, ms + 1, me - 1)
            raise _EvalError(f"getter {v.cls}.{name}()")
        if name == "flatMap" and isinstance(v, list) and all(isinstance(x, list) for x in v):
            return [y for x in v for y in x]
        if name == "collect" and isinstance(v, list):
            return v
        if name == "diff" and isinstance(v, list) and args and isinstance(args[0], list):
            return [x for x in v if x not in args[0]]
        if name == "mkString" and isinstance(v, list) and args:
            return args[0].join(_jstr(x) for x in v)
        if name in (
            "toString",
            "name",
            "toLowerCase",
            "toUpperCase",
            "trim",
            "toLowerCase(Locale.ROOT)",
        ) and isinstance(v, str):
            if name == "toLowerCase":
                return v.lower()
            if name == "toUpperCase":
                return v.upper()
            return v
        if name in ("toString",) and isinstance(v, (int, float)) and not isinstance(v, bool):
            return _jstr(v)
        if isinstance(v, EnumRef):
            return self.r.enum_string(v, name, args is not None)
        if isinstance(v, ClassRef) and name in ("getName", "getCanonicalName"):
            return v.fqcn
        if isinstance(v, tuple) and v and v[0] == "TimeUnit" and args is not None and len(args) == 1:
            unit = TIMEUNIT_MS[v[1]]
            ms = args[0] * unit
            target = {"toMillis": 1, "toSeconds": 1000, "toMinutes": 60000, "toHours": 3600000, "toDays": 86400000}
            if name in target:
                return int(ms // target[name])
        if isinstance(v, tuple) and v and v[0] == "Duration" and name == "toMillis":
            return v[1]
        if isinstance(v, SynonymRef) and name == "name":
            return v.name
        raise _EvalError(f"member {name} of {v!r}")

    def call(self, recv: list[str], meth: str, args: list[Any]) -> Any:
        full = ".".join([*recv, meth])
        if full in (
            "List.of",
            "Arrays.asList",
            "Set.of",
            "Utils.mkSet",
            "Utils.mkList",
            "List",
            "Seq",
            "Set",
            "Collections.singletonList",
            "Collections.singleton",
            "java.util.List.of",
            "Array",
            "ListBuffer",
            "Stream.of",
        ):
            flat: list[Any] = []
            for a in args:
                flat.append(a)
            return flat
        if full in ("Map", "Utils.mkMap", "mkMap", "Map.of", "Map.ofEntries"):
            if full == "Map.of":
                args = [(args[k], args[k + 1]) for k in range(0, len(args), 2)]
            if not all(isinstance(a, tuple) and len(a) == 2 for a in args):
                raise _EvalError("map entries")
            return dict(args)
        if (
            full in ("Collections.unmodifiableMap", "Collections.unmodifiableList", "Collections.unmodifiableSet")
            and len(args) == 1
        ):
            return args[0]
        if full in ("Utils.mkEntry", "mkEntry", "Map.entry") and len(args) == 2:
            return (args[0], args[1])
        if full in ("asList", "Arrays.asList", "util.Arrays.asList"):
            return list(args)
        if self.sf.path.endswith("ServerTopicConfigSynonyms.java") and not recv and meth in SYNONYM_HELPERS:
            return SYNONYM_HELPERS[meth](*args)
        if full in ("Optional.of", "Optional.ofNullable", "Some") and len(args) == 1:
            return args[0]
        if full in ("Optional.empty", "None"):
            return None
        if full == "Stream.of":
            return list(args)
        if full in (
            "Collections.emptyList",
            "Collections.emptySet",
            "List.empty",
            "Seq.empty",
            "Nil",
            "Set.empty",
            "util.Collections.emptyList",
        ):
            return []
        if full == "String.join" and len(args) >= 2:
            items = args[1] if len(args) == 2 and isinstance(args[1], list) else args[1:]
            return args[0].join(_jstr(x) for x in items)
        if full == "Utils.join" and len(args) == 2:
            return args[1].join(_jstr(x) for x in args[0])
        if full in ("Math.max", "math.max"):
            return max(args)
        if full in ("Math.min", "math.min"):
            return min(args)
        if full in ("Integer.toString", "String.valueOf", "Long.toString", "Double.toString"):
            return _jstr(args[0])
        if full in (
            "Duration.ofMinutes",
            "Duration.ofSeconds",
            "Duration.ofHours",
            "Duration.ofMillis",
            "Duration.ofDays",
        ):
            mult = {"ofMinutes": 60000, "ofSeconds": 1000, "ofHours": 3600000, "ofMillis": 1, "ofDays": 86400000}[meth]
            return ("Duration", args[0] * mult)
        if meth == "serverSynonym" and len(args) == 1:
            syn = self.r.topic_synonyms()
            if args[0] in syn:
                return syn[args[0]][0].name
        if meth in ("values", "names", "VALUES") and not args and recv:
            found = self._class_chain(recv)
            if found is not None and found[1].kind == "enum":
                f, info = found
                return [self.r.enum_string(EnumRef(f.path, info.name, c), "name", False) for c in info.enum_order]
        if full == "Utils.enumOptions" and len(args) == 1 and isinstance(args[0], ClassRef):
            found = None
            if args[0].path and args[0].name:
                f = self.r.file(args[0].path)
                found = (f, f.classes[args[0].name])
            if found is not None and found[1].kind == "enum":
                return self.r.enum_options(*found)
        if meth == "documentValidValues" and recv and recv[-1] == "GroupType" and not args:
            # Group.GroupType.documentValidValues(): every GroupType's toString except UNKNOWN
            found = self._class_chain(recv)
            if found is not None:
                return self.r.enum_options(found[0], found[1], exclude=("UNKNOWN",))
        if full == "MetadataVersion.latestProduction" and not args:
            return self.resolve_parts(["MetadataVersion", "LATEST_PRODUCTION"])
        if full == "MetadataVersion.latest" and not args:
            # MetadataVersion.latest() = VERSIONS[VERSIONS.length - 1], the last enum constant
            found = self._class_chain(["MetadataVersion"])
            if found is not None:
                return EnumRef(found[0].path, found[1].name, found[1].enum_order[-1])
        if full in ("KeyManagerFactory.getDefaultAlgorithm", "TrustManagerFactory.getDefaultAlgorithm"):
            # JVM security defaults (java.security: ssl.KeyManagerFactory.algorithm / ssl.TrustManagerFactory.algorithm)
            return "SunX509" if full.startswith("Key") else "PKIX"
        if recv:
            # method on a constant value (e.g. X.Y.toString())
            try:
                v = self.resolve_parts(recv)
            except _EvalError:
                v = None
            if v is not None:
                return self.member(v, meth, args)
        raise _EvalError(f"call {full}")


def _num(text: str) -> int | float:
    t = text.replace("_", "")
    if t[-1] in "lL":
        t = t[:-1]
    if t.lower().startswith("0x"):
        return int(t, 16)
    if t[-1] in "fFdD" or "." in t or "e" in t.lower():
        return float(t.rstrip("fFdD"))
    return int(t)


def _jstr(v: Any) -> str:
    """Java's String.valueOf for the values we handle."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return java_double(v)
    if isinstance(v, list):
        return "[" + ", ".join(_jstr(x) for x in v) + "]"
    return str(v)


def java_double(v: float) -> str:
    if v == int(v) and abs(v) < 1e7:
        return f"{int(v)}.0"
    if 1e-3 <= abs(v) < 1e7:
        return repr(v)
    m, e = f"{v:.17e}".split("e")
    r = repr(v)
    mant = r.split("e")[0] if "e" in r else str(float(m))
    if "." not in mant:
        mant += ".0"
    return f"{mant}E{int(e)}"


# --------------------------------------------------------------------------------------------------
# define() calls


@dataclass
class Define:
    owner: str  # ConfigDef variable / method the define belongs to
    file: str
    line: int
    args: list[tuple[int, int]]
    internal: bool
    single_key: bool = False  # define(ConfigKey)


IMPORTANCE = {"HIGH", "MEDIUM", "LOW"}
TYPES = {"BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}


def find_defines(sf: SourceFile) -> list[Define]:
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
    """Walk back from the '.' before define over the call chain to its head; name the ConfigDef."""
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
                return assignment_target(sf, j - 1)
            if t.text in ("super", "this"):
                return "<self>"
            return t.text
        return "<unknown>"
    return "<unknown>"


def assignment_target(sf: SourceFile, new_idx: int) -> str:
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
        elif depth == 0 and t.text == ":" and j > 0 and toks[j - 1].kind == "id" and toks[j + 1].kind == "id":
            pass
        elif depth == 0 and t.text == "return":
            cls = sf.class_at(j)
            if cls is not None:
                for mname, (s, e) in cls.methods.items():
                    if s <= j < e:
                        return mname + "()"
            return "<return>"
        elif depth == 0 and t.text in (";",):
            break
        j -= 1
    return "<unknown>"


# --------------------------------------------------------------------------------------------------
# validators


def vform(kind: str, **kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": kind}
    d.update(kw)
    return d


class ValidatorParser:
    def __init__(self, r: Resolver, kip1161: bool) -> None:
        self.r = r
        self.kip1161 = kip1161

    def parse(self, sf: SourceFile, s: int, e: int) -> Any:
        toks = sf.toks
        txt = text_of(toks, s, e)
        if txt == "null":
            return None
        key = normalize_validator_text(txt)
        for pat, val in KNOWN_VALIDATORS.items():
            if re.fullmatch(pat, key):
                return val
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
                return self.call(sf, parts, args, txt, is_new=toks[s].text == "new")
        if j == e and parts:
            # a named validator: a constant, an object or Foo.INSTANCE
            if parts[-1] == "INSTANCE" or (len(parts) == 1 and sf.scala):
                cname = parts[-2] if parts[-1] == "INSTANCE" else parts[-1]
                hit = self.r.lookup_const(sf, sf.class_at(s), parts[0]) if len(parts) == 1 else None
                if hit is None:
                    return custom(cname, txt)
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
                    return custom(f"{c.name}.{nm}", text_of(f.toks, cs, ce))
                return v
        return custom(txt, txt)

    def call(self, sf: SourceFile, parts: list[str], args: list[tuple[int, int]], txt: str, is_new: bool) -> Any:
        name = parts[-1] if parts else ""
        owner = parts[-2] if len(parts) >= 2 else ""
        ev = lambda a: self.r.eval(sf, a[0], a[1])  # noqa: E731
        if name == "atLeast" and owner in ("", "Range"):
            return vform("at_least", min=num_or_unresolved(ev(args[0])))
        if name == "between" and owner in ("", "Range"):
            return vform("between", min=num_or_unresolved(ev(args[0])), max=num_or_unresolved(ev(args[1])))
        if name == "in" and owner == "CaseInsensitiveValidString":
            return vform("in", values=flat_values([ev(a) for a in args]), case_insensitive=True)
        if name == "in" and (owner == "ValidList" or (owner == "" and self._bare_in_is_list(sf))):
            vals = [ev(a) for a in args]
            if self.kip1161:
                empty_ok = True
                if vals and isinstance(vals[0], bool):
                    empty_ok = vals[0]
                    vals = vals[1:]
                return vform(
                    "list_in", values=flat_values(vals), empty_allowed=empty_ok, null_allowed=False, kip1161=True
                )
            return vform("list_in", values=flat_values(vals), empty_allowed=True, null_allowed=True, kip1161=False)
        if name == "in" and owner in ("ValidString", ""):
            return vform("in", values=flat_values([ev(a) for a in args]), case_insensitive=False)
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
            return custom(self._stable_name(sf, parts), txt)
        return custom(".".join(parts) + "(...)", txt)

    def _stable_name(self, sf: SourceFile, parts: list[str]) -> str:
        """Outer.Inner name of a validator class, whatever way the source spelled it."""
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

    @staticmethod
    def _bare_in_is_list(sf: SourceFile) -> bool:
        for imp in sf.imports:
            if imp.path[-2:] == ["ValidList", "in"] or (imp.wildcard and imp.path[-1:] == ["ValidList"]):
                return True
        return False


def custom(name: str, txt: str) -> dict[str, Any]:
    desc = CUSTOM_DESCRIPTIONS.get(name) or CUSTOM_DESCRIPTIONS.get(name.split(".")[-1].split("(")[0])
    return vform("custom", name=name, description=desc or f"UNDESCRIBED code validator: {txt}")


def num_or_unresolved(v: Any) -> Any:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    return f"UNRESOLVED: {v}"


def flat_values(vals: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in vals:
        if isinstance(v, list):
            out.extend(v)
        else:
            out.append(v)
    return [x if not isinstance(x, Unresolved) else f"UNRESOLVED: {x.text}" for x in out]


def normalize_validator_text(txt: str) -> str:
    return re.sub(r"\s+", "", txt)


# Custom validators whose behaviour is exactly a structured form (each checked in the source).
KNOWN_VALIDATORS: dict[str, Any] = {
    # CompressionType.GZIP.levelValidator(): null fails; level > 9, or < 1 and != -1, fails  (3.8+)
    r"CompressionType\.GZIP\.levelValidator(\(\))?": vform(
        "in", values=[-1, 1, 2, 3, 4, 5, 6, 7, 8, 9], case_insensitive=False
    ),
    # CompressionType.LZ4.levelValidator() = between(1, 17)
    r"CompressionType\.LZ4\.levelValidator(\(\))?": vform("between", min=1, max=17),
    # CompressionType.ZSTD.levelValidator() = between(-131072, 22)
    r"CompressionType\.ZSTD\.levelValidator(\(\))?": vform("between", min=-131072, max=22),
}

CUSTOM_DESCRIPTIONS: dict[str, str] = {
    "ThrottledReplicaListValidator": "LIST: valid when every element, trimmed, matches '([0-9]+:[0-9]+)?' "
    "(partitionId:brokerId, empty elements allowed) or when the concatenation of all "
    "elements is '*'; a non-list value fails",
    "MetadataVersionValidator": "the value must parse with MetadataVersion.fromVersionString (a known IBP/metadata "
    "version string of the release, e.g. 3.0, 3.0-IV1)",
    "RaftConfig.ControllerQuorumVotersValidator": "non-null; every entry must parse as '{id}@{host}:{port}' "
    "(id an integer, host a valid host name, port an integer)",
    "QuorumConfig.ControllerQuorumVotersValidator": "non-null; every entry must parse as '{id}@{host}:{port}' "
    "(id an integer, host a valid host name, port an integer)",
    "QuorumConfig.ControllerQuorumBootstrapServersValidator": "non-null; every entry must parse as '{host}:{port}'",
    "RemoteLogManagerConfig.REMOTE_LOG_MANAGER_THREAD_POOL_SIZE_VALIDATOR": "INT: -1 or >= 1 (0 and values below -1 "
    "fail); -1 means 'use "
    "remote.log.manager.thread.pool.size'",
    "ShareGroupAutoOffsetResetStrategy.Validator": "'earliest', 'latest' or 'by_duration:<ISO-8601 duration>'",
}
for _k in list(CUSTOM_DESCRIPTIONS):
    if _k.split(".")[-1] != "Validator":
        CUSTOM_DESCRIPTIONS.setdefault(_k.split(".")[-1], CUSTOM_DESCRIPTIONS[_k])


# --------------------------------------------------------------------------------------------------
# conversion of a define into a catalog entry


def render_default(v: Any, typ: str, r: Resolver, sf: SourceFile) -> tuple[Any, bool, str | None]:
    """Returns (rendered default or None, required, problem)."""
    if v is NO_DEFAULT:
        return None, True, None
    if isinstance(v, Unresolved):
        return f"UNRESOLVED: {v.text}", False, v.text
    if v is None:
        return None, False, None
    if typ == "LIST":
        if isinstance(v, list):
            return ",".join(_jstr(x) for x in v), False, None
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
            return _jstr(v), False, None
        if isinstance(v, ClassRef):
            return v.fqcn, False, None
    return f"UNRESOLVED: {v!r}", False, repr(v)


def define_to_entry(r: Resolver, vp: ValidatorParser, d: Define) -> dict[str, Any]:
    sf = r.file(d.file)
    toks = sf.toks
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
    rendered, required, prob = render_default(default, typ, r, sf)
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


# --------------------------------------------------------------------------------------------------
# release tables (written by reading each release's merge code; see README)

# ConfigDef sources per resource: (path, owner).  Owner names come from chain_owner():
# the variable a `new ConfigDef()...` chain is assigned to, the receiver of `X.define(...)`,
# or `method()` for `return new ConfigDef()...` inside a method.

KC = "core/src/main/scala/kafka/server/KafkaConfig.scala"
RLMC = "storage/src/main/java/org/apache/kafka/server/log/remote/storage/RemoteLogManagerConfig.java"
LOGCONFIG_J = "storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java"
CMC = "server/src/main/java/org/apache/kafka/server/metrics/ClientMetricsConfigs.java"
GCFG = "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupConfig.java"


GC = "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinatorConfig.java"


@dataclass
class ReleaseSpec:
    broker: list[tuple[str, str]]
    topic: list[tuple[str, str]]
    group: list[tuple[str, str]]
    client_metrics: list[tuple[str, str]]
    # dynamic-only broker configs that DynamicConfig.Broker adds to the broker ConfigDef (quotas)
    broker_dynamic_only: list[tuple[str, str]]
    kip1161: bool
    files_read: list[str] = field(default_factory=list)


RELEASES: dict[str, ReleaseSpec] = {}


def _spec_3x_scala(lc: str, rlm_owner: str, cm: bool, quota_path: str) -> ReleaseSpec:
    return ReleaseSpec(
        broker=[(KC, "configDef"), (RLMC, rlm_owner)],
        topic=[(lc, "logConfigDef" if lc.endswith(".scala") else "CONFIG")],
        group=[],
        client_metrics=[(CMC, "CONFIG")] if cm else [],
        broker_dynamic_only=[("core/src/main/scala/kafka/server/DynamicConfig.scala", "brokerConfigDef")],
        kip1161=False,
    )


LC_SCALA = "core/src/main/scala/kafka/log/LogConfig.scala"
RELEASES["3.3"] = _spec_3x_scala(LC_SCALA, "CONFIG_DEF", False, "")
RELEASES["3.4"] = _spec_3x_scala(LC_SCALA, "CONFIG_DEF", False, "")
RELEASES["3.5"] = _spec_3x_scala(LOGCONFIG_J, "CONFIG_DEF", False, "")
RELEASES["3.6"] = _spec_3x_scala(LOGCONFIG_J, "CONFIG_DEF", False, "")
RELEASES["3.7"] = _spec_3x_scala(LOGCONFIG_J, "CONFIG_DEF", True, "")
RELEASES["3.8"] = _spec_3x_scala(LOGCONFIG_J, "configDef()", True, "")

AKC = "server/src/main/java/org/apache/kafka/server/config/AbstractKafkaConfig.java"


def _spec_39_plus(release: str) -> ReleaseSpec:
    # 3.9+: KafkaConfig.configDef = AbstractKafkaConfig.CONFIG_DEF = Utils.mergeConfigs(List.of(...)); the list is
    # read from the source (merged_sources) so that moved/renamed config classes are followed automatically.
    # Dynamic-only broker configs (replication throttles): DynamicConfig.Broker adds
    # QuotaConfig(s).brokerQuotaConfigs().
    if release >= "4.0":
        dyn_only = [
            ("server-common/src/main/java/org/apache/kafka/server/config/QuotaConfig.java", "brokerQuotaConfigs()")
        ]
    else:
        dyn_only = [
            ("server-common/src/main/java/org/apache/kafka/server/config/QuotaConfigs.java", "brokerQuotaConfigs()")
        ]
    return ReleaseSpec(
        broker=[("@merge", (AKC, "CONFIG_DEF"))],
        topic=[(LOGCONFIG_J, "CONFIG")],
        group=[(GCFG, "CONFIG_DEF" if release >= "4.3" else "CONFIG")] if release >= "4.0" else [],
        client_metrics=[(CMC, "CONFIG")],
        broker_dynamic_only=dyn_only,
        kip1161=release >= "4.2",
    )


for _r in ("3.9", "4.0", "4.1", "4.2", "4.3", "4.4"):
    RELEASES[_r] = _spec_39_plus(_r)


# --------------------------------------------------------------------------------------------------
# main extraction


def merged_sources(r: Resolver, path: str, const: str, problems: list[str]) -> list[tuple[str, str]]:
    """The (file, owner) list of ``CONST = Utils.mergeConfigs(List.of(A.X, B.y(), ...))`` in ``path``."""
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


def collect(
    r: Resolver, vp: ValidatorParser, sources: list[tuple[str, str]], problems: list[str]
) -> list[dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    expanded: list[tuple[str, str]] = []
    for path, owner in sources:
        if path == "@merge":
            expanded.extend(merged_sources(r, owner[0], owner[1], problems))
        else:
            expanded.append((path, owner))
    for path, owner in expanded:
        if not r.git.exists(path):
            problems.append(f"missing source file {path}")
            continue
        sf = r.file(path)
        defs = [d for d in find_defines(sf) if d.owner == owner]
        if not defs:
            problems.append(
                f"no defines for owner {owner} in {path} (owners: {sorted({d.owner for d in find_defines(sf)})})"
            )
        for d in defs:
            if d.single_key:
                continue
            e = define_to_entry(r, vp, d)
            if e["name"] in entries:
                # ConfigDef.define throws on duplicates within one def; Utils.mergeConfigs keeps the first
                continue
            entries[e["name"]] = e
    return list(entries.values())


# --------------------------------------------------------------------------------------------------
# dynamic broker configs
#
# Composition of DynamicBrokerConfig.AllDynamicConfigs / ALL_DYNAMIC_CONFIGS, its per-broker set and the
# listener-prefix-only security set, per release (read by hand from DynamicBrokerConfig; the members of
# each set are extracted from the code).  Terms are expressions evaluated in the context of the file
# `file`; "@log" stands for DynamicLogConfig.ReconfigurableConfigs = the primary broker synonym of every
# topic config (ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS values) minus the listed topic configs.


@dataclass
class DynSpec:
    file: str
    all_terms: list[Any]
    security: str  # DynamicSecurityConfigs: settable only with a listener.name.<l>. prefix
    listener: str  # DynamicListenerConfig.ReconfigurableConfigs
    cluster_level_listener: str
    per_broker_extra: list[str] = field(default_factory=list)


DBC_SCALA = "core/src/main/scala/kafka/server/DynamicBrokerConfig.scala"
DBC_JAVA = "server/src/main/java/org/apache/kafka/server/config/DynamicBrokerConfig.java"

_DYN_3X_BASE = [
    "SslConfigs.RECONFIGURABLE_CONFIGS.asScala",
    "LogCleaner.ReconfigurableConfigs",
    ("@log", ["message.format.version"]),
    "DynamicThreadPool.ReconfigurableConfigs",
    "Set(KafkaConfig.MetricReporterClassesProp)",
    "DynamicListenerConfig.ReconfigurableConfigs",
    "SocketServer.ReconfigurableConfigs",
]
_DYN_38_BASE = [
    "SslConfigs.RECONFIGURABLE_CONFIGS.asScala",
    "LogCleaner.ReconfigurableConfigs",
    ("@log", ["message.format.version"]),
    "DynamicThreadPool.ReconfigurableConfigs",
    "Set(MetricConfigs.METRIC_REPORTER_CLASSES_CONFIG)",
    "DynamicListenerConfig.ReconfigurableConfigs",
    "SocketServer.ReconfigurableConfigs",
    "DynamicProducerStateManagerConfig",
    "DynamicRemoteLogConfig.ReconfigurableConfigs",
]


def _dyn_scala(terms: list[Any], cl: str) -> DynSpec:
    return DynSpec(
        DBC_SCALA, terms, "SslConfigs.RECONFIGURABLE_CONFIGS.asScala", "DynamicListenerConfig.ReconfigurableConfigs", cl
    )


_CL_OLD = (
    "Set(KafkaConfig.MaxConnectionsProp, KafkaConfig.MaxConnectionCreationRateProp, KafkaConfig.NumNetworkThreadsProp)"
)
_CL_38 = "ClusterLevelListenerConfigs"
DYNAMIC: dict[str, DynSpec] = {
    "3.3": _dyn_scala(_DYN_3X_BASE, _CL_OLD),
    "3.4": _dyn_scala([*_DYN_3X_BASE, "ProducerStateManagerConfig.ReconfigurableConfigs"], _CL_OLD),
    "3.5": _dyn_scala([*_DYN_3X_BASE, "ProducerStateManagerConfig.RECONFIGURABLE_CONFIGS.asScala"], _CL_OLD),
    "3.6": _dyn_scala([*_DYN_3X_BASE, "ProducerStateManagerConfig.RECONFIGURABLE_CONFIGS.asScala"], _CL_OLD),
    "3.7": _dyn_scala(
        [
            *_DYN_3X_BASE,
            "ProducerStateManagerConfig.RECONFIGURABLE_CONFIGS.asScala",
            "DynamicRemoteLogConfig.ReconfigurableConfigs",
        ],
        _CL_OLD,
    ),
    "3.8": _dyn_scala(_DYN_38_BASE, _CL_38),
    "3.9": _dyn_scala(_DYN_38_BASE, _CL_38),
    "4.0": _dyn_scala([("@log", []) if isinstance(t, tuple) else t for t in _DYN_38_BASE], _CL_38),
    "4.1": _dyn_scala(
        [
            ("@log", [])
            if isinstance(t, tuple)
            else t.replace("LogCleaner.ReconfigurableConfigs", "LogCleaner.RECONFIGURABLE_CONFIGS.asScala").replace(
                "DynamicThreadPool.ReconfigurableConfigs", "DynamicThreadPool.RECONFIGURABLE_CONFIGS.asScala"
            )
            for t in _DYN_38_BASE
        ],
        _CL_38,
    ),
}
DYNAMIC["4.2"] = DynSpec(
    DBC_SCALA,
    [*DYNAMIC["4.1"].all_terms, "Set(AbstractConfig.CONFIG_PROVIDERS_CONFIG)"],
    DYNAMIC["4.1"].security,
    DYNAMIC["4.1"].listener,
    _CL_38,
)
_DYN_43 = DynSpec(
    DBC_JAVA,
    [
        "DYNAMIC_SECURITY_CONFIGS",
        "LogCleaner.RECONFIGURABLE_CONFIGS",
        ("@log", [], ["ServerLogConfigs.CORDONED_LOG_DIRS_CONFIG"]),
        "DynamicThreadPool.RECONFIGURABLE_CONFIGS",
        "List.of(MetricConfigs.METRIC_REPORTER_CLASSES_CONFIG)",
        "DynamicListenerConfig.RECONFIGURABLE_CONFIGS",
        "SocketServer.RECONFIGURABLE_CONFIGS",
        "DYNAMIC_PRODUCER_STATE_MANAGER_CONFIGS",
        "DynamicRemoteLogConfig.RECONFIGURABLE_CONFIGS",
        "DynamicReplicationConfig.RECONFIGURABLE_CONFIGS",
        "List.of(AbstractConfig.CONFIG_PROVIDERS_CONFIG)",
        "GroupCoordinatorConfig.RECONFIGURABLE_CONFIGS",
        # DynamicQuotaConfig.RECONFIGURABLE_CONFIGS = QuotaConfig.BROKER_QUOTA_CONFIGS = brokerQuotaConfigs().names()
        (
            "@defs",
            "server-common/src/main/java/org/apache/kafka/server/config/QuotaConfig.java",
            "brokerQuotaConfigs()",
        ),
        "ShareCoordinatorConfig.RECONFIGURABLE_CONFIGS",
    ],
    "DYNAMIC_SECURITY_CONFIGS",
    "DynamicListenerConfig.RECONFIGURABLE_CONFIGS",
    "CLUSTER_LEVEL_LISTENER_CONFIGS",
    per_broker_extra=["Set.of(ServerLogConfigs.CORDONED_LOG_DIRS_CONFIG)"],
)
DYNAMIC["4.3"] = _DYN_43
DYNAMIC["4.4"] = _DYN_43


def eval_text(r: Resolver, path: str, text: str, ctx_class: str | None = None) -> Any:
    """Evaluate an expression written in the context of file ``path`` (its imports and classes)."""
    host = r.file(path)
    extra = lex(text)
    # a synthetic file sharing the host's tokens, imports, package and classes, with the text appended
    sf = SourceFile.__new__(SourceFile)
    sf.path, sf.scala, sf.pkg, sf.imports = host.path, host.scala, host.pkg, host.imports
    sf.toks = host.toks + extra
    sf.classes, sf.all_classes = host.classes, host.all_classes
    p = _Parser(r, sf, len(host.toks), len(sf.toks))
    if ctx_class:
        p.ctx = host.classes.get(ctx_class)
    else:
        top = [c for c in host.all_classes if c.parent is None]
        p.ctx = top[0] if top else None
    try:
        v = p.expr()
    except _EvalError as exc:
        return Unresolved(f"{text} ({exc})")
    return v


def dynamic_sets(r: Resolver, release: str, problems: list[str]) -> tuple[set[str], set[str], set[str]]:
    """Returns (all dynamic, per-broker only, listener-prefix-only security configs)."""
    spec = DYNAMIC[release]
    syn = r.topic_synonyms()

    def ev(term: Any) -> list[str]:
        if isinstance(term, tuple) and term[0] == "@log":
            excluded = term[1]
            out = [v[0].name for k, v in syn.items() if k not in excluded]
            for extra in term[2] if len(term) > 2 else []:
                out.append(eval_text(r, spec.file, extra))
            return out
        if isinstance(term, tuple) and term[0] == "@defs":
            # the names a ConfigDef defines, e.g. QuotaConfig.brokerQuotaConfigs().names()
            return [r.eval(r.file(term[1]), *d.args[0]) for d in find_defines(r.file(term[1])) if d.owner == term[2]]
        v = eval_text(r, spec.file, term)
        if isinstance(v, str):
            return [v]
        if not isinstance(v, list) or any(not isinstance(x, str) for x in v):
            problems.append(f"dynamic set {term!r} did not evaluate: {v!r}")
            return []
        return v

    all_dyn: set[str] = set()
    for t in spec.all_terms:
        all_dyn.update(ev(t))
    security = set(ev(spec.security))
    listener = set(ev(spec.listener))
    cluster_level = set(ev(spec.cluster_level_listener))
    extra: set[str] = set()
    for t in spec.per_broker_extra:
        extra.update(ev(t))
    per_broker = (security | listener | extra) - cluster_level
    return all_dyn, per_broker, security


# --------------------------------------------------------------------------------------------------
# per-release sources of synonyms and group synonyms

STCS = "server-common/src/main/java/org/apache/kafka/server/config/ServerTopicConfigSynonyms.java"
SYNONYM_SOURCE = {r: (STCS, "ServerTopicConfigSynonyms", "ALL_TOPIC_CONFIG_SYNONYMS") for r in RELEASES}
SYNONYM_SOURCE["3.3"] = (LC_SCALA, "LogConfig", "AllTopicConfigSynonyms")
SYNONYM_SOURCE["3.4"] = (LC_SCALA, "LogConfig", "AllTopicConfigSynonyms")

# DynamicBrokerConfig.brokerConfigSynonyms (same four groups in every release 3.3 ... 4.4, read in each).
BROKER_SYNONYM_GROUPS = [
    {
        "primary": "log.roll.ms",
        "members": [{"name": "log.roll.ms", "unit": "ms"}, {"name": "log.roll.hours", "unit": "hours"}],
    },
    {
        "primary": "log.roll.jitter.ms",
        "members": [{"name": "log.roll.jitter.ms", "unit": "ms"}, {"name": "log.roll.jitter.hours", "unit": "hours"}],
    },
    {
        "primary": "log.retention.ms",
        "members": [
            {"name": "log.retention.ms", "unit": "ms"},
            {"name": "log.retention.minutes", "unit": "minutes"},
            {"name": "log.retention.hours", "unit": "hours"},
        ],
        "note": "KafkaConfig.logRetentionTimeMillis maps any negative resolved value to -1 (unlimited)",
    },
    {
        "primary": "log.flush.interval.ms",
        "members": [
            {"name": "log.flush.interval.ms", "unit": "ms"},
            {"name": "log.flush.scheduler.interval.ms", "unit": "ms"},
        ],
        "note": "asymmetric in DynamicBrokerConfig.brokerConfigSynonyms: only log.flush.interval.ms lists "
        "log.flush.scheduler.interval.ms as its synonym (the latter is its default)",
    },
]

GROUP_SYNONYM_SOURCE = {
    "4.3": (GCFG, "GroupConfig", "ALL_GROUP_CONFIG_SYNONYMS"),
    "4.4": (GCFG, "GroupConfig", "ALL_GROUP_CONFIG_SYNONYMS"),
}


# --------------------------------------------------------------------------------------------------
# build one release document


def build(release: str, repo: str, git: Git, previous: dict[str, Any] | None) -> dict[str, Any]:
    r = Resolver(git)
    r.synonym_source = SYNONYM_SOURCE[release]
    spec = RELEASES[release]
    vp = ValidatorParser(r, spec.kip1161)
    problems: list[str] = []
    manual = MANUAL.get(release, {})

    res: dict[str, list[dict[str, Any]]] = {}
    for resource in ("broker", "topic", "group", "client_metrics"):
        res[resource] = collect(r, vp, getattr(spec, resource), problems)
    dyn_only = collect(r, vp, spec.broker_dynamic_only, problems)
    broker_names = {e["name"] for e in res["broker"]}
    for e in dyn_only:
        if e["name"] not in broker_names:
            e["dynamic_only"] = True
            res["broker"].append(e)

    # hand-checked corrections
    for resource, fixes in manual.get("entries", {}).items():
        by_name = {e["name"]: e for e in res[resource]}
        for name, fix in fixes.items():
            if name not in by_name:
                problems.append(f"MANUAL fix for unknown {resource} key {name}")
                continue
            e = by_name[name]
            for k, v in fix.items():
                e[k] = v
            e.pop("_problems", None)
            e["hand_checked"] = True

    # dynamic scopes
    all_dyn, per_broker, security = dynamic_sets(r, release, problems)
    for e in res["broker"]:
        n = e["name"]
        if e.get("dynamic_only"):
            e["dynamic"] = "cluster-wide"
        elif n in per_broker:
            e["dynamic"] = "per-broker"
        elif n in all_dyn:
            e["dynamic"] = "cluster-wide"
        else:
            e["dynamic"] = "read-only"
        if n in security:
            e["listener_prefix_required"] = True
    unknown_dyn = sorted((all_dyn | per_broker) - {e["name"] for e in res["broker"]})
    if unknown_dyn:
        problems.append(f"dynamic names not in the broker ConfigDef: {unknown_dyn}")

    # synonyms
    syn = r.topic_synonyms()
    topic_names = [e["name"] for e in res["topic"]]
    topic_synonyms = {k: [{"name": s.name, "converter": s.converter} for s in v] for k, v in syn.items()}
    for k, v in topic_synonyms.items():
        if k not in topic_names:
            problems.append(f"synonym for unknown topic key {k}")
        for s in v:
            if s["name"] not in {e["name"] for e in res["broker"]}:
                problems.append(f"topic synonym {s['name']} is not a broker key")
    without_default = sorted(n for n in topic_names if n not in syn)

    if release in GROUP_SYNONYM_SOURCE:
        path, cls, const = GROUP_SYNONYM_SOURCE[release]
        f = r.file(path)
        gs = r.const_value(f, f.classes[cls], const)
        if not isinstance(gs, dict):
            problems.append(f"group synonyms did not evaluate: {gs!r}")
            gs = {}
        group_synonyms = dict(gs)
    else:
        group_synonyms = manual.get("group_synonyms", {})
    for k, v in group_synonyms.items():
        if k not in {e["name"] for e in res["group"]}:
            problems.append(f"group synonym for unknown group key {k}")
        if v is not None and v not in broker_names:
            problems.append(f"group synonym target {v} is not a broker key")

    # removed since the previous release
    removed: dict[str, list[str]] = {}
    if previous is not None:
        for resource in ("broker", "topic", "group", "client_metrics"):
            before = {e["name"] for e in previous.get(resource) or []}
            now = {e["name"] for e in res[resource]}
            gone = sorted(before - now)
            if gone:
                removed[resource] = gone

    # single-key checks done in code
    if res["client_metrics"]:
        for e in res["client_metrics"]:
            if e["name"] in CLIENT_METRICS_CODE_CHECKS:
                e["code_checks"] = CLIENT_METRICS_CODE_CHECKS[e["name"]]
    cfc = cross_field_checks(release, r, broker_names, {e["name"] for e in res["group"]})
    topic_set = set(topic_names)
    for c in cfc:
        known = broker_names | topic_set | {e["name"] for e in res["group"]}
        missing = [k for k in c["keys"] if k not in known]
        if missing:
            problems.append(f"cross-field check {c['id']} names unknown keys {missing}")

    # problems left in entries
    for resource, entries in res.items():
        for e in entries:
            for pr in e.pop("_problems", []) or []:
                problems.append(f"{resource} {e['name']}: {pr}")
            if "UNRESOLVED" in repr(e):
                problems.append(f"{resource} {e['name']}: unresolved value left")
            if "UNDESCRIBED" in repr(e):
                problems.append(f"{resource} {e['name']}: custom validator without a description")

    files_read = sorted(
        {e["_source"].rsplit(":", 1)[0] for es in res.values() for e in es}
        | {SYNONYM_SOURCE[release][0], DYNAMIC[release].file}
        | set(manual.get("files_read", []))
        | {c["source"].split(":")[0] for c in cfc}
        | ({GROUP_SYNONYM_SOURCE[release][0]} if release in GROUP_SYNONYM_SOURCE else set())
    )
    for es in res.values():
        for e in es:
            e["source"] = e.pop("_source")
        es.sort(key=lambda e: e["name"])

    doc: dict[str, Any] = {
        "release": release,
        "sources": {"repo": repo, "ref": git.ref, "commit": git.commit, "files_read": files_read},
        "counts": {k: len(v) for k, v in res.items()},
        "list_validation": LIST_VALIDATION[release],
        "broker": res["broker"],
        "topic": res["topic"],
        "group": res["group"],
        "client_metrics": res["client_metrics"],
        "topic_synonyms": topic_synonyms,
        "broker_synonym_groups": BROKER_SYNONYM_GROUPS,
        "group_synonyms": group_synonyms,
        "group_synonyms_note": manual.get("group_synonyms_note"),
        "topic_configs_without_server_default": without_default,
        "removed_since": {"previous_release": previous["release"], "keys": removed} if previous else None,
        "cross_field_checks": cfc,
        "notes": manual.get("notes", []),
        "unresolved": sorted(set(problems)),
    }
    return doc


LIST_VALIDATION: dict[str, dict[str, Any]] = {}
for _r in RELEASES:
    if _r >= "4.2":
        LIST_VALIDATION[_r] = {
            "kip1161": True,
            "parse": "LIST values split on \\s*,\\s* after trim (limit -1: empty elements kept); blank -> []",
            "dedup_before_validate": True,
            "rules": "ValidList: null fails unless null_allowed; [] fails unless empty_allowed; duplicates fail "
            "(but ConfigDef.parseValue de-duplicates lists with a ValidList validator first, with a WARN, "
            "so duplicates never fail in practice); every element must be a non-empty string; if values "
            "is non-empty every element must be in it",
        }
    else:
        LIST_VALIDATION[_r] = {
            "kip1161": False,
            "parse": "LIST values split on \\s*,\\s* after trim (limit -1: empty elements kept); blank -> []",
            "dedup_before_validate": False,
            "rules": "ValidList.in: only membership is checked, element by element; empty lists and duplicates "
            "pass; an empty element fails only because '' is not an allowed value",
        }


# --------------------------------------------------------------------------------------------------
# YAML output (block style for entries, flow style for validators)


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    s = str(v)
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-/]*", s) and s.lower() not in (
        "null",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "~",
    ):
        return s
    return json_str(s)


def json_str(s: str) -> str:
    import json

    return json.dumps(s, ensure_ascii=False)


def _flow(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return _scalar(v)


ENTRY_ORDER = [
    "name",
    "type",
    "default",
    "required",
    "validator",
    "code_checks",
    "importance",
    "sensitive",
    "internal",
    "dynamic",
    "listener_prefix_required",
    "dynamic_only",
    "hand_checked",
    "source",
]


def dump(doc: dict[str, Any]) -> str:
    out: list[str] = [
        f"# Kafka {doc['release']} config definitions, extracted from {doc['sources']['repo']}@{doc['sources']['ref']}",
        "# by tools/extract_kafka_configs.py and reviewed by hand. Format: conf/kafka/README.md.",
        f"release: {_scalar(doc['release'])}",
        "sources:",
        f"  repo: {doc['sources']['repo']}",
        f"  ref: {_scalar(doc['sources']['ref'])}",
        f"  commit: {doc['sources']['commit']}",
        "  files_read:",
    ]
    out += [f"    - {f}" for f in doc["sources"]["files_read"]]
    out.append("counts: " + _flow(doc["counts"]))
    out.append("list_validation:")
    out += [f"  {k}: {_scalar(v)}" for k, v in doc["list_validation"].items()]
    for resource in ("broker", "topic", "group", "client_metrics"):
        entries = doc[resource]
        if not entries:
            out.append(f"{resource}: []")
            continue
        out.append(f"{resource}:")
        for e in entries:
            keys = [k for k in ENTRY_ORDER if k in e] + [k for k in e if k not in ENTRY_ORDER]
            first = True
            for k in keys:
                v = e[k]
                if (
                    k
                    in ("required", "sensitive", "internal", "listener_prefix_required", "dynamic_only", "hand_checked")
                    and not v
                ):
                    continue
                line = f"{k}: {_flow(v) if k == 'validator' or isinstance(v, (dict, list)) else _scalar(v)}"
                out.append(("  - " if first else "    ") + line)
                first = False
    out.append("topic_synonyms:")
    for k, v in doc["topic_synonyms"].items():
        out.append(f"  {_scalar(k)}: {_flow(v)}")
    out.append("broker_synonym_groups:")
    for g in doc["broker_synonym_groups"]:
        out.append("  - " + _flow(g))
    if doc["group_synonyms"]:
        out.append("group_synonyms:")
        for k, v in doc["group_synonyms"].items():
            out.append(f"  {_scalar(k)}: {_scalar(v)}")
    else:
        out.append("group_synonyms: {}")
    if doc.get("group_synonyms_note"):
        out.append(f"group_synonyms_note: {_scalar(doc['group_synonyms_note'])}")
    out.append("topic_configs_without_server_default: " + _flow(doc["topic_configs_without_server_default"]))
    if doc["removed_since"]:
        out.append("removed_since:")
        out.append(f"  previous_release: {_scalar(doc['removed_since']['previous_release'])}")
        if doc["removed_since"]["keys"]:
            out.append("  keys:")
            for k, v in doc["removed_since"]["keys"].items():
                out.append(f"    {k}: {_flow(v)}")
        else:
            out.append("  keys: {}")
    else:
        out.append("removed_since: null")
    if doc["cross_field_checks"]:
        out.append("cross_field_checks:")
        for c in doc["cross_field_checks"]:
            first = True
            for k, v in c.items():
                out.append(
                    ("  - " if first else "    ") + f"{k}: {_flow(v) if isinstance(v, (list, dict)) else _scalar(v)}"
                )
                first = False
    else:
        out.append("cross_field_checks: []")
    if doc["notes"]:
        out.append("notes:")
        out += [f"  - {_scalar(n)}" for n in doc["notes"]]
    else:
        out.append("notes: []")
    if doc["unresolved"]:
        out.append("unresolved:")
        out += [f"  - {_scalar(u)}" for u in doc["unresolved"]]
    else:
        out.append("unresolved: []")
    text = "\n".join(out) + "\n"
    yaml.safe_load(text)  # must round-trip
    return text


# --------------------------------------------------------------------------------------------------
# "X must be <comparison> Y" checks (require(...) / throw new ...Exception(...) with such a message)

_CMP = [
    ("greater than or equals? to", ">="),
    ("less than or equals? to", "<="),
    ("greater than", ">"),
    ("less than", "<"),
]


OP_WORDS = {">=": "ge", "<=": "le", ">": "gt", "<": "lt"}


def render_message(r: Resolver, sf: SourceFile, s: int, e: int) -> str:
    """Render an exception message expression, substituting config-name constants; unknown parts become <?>."""
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
            out = re.sub(r"%[sd]", lambda _m, v=v: v if isinstance(v, str) else "<?>", out, count=1)
        return out
    parts = []
    for a, b in _split_plus(toks, s, e):
        if b - a == 2 and toks[a].text == "s" and toks[a + 1].kind == "str":
            txt = toks[a + 1].text

            def sub(m: re.Match[str]) -> str:
                v = eval_text(r, sf.path, m.group(1))
                return v if isinstance(v, str) else "<?>"

            parts.append(re.sub(r"\$\{([\w.]+)\}", sub, txt))
        elif b - a == 1 and toks[a].kind == "str":
            parts.append(toks[a].text)
        else:
            v = r.eval(sf, a, b)
            parts.append(v if isinstance(v, str) else "<?>")
    return "".join(parts)


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
    """Checks whose message reads "<key> must be <comparison> <key>" in ``path`` (optionally only inside method
    ``within``)."""
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


# --------------------------------------------------------------------------------------------------
# hand-checked data (see README "What the extractor cannot resolve")

KC_SRC = "core/src/main/scala/kafka/server/KafkaConfig.scala"
LC_J = LOGCONFIG_J
EFFECT_BROKER = (
    "broker refuses to start (KafkaConfig construction fails); a dynamic update that would break it is rejected"
)
EFFECT_TOPIC = (
    "CreateTopics / AlterConfigs for the topic is rejected by the controller "
    "(ControllerConfigurationValidator -> LogConfig.validate)"
)
EFFECT_GROUP = "IncrementalAlterConfigs / AlterConfigs on the GROUP resource is rejected"


def _c(
    cid: str,
    resource: str,
    keys: list[str],
    rule: str,
    expr: str | None,
    source: str,
    since: str = "3.3",
    until: str = "9.9",
    effect: str | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": cid,
        "resource": resource,
        "keys": keys,
        "rule": rule,
        "expr": expr,
        "kafka_effect": effect or {"broker": EFFECT_BROKER, "topic": EFFECT_TOPIC, "group": EFFECT_GROUP}[resource],
        "source": source,
        "_since": since,
        "_until": until,
    }
    if note:
        d["note"] = note
    return d


def _lng(k: str) -> str:
    return f"cast(cfg['{k}'] as long)"


# Broker checks in KafkaConfig.validateValues (read in every release; `until` is exclusive).
BROKER_CHECKS = [
    _c(
        "broker-node-id-equals-broker-id",
        "broker",
        ["node.id", "broker.id"],
        "node.id and broker.id must be equal after KafkaConfig.populateSynonyms (which copies node.id to broker.id "
        "when "
        "only node.id is set, and broker.id to node.id when only broker.id is set)",
        "cfg['broker.id'] is null or cfg['node.id'] is null or cast(cfg['broker.id'] as int) = -1 "
        "or cast(cfg['node.id'] as int) = cast(cfg['broker.id'] as int)",
        KC_SRC + ": validateValues",
        note="an unset broker.id shows its default -1 in the effective config; the expression treats -1 as unset",
    ),
    _c(
        "broker-log-roll-ms-at-least-1",
        "broker",
        ["log.roll.ms", "log.roll.hours"],
        "the effective log.roll.ms (log.roll.ms, else log.roll.hours * 3600000) must be >= 1",
        f"{_lng('log.roll.ms')} >= 1",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-log-roll-jitter-ms-at-least-0",
        "broker",
        ["log.roll.jitter.ms", "log.roll.jitter.hours"],
        "the effective log.roll.jitter.ms (log.roll.jitter.ms, else log.roll.jitter.hours * 3600000) must be >= 0",
        f"{_lng('log.roll.jitter.ms')} >= 0",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-log-retention-ms-not-zero",
        "broker",
        ["log.retention.ms", "log.retention.minutes", "log.retention.hours"],
        "the effective log.retention.ms (log.retention.ms, else log.retention.minutes * 60000, else "
        "log.retention.hours * 3600000; any negative result becomes -1) must be -1 or >= 1, i.e. it must not be 0",
        f"{_lng('log.retention.ms')} != 0",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-log-dirs-not-empty",
        "broker",
        ["log.dirs", "log.dir"],
        "log.dirs, or log.dir when log.dirs is unset, must name at least one directory",
        "trim(coalesce(cfg['log.dirs'], cfg['log.dir'], '')) != ''",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-remote-storage-single-log-dir",
        "broker",
        ["remote.log.storage.system.enable", "log.dirs", "log.dir"],
        "when remote.log.storage.system.enable=true only one log directory may be configured",
        "lower(cfg['remote.log.storage.system.enable']) != 'true' or "
        "size(split(trim(coalesce(cfg['log.dirs'], cfg['log.dir'], '')), '\\\\s*,\\\\s*')) <= 1",
        KC_SRC + ": validateValues",
        since="3.6",
        until="3.8",
    ),
    _c(
        "broker-cleaner-dedupe-buffer-per-thread",
        "broker",
        ["log.cleaner.dedupe.buffer.size", "log.cleaner.threads"],
        "log.cleaner.dedupe.buffer.size / log.cleaner.threads (integer division) must be > 1048576 (1 MiB per cleaner "
        "thread); log.cleaner.threads = 0 makes the division throw, so the broker does not start either",
        "cast(cfg['log.cleaner.threads'] as int) > 0 and "
        "cast(cfg['log.cleaner.dedupe.buffer.size'] as long) div cast(cfg['log.cleaner.threads'] as int) > 1048576",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-replica-fetch-wait-le-socket-timeout",
        "broker",
        ["replica.fetch.wait.max.ms", "replica.socket.timeout.ms"],
        "replica.fetch.wait.max.ms <= replica.socket.timeout.ms",
        "cast(cfg['replica.fetch.wait.max.ms'] as int) <= cast(cfg['replica.socket.timeout.ms'] as int)",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-replica-fetch-wait-le-lag-time",
        "broker",
        ["replica.fetch.wait.max.ms", "replica.lag.time.max.ms"],
        "replica.fetch.wait.max.ms <= replica.lag.time.max.ms",
        "cast(cfg['replica.fetch.wait.max.ms'] as long) <= cast(cfg['replica.lag.time.max.ms'] as long)",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-offsets-commit-required-acks-range",
        "broker",
        ["offsets.commit.required.acks", "offsets.topic.replication.factor"],
        "-1 <= offsets.commit.required.acks <= offsets.topic.replication.factor",
        "cast(cfg['offsets.commit.required.acks'] as int) between -1 and "
        "cast(cfg['offsets.topic.replication.factor'] as int)",
        KC_SRC + ": validateValues (3.9: GroupCoordinatorConfig)",
        until="4.0",
    ),
    _c(
        "broker-heartbeat-at-most-half-session",
        "broker",
        ["broker.heartbeat.interval.ms", "broker.session.timeout.ms"],
        "broker.heartbeat.interval.ms * 2 <= broker.session.timeout.ms (the session timeout is read on the "
        "controller, the heartbeat interval on the broker); only an ERROR log line, the broker still starts",
        "cast(cfg['broker.heartbeat.interval.ms'] as long) * 2 <= cast(cfg['broker.session.timeout.ms'] as long)",
        KC_SRC + ": validateValues",
        since="4.2",
        effect="ERROR log only (not enforced)",
    ),
    _c(
        "broker-queued-max-bytes-vs-request-max",
        "broker",
        ["queued.max.request.bytes", "socket.request.max.bytes"],
        "queued.max.request.bytes <= 0 or queued.max.request.bytes >= socket.request.max.bytes",
        "cast(cfg['queued.max.request.bytes'] as long) <= 0 or "
        "cast(cfg['queued.max.request.bytes'] as long) >= cast(cfg['socket.request.max.bytes'] as long)",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-max-connections-per-ip-zero-needs-overrides",
        "broker",
        ["max.connections.per.ip", "max.connections.per.ip.overrides"],
        "max.connections.per.ip may be 0 only if max.connections.per.ip.overrides is non-empty",
        "cast(cfg['max.connections.per.ip'] as int) != 0 or trim(coalesce(cfg['max.connections.per.ip.overrides'], "
        "'')) != ''",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-failed-auth-delay-lt-idle",
        "broker",
        ["connection.failed.authentication.delay.ms", "connections.max.idle.ms"],
        "if connections.max.idle.ms >= 0 then connection.failed.authentication.delay.ms < connections.max.idle.ms",
        "cast(cfg['connections.max.idle.ms'] as long) < 0 or "
        "cast(cfg['connection.failed.authentication.delay.ms'] as long) < cast(cfg['connections.max.idle.ms'] as long)",
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-sasl-inter-broker-mechanism-enabled",
        "broker",
        [
            "sasl.mechanism.inter.broker.protocol",
            "sasl.enabled.mechanisms",
            "security.inter.broker.protocol",
            "inter.broker.listener.name",
            "listener.security.protocol.map",
        ],
        "when the inter-broker listener uses SASL_PLAINTEXT or SASL_SSL, sasl.mechanism.inter.broker.protocol must be "
        "one of the listener's sasl.enabled.mechanisms (listener.name.<l>.sasl.enabled.mechanisms overrides the base "
        "key)",
        None,
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-message-format-within-ibp",
        "broker",
        ["log.message.format.version", "inter.broker.protocol.version"],
        "the record version of log.message.format.version must not exceed the highest record version supported by "
        "inter.broker.protocol.version (KRaft: the metadata.version)",
        None,
        KC_SRC + ": validateValues",
        until="4.0",
    ),
    _c(
        "broker-inter-broker-listener-advertised",
        "broker",
        ["inter.broker.listener.name", "security.inter.broker.protocol", "advertised.listeners", "listeners"],
        "brokers: the inter-broker listener name (inter.broker.listener.name, else the listener of "
        "security.inter.broker.protocol) must be one of the advertised broker listeners, and the advertised listener "
        "names must be a subset of the listeners' names",
        None,
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-advertised-not-wildcard",
        "broker",
        ["advertised.listeners", "listeners"],
        "no effective advertised listener (advertised.listeners, else listeners) may use the host 0.0.0.0",
        None,
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-kraft-role-listeners",
        "broker",
        [
            "process.roles",
            "node.id",
            "controller.quorum.voters",
            "controller.quorum.bootstrap.servers",
            "controller.listener.names",
            "listeners",
            "listener.security.protocol.map",
        ],
        "KRaft role rules: broker-only nodes need a non-empty controller.listener.names that does not appear in "
        "listeners and has a listener.security.protocol.map entry, and their node.id must not be a voter; controller "
        "nodes must be in controller.quorum.voters (when voters are static) and their controller.listener.names must "
        "appear in listeners; every KRaft node needs controller.quorum.voters (3.8+: or "
        "controller.quorum.bootstrap.servers)",
        None,
        KC_SRC + ": validateValues",
    ),
    _c(
        "broker-cordoned-log-dirs-subset",
        "broker",
        ["cordoned.log.dirs", "log.dirs", "log.dir"],
        "cordoned.log.dirs is either exactly '*' or every entry is one of the log directories (log.dirs, else log.dir)",
        None,
        KC_SRC + ": validateCordonedLogDirs",
        since="4.3",
    ),
    _c(
        "broker-streams-rack-tags-no-duplicates",
        "broker",
        ["group.streams.rack.aware.assignment.tags"],
        "the raw (pre-de-duplication) group.streams.rack.aware.assignment.tags value must not repeat a tag",
        None,
        GC + ": verifyStreamsGroupConfigs",
        since="4.4",
    ),
    _c(
        "broker-share-assignors-exactly-one",
        "broker",
        ["group.share.assignors"],
        "group.share.assignors must contain exactly one assignor",
        "size(split(trim(cfg['group.share.assignors']), '\\\\s*,\\\\s*')) = 1",
        GC + ": verifyShareGroupConfigs",
        since="4.3",
    ),
]

# Topic checks (LogConfig.validate* / RemoteLogConfig), read in every release.
LC_SCALA_SRC = "core/src/main/scala/kafka/log/LogConfig.scala"
_RS = "lower(cfg['remote.storage.enable']) = 'true'"


def topic_checks(release: str) -> list[dict[str, Any]]:
    src = LC_SCALA_SRC if release < "3.5" else LC_J
    out = [
        _c(
            "topic-min-compaction-lag-le-max",
            "topic",
            ["min.compaction.lag.ms", "max.compaction.lag.ms"],
            "min.compaction.lag.ms <= max.compaction.lag.ms (on the topic's overrides merged over the validating "
            "node's "
            "broker defaults)",
            f"{_lng('min.compaction.lag.ms')} <= {_lng('max.compaction.lag.ms')}",
            src + ": validateValues",
        ),
    ]
    if release < "3.6":
        out += [
            _c(
                "topic-local-retention-ms-vs-retention",
                "topic",
                ["local.retention.ms", "retention.ms"],
                "when local.retention.ms != -2: it must not be -1 unless retention.ms is -1, and it must not be "
                "greater "
                "than retention.ms (also when retention.ms is -1); checked whenever the topic's LogConfig is built, "
                "whether or not remote storage is enabled",
                f"{_lng('local.retention.ms')} = -2 or (({_lng('local.retention.ms')} != -1 or "
                f"{_lng('retention.ms')} = -1) "
                f"and {_lng('local.retention.ms')} <= {_lng('retention.ms')})",
                src + ": RemoteLogConfig",
                effect="LogConfig construction fails (topic creation / config change fails)",
            ),
            _c(
                "topic-local-retention-bytes-vs-retention",
                "topic",
                ["local.retention.bytes", "retention.bytes"],
                "when local.retention.bytes != -2: it must not be -1 unless retention.bytes is -1, and it must not be "
                "greater than retention.bytes (also when retention.bytes is -1); checked whenever the topic's "
                "LogConfig "
                "is built",
                f"{_lng('local.retention.bytes')} = -2 or (({_lng('local.retention.bytes')} != -1 or "
                f"{_lng('retention.bytes')} = -1) and {_lng('local.retention.bytes')} <= {_lng('retention.bytes')})",
                src + ": RemoteLogConfig",
                effect="LogConfig construction fails (topic creation / config change fails)",
            ),
        ]
        return out
    out += [
        _c(
            "topic-remote-storage-needs-system-enable",
            "topic",
            ["remote.storage.enable"],
            "remote.storage.enable=true requires remote.log.storage.system.enable=true on the validating "
            "broker/controller",
            None,
            src + ": validateRemoteStorageOnlyIfSystemEnabled",
            note="reads the node's remote.log.storage.system.enable; with remote storage disabled cluster-wide a "
            "stored remote.storage.enable=true also fails broker-side when configs are loaded",
        ),
        _c(
            "topic-remote-retention-ms",
            "topic",
            ["remote.storage.enable", "local.retention.ms", "retention.ms"],
            "if remote.storage.enable=true, retention.ms != -1 and local.retention.ms != -2: local.retention.ms must "
            "not be -1 and must be <= retention.ms",
            f"not ({_RS}) or {_lng('retention.ms')} = -1 or {_lng('local.retention.ms')} = -2 or "
            f"({_lng('local.retention.ms')} != -1 and {_lng('local.retention.ms')} <= {_lng('retention.ms')})",
            src + ": validateRemoteStorageRetentionTime",
        ),
        _c(
            "topic-remote-retention-bytes",
            "topic",
            ["remote.storage.enable", "local.retention.bytes", "retention.bytes"],
            "if remote.storage.enable=true, retention.bytes > -1 and local.retention.bytes != -2: "
            "local.retention.bytes "
            "must not be -1 and must be <= retention.bytes",
            f"not ({_RS}) or {_lng('retention.bytes')} <= -1 or {_lng('local.retention.bytes')} = -2 or "
            f"({_lng('local.retention.bytes')} != -1 and {_lng('local.retention.bytes')} <= {_lng('retention.bytes')})",
            src + ": validateRemoteStorageRetentionSize",
        ),
    ]
    if release < "4.1":
        out.append(
            _c(
                "topic-remote-storage-not-compacted",
                "topic",
                ["remote.storage.enable", "cleanup.policy"],
                "if remote.storage.enable=true, cleanup.policy must not contain 'compact'",
                f"not ({_RS}) or not array_contains(split(trim(cfg['cleanup.policy']), '\\\\s*,\\\\s*'), 'compact')",
                src + ": validateNoRemoteStorageForCompactedTopic",
            )
        )
    elif release < "4.2":
        out.append(
            _c(
                "topic-remote-storage-delete-only",
                "topic",
                ["remote.storage.enable", "cleanup.policy"],
                "if remote.storage.enable=true, the set of (lower-cased) cleanup.policy values must be exactly "
                "{delete}",
                f"not ({_RS}) or array_sort(array_distinct(split(lower(trim(cfg['cleanup.policy'])), "
                "'\\\\s*,\\\\s*'))) = array('delete')",
                src + ": validateRemoteStorageRequiresDeleteCleanupPolicy",
            )
        )
    else:
        out.append(
            _c(
                "topic-remote-storage-delete-only",
                "topic",
                ["remote.storage.enable", "cleanup.policy"],
                "if remote.storage.enable=true, cleanup.policy must be exactly [delete] or the empty list",
                f"not ({_RS}) or trim(cfg['cleanup.policy']) in ('', 'delete')",
                src + ": validateRemoteStorageRequiresDeleteCleanupPolicy",
            )
        )
    if release >= "3.9":
        out += [
            _c(
                "topic-remote-copy-disabled-retention",
                "topic",
                [
                    "remote.storage.enable",
                    "remote.log.copy.disable",
                    "local.retention.ms",
                    "retention.ms",
                    "local.retention.bytes",
                    "retention.bytes",
                ],
                "if remote.storage.enable=true and remote.log.copy.disable=true: local.retention.bytes must be -2 or "
                "equal to retention.bytes, and local.retention.ms must be -2 or equal to retention.ms",
                f"not ({_RS} and lower(cfg['remote.log.copy.disable']) = 'true') or "
                f"(({_lng('local.retention.bytes')} = -2 or {_lng('local.retention.bytes')} = "
                f"{_lng('retention.bytes')}) and "
                f"({_lng('local.retention.ms')} = -2 or {_lng('local.retention.ms')} = {_lng('retention.ms')}))",
                src + ": validateRetentionConfigsWhenRemoteCopyDisabled",
            ),
            _c(
                "topic-remote-storage-disable-needs-delete",
                "topic",
                ["remote.storage.enable", "remote.log.delete.on.disable"],
                "changing remote.storage.enable from true to false requires remote.log.delete.on.disable=true in the "
                "same change (state transition, not a property of a single config snapshot)",
                None,
                src + ": validateTurningOffRemoteStorageWithDelete",
            ),
        ]
    if release >= "4.4":
        out += [
            _c(
                "topic-remote-copy-lag-ms-le-local-retention",
                "topic",
                ["remote.storage.enable", "remote.copy.lag.ms", "local.retention.ms", "retention.ms"],
                "if remote.storage.enable=true and remote.copy.lag.ms > 0: with effective local retention "
                "L = (local.retention.ms == -2 ? retention.ms : local.retention.ms), if L >= 0 then "
                "remote.copy.lag.ms <= L",
                f"not ({_RS}) or {_lng('remote.copy.lag.ms')} <= 0 or (case when {_lng('local.retention.ms')} = -2 "
                f"then "
                f"{_lng('retention.ms')} else {_lng('local.retention.ms')} end) < 0 or {_lng('remote.copy.lag.ms')} <= "
                f"(case when {_lng('local.retention.ms')} = -2 then {_lng('retention.ms')} else "
                f"{_lng('local.retention.ms')} end)",
                src + ": validateRemoteCopyLagTime",
            ),
            _c(
                "topic-remote-copy-lag-bytes-le-local-retention",
                "topic",
                ["remote.storage.enable", "remote.copy.lag.bytes", "local.retention.bytes", "retention.bytes"],
                "if remote.storage.enable=true and remote.copy.lag.bytes > 0: with effective local retention "
                "L = (local.retention.bytes == -2 ? retention.bytes : local.retention.bytes), if L >= 0 then "
                "remote.copy.lag.bytes <= L",
                f"not ({_RS}) or {_lng('remote.copy.lag.bytes')} <= 0 or (case when {_lng('local.retention.bytes')} "
                f"= -2 then "
                f"{_lng('retention.bytes')} else {_lng('local.retention.bytes')} end) < 0 or "
                f"{_lng('remote.copy.lag.bytes')} <= "
                f"(case when {_lng('local.retention.bytes')} = -2 then {_lng('retention.bytes')} else "
                f"{_lng('local.retention.bytes')} end)",
                src + ": validateRemoteCopyLagSize",
            ),
        ]
    if release >= "3.6":
        out += [
            _c(
                "broker-remote-retention-ms",
                "broker",
                ["remote.log.storage.system.enable", "log.local.retention.ms", "log.retention.ms"],
                "if remote.log.storage.system.enable=true, the broker-level values must satisfy the topic rule: with "
                "effective log.retention.ms != -1 and log.local.retention.ms != -2, log.local.retention.ms must not "
                "be -1 "
                "and must be <= the effective log.retention.ms",
                "lower(cfg['remote.log.storage.system.enable']) != 'true' or " + f"{_lng('log.retention.ms')} = -1 or "
                f"{_lng('log.local.retention.ms')} = -2 or ({_lng('log.local.retention.ms')} != -1 and "
                f"{_lng('log.local.retention.ms')} <= {_lng('log.retention.ms')})",
                src + ": validateBrokerLogConfigValues (called by LogManager at startup)",
            ),
            _c(
                "broker-remote-retention-bytes",
                "broker",
                ["remote.log.storage.system.enable", "log.local.retention.bytes", "log.retention.bytes"],
                "if remote.log.storage.system.enable=true: with log.retention.bytes > -1 and log.local.retention.bytes "
                "!= -2, log.local.retention.bytes must not be -1 and must be <= log.retention.bytes",
                "lower(cfg['remote.log.storage.system.enable']) != 'true' or "
                + f"{_lng('log.retention.bytes')} <= -1 or "
                f"{_lng('log.local.retention.bytes')} = -2 or ({_lng('log.local.retention.bytes')} != -1 and "
                f"{_lng('log.local.retention.bytes')} <= {_lng('log.retention.bytes')})",
                src + ": validateBrokerLogConfigValues (called by LogManager at startup)",
            ),
        ]
    return out


# Group checks of 4.4 (GroupConfig.validateValues with validateIntRange/validateIntMin/validateIntMax helpers;
# the other releases' group checks are read from the "must be" messages).
def group_checks_44() -> list[dict[str, Any]]:
    """GroupConfig.validateValues of 4.4 (validateIntRange / validateIntMin / validateIntMax helpers).

    Ids match the ones read from the messages of 4.0-4.3 for the same comparison.
    """
    src = GCFG + ": validateValues"
    ranges = [
        ("consumer", "heartbeat.interval.ms"),
        ("consumer", "session.timeout.ms"),
        ("consumer", "assignment.interval.ms"),
        ("share", "heartbeat.interval.ms"),
        ("share", "session.timeout.ms"),
        ("share", "record.lock.duration.ms"),
        ("share", "delivery.count.limit"),
        ("share", "partition.max.record.locks"),
        ("share", "assignment.interval.ms"),
        ("streams", "heartbeat.interval.ms"),
        ("streams", "session.timeout.ms"),
        ("streams", "assignment.interval.ms"),
    ]
    bounds: list[tuple[str, str, str]] = []
    for kind, suffix in ranges:
        key = f"{kind}.{suffix}"
        bounds.append((key, ">=", f"group.{kind}.min.{suffix}"))
        bounds.append((key, "<=", f"group.{kind}.max.{suffix}"))
    bounds += [
        ("streams.num.standby.replicas", "<=", "group.streams.max.standby.replicas"),
        ("streams.num.warmup.replicas", "<=", "group.streams.max.warmup.replicas"),
        ("streams.task.offset.interval.ms", ">=", "group.streams.min.task.offset.interval.ms"),
    ]
    out = [
        _c(
            f"group-{key}-{OP_WORDS[op]}-{bound}",
            "group",
            [key, bound],
            f"{key} {op} {bound} (checked only when the group sets {key}; the bound is the broker's current value)",
            None,
            src,
            since="4.4",
        )
        for key, op, bound in bounds
    ]
    for kind in ("consumer", "share", "streams"):
        out.append(
            _c(
                f"group-{kind}.session.timeout.ms-gt-{kind}.heartbeat.interval.ms",
                "group",
                [
                    f"{kind}.session.timeout.ms",
                    f"{kind}.heartbeat.interval.ms",
                    f"group.{kind}.session.timeout.ms",
                    f"group.{kind}.heartbeat.interval.ms",
                ],
                f"when the group sets either key: {kind}.session.timeout.ms > {kind}.heartbeat.interval.ms, a side "
                f"the group does not set taking the broker's group.{kind}.session.timeout.ms / "
                f"group.{kind}.heartbeat.interval.ms",
                f"cast(cfg['{kind}.session.timeout.ms'] as int) > cast(cfg['{kind}.heartbeat.interval.ms'] as int)",
                GCFG + ": validateSessionExceedsHeartbeat",
                since="4.4",
            )
        )
    out += [
        _c(
            "group-streams.assignor.name-registered",
            "group",
            ["streams.assignor.name", "group.streams.assignors"],
            "when set: streams.assignor.name must be one of the broker's registered streams assignors "
            "(group.streams.assignors)",
            None,
            src,
            since="4.4",
        ),
        _c(
            "group-dlq-topic-not-internal",
            "group",
            ["errors.deadletterqueue.topic.name"],
            "errors.deadletterqueue.topic.name must not start with '__'",
            "not startswith(coalesce(cfg['errors.deadletterqueue.topic.name'], ''), '__')",
            src,
            since="4.4",
        ),
        _c(
            "group-streams.rack.aware.assignment.tags-no-duplicates",
            "group",
            ["streams.rack.aware.assignment.tags"],
            "the raw streams.rack.aware.assignment.tags value must not repeat a tag (checked before ConfigDef "
            "de-duplicates it)",
            None,
            GCFG + ": validateNoDuplicateRackAwareAssignmentTags",
            since="4.4",
        ),
    ]
    return out


# Where the "<key> must be <cmp> <key>" checks live, per release: (path, resource, method or None)
def must_be_sources(release: str) -> list[tuple[str, str, str | None]]:
    if release < "3.5":
        return []
    if release < "3.9":
        return [(KC_SRC, "broker", "validateValues")]
    share = (
        "server/src/main/java/org/apache/kafka/server/config/ShareGroupConfig.java"
        if release < "4.0"
        else "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/share/ShareGroupConfig.java"
    )
    out: list[tuple[str, str, str | None]] = [(GC, "broker", None), (share, "broker", None)]
    if "4.0" <= release < "4.4":
        out.append((GCFG, "group", "validateValues"))
    return out


def cross_field_checks(
    release: str, r: Resolver, broker_names: set[str], group_names: set[str]
) -> list[dict[str, Any]]:
    checks = [c for c in BROKER_CHECKS + topic_checks(release) if c["_since"] <= release < c["_until"]]
    if release == "4.4":
        checks += group_checks_44()
    for path, resource, method in must_be_sources(release):
        lhs = broker_names if resource == "broker" else group_names
        for c in must_be_checks(r, path, resource, lhs, broker_names | group_names, within=method):
            a, b = c["keys"]
            op = c["rule"].split()[1]
            same = (a in lhs) and ((b in broker_names) == (resource == "broker"))
            c["expr"] = f"cast(cfg['{a}'] as long) {op} cast(cfg['{b}'] as long)" if same else None
            if resource == "group":
                c["rule"] += (
                    " (checked on the group's overrides merged over the broker-derived group defaults; "
                    "bounds on the right are the broker's current values)"
                    if not same
                    else " (on the group's overrides merged over the broker-derived group defaults)"
                )
                c["kafka_effect"] = EFFECT_GROUP
            else:
                c["kafka_effect"] = EFFECT_BROKER
            c["message"] = c.pop("message")
            checks.append(c)
    out = []
    seen = set()
    for c in checks:
        c = {k: v for k, v in c.items() if not k.startswith("_")}
        if c["id"] == "broker-kraft-role-listeners":
            c["keys"] = [k for k in c["keys"] if k in broker_names]
        if c["id"] in seen:
            continue
        seen.add(c["id"])
        out.append(c)
    return out


# Client-metrics single-key checks done in code (ClientMetricsConfigs.validate), 3.7+.
CLIENT_METRICS_CODE_CHECKS = {
    "interval.ms": [
        {
            "kind": "between",
            "min": 100,
            "max": 3600000,
            "source": "server/src/main/java/org/apache/kafka/server/metrics/ClientMetricsConfigs.java: validate",
            "note": "checked only when the key is set (ConfigDef itself has no validator)",
        }
    ],
    "match": [
        {
            "kind": "custom",
            "name": "ClientMetricsConfigs.parseMatchingPatterns",
            "description": "every element must be '<param>=<regex>' (split on '=' gives exactly 2 parts), param "
            "(trimmed) one of client_instance_id, client_id, client_software_name, "
            "client_software_version, client_source_address, client_source_port, and the regex "
            "(trimmed) must compile",
            "source": "server/src/main/java/org/apache/kafka/server/metrics/ClientMetricsConfigs.java: validate",
        }
    ],
}

_LSPM_SCALA = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
_LSPM_JAVA = "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"
_SSL_J11 = {"ssl.protocol": {"default": "TLSv1.3"}, "ssl.enabled.protocols": {"default": "TLSv1.2,TLSv1.3"}}
_NOTE_LSPM = (
    "listener.security.protocol.map default: 3.3-3.7 build it as a Scala Map of SecurityProtocol.values "
    "(insertion order); 3.8+ collect a java.util.HashMap (iteration order SASL_SSL, PLAINTEXT, SSL, "
    "SASL_PLAINTEXT, computed from String.hashCode); the mapping is the same"
)
_NOTE_SSL = (
    "ssl.protocol / ssl.enabled.protocols defaults before 4.0 depend on the JVM (SslConfigs static block): "
    "Java 11+ gives TLSv1.3 / TLSv1.2,TLSv1.3 (recorded), Java 8 gives TLSv1.2 / TLSv1.2"
)
_NOTE_TM = (
    "ssl.keymanager.algorithm / ssl.trustmanager.algorithm defaults are the JVM's "
    "KeyManagerFactory/TrustManagerFactory.getDefaultAlgorithm() (SunX509 / PKIX on standard JDKs)"
)


def _manual(release: str) -> dict[str, Any]:
    broker: dict[str, Any] = {
        "listener.security.protocol.map": {"default": _LSPM_SCALA if release < "3.8" else _LSPM_JAVA},
    }
    if release < "4.0":
        broker.update(_SSL_J11)
    topic: dict[str, Any] = {}
    if release < "3.5":
        comp = {
            "validator": vform(
                "in", values=["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"], case_insensitive=False
            )
        }
        broker["compression.type"] = comp
        topic["compression.type"] = comp
        broker["offsets.topic.compression.codec"] = {
            "default": "0"
        }  # OffsetConfig.DefaultOffsetsTopicCompressionCodec = NoCompressionCodec (codec 0)
    if release < "3.8":
        broker["ssl.client.auth"] = {
            "validator": vform("in", values=["required", "requested", "none"], case_insensitive=False)
        }
    group: dict[str, Any] = {}
    if release >= "4.0":
        group["share.auto.offset.reset"] = {
            "default": "latest",
            "validator": vform(
                "custom",
                name="ShareGroupAutoOffsetResetStrategy.Validator",
                description="'earliest', 'latest' or 'by_duration:<ISO-8601 duration>' (case-insensitive "
                "strategy name; the duration must parse and not be negative)",
            ),
        }
    notes = [_NOTE_LSPM, _NOTE_TM]
    if release < "4.0":
        notes.append(_NOTE_SSL)
    if release >= "4.4":
        notes.append(
            "4.4: GroupConfigManager applies stored group overrides through GroupConfig.evaluate, which caps values "
            "outside the broker's current min/max bounds (WARN log) instead of rejecting them; the group "
            "cross_field_checks are what AlterConfigs enforces when the override is written"
        )
    if release >= "4.3":
        notes.append(
            "4.3+: GroupCoordinatorConfig.clampDynamicConfigs clamps dynamic group.{consumer,share,streams}"
            ".assignment.interval.ms into their min/max bounds with a WARN instead of failing"
        )
    m: dict[str, Any] = {"entries": {"broker": broker, "topic": topic, "group": group}, "notes": notes}
    if "4.0" <= release < "4.3":
        gs = {
            "consumer.session.timeout.ms": "group.consumer.session.timeout.ms",
            "consumer.heartbeat.interval.ms": "group.consumer.heartbeat.interval.ms",
        }
        if release >= "4.1":
            gs.update(
                {
                    "share.session.timeout.ms": "group.share.session.timeout.ms",
                    "share.heartbeat.interval.ms": "group.share.heartbeat.interval.ms",
                }
            )
        gs["share.record.lock.duration.ms"] = "group.share.record.lock.duration.ms"
        m["group_synonyms"] = gs
        m["group_synonyms_note"] = (
            "4.0-4.2 have no synonym table: GroupConfigManager builds each group's GroupConfig from "
            "GroupCoordinatorConfig.extractGroupConfigMap (the keys listed here, taken from the broker) plus the "
            "group's "
            "overrides. Other group keys of a group that has any override take GroupConfig's own ConfigDef default, "
            "not the broker value; a group without overrides uses the broker's group.* values for everything."
        )
    m["files_read"] = [
        KC_SRC,
        "core/src/main/scala/kafka/server/DynamicBrokerConfig.scala" if release < "4.3" else DBC_JAVA,
    ]
    return m


MANUAL: dict[str, dict[str, Any]] = {r: _manual(r) for r in RELEASES}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Extract Kafka config definitions of one release into YAML.")
    ap.add_argument("--git-dir", required=True, help="bare git mirror of apache/kafka or confluentinc/kafka")
    ap.add_argument("--ref", required=True, help="branch or tag to read")
    ap.add_argument("--release", required=True, choices=sorted(RELEASES))
    ap.add_argument("--repo", required=True, help="owner/name, recorded in sources:")
    ap.add_argument("--previous", help="YAML of the previous release, for removed_since")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    git = Git(args.git_dir, args.ref)
    previous = None
    if args.previous:
        with open(args.previous) as fh:
            previous = yaml.safe_load(fh)
    doc = build(args.release, args.repo, git, previous)
    text = dump(doc)
    with open(args.out, "w") as fh:
        fh.write(text)
    print(
        f"wrote {args.out}: "
        + ", ".join(f"{k}={v}" for k, v in doc["counts"].items())
        + f"; unresolved={len(doc['unresolved'])}",
        file=sys.stderr,
    )
    for u in doc["unresolved"]:
        print(f"  unresolved: {u}", file=sys.stderr)
    return 3 if doc["unresolved"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
