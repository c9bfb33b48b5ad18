"""``python -m benchmarks.run --sizes S[,M,L]``: synthesise each size, measure, write the results.

Each size runs in its own Python process with its own Spark driver (``--one-size``), so its memory peaks and JIT
warm-up are its own; the parent then rewrites ``RESULTS.md`` from every ``<size>.json`` in the results directory
and prints it. Per size (``run_size``):

1. ``kraft-audit synth`` writes the fleet (binary logs and snapshots); the harness prints the same records as
   dump-log text and JSON lines (``benchmarks.exports``);
2. ingest throughput: the product's ingest of each format and Spark's JSON reader landing the JSON lines in
   Delta (``benchmarks.ingest``), each into a fresh warehouse;
3. the audit of the binary ingest (replay, effective configs, evaluation, every table written), timed per stage:
   with the binary ingest it is the pipeline of the data-scaling figures;
4. on the effective table that audit wrote: the floor and the default catalog's evaluation, the catalog scaling
   and the peers (``benchmarks.evaluation``, ``benchmarks.peers``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"
GATE = "GATE"  # not a fleet size: one small cluster through `gate` (benchmarks.gate)
DEFAULT_TARGET_MV = "4.4-IV2"  # a level: bare 4.4 is refused (its LATEST_PRODUCTION is 4.3-IV0)
log = logging.getLogger("benchmarks")


def run_size(spark: Any, size_name: str, work: Path, *, target_mv: str = DEFAULT_TARGET_MV) -> dict[str, Any]:
    """Measure one size on ``spark``; returns the result document (see ``benchmarks.report``)."""
    from benchmarks import dq_engines, evaluation, ingest, peers
    from benchmarks.exports import export_fleet
    from benchmarks.jobcount import counting
    from benchmarks.machine import machine_info, versions
    from benchmarks.measure import DriverMemory, Step, measure, stage_times
    from benchmarks.peer_rules import judged_pairs, peer_frame
    from benchmarks.report import size_targets
    from benchmarks.sizes import SIZES
    from jobs import audit
    from jobs import synth as synth_job
    from synthetic.spec import FleetSpec
    from transforms.constraints.failures import single_key_rows

    size = SIZES[size_name]
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    machine = machine_info()
    memory = DriverMemory(spark)
    work.mkdir(parents=True, exist_ok=True)
    fleet, text_root, json_root = work / "fleet", work / "text", work / "json"
    steps: dict[str, Any] = {}

    log.info("[%s] synth: %d clusters x %d brokers x %d topics", size.name, size.clusters, size.brokers, size.topics)
    synth_spec = FleetSpec(
        out=str(fleet),
        clusters=size.clusters,
        brokers=size.brokers,
        topics=size.topics,
        partitions=size.partitions,
        topic_configs=size.topic_configs,
        seed=6,
        overwrite=True,
    )
    synth_step, synth_result = measure("synth", lambda: synth_job.run(synth_spec), memory=memory)
    log.info("[%s] export text and JSON lines", size.name)
    export_step, exported = measure(
        "export_text_json",
        lambda: export_fleet(fleet, text_root, json_root, workers=os.cpu_count() or 1),
        memory=memory,
    )
    export_step.extra.update(records=exported.records, text_bytes=exported.text_bytes, json_bytes=exported.json_bytes)
    steps["export_text_json"] = export_step

    log.info("[%s] ingest throughput", size.name)
    steps["spark_json_reader"] = ingest.spark_json_to_delta(
        spark, json_root, work / "wh_spark_json", records=exported.records, memory=memory, repeats=size.repeats
    )
    wh_binary = work / "wh_binary"
    for name, source, warehouse in (
        ("ingest_text", text_root, work / "wh_text"),
        ("ingest_json", json_root, work / "wh_json"),
        ("ingest_binary", fleet, wh_binary),  # last: its warehouse is the one audited below
    ):
        steps[name], _ = ingest.product_ingest(spark, source, warehouse, memory=memory, repeats=size.repeats, name=name)
        if warehouse != wh_binary:
            shutil.rmtree(warehouse, ignore_errors=True)
    shutil.rmtree(work / "wh_spark_json", ignore_errors=True)

    log.info("[%s] audit (target %s)", size.name, target_mv)
    settings = audit.AuditSettings(target_mv=target_mv, warehouse=str(wh_binary))
    rules = audit.load_rules(settings)
    with stage_times() as stages, counting(spark) as audit_jobs:
        steps["audit"], audit_result = measure("audit", lambda: audit.run(spark, settings, rules=rules), memory=memory)
    steps["audit"].extra.update(
        violations=audit_result.summary.violations_total, records_read=audit_result.summary.records_read
    )

    log.info("[%s] floor and default catalog evaluation", size.name)
    # the audit decides "small" on the bronze records of its scope (all of wh_binary), not on those it replayed
    inputs = evaluation.eval_inputs(spark, wh_binary, work / "wh_bench", target_mv, records=exported.records)
    counts = evaluation.effective_rows(inputs)
    compiled = rules[0]
    steps["floor"] = evaluation.floor_step(spark, inputs, memory=memory, repeats=size.repeats)
    steps["bronze_floor"] = evaluation.bronze_floor_step(spark, inputs, memory=memory, repeats=size.repeats)
    steps["evaluate_default"] = evaluation.evaluation_step(
        spark, inputs, compiled, name="evaluate_default", memory=memory, repeats=size.repeats
    )

    log.info("[%s] catalog scaling %s", size.name, size.catalog_sizes)
    scaling = evaluation.catalog_scaling(
        spark, inputs, evaluation.default_catalog(), size.catalog_sizes, memory=memory, repeats=size.repeats
    )

    log.info("[%s] peers on the same work: the single-key rules alone", size.name)
    peer_catalog = evaluation.on_set_keys(compiled, inputs) if size.peers_on_set_keys else compiled
    checks = peers.checks_only(peer_catalog)
    at_target = peers.applicable_checks(peer_catalog, inputs.target.level)
    as_tables = dq_engines.peer_rules(at_target)
    peer_steps: dict[str, Callable[[], Step]] = {
        "evaluate_checks": lambda: evaluation.evaluation_step(
            spark, inputs, checks, name="evaluate_checks", memory=memory, repeats=size.repeats
        ),
        "python_udf": lambda: peers.python_udf_step(
            spark, inputs, checks, product_table="bench_evaluate_checks", memory=memory, repeats=1
        ),
        "great_expectations": lambda: peers.great_expectations_step(
            spark, inputs, at_target, sample=size.gx_rules, memory=memory
        ),
        "cuallee": lambda: dq_engines.cuallee_step(
            spark, inputs, as_tables, product_table="bench_evaluate_checks", memory=memory
        ),
        "dqx": lambda: dq_engines.dqx_step(
            spark, inputs, as_tables, product_table="bench_evaluate_checks", memory=memory
        ),
    }
    for name, peer_step in peer_steps.items():
        log.info("[%s] %s", size.name, name)
        with counting(spark) as jobs:
            steps[name] = peer_step()
        steps[name].extra["spark_jobs"] = jobs.total
    log.info("[%s] the verdicts alone: product and Python UDF", size.name)
    # at least two runs each, the faster kept: a first run of either plan pays its code generation
    steps.update(peers.verdict_steps(spark, inputs, checks, memory=memory, repeats=max(2, size.repeats)))

    pipeline_memory: dict[str, Any] = {}
    for name in ("ingest_binary", "audit"):
        for key, value in steps[name].memory.items():
            if isinstance(value, int) and not isinstance(value, bool):
                pipeline_memory[key] = max(pipeline_memory.get(key, 0), value)
    data = {
        "clusters": synth_result.clusters,
        "brokers": synth_result.brokers,
        "topics": synth_result.topics,
        "partitions": synth_result.partitions,
        "records": synth_result.records + synth_result.snapshot_records,
        "records_ingested": steps["ingest_binary"].extra["records"],
        "files": synth_result.files,
        "bytes": synth_result.bytes,
        **counts,
        "judged_rows": single_key_rows(evaluation.auditable(inputs)).count(),
        # (row, rule) pairs of the single-key rules at the target: the peers' work
        "judged_pairs": judged_pairs(peer_frame(evaluation.auditable(inputs)), as_tables),
    }
    result: dict[str, Any] = {
        "size": {
            "name": size.name,
            "clusters": size.clusters,
            "brokers_per_cluster": size.brokers,
            "topics_per_cluster": size.topics,
            "partitions": size.partitions,
            "topic_configs": size.topic_configs,
            "repeats": size.repeats,
            "minimums": {
                k: {"required": v, "reached": data.get(k), "met": (data.get(k) or 0) >= v} for k, v in size.minimums
            },
        },
        "target_mv": inputs.target.name,
        "started_at": started_at,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine,
        "versions": versions(),
        "driver": {"max_heap_mib": memory.max_heap_mib, "master": spark.sparkContext.master},
        "data": data,
        "steps": {name: step.to_dict() for name, step in steps.items()},
        "ingest": ingest.ingest_figures({k: v for k, v in steps.items() if k.startswith(("ingest_", "spark_"))}),
        "catalog_scaling": scaling,
        "peers_left_out": dq_engines.UNAVAILABLE,
        "pipeline": {
            "synth_seconds": round(synth_step.seconds, 3),
            "ingest_seconds": round(steps["ingest_binary"].seconds, 3),
            "audit_seconds": round(steps["audit"].seconds, 3),
            "total_seconds": round(steps["ingest_binary"].seconds + steps["audit"].seconds, 3),
            "audit_stages": {k: round(v, 1) for k, v in stages.stages.items()},
            "audit_jobs": audit_jobs.to_dict(),
            "peak_memory": pipeline_memory,
        },
    }
    result["targets"] = size_targets(result)
    return result


def _one_size(size_name: str, work: Path, results_dir: Path, target_mv: str, keep: bool) -> int:
    from benchmarks.gate import run_gate
    from benchmarks.report import write_size
    from jobs.runtime.session import build_session

    session_started = time.perf_counter()
    if size_name == GATE:
        # as `kraft-audit gate` starts (jobs.run.start): Great Expectations' import begins before Spark does
        from jobs import quality

        quality.prefetch()
    spark = build_session(app_name=f"kraft-audit-bench-{size_name}")
    session_seconds = time.perf_counter() - session_started  # the gate's session floor starts here
    try:
        if size_name == GATE:
            result = run_gate(spark, work, session_seconds=session_seconds, target_mv=target_mv)
        else:
            result = run_size(spark, size_name, work, target_mv=target_mv)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    path = write_size(result, results_dir, name=size_name)
    log.info("[%s] wrote %s", size_name, path)
    spark.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    """CLI entry (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="S", help="comma-separated sizes: GATE, XS, S, M, L (default S)")
    parser.add_argument("--results", default=str(RESULTS_DIR), help="results directory (default %(default)s)")
    parser.add_argument("--work", default=None, help="scratch directory (default: a fresh one under /tmp)")
    parser.add_argument("--target-mv", default=DEFAULT_TARGET_MV, help="audit target (default %(default)s)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory (fleets, warehouses)")
    parser.add_argument("--one-size", help=argparse.SUPPRESS)  # internal: run one size in this process
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    for handler in logging.getLogger().handlers:
        handler.setLevel(logging.INFO)  # the stage timer lowers kraft_audit to DEBUG; keep the console at INFO
    logging.getLogger("great_expectations").setLevel(logging.WARNING)  # as the CLI does: its import logs at INFO
    results_dir = Path(args.results)
    import tempfile

    work_root = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="kraft-audit-bench-"))
    if args.one_size:
        return _one_size(args.one_size, work_root, results_dir, args.target_mv, args.keep)

    from benchmarks.report import write_markdown
    from benchmarks.sizes import parse_sizes

    names = [part.strip().upper() for part in args.sizes.split(",") if part.strip()]
    try:
        sizes = parse_sizes(",".join(n for n in names if n != GATE)) if set(names) - {GATE} else []
    except ValueError as error:
        print(f"benchmarks: {error}", file=sys.stderr)
        return 2
    run_names = ([GATE] if GATE in names else []) + [size.name for size in sizes]
    for name in run_names:
        started = time.monotonic()
        command = [
            sys.executable,
            "-m",
            "benchmarks.run",
            "--one-size",
            name,
            "--results",
            str(results_dir),
            "--work",
            str(work_root / name),
            "--target-mv",
            args.target_mv,
            *(["--keep"] if args.keep else []),
        ]
        code = subprocess.run(command, check=False, cwd=Path(__file__).resolve().parent.parent).returncode
        if code != 0:
            print(f"benchmarks: size {name} failed (exit {code})", file=sys.stderr)
            return code
        log.info("[%s] done in %.0f s", name, time.monotonic() - started)
    path = write_markdown(results_dir)
    print(path.read_text(encoding="utf-8"))
    print(json.dumps({"results": str(results_dir), "sizes": run_names}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
