"""Look up each JVM class and static method once per driver: ``cache_jvm_lookups(spark)``.

PySpark builds every Column through py4j: ``F.col("x")`` asks the JVM for the class ``functions`` by its simple
name, then for its member ``col``, then calls it — three round trips, two of them lookups whose answer never
changes. A simple name is resolved on the JVM side by trying it against each import (``java.lang``,
``org.apache.spark.api.java``, ...), and every miss scans the jars on the classpath: in a small audit such lookups
were a third of all py4j commands (docs/performance-history.md).

``cache_jvm_lookups`` makes the session's ``JVMView`` (``SparkContext._jvm``, what PySpark resolves classes
through) keep each class it found, and each class keep its static methods: the same py4j handles, asked for once.
Only positive answers are kept (a missing name still fails each time), only classes and static methods (a static
*field* is read anew: its value can change), and the handles hold no state besides their names, so sharing them
across calls and threads is what py4j does for an object's own methods. The lookups are a pure function of the
class path and the view's imports, which PySpark sets when the context starts.

``pack_java_lists`` makes a Python list reach the JVM in few round trips. py4j sends each list argument as a new
``ArrayList`` and one ``add`` per element, and PySpark passes a list for every ``select``, ``struct``, ``concat``,
``array`` and ``isin``: in a small audit these calls were about a fifth of all py4j commands
(docs/performance-history.md). A list or tuple of one to ten elements, none of them ``None``, goes as one call to
``java.util.List.of`` (``Collections.singletonList`` for one element, which no overload can take for a varargs
array); a longer one as an ``ArrayList`` filled ten elements a call. ``List.of`` refuses nulls, so a list holding a
``None`` keeps py4j's own conversion; the lists are immutable, and the Java methods PySpark hands lists to copy them
(``PythonUtils.toSeq`` and the like).
"""

from __future__ import annotations

from typing import Any, Final

from py4j import protocol
from py4j.java_gateway import JavaClass, JavaMember, JavaPackage, JVMView
from pyspark.sql import SparkSession

__all__ = ["cache_jvm_lookups", "pack_java_lists"]

_PACKED: Final = 10  # java.util.List.of takes up to ten elements without varargs


def _kept(owner: Any, name: str, found: Any) -> Any:
    """``found`` as the caching kind of handle, remembered on ``owner`` when it is a class, package or method."""
    if isinstance(found, JavaClass) and not isinstance(found, _Class):
        found = _Class(found._fqn, found._gateway_client)
    elif isinstance(found, JavaPackage) and not isinstance(found, _Package):
        found = _Package(found._fqn, found._gateway_client, found._jvm_id)
    elif not isinstance(found, JavaMember):
        return found  # a static field's value: read again next time
    owner.__dict__[name] = found  # found by plain attribute lookup from now on (__getattr__ is not called)
    return found


class _Class(JavaClass):
    """A ``JavaClass`` that keeps its static methods (and nested classes) once looked up."""

    def __getattr__(self, name: str) -> Any:
        return _kept(self, name, super().__getattr__(name))


class _Package(JavaPackage):
    """A ``JavaPackage`` that keeps the classes and packages under it once looked up."""

    def __getattr__(self, name: str) -> Any:
        return _kept(self, name, super().__getattr__(name))


class _View(JVMView):
    """A ``JVMView`` that keeps each class or package it resolved, by the name it was asked for."""

    def __getattr__(self, name: str) -> Any:
        return _kept(self, name, super().__getattr__(name))


def cache_jvm_lookups(spark: SparkSession) -> None:
    """Make the driver's JVM view keep its lookups (see the module docstring); safe to call again."""
    view = spark.sparkContext._jvm
    if view is not None and type(view) is JVMView:
        view.__class__ = _View  # the same object everywhere PySpark holds it (SparkContext._jvm, the gateway's jvm)


class _PackedLists:
    """A py4j input converter (``protocol.register_input_converter``) for Python lists and tuples without ``None``:
    see the module docstring."""

    def can_convert(self, value: object) -> bool:
        # exactly lists and tuples (py4j's own converter takes any iterable); None found by identity, not ==: a
        # Column's == builds an expression
        if type(value) is not list and type(value) is not tuple:
            return False
        return len(value) > 0 and all(e is not None for e in value)

    def convert(self, value: list[Any] | tuple[Any, ...], client: Any) -> Any:
        if len(value) == 1:
            return JavaMember("singletonList", None, f"{protocol.STATIC_PREFIX}java.util.Collections", client)(value[0])
        of = JavaMember("of", None, f"{protocol.STATIC_PREFIX}java.util.List", client)
        if len(value) <= _PACKED:
            return of(*value)
        packed = JavaClass("java.util.ArrayList", client)(len(value))
        for start in range(0, len(value), _PACKED):
            packed.addAll(of(*value[start : start + _PACKED]))
        return packed


def pack_java_lists() -> None:
    """Make py4j send Python lists of this process to the JVM packed (see the module docstring); safe to call
    again."""
    if not any(isinstance(converter, _PackedLists) for converter in protocol.INPUT_CONVERTER):
        protocol.register_input_converter(_PackedLists(), prepend=True)
