"""Issue 58, cases 6 and 8: every argument and file is checked before the first write, one line and exit 2.

The unit-tier cases run the real entry point in-process: the unit tier fails any test that leaves a SparkContext
behind, so each also proves the mistake was found before the session started; and the warehouse they name is never
created. The Spark cases (a catalog expression only Spark can refuse, a table whose Delta log is corrupt) check
that no table was written, or none changed, before the refusal.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parents[1] / "data" / "e2e"
INPUT = str(DATA / "cluster.jsonl")
NO_NODE = "x=1\n"  # a server.properties without node.id


def _gate(tmp: Path, *extra: str, warehouse: str | None = None) -> list[str]:
    wh = str(tmp / "wh") if warehouse is None else warehouse
    return ["gate", "--input", INPUT, "--target-mv", "4.2-IV1", "--warehouse", wh, "--no-dq", *extra]


def _properties(tmp: Path, text: str) -> str:
    path = tmp / "server.properties"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _two_clusters(tmp: Path) -> list[str]:
    """Two input directories are two clusters: a static config cannot say which one it belongs to."""
    for name in ("a", "b"):
        (tmp / name).mkdir()
        shutil.copy(INPUT, tmp / name / "cluster.jsonl")
    props = _properties(tmp, "node.id=1\n")
    inputs = ["--input", str(tmp / "a"), "--input", str(tmp / "b")]
    return ["gate", *inputs, "--target-mv", "4.2", "--warehouse", str(tmp / "wh"), "--static-config", props]


CASES: list[tuple[str, Callable[[Path], list[str]], str]] = [
    ("empty-warehouse", lambda tmp: _gate(tmp, warehouse=""), "--warehouse is empty"),
    ("warehouse-on-proc", lambda tmp: _gate(tmp, warehouse="/proc/self/wh"), "/proc or /sys"),
    ("yarn-without-hadoop-conf", lambda tmp: _gate(tmp, "--master", "yarn"), "HADOOP_CONF_DIR"),
    ("as-of-offset-beyond-a-long", lambda tmp: _gate(tmp, "--as-of-offset", str(1 << 63)), "Java long"),
    ("unknown-kafka-release", lambda tmp: _gate(tmp, "--kafka-version", "99.99"), "not a Kafka release this tool"),
    (
        "node-id-beyond-an-int",
        lambda tmp: _gate(tmp, "--static-config", f"{1 << 31}={_properties(tmp, NO_NODE)}"),
        "Java int",
    ),
    (
        "file-node-id-beyond-an-int",
        lambda tmp: _gate(tmp, "--static-config", _properties(tmp, "node.id=" + "9" * 5000 + "\n")),
        "Java int",
    ),
    ("unicode-digit-node-id", lambda tmp: _gate(tmp, "--static-config", f"²={_properties(tmp, NO_NODE)}"), "NODE="),
    ("file-without-node-id", lambda tmp: _gate(tmp, "--static-config", _properties(tmp, "x=1\n")), "no node.id"),
    ("static-config-of-two-clusters", _two_clusters, "--static-config needs --cluster-id"),
]


@pytest.mark.parametrize(("make", "needle"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_mistake_is_one_line_and_exit_2_before_anything_is_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[Path], list[str]],
    needle: str,
) -> None:
    monkeypatch.delenv("HADOOP_CONF_DIR", raising=False)
    monkeypatch.delenv("YARN_CONF_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # an empty --warehouse would write into the current directory
    argv = make(tmp_path)
    code = cli_main(argv)
    err = capsys.readouterr().err.strip()
    assert (code, "\n" in err, "Traceback" in err) == (2, False, False), err
    assert needle in err, err
    assert not (tmp_path / "wh").exists()
    assert not any(p.name == "_delta_log" for p in tmp_path.rglob("_delta_log"))


def test_a_bad_expression_is_refused_before_the_ingest_writes(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An expression whose column does not exist passes the catalog's load (no Spark) but not Spark's analysis:
    the gate refuses it before the bronze tables exist."""
    catalog = tmp_path / "rules.yaml"
    catalog.write_text(
        "constraints:\n"
        "  - id: no-such-column\n"
        "    resource: broker\n"
        "    configs: [log.segment.bytes]\n"
        "    severity: error\n"
        '    expr: "nonexistent_column > 1"\n',
        encoding="utf-8",
    )
    code = cli_main([*_gate(tmp_path, "--no-default-constraints", "--constraints", str(catalog)), "-q"])
    err = capsys.readouterr().err.strip()
    assert (code, "\n" in err) == (2, False), err
    assert "no-such-column" in err and "nonexistent_column" in err  # Spark's analysis named it
    assert not (tmp_path / "wh" / "metadata_records").exists()


def test_a_corrupt_table_log_stops_the_run_before_any_table_changes(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gate writes its warehouse; a commit of ``violations`` is then overwritten with bytes that are not JSON. The
    next gate must stop with one line naming the table, and leave every table at its version."""
    warehouse = tmp_path / "wh"
    rules = ["--no-default-constraints", "--constraints", str(DATA / "segment-rule.yaml"), "-q"]
    assert cli_main(_gate(tmp_path, *rules)) == 0
    store = open_store(spark, str(warehouse))
    tables = sorted(p.name for p in warehouse.iterdir() if (p / "_delta_log").is_dir())
    before = {t: store.version(t) for t in tables}
    commits = sorted((warehouse / "violations" / "_delta_log").glob("*.json"))
    commits[-1].write_bytes(b"\x00{not json")
    capsys.readouterr()
    code = cli_main(_gate(tmp_path, *rules))
    err = capsys.readouterr().err.strip()
    assert (code, "\n" in err, "Traceback" in err) == (2, False, False), err
    assert "violations" in err
    assert {t: store.version(t) for t in tables if t != "violations"} == {
        t: v for t, v in before.items() if t != "violations"
    }
