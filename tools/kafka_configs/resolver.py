"""Finds classes and constants across the files of one ref and evaluates constant expressions.

Lookups follow Java and Scala scoping as far as Kafka's config classes need it: nested classes, explicit and
wildcard imports, static and Scala member imports, the same package, Scala companions and ``Defaults`` objects,
super types. The last resort is any file named like the class; those guesses are recorded in
:attr:`Resolver.global_guesses` so that they can be reviewed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tools.kafka_configs.expr import ExprParser
from tools.kafka_configs.git import SourceTree
from tools.kafka_configs.lexer import lex, split_args, text_of
from tools.kafka_configs.source import ClassInfo, SourceFile
from tools.kafka_configs.values import EnumRef, EvalError, SynonymRef, Unresolved

__all__ = ["ConstantLocation", "Resolver"]

# (file, class, constant)
ConstantLocation = tuple[str, str, str]


class Resolver:
    """Evaluates constant expressions across the files of one ref."""

    def __init__(
        self,
        tree: SourceTree,
        *,
        synonym_source: ConstantLocation | None = None,
        compression_default_levels: Mapping[str, int] | None = None,
        jvm_defaults: Mapping[str, str] | None = None,
    ) -> None:
        """Set up lookups over ``tree``.

        Args:
            tree: the sources of the ref.
            synonym_source: where the topic-config synonym map is (``serverSynonym(...)`` calls read it).
            compression_default_levels: ``CompressionType.X.defaultLevel()`` per codec (hand-checked facts).
            jvm_defaults: values of JVM calls such as ``KeyManagerFactory.getDefaultAlgorithm`` (hand-checked).
        """
        self.tree = tree
        self.synonym_source = synonym_source
        self.compression_default_levels = dict(compression_default_levels or {})
        self.jvm_defaults = dict(jvm_defaults or {})
        self.files: dict[str, SourceFile] = {}
        self.global_guesses: set[tuple[str, str, str]] = set()
        self._evaluating: set[tuple[str, int]] = set()
        self._synonyms: dict[str, list[SynonymRef]] | None = None

    def file(self, path: str) -> SourceFile:
        """The parsed file at ``path`` (parsed once)."""
        if path not in self.files:
            self.files[path] = SourceFile(path, self.tree.read(path))
        return self.files[path]

    def topic_synonyms(self) -> dict[str, list[SynonymRef]]:
        """Topic key -> its broker synonyms, evaluated from :attr:`synonym_source` (once).

        Raises:
            EvalError: when there is no source or it does not evaluate to a map.
        """
        if self._synonyms is None:
            if self.synonym_source is None:
                raise EvalError("no synonym source")
            path, cls, const = self.synonym_source
            f = self.file(path)
            v = self.const_value(f, f.classes[cls], const)
            if not isinstance(v, dict):
                raise EvalError(f"synonyms did not evaluate: {v!r}")
            self._synonyms = v
        return self._synonyms

    # ---- class lookup
    def find_class(self, sf: SourceFile, name: str) -> tuple[SourceFile, ClassInfo] | None:
        """The class a simple ``name`` refers to in ``sf``, if found."""
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
            if self.tree.exists(p):
                cands.append(p)
        # wildcard imports of packages
        for imp in sf.imports:
            if imp.wildcard and not imp.static:
                cands.extend(self._paths_for(imp.path, name))
        # Scala: classes in the same package declared in another file (e.g. object Defaults)
        if sf.scala:
            for p in self.tree.paths:
                if p.rsplit("/", 1)[0] == pkgdir and p not in cands and p.endswith(".scala"):
                    cands.append(p)
        # global by basename (a guess: recorded in self.global_guesses for review)
        n_specific = len(cands)
        cands.extend(self.tree.by_basename.get(name, []))
        seen = set()
        for idx, p in enumerate(cands):
            if p in seen or not self.tree.exists(p):
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
        out = [p for p in self.tree.by_basename.get(cls, []) if p.endswith(suffix_java) or p.endswith(suffix_scala)]
        if not out:
            # Scala files may hold several top-level objects; search the package directory
            pdir = "/".join(pkg)
            out = [p for p in self.tree.paths if p.rsplit("/", 1)[0].endswith(pdir) and pdir]
        return out

    def class_by_path(self, pkg: list[str], cls: str) -> tuple[SourceFile, ClassInfo] | None:
        """Class ``cls`` of package ``pkg`` (or nested in the class ``pkg[-1]``), if found."""
        for p in self._paths_for(pkg, cls):
            f = self.file(p)
            if cls in f.classes:
                return f, f.classes[cls]
        # nested: pkg[-1] is an outer class
        if pkg:
            outer = self.class_by_path(pkg[:-1], pkg[-1])
            if outer is not None:
                f, _ = outer
                if cls in f.classes:
                    return f, f.classes[cls]
        return None

    def fqcn(self, sf: SourceFile, name: str) -> str:
        """Binary name (``a.b.Outer$Inner``) of the class ``name`` (``Outer.Inner``) as seen from ``sf``."""
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
        """Where a bare constant ``name`` used in class ``ctx`` of ``sf`` is defined, if found."""
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
                    found = self.find_class(sf, owner) or self.class_by_path(imp.path[:-2], owner)
                    if found is not None and (imp.member in found[1].consts or imp.member in found[1].enum_consts):
                        return found[0], found[1], imp.member
        for imp in sf.imports:
            if imp.wildcard and imp.path and (imp.static or sf.scala):
                owner = imp.path[-1]
                found = self.class_by_path(imp.path[:-1], owner) or self.find_class(sf, owner)
                if found is not None and (name in found[1].consts or name in found[1].enum_consts):
                    return found[0], found[1], name
        return None

    def const_value(self, sf: SourceFile, cls: ClassInfo, name: str) -> Any:
        """The value of constant (or enum constant) ``name`` of ``cls``; :class:`Unresolved` when it is not known."""
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
        """The value of ``sf.toks[s:e]``, or :class:`Unresolved` with the expression's text."""
        try:
            p = ExprParser(self, sf, s, e)
            v = p.expr()
            if p.i < e:
                return Unresolved(text_of(sf.toks, s, e))
            return v
        except EvalError:
            return Unresolved(text_of(sf.toks, s, e))

    def eval_text(self, path: str, text: str) -> Any:
        """Evaluate an expression written in the context of file ``path`` (its imports and first top-level class).

        Args:
            path: the file whose imports and classes the expression's names refer to.
            text: Java/Scala expression, e.g. ``DynamicThreadPool.ReconfigurableConfigs``.

        Returns:
            Its value, or :class:`Unresolved` with the reason.
        """
        host = self.file(path)
        sf = host.with_tokens_appended(lex(text))
        top = [c for c in host.all_classes if c.parent is None]
        p = ExprParser(self, sf, len(host.toks), len(sf.toks), ctx=top[0] if top else None)
        try:
            return p.expr()
        except EvalError as exc:
            return Unresolved(f"{text} ({exc})")

    def enum_string(self, ref: EnumRef, member: str, call: bool) -> Any:
        """Value of ``Enum.CONST.member`` (field) or ``Enum.CONST.member()`` (``call``)."""
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
            if ref.name in self.compression_default_levels:
                return self.compression_default_levels[ref.name]
            return Unresolved(f"{ref.name}.defaultLevel()")
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
        """``Enum.toString()``: the constant name unless the enum overrides ``toString`` (its body is read)."""
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
        """``Utils.enumOptions``: the ``toString`` of every constant of enum ``info``, minus ``exclude``."""
        return [self.enum_tostring(EnumRef(f.path, info.name, c)) for c in info.enum_order if c not in exclude]
