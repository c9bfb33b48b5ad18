"""The dashboard notebook: committed without outputs, and executed headless against a freshly built demo warehouse.

One warehouse for the module: ``kraft-audit demo`` (two synthetic clusters, one audit of both), then
``retention.ms=-5`` on two more topics of the second cluster (below every release's ``atLeast(-1)``; a topic's
value is judged, unlike a broker's dynamic value the broker itself would refuse) plus a line that is not JSON
ingested for that cluster, and a second audit of that cluster alone. So the first cluster has a single audit ("no
previous run"), the second has two with new violations between them, the trend has two runs and the quarantine one
row. The notebook runs once in a fresh kernel with one extra cell appended that prints what its sections computed;
the tests compare that with the warehouse read independently here, and check the rendered outputs (tables, charts).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat import NotebookNode
from pyspark.sql import SparkSession

from jobs.cli import main as cli_main
from jobs.demo import DEFAULT_TARGET
from jobs.runtime.holding import INTERPRETED
from jobs.storage import open_store
from scripts.run_notebook import execute_notebook
from tests.short_jvm import FAST_JVM

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "dashboard.ipynb"
CHART_CELLS = (
    "open-violations-chart",
    "new-since-last-run-chart",
    "highest-safe-mv-chart",
    "top-configs-chart",
    "trend-chart",
    "findings-chart",
)
# The notebook parameters a developer's shell might set; the executed run must not inherit them.
PARAMETER_VARIABLES = ("KRAFT_AUDIT_CLUSTERS", "KRAFT_AUDIT_TARGET_MV")
# Appended to the executed copy only: what each section computed, as JSON on one line.
PROBE = """
import json

def _records(pdf):
    return json.loads(pdf.to_json(orient="records", date_format="iso"))

print("PROBE" + json.dumps({
    "target_mv": target_mv,
    "open_by_constraint": _records(open_pdf),
    "changes": _records(changes_pdf),
    "new": [row.asDict() for row in new_rows.collect()],
    "safe": _records(safe_pdf),
    "top_configs": _records(top_pdf),
    "trend": _records(trend_pdf),
    "findings": _records(findings_pdf),
    "quarantine": _records(quarantine_pdf),
    "lifecycle": _records(status_pdf),
}, default=str))
"""
# spark-submit options of the kernel's JVM (pyspark's launcher reads them from PYSPARK_SUBMIT_ARGS): a short JVM
# (tests/short_jvm.py) in UTC, without generated code
KERNEL_JVM = (
    "--driver-java-options",
    f"'{FAST_JVM} -Duser.timezone=UTC'",
    *(f"--conf {key}={value}" for key, value in INTERPRETED.items()),
)
PLANTED = "-5"
VIOLATION_KEY = ("cluster_id", "constraint_id", "resource_type", "resource_name", "node_id", "config_name")


def _cells(notebook: NotebookNode, tag: str) -> list[NotebookNode]:
    return [c for c in notebook.cells if tag in c.get("metadata", {}).get("tags", [])]


def _text(cell: NotebookNode) -> str:
    """Everything a reader sees in a cell's outputs, as text (streams, tables, markdown)."""
    parts: list[str] = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        for mime in ("text/plain", "text/html", "text/markdown"):
            if mime in output.get("data", {}):
                parts.append(output.data[mime])
    return "\n".join(parts)


def test_committed_notebook_has_no_outputs_and_reads_the_warehouse_from_the_environment() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code
    assert [c.get("id") for c in code if c.outputs or c.execution_count is not None] == []
    assert "execution" not in json.dumps([c.metadata for c in notebook.cells])  # no nbclient timing metadata
    (parameters,) = _cells(notebook, "parameters")
    assert parameters is code[0]
    assert 'os.environ.get("KRAFT_AUDIT_WAREHOUSE", "./warehouse")' in parameters.source
    # one storage engine (issue 59): the store is opened on the warehouse alone, no backend parameter left
    (setup,) = _cells(notebook, "setup")
    assert "store = open_store(spark, WAREHOUSE)\n" in setup.source
    assert "BACKEND" not in json.dumps([c.source for c in notebook.cells]).upper()
    assert {tag for c in code for tag in c.metadata.get("tags", [])} >= set(CHART_CELLS)


@pytest.fixture(scope="module")
def fleet(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo warehouse with a second audit of the second cluster after a new bad cluster-wide config."""
    tmp = tmp_path_factory.mktemp("dashboard")
    warehouse = tmp / "warehouse"
    common = ["--warehouse", str(warehouse), "--master", "local[2]", "-q"]
    with pytest.MonkeyPatch.context() as patch:
        # The jobs reuse the suite's session; keep its few shuffle partitions.
        patch.setenv("KRAFT_AUDIT_SHUFFLE_PARTITIONS", "2")
        demo = ["demo", "--no-real-metadata", "--no-dq", "--clusters", "2", "--topics", "10", *common]
        assert cli_main(demo) == 0
        manifest = json.loads((tmp / "demo-fleet" / "manifest.json").read_text())
        first, second = manifest["clusters"]
        planted = {v["resource_name"] for v in manifest["violations"] if v["cluster_id"] == second["cluster_id"]}
        topics = open_store(spark, str(warehouse)).read("topics").where(f"cluster_id = '{second['cluster_id']}'")
        names = sorted(r.topic_name for r in topics.where("not internal").collect() if r.topic_name not in planted)
        lines = [
            json.dumps(
                {
                    "offset": second["log_end_offset"] + i,
                    "type": "CONFIG_RECORD",
                    "version": 0,
                    "data": {"resourceType": 2, "resourceName": name, "name": "retention.ms", "value": PLANTED},
                }
            )
            for i, name in enumerate(names[:2])
        ]
        changes = tmp / "changes.jsonl"
        changes.write_text("\n".join(lines) + "\nthis line is not JSON\n")
        assert cli_main(["ingest", "--input", str(changes), "--cluster-id", second["cluster_id"], *common]) == 0
        audit = ["audit", "--target-mv", DEFAULT_TARGET, "--cluster-id", second["cluster_id"], "--no-dq", *common]
        assert cli_main(audit) == 1
    return {"tmp": tmp, "warehouse": warehouse, "first": first["cluster_id"], "second": second["cluster_id"]}


@pytest.fixture(scope="module")
def tables(spark: SparkSession, fleet: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The run tables as rows, read here independently of the notebook."""
    store = open_store(spark, str(fleet["warehouse"]))
    names = ("audit_runs", "violations", "highest_safe_levels", "findings", "quarantine", "violation_status")
    return {name: [r.asDict(recursive=True) for r in store.read(name).collect()] for name in names}


@pytest.fixture(scope="module")
def executed(fleet: dict[str, Any]) -> NotebookNode:
    """The notebook (plus the probe cell) executed in a fresh kernel with a small Spark."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
    path = fleet["tmp"] / "dashboard-probe.ipynb"
    nbformat.write(notebook, path)
    env = {k: v for k, v in os.environ.items() if k not in PARAMETER_VARIABLES}
    env.update(
        KRAFT_AUDIT_WAREHOUSE=str(fleet["warehouse"]),
        KRAFT_AUDIT_MASTER="local[2]",
        KRAFT_AUDIT_SHUFFLE_PARTITIONS="2",
        KRAFT_AUDIT_DRIVER_MEMORY="1g",
        SPARK_LOCAL_IP="127.0.0.1",
        # the kernel's JVM: short, small input (KERNEL_JVM)
        PYSPARK_SUBMIT_ARGS=" ".join((*KERNEL_JVM, "pyspark-shell")),
        # This checkout's code, whatever the venv has installed.
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p),
    )
    return execute_notebook(path, fleet["tmp"] / "dashboard-executed.ipynb", cwd=fleet["tmp"], env=env, timeout=900)


@pytest.fixture(scope="module")
def probe(executed: NotebookNode) -> dict[str, Any]:
    lines = [line for line in _text(executed.cells[-1]).splitlines() if line.startswith("PROBE")]
    assert len(lines) == 1
    return dict(json.loads(lines[0].removeprefix("PROBE")))


def _latest_runs(tables: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """cluster -> run_id of its newest audit."""
    latest: dict[str, str] = {}
    for run in sorted(tables["audit_runs"], key=lambda r: (r["run_ts"], r["run_id"])):
        for cluster in run["clusters"]:
            latest[cluster] = run["run_id"]
    return latest


def _keys(tables: dict[str, list[dict[str, Any]]], run_id: str, cluster: str) -> set[tuple[Any, ...]]:
    rows = tables["violations"]
    return {tuple(v[k] for k in VIOLATION_KEY) for v in rows if v["run_id"] == run_id and v["cluster_id"] == cluster}


def test_every_cell_runs_and_every_chart_is_drawn(executed: NotebookNode) -> None:
    code = [c for c in executed.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code)
    assert [o for c in code for o in c.outputs if o.output_type == "error"] == []
    for tag in CHART_CELLS:
        (cell,) = _cells(executed, tag)
        images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
        assert len(images) == 1, tag


def test_open_violations_are_those_of_each_clusters_latest_audit(
    executed: NotebookNode, probe: dict[str, Any], tables: dict[str, list[dict[str, Any]]], fleet: dict[str, Any]
) -> None:
    assert len(tables["audit_runs"]) == 2
    latest = _latest_runs(tables)
    expected = Counter(
        (v["cluster_id"], v["constraint_id"], v["severity"])
        for v in tables["violations"]
        if latest[v["cluster_id"]] == v["run_id"]
    )
    got = {(r["cluster_id"], r["constraint_id"], r["severity"]): r["violations"] for r in probe["open_by_constraint"]}
    assert got == dict(expected)
    assert probe["target_mv"] == tables["audit_runs"][0]["target_mv"]
    (cell,) = _cells(executed, "open-violations")
    assert fleet["first"] in _text(cell) and fleet["second"] in _text(cell)


def test_new_since_last_run_compares_with_the_previous_audit_or_says_there_is_none(
    executed: NotebookNode, probe: dict[str, Any], tables: dict[str, list[dict[str, Any]]], fleet: dict[str, Any]
) -> None:
    first_run, second_run = (r["run_id"] for r in sorted(tables["audit_runs"], key=lambda r: r["run_ts"]))
    before, after = _keys(tables, first_run, fleet["second"]), _keys(tables, second_run, fleet["second"])
    new, resolved = after - before, before - after
    assert new and {k[VIOLATION_KEY.index("config_name")] for k in new} == {"retention.ms"}
    assert before <= after  # the violations planted by the demo are still open: not new, not resolved

    assert {tuple(r[k] for k in VIOLATION_KEY) for r in probe["new"]} == new
    changes = {r["cluster_id"]: r for r in probe["changes"]}
    assert changes[fleet["first"]]["status"] == "no previous run"
    assert changes[fleet["first"]]["new"] is None and changes[fleet["first"]]["previous_audit"] is None
    assert changes[fleet["second"]]["status"] == "compared"
    assert (changes[fleet["second"]]["new"], changes[fleet["second"]]["resolved"]) == (len(new), len(resolved))
    (cell,) = _cells(executed, "new-since-last-run")
    assert f"No previous run at {probe['target_mv']} for: `{fleet['first']}`" in _text(cell)
    assert f"retention.ms={PLANTED}" in _text(cell)


def test_highest_safe_mv_comes_from_each_clusters_latest_audit(
    executed: NotebookNode, probe: dict[str, Any], tables: dict[str, list[dict[str, Any]]], fleet: dict[str, Any]
) -> None:
    latest = _latest_runs(tables)
    expected = {
        s["cluster_id"]: (s["current_level"], s["highest_safe_level"], s["highest_safe_mv"])
        for s in tables["highest_safe_levels"]
        if latest[s["cluster_id"]] == s["run_id"]
    }
    got = {r["cluster_id"]: (r["current_level"], r["highest_safe_level"], r["highest_safe_mv"]) for r in probe["safe"]}
    assert got == expected and set(got) == {fleet["first"], fleet["second"]}
    (cell,) = _cells(executed, "highest-safe-mv")
    for cluster, (_, _, mv) in expected.items():
        assert cluster in _text(cell) and (mv or "None") in _text(cell)


def test_top_offending_configs_count_the_open_violations_per_key(
    probe: dict[str, Any], tables: dict[str, list[dict[str, Any]]]
) -> None:
    latest = _latest_runs(tables)
    open_rows = [v for v in tables["violations"] if latest[v["cluster_id"]] == v["run_id"]]
    expected = Counter((v["resource_type"], v["config_name"]) for v in open_rows)
    got = {(r["resource_type"], r["config_name"]): r["violations"] for r in probe["top_configs"]}
    assert got == dict(expected)
    clusters: dict[tuple[str, str], set[str]] = {}
    for v in open_rows:
        clusters.setdefault((v["resource_type"], v["config_name"]), set()).add(v["cluster_id"])
    assert {(r["resource_type"], r["config_name"]): r["clusters"] for r in probe["top_configs"]} == {
        key: len(ids) for key, ids in clusters.items()
    }
    errors = Counter((v["resource_type"], v["config_name"]) for v in open_rows if v["severity"] == "error")
    ranked = [(r["errors"], r["violations"]) for r in probe["top_configs"]]
    assert ranked == sorted(((errors[k], n) for k, n in expected.items()), reverse=True)  # errors first
    entities = {(r["resource_type"], r["config_name"]): r["entities"] for r in probe["top_configs"]}
    assert entities[("TOPIC", "retention.ms")] == 3  # the demo's planted topic and the two planted here


def test_trend_has_one_point_per_run_with_its_recorded_counts(
    probe: dict[str, Any], tables: dict[str, list[dict[str, Any]]]
) -> None:
    runs = sorted(tables["audit_runs"], key=lambda r: r["run_ts"])
    expected = [(r["run_id"], r["violations_error"], r["violations_warning"], r["findings"]) for r in runs]
    assert [(p["run_id"], p["errors"], p["warnings"], p["findings"]) for p in probe["trend"]] == expected


def test_quarantine_and_findings_are_counted(
    executed: NotebookNode, probe: dict[str, Any], tables: dict[str, list[dict[str, Any]]], fleet: dict[str, Any]
) -> None:
    quarantined = Counter(q["cluster_id"] for q in tables["quarantine"])
    assert quarantined[fleet["second"]] >= 1
    got: Counter[str] = Counter()
    for row in probe["quarantine"]:
        got[row["cluster_id"]] += row["quarantined"]
    assert got == quarantined
    latest = _latest_runs(tables)
    findings = Counter(
        (f["cluster_id"], f["kind"]) for f in tables["findings"] if latest[f["cluster_id"]] == f["run_id"]
    )
    assert {(r["cluster_id"], r["kind"]): r["findings"] for r in probe["findings"]} == dict(findings)


def test_lifecycle_counts_match_the_status_table(
    probe: dict[str, Any], tables: dict[str, list[dict[str, Any]]], fleet: dict[str, Any]
) -> None:
    level = tables["audit_runs"][0]["target_level"]
    expected: dict[str, Counter[str]] = {}
    for row in tables["violation_status"]:
        if row["target_level"] == level:
            counts = expected.setdefault(row["cluster_id"], Counter())
            counts[row["status"]] += 1
            counts["waived"] += row["waived"] and row["status"] != "resolved"
    got = {
        r["cluster_id"]: Counter({k: r[k] for k in ("open", "reopened", "resolved", "waived")})
        for r in probe["lifecycle"]
    }
    assert {c: +v for c, v in got.items()} == {c: +v for c, v in expected.items()}
    assert set(got) == {fleet["first"], fleet["second"]}
    # The second cluster's latest audit reports the planted log.segment.bytes=524288 (below the 1 MiB minimum).
    assert got[fleet["second"]]["open"] >= 1
