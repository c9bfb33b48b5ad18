"""The ``gate`` size: ``kraft-audit gate`` of one small synthetic cluster, next to a session floor.

This is what every end-to-end test and every pre-upgrade check pays: the audit's fixed cost. One process, one
Spark session:

1. session floor, part 1: the time to start the Spark session (``jobs.runtime.session.build_session``), measured by the
   caller before anything else runs in the process, which starts Great Expectations' import first, as the CLI does
   (``jobs.run.start``: ``quality.prefetch`` before ``build_session``);
2. the gate: ingest of the fleet, bronze data-quality checks, replay, effective configurations, evaluation of
   the default catalog at the target, silver/gold data-quality checks, every table written (``jobs.run.run``
   with ``command="gate"``, as ``kraft-audit gate`` runs it), timed per stage with its Spark jobs counted;
3. session floor, part 2: read the gate's bronze ``metadata_records`` once and write them as one Delta table.

Floor = session start + step 3; the target is the gate's wall time (with the session start, like a CLI run)
≤ 3× the floor, and ≤ 60 Spark jobs.
"""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from benchmarks.jobcount import counting
from benchmarks.measure import DriverMemory, measure, stage_times

log = logging.getLogger("benchmarks")

# One cluster, two brokers, two single-partition topics, no snapshot: the smallest fleet synth writes.
GATE_FLEET = {"clusters": 1, "brokers": 2, "topics": 2, "partitions": 1, "topic_configs": 3, "snapshot": False}
MAX_JOBS = 60
MAX_VS_FLOOR = 3.0


def run_gate(
    spark: SparkSession, work: Path, *, session_seconds: float, target_mv: str, repeats: int = 1
) -> dict[str, Any]:
    """Measure the gate of one small cluster on ``spark`` (started ``session_seconds`` ago)."""
    from benchmarks.machine import machine_info, versions
    from benchmarks.report import target
    from jobs import audit, ingest, synth
    from jobs import run as run_job
    from jobs.storage import open_store
    from synthetic.spec import FleetSpec

    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    machine = machine_info()
    memory = DriverMemory(spark)
    work.mkdir(parents=True, exist_ok=True)
    fleet, warehouse = work / "fleet", work / "wh_gate"
    synth_result = synth.run(FleetSpec(out=str(fleet), seed=6, overwrite=True, **GATE_FLEET))  # type: ignore[arg-type]

    settings = run_job.RunSettings(
        ingest=ingest.IngestSettings(inputs=(str(fleet),), warehouse=str(warehouse)),
        audit=audit.AuditSettings(target_mv=target_mv, warehouse=str(warehouse), command="gate", dq=True),
        print_ingest_summary=False,
    )
    rules = audit.load_rules(settings.audit)
    log.info("[gate] %d records, target %s, %d constraints", synth_result.records, target_mv, len(rules[0].rules))
    with stage_times() as stages, counting(spark) as jobs:
        gate_step, result = measure(
            "gate",
            lambda: run_job.run(spark, settings, rules=rules),
            memory=memory,
            repeats=repeats,
            setup=lambda: shutil.rmtree(warehouse, ignore_errors=True),
        )
    per_run = max(1, len(gate_step.runs))

    def bronze_copy() -> int:
        store = open_store(spark, str(warehouse))
        records_df = store.read("metadata_records")
        store.ensure("floor_copy", records_df.schema)
        store.append("floor_copy", records_df)
        return 0

    copy_step, _ = measure("floor_read_write", bronze_copy, memory=memory)
    floor = session_seconds + copy_step.seconds
    gate_total = session_seconds + gate_step.seconds
    job_total = jobs.total // per_run
    return {
        "gate": {"fleet": GATE_FLEET, "repeats": repeats, "constraints": len(rules[0].rules)},
        "target_mv": target_mv,
        "started_at": started_at,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine,
        "versions": versions(),
        "data": {"records": synth_result.records + synth_result.snapshot_records},
        "verdict": result.summary.verdict,
        "violations": result.summary.violations_total,
        "seconds": {
            "session_start": round(session_seconds, 3),
            "floor_read_write": round(copy_step.seconds, 3),
            "floor": round(floor, 3),
            "gate": round(gate_step.seconds, 3),
            "gate_with_session": round(gate_total, 3),
            "gate_runs": [round(r, 3) for r in gate_step.runs],
        },
        "stages_seconds": {k: round(v / per_run, 1) for k, v in stages.stages.items()},
        "jobs": {
            "total": job_total,
            "by_stage": {k: v // per_run for k, v in jobs.by_stage.items()},
            "by_description": {k: v // per_run for k, v in jobs.by_description.items()},
        },
        "memory": gate_step.memory,
        "targets": [
            target("gate_jobs", job_total, MAX_JOBS, "<=", "Spark jobs of one gate run (ingest, DQ, audit)"),
            target(
                "gate_vs_session_floor",
                round(gate_total / floor, 2),
                MAX_VS_FLOOR,
                "<=",
                "gate wall time (session start included) / (session start + read bronze + write one Delta table)",
            ),
        ],
    }
