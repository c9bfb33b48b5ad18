"""The lexer and its token helpers on small Java and Scala snippets."""

from __future__ import annotations

import pytest

from tools.kafka_configs.lexer import lex, match_close, split_args, text_of


def kinds_and_texts(src: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in lex(src)]


def test_java_declaration() -> None:
    assert kinds_and_texts("public static final long X = 10_000L * 2; // ms") == [
        ("id", "public"),
        ("id", "static"),
        ("id", "final"),
        ("id", "long"),
        ("id", "X"),
        ("op", "="),
        ("num", "10_000L"),
        ("op", "*"),
        ("num", "2"),
        ("op", ";"),
    ]


def test_comments_are_dropped_and_lines_counted() -> None:
    toks = lex("a /* one\ntwo */ b\n// c\nd")
    assert [(t.text, t.line) for t in toks] == [("a", 1), ("b", 2), ("d", 4)]


def test_newline_before_marks_scala_statement_ends() -> None:
    toks = lex("val a = 1\nval b = 2 /*\n*/ + 3")
    assert [t.text for t in toks if t.nl_before] == ["val", "+"]


def test_string_literals_are_unescaped() -> None:
    (tok,) = lex(r'"a\"b\n\u0041\\"')
    assert tok.kind == "str"
    assert tok.text == 'a"b\nA\\'


def test_scala_triple_quoted_string_and_backticks() -> None:
    toks = lex('val `type` = """x "y"\nz"""')
    assert [(t.kind, t.text) for t in toks] == [("id", "val"), ("id", "type"), ("op", "="), ("str", 'x "y"\nz')]


def test_multi_character_operators() -> None:
    assert [t.text for t in lex("a -> b => c :: d ++ e >= f != g")] == [
        "a", "->", "b", "=>", "c", "::", "d", "++", "e", ">=", "f", "!=", "g",
    ]  # fmt: skip


def test_numbers() -> None:
    assert [t.text for t in lex("0x7fL 1.5d 1e3 .5")] == ["0x7fL", "1.5d", "1e3", ".5"]
    assert {t.kind for t in lex("0x7fL 1.5d 1e3 .5")} == {"num"}


def test_match_close_and_split_args() -> None:
    toks = lex("f(a, g(b, c), new int[] {1, 2}, d)")
    close = match_close(toks, 1)
    assert close == len(toks) - 1
    args = split_args(toks, 2, close)
    assert [text_of(toks, s, e) for s, e in args] == ["a", "g(b, c)", "new int[]{1, 2}", "d"]


def test_split_args_of_empty_list() -> None:
    toks = lex("f()")
    assert split_args(toks, 2, 2) == []


def test_match_close_unbalanced() -> None:
    with pytest.raises(ValueError, match="unbalanced"):
        match_close(lex("f(a, (b)"), 1)


def test_text_of_spacing() -> None:
    toks = lex('Range.between( 1,10 )  +"x"')
    assert text_of(toks, 0, len(toks)) == 'Range.between(1, 10) + "x"'
