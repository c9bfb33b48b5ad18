"""Constant-expression evaluation across files (in-memory sources, no git mirror)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tools.kafka_configs.memory_tree import MemoryTree
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.values import EnumRef, Unresolved, java_double, jstr

BASE = "clients/src/main/java/org/example"

FILES = {
    f"{BASE}/common/Prefixes.java": """
package org.example.common;

public class Prefixes {
    public static final String LOG_PREFIX = "log.";
    public static final int KB = 1024;
}
""",
    f"{BASE}/common/Codec.java": """
package org.example.common;

public enum Codec {
    NONE(0, "none"), GZIP(1, "gzip"), ZSTD(4, "zstd");

    public final int id;
    public final String name;

    Codec(int id, String name) { this.id = id; this.name = name; }

    @Override
    public String toString() { return name; }
}
""",
    f"{BASE}/server/LogConfigs.java": """
package org.example.server;

import org.example.common.Prefixes;
import org.example.common.Codec;
import static org.example.common.Prefixes.KB;
import java.util.concurrent.TimeUnit;

public class LogConfigs {
    public static final String SEGMENT_BYTES = Prefixes.LOG_PREFIX + "segment.bytes";
    public static final int SEGMENT_DEFAULT = 1 * KB * KB;
    public static final long RETENTION_MS = TimeUnit.HOURS.toMillis(24 * 7);
    public static final int HALF = -7 / 2;
    public static final long BIG = Long.MAX_VALUE;
    public static final int CAST = (int) 5.7;
    public static final String TERNARY = SEGMENT_DEFAULT > 0 ? "pos" : "neg";
    public static final List<String> POLICIES = List.of("delete", "compact");
    public static final String JOINED = String.join(",", POLICIES);
    public static final String CODEC_NAME = Codec.GZIP.name;
    public static final String CODEC_STRING = Codec.ZSTD.toString();
    public static final List<String> CODECS = Utils.enumOptions(Codec.class);
    public static final String CLASS_NAME = LogConfigs.Inner.class.getName();
    public static final String CYCLE_A = CYCLE_B;
    public static final String CYCLE_B = CYCLE_A;
    public static final String UNKNOWN = NotAClass.VALUE;
    public static final Map<String, Integer> LEVELS = Map.of("a", 1, "b", 2);

    public static class Inner { }
}
""",
    "core/src/main/scala/kafka/server/Defaults.scala": """
package kafka.server

object Defaults {
  val NumThreads = 8
  val Names = Seq("x", "y") ++ Seq("y", "z")
}
""",
    "core/src/main/scala/kafka/server/KafkaConfig.scala": """
package kafka.server

import org.example.server.LogConfigs

object KafkaConfig {
  val NumThreadsProp = "num.threads"
  val NumThreads = Defaults.NumThreads * 2
  val SegmentProp = LogConfigs.SEGMENT_BYTES
  val Names = Defaults.Names.mkString(";")
}
""",
}

LOG_CONFIGS = f"{BASE}/server/LogConfigs.java"
KAFKA_CONFIG = "core/src/main/scala/kafka/server/KafkaConfig.scala"


@pytest.fixture
def resolver() -> Resolver:
    return Resolver(MemoryTree(FILES))


def value(r: Resolver, path: str, cls: str, const: str) -> Any:
    f = r.file(path)
    return r.const_value(f, f.classes[cls], const)


@pytest.mark.parametrize(
    ("const", "expected"),
    [
        ("SEGMENT_BYTES", "log.segment.bytes"),  # import + concatenation
        ("SEGMENT_DEFAULT", 1048576),  # static import + arithmetic
        ("RETENTION_MS", 604800000),
        ("HALF", -3),  # Java integer division truncates towards zero
        ("BIG", 9223372036854775807),
        ("CAST", 5),
        ("TERNARY", "pos"),
        ("POLICIES", ["delete", "compact"]),
        ("JOINED", "delete,compact"),
        ("CODEC_NAME", "gzip"),  # the enum's `name` field (its first string argument)
        ("CODEC_STRING", "zstd"),  # toString() returns that field
        ("CODECS", ["none", "gzip", "zstd"]),
        ("CLASS_NAME", "org.example.server.LogConfigs$Inner"),
        ("LEVELS", {"a": 1, "b": 2}),
    ],
)
def test_java_constants(resolver: Resolver, const: str, expected: Any) -> None:
    assert value(resolver, LOG_CONFIGS, "LogConfigs", const) == expected


def test_scala_defaults_object_in_another_file(resolver: Resolver) -> None:
    assert value(resolver, KAFKA_CONFIG, "KafkaConfig", "NumThreads") == 16
    assert value(resolver, KAFKA_CONFIG, "KafkaConfig", "SegmentProp") == "log.segment.bytes"
    # Scala `++` keeps the first occurrence of duplicates, like a Set union in order
    assert value(resolver, KAFKA_CONFIG, "KafkaConfig", "Names") == "x;y;z"


def test_cycles_and_unknown_names_are_unresolved(resolver: Resolver) -> None:
    cycle = value(resolver, LOG_CONFIGS, "LogConfigs", "CYCLE_A")
    assert isinstance(cycle, Unresolved)
    unknown = value(resolver, LOG_CONFIGS, "LogConfigs", "UNKNOWN")
    assert unknown == Unresolved("NotAClass.VALUE")
    assert value(resolver, LOG_CONFIGS, "LogConfigs", "MISSING") == Unresolved("LogConfigs.MISSING")


def test_enum_constant_value(resolver: Resolver) -> None:
    f = resolver.file(f"{BASE}/common/Codec.java")
    assert resolver.const_value(f, f.classes["Codec"], "GZIP") == EnumRef(f.path, "Codec", "GZIP")
    assert resolver.enum_string(EnumRef(f.path, "Codec", "GZIP"), "id", call=False) == 1
    assert resolver.enum_string(EnumRef(f.path, "Codec", "GZIP"), "name", call=True) == "GZIP"


def test_eval_text_in_the_context_of_a_file(resolver: Resolver) -> None:
    assert resolver.eval_text(KAFKA_CONFIG, "Set(NumThreadsProp, LogConfigs.SEGMENT_BYTES)") == [
        "num.threads",
        "log.segment.bytes",
    ]
    assert isinstance(resolver.eval_text(KAFKA_CONFIG, "Nope.X"), Unresolved)


def test_compression_default_levels_come_from_the_facts() -> None:
    files = {
        f"{BASE}/record/CompressionType.java": "package org.example.record;\n"
        "public enum CompressionType { GZIP, LZ4 }\n",
        f"{BASE}/record/Use.java": "package org.example.record;\n"
        "public class Use { public static final int L = CompressionType.GZIP.defaultLevel(); }\n",
    }
    r = Resolver(MemoryTree(files), compression_default_levels={"GZIP": -1})
    assert value(r, f"{BASE}/record/Use.java", "Use", "L") == -1


@pytest.mark.parametrize(
    ("v", "text"),
    [(1.0, "1.0"), (0.5, "0.5"), (1e7, "1.0E7"), (1.7976931348623157e308, "1.7976931348623157E308"), (1e-4, "1.0E-4")],
)
def test_java_double(v: float, text: str) -> None:
    assert java_double(v) == text


def test_jstr() -> None:
    assert [jstr(None), jstr(True), jstr(3), jstr(0.25), jstr(["a", 1])] == ["null", "true", "3", "0.25", "[a, 1]"]
