"""Finding define(...) calls and attributing them to the ConfigDef they build."""

from __future__ import annotations

from tests.tools.kafka_configs.memory_tree import MemoryTree
from tools.kafka_configs.defines import find_defines, merged_sources
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.source import SourceFile

JAVA = """
package org.example;

public class TopicConfig {
    public static final ConfigDef CONFIG = new ConfigDef()
        .define("a", INT, 1, HIGH, "doc")
        .defineInternal("b", STRING, "x", LOW, "doc");

    private static final ConfigDef OTHER = new ConfigDef();
    static {
        OTHER.define("c", BOOLEAN, true, MEDIUM, "doc");
        OTHER.define(new ConfigKey("d"));
    }

    public static ConfigDef brokerQuotaConfigs() {
        return new ConfigDef()
            .define("e", LONG, 5L, atLeast(0), LOW, "doc");
    }
}
"""

SCALA = """
package kafka.server

object KafkaConfig {
  val configDef = {
    import ConfigDef.Importance._
    new ConfigDef()
      .define("f", INT, 1, HIGH, "doc")
  }
  val single = new ConfigDef().define("g", INT, 2, HIGH, "doc")
}
"""


def test_owners_of_java_defines() -> None:
    sf = SourceFile("src/main/java/org/example/TopicConfig.java", JAVA)
    defs = find_defines(sf)
    assert [(d.owner, d.internal, d.single_key) for d in defs] == [
        ("CONFIG", False, False),
        ("CONFIG", True, False),
        ("OTHER", False, False),
        ("OTHER", False, True),
        ("brokerQuotaConfigs()", False, False),
    ]
    assert [d.line for d in defs][:2] == [6, 7]
    assert len(defs[-1].args) == 6  # name, type, default, validator, importance, doc


def test_owners_of_scala_defines() -> None:
    sf = SourceFile("core/src/main/scala/kafka/server/KafkaConfig.scala", SCALA)
    assert [d.owner for d in find_defines(sf)] == ["configDef", "single"]


def test_merged_sources_reads_the_merge_list() -> None:
    tree = MemoryTree(
        {
            "server/src/main/java/org/example/AbstractKafkaConfig.java": """
package org.example;
import org.example.other.LogConfigs;
public abstract class AbstractKafkaConfig {
    public static final ConfigDef CONFIG_DEF = Utils.mergeConfigs(List.of(
        ServerConfigs.CONFIG_DEF, LogConfigs.configDef(), Missing.CONFIG_DEF));
}
""",
            "server/src/main/java/org/example/ServerConfigs.java": "package org.example;\n"
            "public class ServerConfigs { public static final ConfigDef CONFIG_DEF = new ConfigDef(); }\n",
            "storage/src/main/java/org/example/other/LogConfigs.java": "package org.example.other;\n"
            "public class LogConfigs { }\n",
        }
    )
    problems: list[str] = []
    path = "server/src/main/java/org/example/AbstractKafkaConfig.java"
    got = merged_sources(Resolver(tree), path, "CONFIG_DEF", problems)
    assert got == [
        ("server/src/main/java/org/example/ServerConfigs.java", "CONFIG_DEF"),
        ("storage/src/main/java/org/example/other/LogConfigs.java", "configDef()"),
    ]
    assert problems == ["mergeConfigs: class Missing not found"]
