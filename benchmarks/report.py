"""Results: one JSON file per size and a markdown summary of every size found in the results directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.measure import __doc__ as MEMORY_METHOD
from benchmarks.sizes import SIZES

_ORDER = list(SIZES)


def target(name: str, measured: float | None, bound: float, op: str, what: str) -> dict[str, Any]:
    """One target: ``measured op bound`` (``op`` is ``<=`` or ``>=``); ``met`` None when not measured."""
    met = None if measured is None else (measured <= bound if op == "<=" else measured >= bound)
    return {"name": name, "what": what, "measured": measured, "op": op, "target": bound, "met": met}


def size_targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-size targets of issues #6 and #15 from one size's figures (ratios measured in the same run)."""
    steps = result["steps"]
    evaluation = steps["evaluate_default"]["seconds"]
    floor = steps["floor"]["seconds"]
    gx = steps.get("great_expectations", {}).get("extrapolated_seconds")
    udf = steps.get("python_udf", {}).get("seconds")
    # the peers' work: the single-key rules alone (benchmarks.peers); results before it existed used the whole catalog
    same_work = steps.get("evaluate_checks", steps["evaluate_default"])["seconds"]
    scaling = result["catalog_scaling"]
    return [
        target("eval_vs_floor", round(evaluation / floor, 2), 2.0, "<=", "default catalog evaluation / floor"),
        target(
            "gx_vs_eval",
            round(gx / same_work, 1) if gx else None,
            20.0,
            ">=",
            "Great Expectations (extrapolated per rule) / the product's evaluation of the same single-key rules",
        ),
        target(
            "udf_vs_eval",
            round(udf / same_work, 1) if udf else None,
            5.0,
            ">=",
            "Python UDF / the product's evaluation of the same single-key rules, same written output",
        ),
        target(
            "udf_verdicts_vs_product",
            _ratio(steps, "verdicts_udf", "verdicts_product"),
            3.0,
            ">=",
            "the verdicts alone: Python UDF / the product's column expressions, same pairs, failing pairs written",
        ),
        *(
            target(
                f"{peer}_vs_eval",
                round(steps[peer]["seconds"] / same_work, 2) if peer in steps else None,
                1.0,
                ">=",
                f"{label} / the product's evaluation of the same single-key rules (the product ahead: >= 1)",
            )
            for peer, label in (("cuallee", "cuallee"), ("dqx", "DQX"))
        ),
        target(
            f"catalog_{scaling['largest']}_vs_{scaling['smallest']}",
            scaling["largest_vs_smallest"],
            1.5,
            "<=",
            f"{scaling['largest']} constraints / {scaling['smallest']} constraints, same data",
        ),
        target(
            "binary_vs_spark_json",
            result["ingest"]["binary_vs_spark_json"],
            0.5,
            ">=",
            "binary ingest records/s / Spark JSON reader records/s",
        ),
        *_audit_targets(result),
    ]


def _ratio(steps: dict[str, Any], over: str, under: str) -> float | None:
    """``steps[over]`` / ``steps[under]`` in seconds, None when either was not measured."""
    if over not in steps or under not in steps:
        return None
    return round(steps[over]["seconds"] / steps[under]["seconds"], 2)


def _audit_targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue #15's targets of the audit's stages against the bronze floor, and the L audit's time."""
    bronze = result["steps"].get("bronze_floor", {}).get("seconds")
    if not bronze:
        return []  # a result measured before the bronze floor existed
    stages = result["pipeline"]["audit_stages"]
    replay = next((v for k, v in stages.items() if k.startswith("replaying ")), None)
    effective = stages.get("resolving effective configurations")
    found = [
        target(
            "replay_vs_bronze_floor",
            round(replay / bronze, 2) if replay else None,
            3.0,
            "<=",
            "audit's replay stage / bronze floor (read the records, sort by cluster and offset, write an aggregate)",
        ),
        target(
            "effective_vs_bronze_floor",
            round(effective / bronze, 2) if effective else None,
            3.0,
            "<=",
            "audit's effective-configuration stage / bronze floor",
        ),
    ]
    if result["size"]["name"] == "L":
        found.append(target("audit_seconds", result["steps"]["audit"]["seconds"], 240.0, "<=", "the whole L audit, s"))
    return found


def write_size(result: dict[str, Any], results_dir: Path, *, name: str | None = None) -> Path:
    """``<results>/<size>.json`` (``name`` defaults to the size's name; the gate has no fleet size)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{name or result['size']['name']}.json"
    path.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path


def load_results(results_dir: Path) -> list[dict[str, Any]]:
    """Every ``<size>.json`` in the directory, in size order (S, M, L)."""
    found = []
    for path in results_dir.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "size" in data:
            found.append(data)
    return sorted(found, key=lambda r: _ORDER.index(r["size"]["name"]) if r["size"]["name"] in _ORDER else 99)


def load_gate(results_dir: Path) -> dict[str, Any] | None:
    """``GATE.json`` (``benchmarks.gate``), if measured."""
    path = results_dir / "GATE.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def gate_lines(gate: dict[str, Any]) -> list[str]:
    """The gate's section of RESULTS.md: times, job counts per stage, targets."""
    seconds, jobs = gate["seconds"], gate["jobs"]
    lines = ["## Gate: one small cluster", ""]
    lines.append(
        f"`gate` of one synthetic cluster ({gate['data']['records']} records, {gate['gate']['constraints']} "
        f"constraints of the default catalog, data-quality stage on, target {gate['target_mv']}; load average "
        f"{gate['machine']['load_average_1_5_15'][0]} at the start): {_fmt(seconds['gate'])} s after a session "
        f"start of {_fmt(seconds['session_start'])} s; floor (session start + read the bronze records once + write "
        f"one Delta table) {_fmt(seconds['floor'])} s; {jobs['total']} Spark jobs."
    )
    lines.append("")
    lines.append("Spark jobs per stage: " + ", ".join(f"{k}: {v}" for k, v in jobs["by_stage"].items()))
    if gate.get("stages_seconds"):
        lines.append("")
        lines.append("Stages (s): " + ", ".join(f"{k}: {v:.1f}" for k, v in gate["stages_seconds"].items()))
    lines.append("")
    lines += _targets_table(gate["targets"])
    lines.append("")
    return lines


def scaling_targets(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cross-size targets: pipeline time grows no faster than the data; driver memory stays bounded."""
    sized = [r for r in results if r["size"]["name"] != "XS"]
    if len(sized) < 2:
        return []
    first, last = sized[0], sized[-1]
    span = f"{first['size']['name']}→{last['size']['name']}"
    data_growth = last["data"]["effective_rows"] / max(1, first["data"]["effective_rows"])
    time_growth = last["pipeline"]["total_seconds"] / max(1e-9, first["pipeline"]["total_seconds"])
    py_first = first["pipeline"]["peak_memory"].get("python_peak_rss_mib") or 0
    py_last = last["pipeline"]["peak_memory"].get("python_peak_rss_mib") or 0
    return [
        target(
            "time_growth_vs_data_growth",
            round(time_growth / data_growth, 3),
            1.0,
            "<=",
            f"{span}: (pipeline time growth {time_growth:.1f}x) / (effective rows growth {data_growth:.1f}x)",
        ),
        target(
            "python_driver_peak_growth",
            round(py_last / py_first, 2) if py_first else None,
            2.0,
            "<=",
            f"{span}: Python driver peak RSS growth ({py_first} → {py_last} MiB) while data grows {data_growth:.0f}x",
        ),
    ]


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _targets_table(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| target | measured | goal | met | what |", "|---|---:|---|---|---|"]
    for t in rows:
        met = {True: "yes", False: "**no**", None: "–"}[t["met"]]
        out.append(f"| {t['name']} | {_fmt(t['measured'])} | {t['op']} {_fmt(t['target'])} | {met} | {t['what']} |")
    return out


def storage_versions(versions: dict[str, Any]) -> str:
    """The storage part of a result's versions line: delta-spark, the engine every table is written with (issue
    59), and deltalake when it was installed (the tests' second reader). A result recorded before issue 59 names
    the backend it ran on instead."""
    if "storage_engine" not in versions:
        return (
            f"delta-spark {versions.get('delta_spark')}, deltalake {versions.get('deltalake')} "
            f"(backend {versions.get('delta_backend')})"
        )
    text = f"storage engine {versions['storage_engine']} {versions.get('delta_spark')}"
    if versions.get("deltalake"):
        text += f", deltalake {versions['deltalake']} (a second reader in the tests)"
    return text


def markdown(results: list[dict[str, Any]], gate: dict[str, Any] | None = None) -> str:
    """RESULTS.md: machine, versions, the gate, per-size figures and targets, data scaling."""
    if not results and gate is None:
        return "# Benchmark results\n\nNo results yet: run `make bench`.\n"
    lines = ["# Benchmark results", ""]
    lines.append(
        "Produced by `make bench` (S) / `make bench-all` (GATE, S, M, L): `python -m benchmarks.run --sizes ...`. "
        "Every figure and ratio of a size comes from one run on one machine and the same synthetic data; each timed "
        "step ends in a Delta commit (nothing can be pruned), and the fastest of its repeats is reported (the machine "
        "may be shared: the load average at the start of each size is recorded)."
    )
    lines.append("")
    first = results[0] if results else gate
    assert first is not None
    m, v = first["machine"], first["versions"]
    lines.append(
        f"Machine: {m['cores']} cores, {m['ram_gib']} GiB RAM, {m['cpu_model']}, {m['os']}. "
        f"Versions: Python {v['python']}, {v['java']}, pyspark {v['pyspark']}, {storage_versions(v)}, "
        f"Great Expectations {v['great_expectations']}, pyarrow {v['pyarrow']}."
    )
    lines.append("")
    loads = [r["machine"]["load_average_1_5_15"][0] for r in results if r["machine"].get("load_average_1_5_15")]
    if loads and max(loads) > (m["cores"] or 1):
        lines.append(
            f"**Measured on a shared machine** (1-minute load average up to {max(loads):.0f} on {m['cores']} cores "
            "when a size started): absolute times are inflated several-fold and repeats of the same step differ a "
            "lot (see `runs` in the JSON files); rerun on an idle machine for publishable figures."
        )
        lines.append("")
    if gate is not None:
        lines += gate_lines(gate)
    lines.append("## Figures per size")
    lines.append("")
    header = "| figure | " + " | ".join(r["size"]["name"] for r in results) + " |"
    lines += [header, "|---|" + "---:|" * len(results)]

    def row(label: str, get: Any) -> None:
        cells = []
        for r in results:
            try:
                cells.append(_fmt(get(r)))
            except (KeyError, TypeError, ZeroDivisionError):
                cells.append("–")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    row(
        "clusters / brokers / topics",
        lambda r: f"{r['data']['clusters']} / {r['data']['brokers']:,} / {r['data']['topics']:,}",
    )
    row("records (log + snapshots)", lambda r: r["data"]["records"])
    row("effective-config rows", lambda r: r["data"]["effective_rows"])
    row("load average at start", lambda r: r["machine"]["load_average_1_5_15"][0])
    row("synth s", lambda r: r["pipeline"]["synth_seconds"])
    for key, label in (
        ("ingest_binary", "ingest binary records/s"),
        ("ingest_text", "ingest dump-log text records/s"),
        ("ingest_json", "ingest JSON lines records/s"),
        ("spark_json_reader", "Spark JSON reader → Delta records/s"),
    ):
        row(label, lambda r, k=key: r["steps"][k]["records_per_second"])
    row("audit s (replay + resolve + evaluate + write)", lambda r: r["steps"]["audit"]["seconds"])
    row("audit Spark jobs", lambda r: r["pipeline"]["audit_jobs"]["total"])
    row("pipeline s (ingest binary + audit)", lambda r: r["pipeline"]["total_seconds"])
    row("floor s (read effective table, aggregate, write)", lambda r: r["steps"]["floor"]["seconds"])
    row(
        "bronze floor s (read bronze records, sort by cluster and offset, aggregate, write)",
        lambda r: r["steps"].get("bronze_floor", {}).get("seconds"),
    )
    row("evaluate default catalog s", lambda r: r["steps"]["evaluate_default"]["seconds"])
    row("constraints in default catalog", lambda r: r["steps"]["evaluate_default"]["constraints"])
    row(
        "evaluate the single-key rules alone s (the peers' work)",
        lambda r: r["steps"].get("evaluate_checks", {}).get("seconds"),
    )
    row("Python UDF validator s", lambda r: r["steps"]["python_udf"]["seconds"])
    row(
        "Python UDF rows differing from the product's",
        lambda r: r["steps"]["python_udf"].get("differs_from_product"),
    )
    row(
        "the verdicts alone s: product / Python UDF",
        lambda r: (
            f"{r['steps']['verdicts_product']['seconds']} / {r['steps']['verdicts_udf']['seconds']}"
            if "verdicts_udf" in r["steps"]
            else None
        ),
    )
    row(
        "the verdicts alone: failing pairs / differing from the product's",
        lambda r: (
            f"{r['steps']['verdicts_udf']['failing_pairs']} / {r['steps']['verdicts_udf']['differs_from_product']}"
            if "verdicts_udf" in r["steps"]
            else None
        ),
    )
    row("Great Expectations s (sampled rules)", lambda r: r["steps"]["great_expectations"]["seconds"])
    row(
        "Great Expectations rules run / total",
        lambda r: (
            f"{r['steps']['great_expectations']['rules_run']} / {r['steps']['great_expectations']['rules_total']}"
        ),
    )
    row(
        "Great Expectations s (extrapolated to all rules)",
        lambda r: r["steps"]["great_expectations"]["extrapolated_seconds"],
    )
    row("cuallee s", lambda r: r["steps"]["cuallee"]["seconds"])
    row(
        "cuallee violations differing from the product's (per rule)",
        lambda r: r["steps"]["cuallee"]["differs_from_product"],
    )
    row("DQX s", lambda r: r["steps"]["dqx"]["seconds"])
    row("DQX rows differing from the product's", lambda r: r["steps"]["dqx"]["differs_from_product"])
    row("(row, rule) pairs judged by the single-key rules at the target", lambda r: r["data"]["judged_pairs"])
    for key, label, seconds in _PEERS:
        row(f"{label}: (row, rule) pairs/s", lambda r, s=seconds: round(r["data"]["judged_pairs"] / s(r)))
        row(f"{label}: Spark jobs", lambda r, k=key: r["steps"][k]["spark_jobs"])
    for n in (100, 1_000, 5_000):
        row(f"evaluate {n:,} constraints s", lambda r, n=n: r["catalog_scaling"]["steps"][str(n)]["seconds"])
    row("driver JVM peak RSS MiB (pipeline)", lambda r: r["pipeline"]["peak_memory"]["jvm_peak_rss_mib"])
    row("driver JVM peak heap MiB (pipeline)", lambda r: r["pipeline"]["peak_memory"]["jvm_peak_heap_mib"])
    row("driver Python peak RSS MiB (pipeline)", lambda r: r["pipeline"]["peak_memory"]["python_peak_rss_mib"])
    lines.append("")
    for r in results:
        lines.append(f"## Targets, {r['size']['name']}")
        lines.append("")
        lines += _targets_table(r["targets"])
        stages = r["pipeline"].get("audit_stages") or {}
        if stages:
            lines.append("")
            lines.append("Audit stages (s): " + ", ".join(f"{k}: {v:.1f}" for k, v in stages.items()))
        jobs = r["pipeline"].get("audit_jobs")
        if jobs:
            lines.append("")
            lines.append("Audit Spark jobs per stage: " + ", ".join(f"{k}: {v}" for k, v in jobs["by_stage"].items()))
        lines.append("")
    scaling = scaling_targets(results)
    if scaling:
        lines.append("## Data scaling")
        lines.append("")
        lines += _targets_table(scaling)
        lines.append("")
    lines.append("## What each figure measures")
    lines.append("")
    lines += [
        "- Ingest: `kraft-audit ingest` into an empty warehouse (hash, decode on the executors, three Delta tables "
        "committed) of the synthetic fleet as binary logs and snapshots, as `kafka-dump-log` text and as JSON lines "
        "(the same records, printed by `benchmarks/exports.py`); next to it Spark's JSON reader (explicit schema, "
        "`data` kept as JSON text) landing the JSON lines as one Delta table through the same store.",
        "- Audit: `kraft-audit audit` of the binary ingest (replay, effective configurations, evaluation at the "
        "target, every level, findings; every table written). Pipeline = binary ingest + audit.",
        "- Floor: read `effective_configs`, count rows and sum value lengths per cluster and resource type, write "
        "that aggregate to Delta. Evaluation: read the same table, keep the auditable rows, validate the catalog "
        "with Spark's analyser, evaluate every constraint at the target (messages, remediations, "
        "`new_at_target`, affected topics) and write the violations to Delta.",
        "- Catalog scaling: the same evaluation with 100 / 1,000 / 5,000 constraints drawn from the default "
        "catalog (5,000 = the default catalog plus copies with distinct ids on the same keys).",
        "- Peers, on the same work: the default catalog's single-key rules alone (expression rules are not "
        "ported; at XS, the smoke test's size, only those on keys some layer sets, on every side), compared with the "
        "product's evaluation of those rules alone (`evaluate_checks`). Every side reads "
        "the effective table inside its clock. The Python UDF peer is the product's evaluation with each (row, rule) "
        "verdict from a row-at-a-time Python UDF (Kafka's parsing rules in Python) instead of the native column, "
        "written through the same violations step: same start, same written output, and the rows that differ from "
        "the product's table are counted (0 expected). Great Expectations runs one expectation per rule applying at "
        "the target (row condition on the rule's key, nearest expectation) on an even sample of the rules over the "
        "auditable rows it reads and caches, extrapolated per rule; it ends with counts, not a written table.",
        "- cuallee and DQX (`benchmarks/dq_engines.py`): every single-key rule applying at the target as the nearest "
        "table check (`benchmarks/peer_rules.py`: the rule's rows and a SQL predicate over the trimmed value), over "
        "the same judged rows read inside the clock; cuallee (`Check.satisfies`) writes its per-rule counts, DQX "
        "(`apply_checks_by_metadata`, `sql_expression` with the rule's rows as `filter`, on a local session with the "
        "mocked workspace client its documentation uses) writes its failing (row, rule) pairs. Their differences "
        "from the product are counted: the product judges the value parsed as the key's ConfigDef type and only the "
        "rules of the releases each cluster runs.",
        "",
    ]
    left_out = next((r.get("peers_left_out") for r in results if r.get("peers_left_out")), None)
    if left_out:
        lines.append("Left out: " + "; ".join(f"{name}: {why}" for name, why in left_out.items()) + ".")
        lines.append("")
    lines.append("## How memory is measured")
    lines.append("")
    lines.append(" ".join((MEMORY_METHOD or "").split()))
    lines.append("")
    return "\n".join(lines)


# (step, label, its seconds for the whole rule set) of every side run on the peers' work
_PEERS: list[tuple[str, str, Any]] = [
    ("evaluate_checks", "kraft-audit", lambda r: r["steps"]["evaluate_checks"]["seconds"]),
    ("python_udf", "Python UDF", lambda r: r["steps"]["python_udf"]["seconds"]),
    (
        "great_expectations",
        "Great Expectations (extrapolated)",
        lambda r: r["steps"]["great_expectations"]["extrapolated_seconds"],
    ),
    ("cuallee", "cuallee", lambda r: r["steps"]["cuallee"]["seconds"]),
    ("dqx", "DQX", lambda r: r["steps"]["dqx"]["seconds"]),
]


def write_markdown(results_dir: Path) -> Path:
    """Rewrite ``RESULTS.md`` from every size's JSON in ``results_dir``."""
    path = results_dir / "RESULTS.md"
    path.write_text(markdown(load_results(results_dir), load_gate(results_dir)), encoding="utf-8")
    return path
