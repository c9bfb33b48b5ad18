"""Remediation at the right scope: per value source and dynamic scope, per resource type (Column functions)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import functions as F

from transforms.constraints.remediation import fix_value, remediation_change, remediation_text, shell_quoted

pytestmark = pytest.mark.spark

# The expected texts are written with shlex.quote, an implementation independent of the code under test.
q = shlex.quote
BASE = " ".join(q(word) for word in ("kafka-configs.sh", "--bootstrap-server", "<bootstrap>", "--alter")) + " "
PLACEHOLDER = "# replace the placeholder value, then run: "

# (id, resource_type, resource_name, config_name, value_source, scope, expected text, expected (name, layer))
CASES: list[tuple[str, str, str, str, str, str | None, str, tuple[str, str] | None]] = [
    (
        "static-cluster-wide",
        "BROKER",
        "1",
        "log.segment.bytes",
        "STATIC_BROKER_CONFIG",
        "cluster-wide",
        BASE + "--entity-type brokers --entity-default --add-config log.segment.bytes=3145728",
        ("", "dynamic"),
    ),
    (
        "default-cluster-wide",
        "BROKER",
        "1",
        "log.segment.bytes",
        "DEFAULT_CONFIG",
        "cluster-wide",
        BASE + "--entity-type brokers --entity-default --add-config log.segment.bytes=3145728",
        ("", "dynamic"),
    ),
    (
        "static-per-broker",
        "BROKER",
        "2",
        "num.io.threads",
        "STATIC_BROKER_CONFIG",
        "per-broker",
        BASE + "--entity-type brokers --entity-name 2 --add-config num.io.threads=3145728",
        ("2", "dynamic"),
    ),
    (
        "static-read-only",
        "BROKER",
        "3",
        "log.retention.hours",
        "STATIC_BROKER_CONFIG",
        "read-only",
        "# set log.retention.hours=3145728 in server.properties of broker 3 and restart it with a rolling restart, "
        "log.retention.hours is read-only and cannot be changed dynamically",
        ("3", "static"),
    ),
    (
        "unknown-scope-is-read-only",
        "BROKER",
        "3",
        "x.y",
        "DEFAULT_CONFIG",
        None,
        "# set x.y=3145728 in server.properties of broker 3 and restart it with a rolling restart, "
        "x.y is read-only and cannot be changed dynamically",
        ("3", "static"),
    ),
    (
        "per-node-dynamic-layer-wins",
        "BROKER",
        "4",
        "log.segment.bytes",
        "DYNAMIC_BROKER_CONFIG",
        "cluster-wide",
        BASE
        + "--entity-type brokers --entity-name 4 --add-config log.segment.bytes=3145728  # this per-broker dynamic "
        "value overrides the cluster default and server.properties, if those are valid remove it instead with "
        "--delete-config log.segment.bytes",
        ("4", "dynamic"),
    ),
    (
        "cluster-default-layer",
        "BROKER",
        "4",
        "log.segment.bytes",
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "per-broker",
        BASE + "--entity-type brokers --entity-default --add-config log.segment.bytes=3145728",
        ("", "dynamic"),
    ),
    (
        "topic",
        "TOPIC",
        "orders",
        "segment.bytes",
        "DYNAMIC_TOPIC_CONFIG",
        None,
        BASE + "--entity-type topics --entity-name orders --add-config segment.bytes=3145728",
        ("orders", "dynamic"),
    ),
    (
        "group",
        "GROUP",
        "payments",
        "consumer.session.timeout.ms",
        "DYNAMIC_GROUP_CONFIG",
        None,
        BASE + "--entity-type groups --entity-name payments --add-config consumer.session.timeout.ms=3145728",
        ("payments", "dynamic"),
    ),
    (
        "client-metrics",
        "CLIENT_METRICS",
        "sub1",
        "interval.ms",
        "DYNAMIC_CLIENT_METRICS_CONFIG",
        None,
        BASE + "--entity-type client-metrics --entity-name sub1 --add-config interval.ms=3145728",
        ("sub1", "dynamic"),
    ),
    (
        "client-user-and-id",
        "CLIENT",
        "user=alice,client-id=app",
        "k",
        "DYNAMIC_CLIENT_CONFIG",
        None,
        BASE + "--entity-type users --entity-name alice --entity-type clients --entity-name app --add-config k=3145728",
        ("user=alice,client-id=app", "dynamic"),
    ),
    (
        "client-default-user",
        "CLIENT",
        "user=<default>",
        "k",
        "DYNAMIC_CLIENT_CONFIG",
        None,
        BASE + "--entity-type users --entity-default --add-config k=3145728",
        ("user=<default>", "dynamic"),
    ),
]


COLUMNS = (
    "case_id string, resource_type string, resource_name string, config_name string, value_source string, "
    "scope string, code string, v_elems array<string>, constraint_kind string, rule_bound_a string, "
    "rule_bound_b string, rule_fix_value string, rule_values array<string>, remediation_hint string, "
    "expr_fix_value string, fallback_ok boolean, fallback_value string, fallback_source string, expr_text string, "
    "rule_configs_text string"
)


def _row(case_id: str, rtype: str, name: str, key: str, source: str, scope: str | None, **kw: Any) -> tuple[Any, ...]:
    fields: dict[str, Any] = {
        "code": "BELOW_MIN",
        "v_elems": None,
        "constraint_kind": "min",
        "rule_bound_a": "3145728",
        "rule_bound_b": None,
        "rule_fix_value": None,
        "rule_values": [],
        "remediation_hint": None,
        "expr_fix_value": None,
        "fallback_ok": None,
        "fallback_value": None,
        "fallback_source": None,
        "expr_text": None,
        "rule_configs_text": key,
    }
    assert not set(kw) - set(fields), set(kw) - set(fields)
    fields.update(kw)
    return (case_id, rtype, name, key, source, scope, *fields.values())


EXPR = {"code": "EXPRESSION_FALSE", "constraint_kind": "expr", "rule_bound_a": None}
DELETES = [
    (
        "delete-per-broker-override",
        _row(
            "",
            "BROKER",
            "2",
            "log.segment.bytes",
            "DYNAMIC_BROKER_CONFIG",
            "cluster-wide",
            fallback_ok=True,
            fallback_value="4194304",
            fallback_source="STATIC_BROKER_CONFIG",
        ),
        BASE + "--entity-type brokers --entity-name 2 --delete-config log.segment.bytes  # the override is removed, "
        "and 4194304 from STATIC_BROKER_CONFIG applies and passes",
        ("2", "dynamic", "DELETE", None),
    ),
    (
        "delete-cluster-default",
        _row(
            "",
            "BROKER",
            "2",
            "log.segment.bytes",
            "DYNAMIC_DEFAULT_BROKER_CONFIG",
            "cluster-wide",
            fallback_ok=True,
            fallback_value="1073741824",
            fallback_source="DEFAULT_CONFIG",
        ),
        BASE + "--entity-type brokers --entity-default --delete-config log.segment.bytes  # the override is removed, "
        "and 1073741824 from DEFAULT_CONFIG applies and passes",
        ("", "dynamic", "DELETE", None),
    ),
    (
        "delete-topic-override-views-differ",
        _row("", "TOPIC", "t", "segment.bytes", "DYNAMIC_TOPIC_CONFIG", None, fallback_ok=True),
        BASE + "--entity-type topics --entity-name t --delete-config segment.bytes  # the override is removed, "
        "and the value below it applies and passes",
        ("t", "dynamic", "DELETE", None),
    ),
    (
        "fallback-fails-so-set",
        _row(
            "",
            "BROKER",
            "2",
            "log.segment.bytes",
            "DYNAMIC_BROKER_CONFIG",
            "cluster-wide",
            fallback_ok=False,
            fallback_value="1000",
            fallback_source="STATIC_BROKER_CONFIG",
        ),
        BASE + "--entity-type brokers --entity-name 2 --add-config log.segment.bytes=3145728  # deleting the "
        "override instead would fall back to 1000 from STATIC_BROKER_CONFIG, which does not pass either",
        ("2", "dynamic", "SET", "3145728"),
    ),
    (
        "expression-with-derived-fix",
        _row("", "TOPIC", "t1", "min.insync.replicas", "DYNAMIC_TOPIC_CONFIG", None, **EXPR, expr_fix_value="1"),
        BASE + "--entity-type topics --entity-name t1 --add-config min.insync.replicas=1",
        ("t1", "dynamic", "SET", "1"),
    ),
    (
        "expression-without-fix",
        _row(
            "",
            "TOPIC",
            "t1",
            "a",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            **EXPR,
            expr_text="cfg['a'] < cfg['b'] or x",
            rule_configs_text="a, b",
        ),
        PLACEHOLDER
        + BASE
        + "--entity-type topics --entity-name t1 --add-config "
        + q("a=<valid value>")
        + "  # change a, b so that "
        + q("cfg['a'] < cfg['b'] or x")
        + " holds, no single value follows from the expression",
        None,
    ),
]


@pytest.fixture(scope="module")
def remediations(spark: Any) -> dict[str, Any]:
    rows = [_row(case_id, rtype, name, key, source, scope) for case_id, rtype, name, key, source, scope, _, _ in CASES]
    rows.append(
        _row(
            "list-value-in-brackets",
            "TOPIC",
            "t",
            "cleanup.policy",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            code="NOT_ALLOWED",
            v_elems=["compact", "foo", "delete"],
            constraint_kind="in",
            rule_bound_a=None,
            rule_values=["compact", "delete"],
        )
    )
    rows.append(
        _row(
            "no-obvious-value",
            "TOPIC",
            "t",
            "k",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            code="NO_MATCH",
            constraint_kind="regex",
            rule_bound_a=None,
            remediation_hint="Ask the platform team",
        )
    )
    rows.append(
        _row(
            "between-above-takes-upper-bound",
            "TOPIC",
            "t",
            "k",
            "DYNAMIC_TOPIC_CONFIG",
            None,
            code="ABOVE_MAX",
            constraint_kind="between",
            rule_bound_a="1",
            rule_bound_b="17",
        )
    )
    rows.append(
        _row(
            "duplicates-removed",
            "BROKER",
            "1",
            "listeners",
            "STATIC_BROKER_CONFIG",
            "per-broker",
            code="DUPLICATES",
            v_elems=["a", "b", "a"],
            constraint_kind="no_duplicates",
            rule_bound_a=None,
        )
    )
    rows += [(case_id, *row[1:]) for case_id, row, _, _ in DELETES]
    df = spark.createDataFrame(rows, COLUMNS)
    out = (
        df.select("*", fix_value().alias("fix_value"))
        .select("case_id", remediation_text().alias("text"), remediation_change().alias("change"))
        .collect()
    )
    return {r.case_id: r for r in out}


@pytest.mark.parametrize(
    ("case_id", "text", "change"), [(c[0], c[2], c[3]) for c in DELETES], ids=[c[0] for c in DELETES]
)
def test_delete_when_the_fallback_passes_else_set(
    remediations: dict[str, Any], case_id: str, text: str, change: tuple[Any, ...] | None
) -> None:
    row = remediations[case_id]
    assert row.text == text
    got = None if row.change is None else (row.change.resource_name, row.change.layer, row.change.op, row.change.value)
    assert got == change


@pytest.mark.parametrize(("case_id", "text", "target"), [(c[0], c[6], c[7]) for c in CASES], ids=[c[0] for c in CASES])
def test_remediation_scope_follows_source_and_dynamic_scope(
    remediations: dict[str, Any], case_id: str, text: str, target: tuple[str, str] | None
) -> None:
    row = remediations[case_id]
    assert row.text == text
    assert (row.change.resource_name, row.change.layer, row.change.op, row.change.value) == (*target, "SET", "3145728")


def test_list_fix_keeps_allowed_elements_and_brackets_the_value(remediations: dict[str, Any]) -> None:
    row = remediations["list-value-in-brackets"]
    assert row.text.endswith("--add-config " + q("cleanup.policy=[compact,delete]"))
    assert row.change.value == "compact,delete"


def test_without_a_concrete_value_a_placeholder_and_no_structured_change(remediations: dict[str, Any]) -> None:
    row = remediations["no-obvious-value"]
    assert row.text == (
        PLACEHOLDER
        + BASE
        + "--entity-type topics --entity-name t --add-config "
        + q("k=<valid value>")
        + "  # hint: "
        + q("Ask the platform team")
    )
    assert row.change is None


@pytest.mark.parametrize(
    ("case_id", "value"),
    [("between-above-takes-upper-bound", "17"), ("duplicates-removed", "a,b")],
    ids=["between-upper", "duplicates"],
)
def test_fix_value_satisfies_the_failing_rule(remediations: dict[str, Any], case_id: str, value: str) -> None:
    assert remediations[case_id].change.value == value


def test_fix_value_of_an_expression_is_its_derived_fix(spark: Any) -> None:
    df = spark.createDataFrame(
        [("EXPRESSION_FALSE", "expr", None), ("EXPRESSION_FALSE", "expr", "3")],
        "code string, constraint_kind string, expr_fix_value string",
    ).select(
        "*",
        F.lit(None).cast("array<string>").alias("v_elems"),
        F.lit(None).cast("string").alias("rule_bound_a"),
        F.lit(None).cast("string").alias("rule_bound_b"),
        F.lit(None).cast("string").alias("rule_fix_value"),
        F.lit(None).cast("array<string>").alias("rule_values"),
    )
    assert [r.v for r in df.select(fix_value().alias("v")).collect()] == [None, "3"]


# Names and values as the metadata log can hold them: each must reach kafka-configs.sh as one unchanged argument.
HOSTILE: dict[str, str] = {
    "command-substitution": "pay$(touch PWNED)",
    "backticks": "pay`touch PWNED`",
    "semicolon": "pay; touch PWNED",
    "quotes": "it's \"quoted\" ''",
    "line-break": "line1\ntouch PWNED",
    "trailing-line-break": "pay\n",
    "carriage-return": "pay\r; touch PWNED",
    "spaces": "  two  spaces ",
    "empty": "",
    "unicode": "zahlungen-ünïcødé-名前",
    "glob-tilde-history": "~/* !! {a,b}",
    "comment-sign": "#pay",
    "option-like": "--delete-config",
}
KAFKA_CONFIGS = ["kafka-configs.sh", "--bootstrap-server", "<bootstrap>", "--alter"]
CLIENT_APP = ["--entity-type", "clients", "--entity-name", "app"]
GROUP_KEY = "consumer.session.timeout.ms"


def _hostile_cases(text: str) -> list[tuple[tuple[Any, ...], list[str]]]:
    """(input row, the argv the command must pass) for one hostile string in each place a command puts one."""
    min_rule = {"constraint_kind": "min", "code": "BELOW_MIN"}
    bracketed = f"[{text}]" if "," in text else text  # Kafka's ConfigCommand syntax for a value with commas
    user = text.replace(",", "")  # a client entity's name separates its parts with commas
    return [
        (
            _row(
                "topic",
                "TOPIC",
                text,
                "k",
                "DYNAMIC_TOPIC_CONFIG",
                None,
                rule_bound_a=text + ",x",
                remediation_hint=text,
            ),
            [*KAFKA_CONFIGS, "--entity-type", "topics", "--entity-name", text, "--add-config", f"k=[{text},x]"],
        ),
        (
            _row(
                "group-delete",
                "GROUP",
                text,
                GROUP_KEY,
                "DYNAMIC_GROUP_CONFIG",
                None,
                fallback_ok=True,
                fallback_value=text,
                fallback_source="DEFAULT_CONFIG",
            ),
            [*KAFKA_CONFIGS, "--entity-type", "groups", "--entity-name", text, "--delete-config", GROUP_KEY],
        ),
        (
            _row(
                "client", "CLIENT", f"user={user},client-id=app", "k", "DYNAMIC_CLIENT_CONFIG", None, rule_bound_a="1"
            ),
            [*KAFKA_CONFIGS, "--entity-type", "users", "--entity-name", user, *CLIENT_APP, "--add-config", "k=1"],
        ),
        (
            _row(
                "broker-key", "BROKER", "1", text, "DYNAMIC_BROKER_CONFIG", "per-broker", rule_bound_a="3", **min_rule
            ),
            [*KAFKA_CONFIGS, "--entity-type", "brokers", "--entity-name", "1", "--add-config", f"{text}=3"],
        ),
        (
            _row(
                "metrics",
                "CLIENT_METRICS",
                text,
                "interval.ms",
                "DYNAMIC_CLIENT_METRICS_CONFIG",
                None,
                rule_bound_a=text,
            ),
            [
                *KAFKA_CONFIGS,
                "--entity-type",
                "client-metrics",
                "--entity-name",
                text,
                "--add-config",
                f"interval.ms={bracketed}",
            ],
        ),
        (  # a server.properties edit is not a command: nothing runs
            _row("static", "BROKER", text, text, "STATIC_BROKER_CONFIG", "read-only", rule_bound_a=text),
            [],
        ),
        (  # a placeholder value: the command is a comment until someone edits it
            _row("placeholder", "TOPIC", text, text, "DYNAMIC_TOPIC_CONFIG", None, **EXPR),
            [],
        ),
    ]


@pytest.fixture(scope="module")
def hostile_commands(spark: Any) -> dict[str, list[tuple[str, list[str]]]]:
    """Per hostile string: (remediation text, intended argv) of every case."""
    cases = {name: _hostile_cases(text) for name, text in HOSTILE.items()}
    rows = [(f"{name}/{i}", *row[1:]) for name, pairs in cases.items() for i, (row, _) in enumerate(pairs)]
    df = spark.createDataFrame(rows, COLUMNS).select("*", fix_value().alias("fix_value"))
    texts = {r.case_id: r.text for r in df.select("case_id", remediation_text().alias("text")).collect()}
    return {name: [(texts[f"{name}/{i}"], argv) for i, (_, argv) in enumerate(pairs)] for name, pairs in cases.items()}


STUB = 'kafka-configs.sh() { printf "%s\\0" "$@"; }\n'


def _bash(script: str, cwd: Path, *options: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["bash", "--norc", "--noprofile", *options],
        input=script.encode(),
        cwd=cwd,
        capture_output=True,
        timeout=30,
        check=False,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd.parent), "HISTFILE": "/dev/null"},
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("name", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_names_and_values_reach_the_command_as_one_unchanged_argument(
    hostile_commands: dict[str, list[tuple[str, list[str]]]], name: str, tmp_path: Path
) -> None:
    tmp_path = tmp_path / "cwd"  # empty: whatever a text runs by mistake leaves a file here
    tmp_path.mkdir()
    for text, argv in hostile_commands[name]:
        assert shlex.split(text, comments=True) == argv, text
        assert _bash(text + "\n", tmp_path, "-n").returncode == 0, text
        ran = _bash(STUB + text + "\n", tmp_path)
        assert ran.returncode == 0, (text, ran.stderr)
        printed = ran.stdout.decode().split("\0")[:-1]
        assert printed == argv[1:], text  # the stub prints the arguments after its own name
        assert list(tmp_path.iterdir()) == [], text  # nothing the text holds was run


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("name", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_text_runs_nothing_in_a_shell_that_does_not_read_comments(
    hostile_commands: dict[str, list[tuple[str, list[str]]]], name: str, tmp_path: Path
) -> None:
    tmp_path = tmp_path / "cwd"  # empty: whatever a text runs by mistake leaves a file here
    tmp_path.mkdir()
    # zsh's default for interactive shells: `#` is a plain word, so the notes become arguments, never commands
    for text, argv in hostile_commands[name]:
        ran = _bash("shopt -u interactive_comments\n" + STUB + text + "\n", tmp_path, "-i")
        printed = ran.stdout.decode().split("\0")[:-1]
        # an interactive shell reads a carriage return as a line break; inside quotes it is still one argument
        assert printed[: len(argv) - 1] == [arg.replace("\r", "\n") for arg in argv[1:]], text
        assert list(tmp_path.iterdir()) == [], text


def test_shell_quoted_leaves_safe_words_and_quotes_the_rest_as_shlex_does(spark: Any) -> None:
    words = ["orders", "log.segment.bytes=1", "a-b_c:d/e@f%g+h,i", "", "a b", "it's", "x\n", "é", "$HOME", "-"]
    df = spark.createDataFrame([(w,) for w in words] + [(None,)], "w string")
    got = [r.q for r in df.select(shell_quoted(F.col("w")).alias("q")).collect()]
    assert got == [shlex.quote(w) for w in words] + [None]
