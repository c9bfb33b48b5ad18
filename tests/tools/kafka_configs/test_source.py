"""File structure (package, imports, classes, constants, enums, methods) of small Java and Scala files."""

from __future__ import annotations

from tools.kafka_configs.lexer import text_of
from tools.kafka_configs.source import SourceFile

JAVA = """
package org.example.config;

import java.util.List;
import static org.example.Other.NAME;
import org.example.util.*;

@SuppressWarnings("x")
public class ServerConfigs extends Base implements Marker {
    public static final String PREFIX = "server.";
    @Deprecated
    public static final int SIZE = 10 * 1024;
    private static final List<String> NAMES = List.of("a", "b");

    public static class Inner {
        static final String DEEP = PREFIX + "deep";
    }

    public int size() {
        int local = 3;
        return SIZE;
    }
}
"""

ENUM = """
package org.example;

public enum Codec {
    NONE(0, "none"),
    GZIP(1, "gzip") {
        @Override public int level() { return 6; }
    },
    ZSTD;

    private final int id;
    Codec(int id, String name) { this.id = id; }
}
"""

SCALA = """
package kafka.server

import org.example.{Alpha, Beta => B, _}
import kafka.utils.Defaults._

object KafkaConfig {
  val ListenersProp = "listeners"
  val SizeProp: Int =
    1024
  def helper(x: Int): Int = {
    val inMethod = 1
    x
  }
}

class KafkaConfig(props: Map[String, String]) {
  val instanceOnly = "x"
}
"""


def test_java_package_imports_and_constants() -> None:
    sf = SourceFile("src/main/java/org/example/config/ServerConfigs.java", JAVA)
    assert sf.pkg == "org.example.config"
    assert [(i.path, i.member, i.static, i.wildcard) for i in sf.imports] == [
        (["java", "util", "List"], "List", False, False),
        (["org", "example", "Other", "NAME"], "NAME", True, False),
        (["org", "example", "util"], None, False, True),
    ]
    cls = sf.classes["ServerConfigs"]
    assert set(cls.consts) == {"PREFIX", "SIZE", "NAMES"}
    assert text_of(sf.toks, *cls.consts["SIZE"]) == "10 * 1024"
    assert cls.supers == ["Base", "Marker"]
    assert "size" in cls.methods
    assert "local" not in cls.consts  # locals are not constants


def test_nested_class_and_class_at() -> None:
    sf = SourceFile("src/main/java/org/example/config/ServerConfigs.java", JAVA)
    inner = sf.classes["Inner"]
    assert inner.parent is sf.classes["ServerConfigs"]
    s, _ = inner.consts["DEEP"]
    assert sf.class_at(s) is inner


def test_enum_constants_in_order_with_arguments() -> None:
    sf = SourceFile("src/main/java/org/example/Codec.java", ENUM)
    info = sf.classes["Codec"]
    assert info.kind == "enum"
    assert info.enum_order == ["NONE", "GZIP", "ZSTD"]
    assert text_of(sf.toks, *info.enum_consts["GZIP"]) == '1, "gzip"'
    s, e = info.enum_consts["ZSTD"]
    assert s == e  # no arguments


def test_scala_object_companion_and_imports() -> None:
    sf = SourceFile("core/src/main/scala/kafka/server/KafkaConfig.scala", SCALA)
    assert sf.scala
    assert sf.pkg == "kafka.server"
    imports = [(i.path, i.member, i.alias, i.wildcard) for i in sf.imports]
    assert (["org", "example", "Alpha"], "Alpha", None, False) in imports
    assert (["org", "example", "Beta"], "Beta", "B", False) in imports
    assert (["org", "example"], None, None, True) in imports
    assert (["kafka", "utils", "Defaults"], None, None, True) in imports
    # class KafkaConfig and object KafkaConfig are merged into the first one declared
    merged = sf.classes["KafkaConfig"]
    assert {"ListenersProp", "SizeProp", "instanceOnly"} <= set(merged.consts)
    assert "inMethod" not in merged.consts
    assert text_of(sf.toks, *merged.consts["SizeProp"]) == "1024"  # the value continues on the next line
    assert "helper" in merged.methods


def test_with_tokens_appended_shares_structure() -> None:
    sf = SourceFile("src/main/java/org/example/config/ServerConfigs.java", JAVA)
    from tools.kafka_configs.lexer import lex

    view = sf.with_tokens_appended(lex("PREFIX"))
    assert view.toks[-1].text == "PREFIX"
    assert len(view.toks) == len(sf.toks) + 1
    assert view.classes is sf.classes
