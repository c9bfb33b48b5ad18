"""#16 item 4: command-line mistakes are one line on stderr and exit 2, found before Spark starts.

Each case runs the real entry point in-process; the unit tier fails any test that leaves a SparkContext behind, so
every case here also proves the mistake was found before the session started.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from jobs.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
INPUT = str(ROOT / "tests" / "data" / "e2e" / "cluster.jsonl")


def _gate(tmp: Path, *extra: str) -> list[str]:
    return ["gate", "--input", INPUT, "--target-mv", "4.2-IV1", "--warehouse", str(tmp / "wh"), "--no-dq", *extra]


def _bad_utf8(tmp: Path) -> list[str]:
    catalog = tmp / "rules.yaml"
    catalog.write_bytes(b"constraints:\n  - id: \xff\xfe\n")
    return _gate(tmp, "--constraints", str(catalog))


def _directory_catalog(tmp: Path) -> list[str]:
    return _gate(tmp, "--constraints", str(tmp))


def _warehouse_file(tmp: Path) -> list[str]:
    (tmp / "file").write_text("x", encoding="utf-8")
    return ["gate", "--input", INPUT, "--target-mv", "4.2-IV1", "--warehouse", str(tmp / "file"), "--no-dq"]


def _warehouse_below_file(tmp: Path) -> list[str]:
    (tmp / "file").write_text("x", encoding="utf-8")
    return ["ingest", "--input", INPUT, "--warehouse", str(tmp / "file" / "wh")]


def _bad_master(tmp: Path) -> list[str]:
    return _gate(tmp, "--master", "foo://bar")


def _a_file(tmp: Path) -> Path:
    """A regular file: no directory can be made below it (the outputs' missing directories are created)."""
    path = tmp / "file"
    path.write_text("x", encoding="utf-8")
    return path


def _junit_below_file(tmp: Path) -> list[str]:
    return _gate(tmp, "--junit", str(_a_file(tmp) / "reports" / "j.xml"))


def _summary_is_dir(tmp: Path) -> list[str]:
    return _gate(tmp, "--summary-json", str(tmp))


def _remediation_below_file(tmp: Path) -> list[str]:
    return _gate(tmp, "--remediation-out", str(_a_file(tmp) / "changes.yaml"))


def _report_out_below_file(tmp: Path) -> list[str]:
    return ["report", "--warehouse", str(tmp), "--out", str(_a_file(tmp) / "r.html")]


def _bad_kafka_version(tmp: Path) -> list[str]:
    return _gate(tmp, "--kafka-version", "four")


def _kafka_version_with_suffix(tmp: Path) -> list[str]:
    return _gate(tmp, "--kafka-version", "4.2-garbage")


def _cluster_kafka_version(tmp: Path) -> list[str]:
    return _gate(tmp, "--kafka-version", "eu=4.x")


def _two_run_targets(tmp: Path) -> list[str]:
    return _gate(tmp, "--target-mv", "4.1")


def _cluster_target_twice(tmp: Path) -> list[str]:
    return _gate(tmp, "--target-mv", "eu=4.1", "--target-mv", "eu=4.0")


def _cluster_unknown_mv(tmp: Path) -> list[str]:
    return _gate(tmp, "--target-mv", "eu=9.9-IV9")


def _nameless_cluster(tmp: Path) -> list[str]:
    return _gate(tmp, "--upgrade-with", "=metadata")


def _cluster_upgrade_form(tmp: Path) -> list[str]:
    return _gate(tmp, "--upgrade-with", "eu=feature")


def _missing_input(tmp: Path) -> list[str]:
    return ["gate", "--input", str(tmp / "absent"), "--target-mv", "4.2-IV1", "--warehouse", str(tmp / "wh")]


def _bad_static_config(tmp: Path) -> list[str]:
    return _gate(tmp, "--static-config", "x=" + str(tmp / "absent.properties"))


def _java_method_rule(tmp: Path) -> list[str]:
    catalog = tmp / "rules.yaml"
    catalog.write_text(
        "constraints: [{id: r, resource: broker, config: a, expr: \"java_method('java.lang.System', "
        "'getenv', 'KRAFT_AUDIT_REDACTION_KEY') is not null\"}]\n",
        encoding="utf-8",
    )
    return _gate(tmp, "--constraints", str(catalog))


CASES: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "constraints-not-utf8": (_bad_utf8, "not UTF-8"),
    "constraints-directory": (_directory_catalog, "is a directory"),
    "warehouse-is-a-file": (_warehouse_file, "is a file, not a directory"),
    "warehouse-below-a-file": (_warehouse_below_file, "is a file, so no directory"),
    "master-url": (_bad_master, "is not a Spark master URL"),
    "junit-below-a-file": (_junit_below_file, "--junit"),
    "summary-json-directory": (_summary_is_dir, "--summary-json"),
    "remediation-below-a-file": (_remediation_below_file, "--remediation-out"),
    "report-out-below-a-file": (_report_out_below_file, "--out"),
    "kafka-version": (_bad_kafka_version, "--kafka-version"),
    "kafka-version-suffix": (_kafka_version_with_suffix, "--kafka-version"),
    "kafka-version-of-a-cluster": (_cluster_kafka_version, "--kafka-version '4.x'"),
    "target-mv-twice-for-the-run": (_two_run_targets, "--target-mv is given 2 times for the run"),
    "target-mv-twice-for-a-cluster": (_cluster_target_twice, "gives cluster eu a second value"),
    "target-mv-of-a-cluster-unknown": (_cluster_unknown_mv, "9.9-IV9"),
    "upgrade-with-no-cluster": (_nameless_cluster, "names no cluster"),
    "upgrade-with-of-a-cluster": (_cluster_upgrade_form, "--upgrade-with 'feature'"),
    "missing-input": (_missing_input, "does not exist"),
    "static-config-missing": (_bad_static_config, "absent.properties"),
    "reflection-in-rule": (_java_method_rule, "calls java_method()"),
}


@pytest.mark.parametrize(("build", "expected"), list(CASES.values()), ids=list(CASES))
def test_a_cli_mistake_is_one_line_and_exit_2_before_spark(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    build: Callable[[Path], list[str]],
    expected: str,
) -> None:
    code = cli_main(build(tmp_path))
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""  # no verdict printed
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("kraft-audit: error: ") and expected in lines[0]
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    "master",
    ["local", "local[2]", "local[*]", "local[4, 2]", "local-cluster[2, 1, 1024]", "spark://h1:7077,h2:7077", "yarn"],
)
def test_spark_master_urls_are_accepted(master: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jobs.preflight import check_master

    monkeypatch.setenv("HADOOP_CONF_DIR", str(tmp_path))  # yarn needs the cluster's configuration
    check_master(master)


def test_an_output_files_missing_directories_are_created_whole(tmp_path: Path) -> None:
    from jobs.output_files import write_output
    from jobs.preflight import check_output_file

    target = tmp_path / "a" / "b" / "summary.json"
    check_output_file("--summary-json", str(target))  # a missing directory is not a mistake: it is made
    assert not (tmp_path / "a").exists()  # ... by the writer, not by the check
    assert write_output(target, "{}\n") == target and target.read_text(encoding="utf-8") == "{}\n"
    write_output(target, "{ }\n")
    assert target.read_text(encoding="utf-8") == "{ }\n" and sorted(p.name for p in target.parent.iterdir()) == [
        "summary.json"
    ]  # replaced whole, no temporary file left behind


# --- #58: hostile user files and output paths (one line, exit 2, before Spark, nothing written) ---


def _catalog(tmp: Path, text: str) -> list[str]:
    catalog = tmp / "rules.yaml"
    catalog.write_text(text, encoding="utf-8")
    return _gate(tmp, "--constraints", str(catalog))


def _fifo(tmp: Path) -> str:
    fifo = tmp / "pipe.yaml"
    os.mkfifo(fifo)
    return str(fifo)


def _simulate(tmp: Path, changes: str) -> list[str]:
    return ["simulate", "--changes", changes, "--target-mv", "4.2-IV1", "--warehouse", str(tmp / "wh")]


def _changes_file(tmp: Path, text: str) -> str:
    path = tmp / "changes.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _unix_socket(tmp: Path) -> str:
    path = tmp / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.close()  # the socket file stays
    return str(path)


_LAUGHS = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)

HOSTILE_CASES: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "constraints-dev-zero": (lambda t: _gate(t, "--constraints", "/dev/zero"), "is a character device"),
    "constraints-fifo": (lambda t: _gate(t, "--constraints", _fifo(t)), "is a named pipe (FIFO)"),
    "constraints-nested-5000": (lambda t: _catalog(t, "constraints: " + "[" * 5000), "nested deeper than 64"),
    "constraints-over-4-mib": (lambda t: _catalog(t, "#" * (4 * 1024 * 1024 + 1)), "larger than 4 MiB"),
    "waivers-billion-laughs": (
        lambda t: _gate(t, "--waivers", _changes_file(t, _LAUGHS)),
        "aliases expand to more than 100,000 nodes",
    ),
    "waivers-dev-zero": (lambda t: _gate(t, "--waivers", "/dev/zero"), "--waivers /dev/zero: is a character device"),
    "changes-5000-digits": (
        lambda t: _simulate(t, _changes_file(t, "changes: " + "9" * 5000)),
        "an integer of 5,000 characters",
    ),
    "changes-nested-2000": (
        lambda t: _simulate(t, _changes_file(t, "".join(" " * i + "-\n" for i in range(2000)))),
        "nested deeper than 64",
    ),
    "changes-fifo": (lambda t: _simulate(t, _fifo(t)), "--changes"),
    "junit-proc-version": (lambda t: _gate(t, "--junit", "/proc/version"), "--junit /proc/version: is on /proc"),
    "junit-new-in-proc": (lambda t: _gate(t, "--junit", "/proc/junit.xml"), "where no file can be created"),
    "summary-json-socket": (lambda t: _gate(t, "--summary-json", _unix_socket(t)), "is a socket"),
}


@pytest.mark.parametrize(("build", "expected"), list(HOSTILE_CASES.values()), ids=list(HOSTILE_CASES))
def test_a_hostile_file_is_one_line_and_exit_2_before_spark(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    build: Callable[[Path], list[str]],
    expected: str,
) -> None:
    argv = build(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code = cli_main(argv)
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 400, captured.err[:2000]
    assert lines[0].startswith("kraft-audit: error: ") and expected in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written: no warehouse, no output


def test_a_static_config_is_a_regular_file_of_at_most_1_mib(tmp_path: Path) -> None:
    from jobs.conf_loader import MAX_STATIC_CONFIG_BYTES, read_static_config
    from schemas.errors import ConfigError

    small = tmp_path / "server.properties"
    small.write_bytes(b"node.id=1\n")
    assert read_static_config(str(small)) == b"node.id=1\n"
    exact = tmp_path / "exact.properties"
    exact.write_bytes(b"#" * MAX_STATIC_CONFIG_BYTES)
    assert len(read_static_config(str(exact))) == MAX_STATIC_CONFIG_BYTES
    large = tmp_path / "large.properties"
    large.write_bytes(b"a=" + b"x" * MAX_STATIC_CONFIG_BYTES)
    with pytest.raises(ConfigError, match=r"^--static-config .*large.properties: larger than 1 MiB"):
        read_static_config(str(large))
    with pytest.raises(ConfigError, match="is a named pipe"):  # refused at once: the open never waits
        read_static_config(_fifo(tmp_path))
    with pytest.raises(ConfigError, match="is a character device"):
        read_static_config("/dev/zero")
