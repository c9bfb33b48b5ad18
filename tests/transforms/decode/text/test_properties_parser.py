"""server.properties text → dict, with java.util.Properties.load semantics."""

from __future__ import annotations

from pathlib import Path

import pytest

from transforms.decode.text.properties import parse_server_properties

DATA = Path(__file__).resolve().parents[3] / "data" / "text"


def test_hand_written_server_properties_parse_like_java() -> None:
    text = (DATA / "server.properties").read_text(encoding="latin-1")

    properties, quarantined = parse_server_properties(text)

    assert properties == {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.bootstrap.servers": "localhost:9093",
        "log.dirs": "/var/lib/kafka/data",
        "listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
        "log.retention.hours": "168",
        "sasl.jaas.config": (
            'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";'
        ),
        "path with spaces": "a:b=c",
        "unicode.value": "café",
        "num.io.threads": "16",
    }
    assert quarantined == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a=b", {"a": "b"}),
        ("a = b", {"a": "b"}),
        ("a:b", {"a": "b"}),
        ("a : b", {"a": "b"}),
        ("a b", {"a": "b"}),
        ("a\tb", {"a": "b"}),
        ("a   =   b", {"a": "b"}),
        ("a = = b", {"a": "= b"}),
        ("a::b", {"a": ":b"}),
        ("a=b=c", {"a": "b=c"}),
        ("a", {"a": ""}),
        ("a=", {"a": ""}),
        ("a=b  ", {"a": "b  "}),
        ("   a=b", {"a": "b"}),
        ("\f\ta=b", {"a": "b"}),
        ("# a=b\n! c=d\n   # e=f", {}),
        ("a=b # not a comment", {"a": "b # not a comment"}),
        ("a=b\\\n    c", {"a": "bc"}),
        ("a=one,\\\n  two,\\\n  three", {"a": "one,two,three"}),
        ("a=b\\\\\nc=d", {"a": "b\\", "c": "d"}),
        ("# comment \\\na=b", {"a": "b"}),
        ("a=1,\\\n#2", {"a": "1,#2"}),
        ("a=b\\\n\nc=d", {"a": "b", "c": "d"}),
        ("a=b\\", {"a": "b"}),
        ("a=\\t\\n\\r\\f", {"a": "\t\n\r\f"}),
        ("\\u0041=\\u00e9", {"A": "é"}),
        ("a=\\uD83D\\uDE00", {"a": "😀"}),
        ("a=\\q\\\\", {"a": "q\\"}),
        ("a\\=b=c", {"a=b": "c"}),
        ("a\\:b:c", {"a:b": "c"}),
        ("a\\ b c", {"a b": "c"}),
        ("a=\\ lead", {"a": " lead"}),
        ("a=1\rb=2\r\nc=3\n", {"a": "1", "b": "2", "c": "3"}),
        ("a=1\na=2", {"a": "2"}),
        ("", {}),
    ],
    ids=[
        "equals",
        "equals-spaced",
        "colon",
        "colon-spaced",
        "space-separator",
        "tab-separator",
        "blanks-around-equals",
        "second-equals-is-value",
        "second-colon-is-value",
        "equals-in-value",
        "key-only",
        "empty-value",
        "trailing-blanks-kept",
        "leading-blanks-trimmed",
        "form-feed-is-blank",
        "hash-and-bang-comments",
        "inline-hash-is-value",
        "continuation",
        "multi-continuation",
        "even-backslashes-do-not-continue",
        "comment-is-never-continued",
        "continued-line-starting-with-hash-is-value",
        "continuation-into-empty-line-ends",
        "trailing-backslash-at-eof-dropped",
        "control-escapes",
        "unicode-escapes-in-key-and-value",
        "surrogate-pair",
        "unknown-escape-and-backslash",
        "escaped-equals-in-key",
        "escaped-colon-in-key",
        "escaped-space-in-key",
        "escaped-leading-space-in-value",
        "cr-crlf-lf",
        "later-duplicate-wins",
        "empty-text",
    ],
)
def test_properties_edge_cases_follow_java_properties_load(text: str, expected: dict[str, str]) -> None:
    properties, quarantined = parse_server_properties(text)

    assert properties == expected
    assert quarantined == []


def test_malformed_unicode_escape_quarantines_only_its_logical_line() -> None:
    text = "a=1\nb=x\\\n  \\u00zz\nc=3"

    properties, quarantined = parse_server_properties(text)

    assert properties == {"a": "1", "c": "3"}
    assert [(q.line_number, q.extra["code"], q.excerpt) for q in quarantined] == [
        (2, "PROPERTIES_MALFORMED_ESCAPE", "b")
    ]


def test_short_unicode_escape_at_end_of_value_is_malformed() -> None:
    properties, quarantined = parse_server_properties("a=\\u12")

    assert properties == {}
    assert [q.extra["code"] for q in quarantined] == ["PROPERTIES_MALFORMED_ESCAPE"]


@pytest.mark.parametrize("text", ["=value", ": value", "  =value"], ids=["equals", "colon", "indented"])
def test_empty_key_is_quarantined(text: str) -> None:
    properties, quarantined = parse_server_properties("ok=1\n" + text)

    assert properties == {"ok": "1"}
    assert [(q.line_number, q.extra["code"]) for q in quarantined] == [(2, "PROPERTIES_EMPTY_KEY")]


def test_quarantine_excerpt_never_holds_the_value() -> None:
    _, quarantined = parse_server_properties("ssl.keystore.password=hunter2\\uZZZZ")

    assert [q.excerpt for q in quarantined] == ["ssl.keystore.password"]
    assert all("hunter2" not in q.excerpt + q.reason for q in quarantined)
