"""#16: a secret planted in every place the issue names, in every input format, through one whole pipeline.

One ``run`` (``--no-dq``: the data-quality stage is not under test) ingests a cluster holding every planting of
``tests/transforms/decode/test_planted_secrets.py`` (JSON lines, dump-log text, binary segments, server.properties, an
unrecognised file), audits it and writes the summary, JUnit and remediation files; ``report`` renders the HTML.
Then every table is read with ``deltalake`` (not through the code under test), and the report, the summary, the
other output files, stdout/stderr and the bytes of every file in the warehouse are searched for every marker as
text, hex and base64.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from jobs.cli import main as cli_main
from tests.fuzz.markers import leak_forms, leaks
from tests.transforms.decode.test_planted_secrets import FILES, PROPERTIES

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"
DUMP_HEADER = "Dumping /var/lib/kafka/meta/__cluster_metadata-0/00000000000000000000.log\nLog starting offset: 0\n"


CONTROL = "MKCONTROLNOTSECRETEZ"


def _marker(place: str) -> str:
    return f"MK{place.replace('-', '').upper()}EZ"


def _plant(cluster: Path) -> tuple[dict[str, str], Path]:
    """Every planting as its own input file of one cluster; returns the markers and the server.properties."""
    cluster.mkdir(parents=True)
    # The hand-written e2e records (offsets moved past the plantings) give the audit a real cluster to work on.
    base = [json.loads(line) for line in (DATA / "cluster.jsonl").read_text(encoding="utf-8").splitlines()]
    lines = [json.dumps({**record, "offset": record["offset"] + 1000}) for record in base]
    # the positive control: a value that is not secret and must be found wherever the scans look
    control = {"resourceType": 2, "resourceName": "t1", "name": "message.timestamp.type", "value": CONTROL}
    lines.append(
        json.dumps({"offset": 2000, "timestamp": 1732152000000, "type": "CONFIG_RECORD", "version": 0, "data": control})
    )
    (cluster / "base.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    markers: dict[str, str] = {}
    for place, (kind, build) in FILES.items():
        markers[place] = secret = _marker(place)
        content = build(secret)
        if kind == "LOG_SEGMENT":
            path = cluster / place / "00000000000000000040.log"
            path.parent.mkdir()
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        elif kind == "JSON_LINES":
            (cluster / f"{place}.jsonl").write_text(str(content) + "\n", encoding="utf-8")
        else:
            (cluster / f"{place}.txt").write_text(DUMP_HEADER + str(content) + "\n", encoding="utf-8")
    markers["unrecognised-file"] = secret = _marker("unrecognised-file")
    (cluster / "notes.cfg").write_text(f"user=admin\npassword={secret}\n", encoding="utf-8")
    properties = ["node.id=1"]
    for place, build in PROPERTIES.items():
        markers[place] = secret = _marker(place)
        properties.append(build(secret))
    static = cluster.parent / "server.properties"
    static.write_text("\n".join(properties) + "\n", encoding="utf-8")
    return markers, static


def _table_dirs(warehouse: Path) -> list[Path]:
    return sorted(log.parent for log in warehouse.rglob("_delta_log"))


def test_no_planted_secret_reaches_a_table_an_output_file_a_log_or_the_warehouse(
    spark: SparkSession, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    markers, static = _plant(tmp_path / "inputs" / "planted")
    warehouse, out = tmp_path / "warehouse", tmp_path / "out"
    out.mkdir()
    run_args = ["run", "--input", str(tmp_path / "inputs" / "planted"), "--cluster-id", "planted"]
    run_args += ["--static-config", f"1={static}", "--target-mv", "4.4-IV1", "--warehouse", str(warehouse)]
    run_args += ["--no-default-constraints", "--constraints", str(DATA / "base-rules.yaml"), "--no-dq"]
    run_args += ["--summary-json", str(out / "summary.json"), "--junit", str(out / "junit.xml")]
    run_args += ["--remediation-out", str(out / "changes.yaml"), "-v"]
    assert cli_main(run_args) in (0, 1)
    assert cli_main(["report", "--warehouse", str(warehouse), "--out", str(out / "report.html")]) == 0
    captured = capfd.readouterr()

    tables = _table_dirs(warehouse)
    names = {t.name for t in tables}
    assert {"metadata_records", "quarantine", "static_configs", "client_entity_configs", "effective_configs"} <= names
    assert {"violations", "findings", "audit_runs"} <= names
    found: dict[str, list[str]] = {}
    control_seen: set[str] = set()  # the scans see what is there: the control value is found in each kind of place
    for table in tables:
        rows = [tuple(row.values()) for row in DeltaTable(str(table)).to_pyarrow_table().to_pylist()]
        if hit := leaks(rows, markers.values()):
            found[f"table {table.name}"] = hit
        if leaks(rows, [CONTROL]):
            control_seen.add(table.name)
    assert {"metadata_records", "dynamic_configs", "effective_configs"} <= control_seen
    quarantined = DeltaTable(str(warehouse / "quarantine")).to_pyarrow_table().num_rows
    assert quarantined >= 10  # the plantings that are not records did arrive, as quarantine rows

    outputs = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    outputs.update({"stdout": captured.out, "stderr": captured.err})
    assert "planted" in outputs["summary.json"] and outputs["report.html"].startswith("<!")
    for name, text in outputs.items():
        if hit := leaks([(text,)], markers.values()):
            found[name] = hit

    files_with_control = 0
    for path in sorted(p for p in warehouse.rglob("*") if p.is_file()):
        data = path.read_bytes()
        files_with_control += any(form.encode() in data for form in leak_forms(CONTROL))
        hit = [m for m in markers.values() if any(form.encode() in data for form in leak_forms(m))]
        if hit:
            found[str(path.relative_to(warehouse))] = hit
    assert files_with_control >= 3  # parquet files of those tables hold the value's bytes: the byte scan can hit
    assert found == {}
