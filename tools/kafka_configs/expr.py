"""A Pratt parser that evaluates the constant subset of Java/Scala expressions Kafka's config classes use.

String concatenation, integer arithmetic (Java semantics for ``/``), ``TimeUnit.X.toMillis(n)``, ``Duration``,
list/set/map builders of both languages, enum members, ``X.class.getName()``, ``new X()`` getters that return a
constant, ``ConfigSynonym`` and the ``ServerTopicConfigSynonyms`` helpers. Names are looked up through the
:class:`~tools.kafka_configs.resolver.Resolver`; anything else raises :class:`EvalError`, which the resolver turns
into an :class:`~tools.kafka_configs.values.Unresolved` value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Final, Protocol

from tools.kafka_configs.lexer import Tok, match_close
from tools.kafka_configs.source import ClassInfo, SourceFile
from tools.kafka_configs.values import (
    JDK_CONSTS,
    ClassRef,
    DurationValue,
    EnumRef,
    EvalError,
    MethodRef,
    ObjRef,
    SynonymRef,
    TimeUnitValue,
    Unresolved,
    jstr,
    parse_number,
)

__all__ = ["ExprParser", "Lookup"]


class Lookup(Protocol):
    """What evaluating an expression needs from :class:`~tools.kafka_configs.resolver.Resolver` (which in turn
    evaluates constants with :class:`ExprParser`: the protocol keeps the two modules out of an import cycle)."""

    jvm_defaults: dict[str, str]

    def file(self, path: str) -> SourceFile: ...

    def find_class(self, sf: SourceFile, name: str) -> tuple[SourceFile, ClassInfo] | None: ...

    def class_by_path(self, pkg: list[str], cls: str) -> tuple[SourceFile, ClassInfo] | None: ...

    def fqcn(self, sf: SourceFile, name: str) -> str: ...

    def lookup_const(
        self, sf: SourceFile, ctx: ClassInfo | None, name: str
    ) -> tuple[SourceFile, ClassInfo, str] | None: ...

    def const_value(self, sf: SourceFile, cls: ClassInfo, name: str) -> Any: ...

    def eval(self, sf: SourceFile, s: int, e: int) -> Any: ...

    def enum_string(self, ref: EnumRef, member: str, call: bool) -> Any: ...

    def enum_options(self, f: SourceFile, info: ClassInfo, exclude: Iterable[str] = ()) -> list[Any]: ...

    def topic_synonyms(self) -> Mapping[str, list[SynonymRef]]: ...


TIMEUNIT_MS: Final[dict[str, float]] = {
    "NANOSECONDS": 1e-6,
    "MICROSECONDS": 1e-3,
    "MILLISECONDS": 1,
    "SECONDS": 1000,
    "MINUTES": 60000,
    "HOURS": 3600000,
    "DAYS": 86400000,
}
_TO_UNIT_MS: Final = {"toMillis": 1, "toSeconds": 1000, "toMinutes": 60000, "toHours": 3600000, "toDays": 86400000}
_DURATION_MS: Final = {"ofMinutes": 60000, "ofSeconds": 1000, "ofHours": 3600000, "ofMillis": 1, "ofDays": 86400000}

# ConfigSynonym converter constants -> the catalog's converter names
CONVERTERS: Final = {"HOURS_TO_MILLISECONDS": "hours_to_ms", "MINUTES_TO_MILLISECONDS": "minutes_to_ms"}


def _helper_pair(topic_key: str, broker_keys: list[SynonymRef]) -> tuple[str, list[SynonymRef]]:
    return topic_key, broker_keys


# The private helpers of ServerTopicConfigSynonyms (identical semantics in 3.5 ... 4.4, read in each release):
# each returns a map entry topic key -> its broker synonyms.
SYNONYM_HELPERS: Final[dict[str, Callable[..., tuple[str, list[SynonymRef]]]]] = {
    "sameName": lambda c: _helper_pair(c, [SynonymRef(c, None)]),
    "sameNameWithLogPrefix": lambda c: _helper_pair(c, [SynonymRef("log." + c, None)]),
    "sameNameWithLogCleanerPrefix": lambda c: _helper_pair(c, [SynonymRef("log.cleaner." + c, None)]),
    "singleWithLogPrefix": lambda t, b: _helper_pair(t, [SynonymRef("log." + b, None)]),
    "singleWithLogCleanerPrefix": lambda t, b: _helper_pair(t, [SynonymRef("log.cleaner." + b, None)]),
    "listWithLogPrefix": lambda t, *syns: _helper_pair(t, [SynonymRef("log." + s.name, s.converter) for s in syns]),
    "single": lambda t, b: _helper_pair(t, [SynonymRef(b, None)]),
}

_CASTS: Final = ("int", "long", "short", "double", "float", "byte", "Integer", "Long", "Short", "Double")
_INT_CASTS: Final = ("int", "long", "short", "byte", "Integer", "Long", "Short")
_FLOAT_CASTS: Final = ("double", "float", "Double")

# Calls that build a list from their arguments (Java and Scala spellings).
_LIST_BUILDERS: Final = frozenset(
    {
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
    }
)
_MAP_BUILDERS: Final = frozenset({"Map", "Utils.mkMap", "mkMap", "Map.of", "Map.ofEntries"})
_EMPTY_COLLECTIONS: Final = frozenset(
    {
        "Collections.emptyList",
        "Collections.emptySet",
        "List.empty",
        "Seq.empty",
        "Nil",
        "Set.empty",
        "util.Collections.emptyList",
    }
)
# Conversions that leave a collection as it is (for the evaluator a collection is a list).
_SAME_COLLECTION: Final = frozenset(
    {"asJava", "asScala", "toList", "toSeq", "toSet", "toBuffer", "stream", "toArray", "sorted", "unmodifiableList"}
)
_STRING_SAME: Final = frozenset({"toString", "name", "trim", "toLowerCase(Locale.ROOT)"})


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class ExprParser:
    """Parses and evaluates ``toks[s:e]`` of one file in the context of the class at ``s``."""

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

    def __init__(self, r: Lookup, sf: SourceFile, s: int, e: int, ctx: ClassInfo | None = None) -> None:
        """Prepare to evaluate ``sf.toks[s:e]``.

        Args:
            r: resolves names across files.
            sf: the file the expression is in.
            s: first token.
            e: end (exclusive).
            ctx: the class whose constants bare names refer to first (default: the class around ``s``).
        """
        self.r = r
        self.sf = sf
        self.toks = sf.toks
        self.i = s
        self.e = e
        self.ctx = ctx if ctx is not None else sf.class_at(s)

    # ---- token access
    def peek(self, k: int = 0) -> Tok | None:
        """The token ``k`` ahead, or None past the end of the expression."""
        j = self.i + k
        return self.toks[j] if j < self.e else None

    def peek_text(self, k: int = 0) -> str | None:
        """The text of the token ``k`` ahead, or None past the end."""
        t = self.peek(k)
        return None if t is None else t.text

    def peek_kind(self, k: int = 0) -> str | None:
        """The kind of the token ``k`` ahead, or None past the end."""
        t = self.peek(k)
        return None if t is None else t.kind

    def take(self, text: str | None = None) -> Tok:
        """Consume the next token (which must be ``text`` when given)."""
        t = self.peek()
        if t is None or (text is not None and t.text != text):
            raise EvalError(f"expected {text}")
        self.i += 1
        return t

    # ---- grammar
    def expr(self, prec: int = 0) -> Any:
        """Evaluate an expression whose operators bind tighter than ``prec`` (0: a whole expression)."""
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
                    raise EvalError("ternary")
                return left
            self.i += 1
            right = self.expr(self.BINARY[t.text])
            left = self.binop(t.text, left, right)

    def binop(self, op: str, a: Any, b: Any) -> Any:
        """Apply a binary operator with Java semantics (string ``+``, truncating integer ``/``)."""
        if isinstance(a, Unresolved) or isinstance(b, Unresolved):
            raise EvalError("unresolved operand")
        if op == "->":
            return (a, b)
        if op == "--" and isinstance(a, list) and isinstance(b, list):
            return [x for x in a if x not in b]
        if op == "+" and (isinstance(a, str) or isinstance(b, str)):
            return jstr(a) + jstr(b)
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
            raise EvalError(f"bad operands for {op}")
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
        if op == "<<" and isinstance(a, int) and isinstance(b, int):
            return a << b
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
        raise EvalError(op)

    def unary(self) -> Any:
        """Prefix ``-`` / ``!``, primitive casts, then a primary with its postfix members."""
        t = self.peek()
        if t is None:
            raise EvalError("eof")
        if t.text == "-" and t.kind == "op":
            self.i += 1
            v = self.unary()
            if _is_number(v):
                return -v
            raise EvalError("neg")
        if t.text == "!" and t.kind == "op":
            self.i += 1
            v = self.unary()
            if isinstance(v, bool):
                return not v
            raise EvalError("not")
        # casts: (int) x, (long) x
        if t.text == "(" and self.peek_text(1) in _CASTS and self.peek_text(2) == ")":
            cast = self.peek_text(1)
            self.i += 3
            v = self.unary()
            if isinstance(v, (int, float)) and cast in _INT_CASTS:
                return int(v)
            if isinstance(v, (int, float)) and cast in _FLOAT_CASTS:
                return float(v)
            return v
        return self.postfix(self.primary())

    def primary(self) -> Any:
        """A literal, a parenthesised expression, ``new ...``, ``classOf[X]`` or a (qualified) name or call."""
        t = self.take()
        if t.kind == "str":
            return t.text
        if t.kind == "char":
            return t.text[1:-1]
        if t.kind == "num":
            return parse_number(t.text)
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
            if t.text == "classOf" and self.peek_text() == "[":
                self.take("[")
                name = self.qualified()
                self.take("]")
                return self._class_ref(name.split("."))
            return self.name_expr(t.text)
        raise EvalError(f"unexpected {t.text}")

    def qualified(self) -> str:
        """A dotted name ``a.b.C``."""
        parts = [self.take().text]
        while self.peek_text() == "." and self.peek_kind(1) == "id":
            self.i += 1
            parts.append(self.take().text)
        return ".".join(parts)

    def new_expr(self) -> Any:
        """``new X(...)``: collections, ``ConfigSynonym``, ``Password`` and argument-less objects."""
        name = self.qualified()
        if self.peek_text() == "<":
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
        if self.peek_text() == "[":
            self.take("[")
            if self.peek_text() != "]":
                self.expr()
            self.take("]")
            if self.peek_text() == "{":
                return self.arglist("{", "}")
            return []
        args = self.arglist("(", ")") if self.peek_text() == "(" else []
        if self.peek_text() == "{":
            raise EvalError("anonymous class")
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
        raise EvalError(f"new {name}")

    def arglist(self, o: str, c: str) -> list[Any]:
        """Evaluate the comma-separated expressions between ``o`` and ``c``."""
        self.take(o)
        out: list[Any] = []
        while self.peek() is not None and self.peek_text() != c:
            out.append(self.expr())
            if self.peek_text() == ",":
                self.i += 1
        self.take(c)
        return out

    def name_expr(self, first: str) -> Any:
        """A name starting with ``first``: a constant, ``X.Y.CONST``, a call ``X.m(...)`` / ``f(...)``."""
        if self.peek_text() == "::" and self.peek(1) is not None:
            self.i += 2
            return MethodRef(first + "::" + self.toks[self.i - 1].text)
        parts = [first]
        while self.peek_text() == "." and self.peek_kind(1) == "id":
            if self.peek_text(2) == "(":
                break  # a method call on the name so far, handled below
            self.i += 1
            parts.append(self.take().text)
        # method call on a qualified receiver: X.Y.m(...)
        if self.peek_text() == "." and self.peek_text(2) == "(":
            self.i += 1
            meth = self.take().text
            args = self.arglist("(", ")")
            return self.call(parts, meth, args)
        if self.peek_text() == "[" and self.sf.scala:
            # Scala type arguments: Collections.emptyList[String]()
            self.i = match_close(self.toks, self.i) + 1
        if self.peek_text() == "(":
            # bare function call: f(...)  /  Scala List(...), Set(...), Seq(...)
            args = self.arglist("(", ")")
            return self.call(parts[:-1], parts[-1], args)
        return self.resolve_parts(parts)

    def resolve_parts(self, parts: list[str]) -> Any:
        """The value of a dotted name: a JDK constant, a constant of this or another class, or an enum constant."""
        full = ".".join(parts)
        if parts[-1] == "class" and len(parts) >= 2:
            return self._class_ref(parts[:-1])
        if full in JDK_CONSTS:
            return JDK_CONSTS[full]
        if len(parts) >= 2 and parts[-2] == "TimeUnit":
            return TimeUnitValue(parts[-1])
        if len(parts) >= 2 and parts[-1] in CONVERTERS and parts[-2] == "ConfigSynonym":
            return CONVERTERS[parts[-1]]
        if parts[-1] in CONVERTERS and len(parts) == 1:
            return CONVERTERS[parts[-1]]
        # walk: first part as constant, else as class
        sf, ctx = self.sf, self.ctx
        if len(parts) == 1:
            hit = self.r.lookup_const(sf, ctx, parts[0])
            if hit is None:
                raise EvalError(f"unknown name {parts[0]}")
            return self.r.const_value(*hit)
        # qualified: find the longest class prefix
        for k in range(len(parts) - 1, 0, -1):
            found = self.class_chain(parts[:k])
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
        raise EvalError(f"unknown name {full}")

    def _class_ref(self, parts: list[str]) -> ClassRef:
        found = self.class_chain(parts)
        return ClassRef(
            self.r.fqcn(self.sf, ".".join(parts)),
            found[0].path if found else None,
            found[1].name if found else None,
        )

    def class_chain(self, parts: list[str]) -> tuple[SourceFile, ClassInfo] | None:
        """The class named by ``parts`` (``Outer.Inner`` or fully qualified ``a.b.Outer.Inner``), if found."""
        found = self.r.find_class(self.sf, parts[0])
        if found is None and len(parts) >= 2:
            # fully qualified: a.b.c.Class
            for k in range(len(parts) - 1, 0, -1):
                found = self.r.class_by_path(parts[:k], parts[k])
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
        """Apply ``.member`` / ``.method(...)`` suffixes (and skip Scala's ``: _*``)."""
        while True:
            t = self.peek()
            if t is None:
                return v
            if t.text == "." and self.peek_kind(1) == "id":
                self.i += 1
                name = self.take().text
                args = None
                if self.peek_text() == "(":
                    args = self.arglist("(", ")")
                v = self.member(v, name, args)
                continue
            if t.text == ":" and self.peek_text(1) == "_" and self.peek_text(2) == "*":
                self.i += 3
                continue
            return v

    def member(self, v: Any, name: str, args: list[Any] | None) -> Any:
        """``v.name`` (``args`` None) or ``v.name(args)`` for the receivers the evaluator knows."""
        if isinstance(v, Unresolved):
            raise EvalError("unresolved receiver")
        if name in _SAME_COLLECTION and isinstance(v, list):
            return v
        if isinstance(v, dict) and name in ("asJava", "asScala", "toMap") and not args:
            return v
        if isinstance(v, dict) and name in ("values", "keySet", "keys") and not args:
            return list(v.values()) if name == "values" else list(v.keys())
        if name in ("toInt", "toShort", "toLong", "intValue", "longValue", "shortValue") and not args and _is_number(v):
            return int(v)
        if name in ("toDouble", "doubleValue") and not args and _is_number(v):
            return float(v)
        if name == "map" and isinstance(v, list) and args and isinstance(args[0], MethodRef):
            meth = args[0].text.split("::")[1]
            return [self.member(x, meth, []) for x in v]
        if isinstance(v, ObjRef) and args == []:
            return self._getter(v, name)
        if name == "flatMap" and isinstance(v, list) and all(isinstance(x, list) for x in v):
            return [y for x in v for y in x]
        if name == "collect" and isinstance(v, list):
            return v
        if name == "diff" and isinstance(v, list) and args and isinstance(args[0], list):
            return [x for x in v if x not in args[0]]
        if name == "mkString" and isinstance(v, list) and args:
            return args[0].join(jstr(x) for x in v)
        if isinstance(v, str) and (name in _STRING_SAME or name in ("toLowerCase", "toUpperCase")):
            if name == "toLowerCase":
                return v.lower()
            if name == "toUpperCase":
                return v.upper()
            return v
        if name == "toString" and _is_number(v):
            return jstr(v)
        if isinstance(v, EnumRef):
            return self.r.enum_string(v, name, args is not None)
        if isinstance(v, ClassRef) and name in ("getName", "getCanonicalName"):
            return v.fqcn
        if isinstance(v, TimeUnitValue) and args is not None and len(args) == 1:
            ms = args[0] * TIMEUNIT_MS[v.unit]
            if name in _TO_UNIT_MS:
                return int(ms // _TO_UNIT_MS[name])
        if isinstance(v, DurationValue) and name == "toMillis":
            return v.millis
        if isinstance(v, SynonymRef) and name == "name":
            return v.name
        raise EvalError(f"member {name} of {v!r}")

    def _getter(self, obj: ObjRef, name: str) -> Any:
        # only `return <expr>;` bodies are evaluated
        f = self.r.file(obj.file)
        info = f.classes[obj.cls]
        if name in info.methods:
            ms, me = info.methods[name]
            toks = f.toks
            if me - ms == 3 and toks[ms].text == "return" and toks[me - 1].text == ";":
                return self.r.eval(f, ms + 1, me - 1)
        raise EvalError(f"getter {obj.cls}.{name}()")

    def call(self, recv: list[str], meth: str, args: list[Any]) -> Any:
        """``recv.meth(args)`` for the library calls Kafka's config classes use, else a method on a constant."""
        full = ".".join([*recv, meth])
        if full in _LIST_BUILDERS:
            return list(args)
        if full in _MAP_BUILDERS:
            if full == "Map.of":
                args = [(args[k], args[k + 1]) for k in range(0, len(args), 2)]
            if not all(isinstance(a, tuple) and len(a) == 2 for a in args):
                raise EvalError("map entries")
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
        if full in _EMPTY_COLLECTIONS:
            return []
        if full == "String.join" and len(args) >= 2:
            items = args[1] if len(args) == 2 and isinstance(args[1], list) else args[1:]
            return args[0].join(jstr(x) for x in items)
        if full == "Utils.join" and len(args) == 2:
            return args[1].join(jstr(x) for x in args[0])
        if full in ("Math.max", "math.max"):
            return max(args)
        if full in ("Math.min", "math.min"):
            return min(args)
        if full in ("Integer.toString", "String.valueOf", "Long.toString", "Double.toString"):
            return jstr(args[0])
        if recv == ["Duration"] and meth in _DURATION_MS:
            return DurationValue(args[0] * _DURATION_MS[meth])
        if meth == "serverSynonym" and len(args) == 1:
            syn = self.r.topic_synonyms()
            if args[0] in syn:
                return syn[args[0]][0].name
        if meth in ("values", "names", "VALUES") and not args and recv:
            found = self.class_chain(recv)
            if found is not None and found[1].kind == "enum":
                f, info = found
                return [self.r.enum_string(EnumRef(f.path, info.name, c), "name", False) for c in info.enum_order]
        if full == "Utils.enumOptions" and len(args) == 1 and isinstance(args[0], ClassRef):
            ref = args[0]
            if ref.path and ref.name:
                f = self.r.file(ref.path)
                info = f.classes[ref.name]
                if info.kind == "enum":
                    return self.r.enum_options(f, info)
        if meth == "documentValidValues" and recv and recv[-1] == "GroupType" and not args:
            # Group.GroupType.documentValidValues(): every GroupType's toString except UNKNOWN
            found = self.class_chain(recv)
            if found is not None:
                return self.r.enum_options(found[0], found[1], exclude=("UNKNOWN",))
        if full == "MetadataVersion.latestProduction" and not args:
            return self.resolve_parts(["MetadataVersion", "LATEST_PRODUCTION"])
        if full == "MetadataVersion.latest" and not args:
            # MetadataVersion.latest() = VERSIONS[VERSIONS.length - 1], the last enum constant
            found = self.class_chain(["MetadataVersion"])
            if found is not None:
                return EnumRef(found[0].path, found[1].name, found[1].enum_order[-1])
        if full in self.r.jvm_defaults:
            return self.r.jvm_defaults[full]
        if recv:
            # method on a constant value (e.g. X.Y.toString())
            try:
                v = self.resolve_parts(recv)
            except EvalError:
                v = None
            if v is not None:
                return self.member(v, meth, args)
        raise EvalError(f"call {full}")
