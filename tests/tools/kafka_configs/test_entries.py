"""define(...) calls to catalog entries: defaults rendered as ConfigDef does, validators in structured form."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tools.kafka_configs.memory_tree import MemoryTree
from tools.kafka_configs.defines import find_defines
from tools.kafka_configs.entries import define_to_entry, render_default
from tools.kafka_configs.facts.models import CustomDescription, KnownValidator
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.validators import ValidatorParser
from tools.kafka_configs.values import NO_DEFAULT, ClassRef, Unresolved

PATH = "server/src/main/java/org/example/ExampleConfig.java"
SOURCE = """
package org.example;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.ValidList;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import static org.apache.kafka.common.config.ConfigDef.Importance.*;
import static org.apache.kafka.common.config.ConfigDef.Type.*;

public class ExampleConfig {
    public static final int KB = 1024;
    private static final ConfigDef.Validator SMALL = Range.between(0, 5);

    public static final ConfigDef CONFIG = new ConfigDef()
        .define("at.least", INT, 1, Range.atLeast(0), HIGH, "doc")
        .define("between", LONG, 2L * KB, Range.between(1, KB), MEDIUM, "doc")
        .define("in", STRING, "a", ValidString.in("a", "b"), LOW, "doc")
        .define("in.ci", STRING, "X", ConfigDef.CaseInsensitiveValidString.in("x", "y"), LOW, "doc")
        .define("list", LIST, "a, b", ValidList.in("a", "b"), LOW, "doc")
        .define("list.kip1161", LIST, List.of(), ValidList.in(false, "a"), LOW, "doc")
        .define("no.dups", LIST, "", ValidList.anyNonDuplicateValues(true, false), LOW, "doc")
        .define("non.empty", STRING, "v", new ConfigDef.NonEmptyString(), LOW, "doc")
        .define("composite", INT, 3, ConfigDef.CompositeValidator.of(new ConfigDef.NonNullValidator(),
                Range.atLeast(1)), LOW, "doc")
        .define("named", INT, 0, SMALL, LOW, "doc")
        .define("level", INT, -1, CompressionType.GZIP.levelValidator(), LOW, "doc")
        .define("throttled", LIST, "", ThrottledReplicaListValidator.INSTANCE, LOW, "doc")
        .define("code", STRING, "", new SomethingElse(), LOW, "doc")
        .define("required", STRING, ConfigDef.NO_DEFAULT_VALUE, HIGH, "doc")
        .define("ratio", DOUBLE, 0.5, MEDIUM, "doc")
        .define("flag", BOOLEAN, "TRUE", LOW, "doc")
        .define("secret", PASSWORD, null, LOW, "doc")
        .define("klass", CLASS, ExampleConfig.class, LOW, "doc")
        .defineInternal("internal", INT, Unknown.VALUE, LOW, "doc");
}
"""

KNOWN = [
    KnownValidator.model_validate(
        {
            "expression": "CompressionType.GZIP.levelValidator",
            "validator": {"kind": "in", "values": [-1, 1, 2], "case_insensitive": False},
            "note": "test",
        }
    )
]
DESCRIPTIONS = [CustomDescription(name="ThrottledReplicaListValidator", description="partition:broker pairs or *")]


def entries(kip1161: bool) -> dict[str, dict[str, Any]]:
    r = Resolver(MemoryTree({PATH: SOURCE}))
    vp = ValidatorParser(r, kip1161, KNOWN, DESCRIPTIONS)
    return {e["name"]: e for e in (define_to_entry(r, vp, d) for d in find_defines(r.file(PATH)))}


def test_structured_validators() -> None:
    es = entries(kip1161=False)
    assert es["at.least"]["validator"] == {"kind": "at_least", "min": 0}
    assert es["between"]["validator"] == {"kind": "between", "min": 1, "max": 1024}
    assert es["in"]["validator"] == {"kind": "in", "values": ["a", "b"], "case_insensitive": False}
    assert es["in.ci"]["validator"] == {"kind": "in", "values": ["x", "y"], "case_insensitive": True}
    assert es["list"]["validator"] == {
        "kind": "list_in",
        "values": ["a", "b"],
        "empty_allowed": True,
        "null_allowed": True,
        "kip1161": False,
    }
    assert es["non.empty"]["validator"] == {"kind": "non_empty_string"}
    assert es["composite"]["validator"] == [{"kind": "non_null"}, {"kind": "at_least", "min": 1}]
    assert es["named"]["validator"] == {"kind": "between", "min": 0, "max": 5}


def test_kip1161_list_validators() -> None:
    es = entries(kip1161=True)
    assert es["list.kip1161"]["validator"] == {
        "kind": "list_in",
        "values": ["a"],
        "empty_allowed": False,
        "null_allowed": False,
        "kip1161": True,
    }
    assert es["no.dups"]["validator"] == {
        "kind": "non_duplicate_list",
        "empty_allowed": True,
        "null_allowed": False,
        "kip1161": True,
    }


def test_code_validators_use_the_facts() -> None:
    es = entries(kip1161=False)
    assert es["level"]["validator"] == {"kind": "in", "values": [-1, 1, 2], "case_insensitive": False}
    assert es["throttled"]["validator"] == {
        "kind": "custom",
        "name": "ThrottledReplicaListValidator",
        "description": "partition:broker pairs or *",
    }
    code = es["code"]["validator"]
    assert code["kind"] == "custom"
    assert code["description"].startswith("UNDESCRIBED code validator:")


def test_defaults_and_flags() -> None:
    es = entries(kip1161=False)
    assert es["between"]["default"] == "2048"
    assert es["list"]["default"] == "a,b"
    assert es["list.kip1161"]["default"] == ""
    assert es["required"]["default"] is None
    assert es["required"]["required"] is True
    assert es["ratio"]["default"] == "0.5"
    assert es["flag"]["default"] == "true"
    assert es["secret"] == {
        "name": "secret",
        "type": "PASSWORD",
        "default": None,
        "validator": None,
        "importance": "LOW",
        "sensitive": True,
        "_source": f"{PATH}:33",
    }
    assert es["klass"]["default"] == "org.example.ExampleConfig"
    assert es["at.least"]["importance"] == "HIGH"


def test_unresolved_defaults_are_reported() -> None:
    internal = entries(kip1161=False)["internal"]
    assert internal["internal"] is True
    assert internal["default"] == "UNRESOLVED: Unknown.VALUE"
    assert internal["_problems"] == ["default: Unknown.VALUE"]


@pytest.mark.parametrize(
    ("value", "typ", "expected"),
    [
        (NO_DEFAULT, "INT", (None, True, None)),
        (None, "STRING", (None, False, None)),
        ([1, 2], "LIST", ("1,2", False, None)),
        (" a ,b ", "LIST", ("a,b", False, None)),
        (ClassRef("a.B$C"), "CLASS", ("a.B$C", False, None)),
        (" 42 ", "INT", ("42", False, None)),
        (3.0, "LONG", ("3", False, None)),
        (10, "DOUBLE", ("10.0", False, None)),
        (False, "BOOLEAN", ("false", False, None)),
        (Unresolved("X.Y"), "INT", ("UNRESOLVED: X.Y", False, "X.Y")),
        ("abc", "INT", ("UNRESOLVED: abc", False, "abc")),
    ],
)
def test_render_default(value: Any, typ: str, expected: tuple[Any, bool, str | None]) -> None:
    assert render_default(value, typ) == expected
