"""Ingest throughput: the product's ingest of binary, dump-log text and JSON-lines inputs of the same records,
next to Spark's own JSON reader landing the JSON lines to Delta (the "export to JSON and load it" alternative).

Every run starts from an empty warehouse (a re-ingest of the same files would be a no-op), and every run ends
with its rows committed to Delta, so nothing can be pruned away.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from benchmarks.measure import DriverMemory, Step, measure
from jobs.ingest import IngestResult, IngestSettings
from jobs.ingest import run as ingest_run
from jobs.storage import open_store

# The JSON-lines shape of docs/contract.md §3, read with an explicit schema (no inference pass); ``data`` is kept as its
# JSON text, which is what the product stores in ``payload``.
JSON_SCHEMA = (
    "offset long, timestamp long, type string, version int, batchBaseOffset long, leaderEpoch int, "
    "isControl boolean, data string"
)


def _fresh(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


def product_ingest(
    spark: SparkSession, inputs: Path, warehouse: Path, *, memory: DriverMemory, repeats: int, name: str
) -> tuple[Step, IngestResult]:
    """``kraft-audit ingest --input <inputs>`` into a fresh warehouse, ``repeats`` times; the fastest counts."""
    settings = IngestSettings(inputs=(str(inputs),), warehouse=str(warehouse))
    step, result = measure(
        name,
        lambda: ingest_run(spark, settings),
        memory=memory,
        repeats=repeats,
        setup=lambda: _fresh(warehouse),
    )
    step.extra.update(
        records=result.records,
        quarantined=result.quarantined,
        files=result.files_ingested,
        bytes=result.bytes_ingested,
        records_per_second=round(result.records / step.seconds, 1) if step.seconds else None,
    )
    return step, result


def spark_json_to_delta(
    spark: SparkSession, json_root: Path, warehouse: Path, *, records: int, memory: DriverMemory, repeats: int
) -> Step:
    """Spark's JSON reader over the JSON lines, landed as one Delta table (same storage backend as the product)."""
    files = sorted(str(p) for p in json_root.rglob("*.jsonl"))

    def load() -> int:
        store = open_store(spark, str(warehouse))
        # Explicit files: Spark's directory listing skips names starting with "_" (``__cluster_metadata-0``).
        df = spark.read.schema(JSON_SCHEMA).json(files)
        landed_df = df.select("*", F.col("_metadata.file_path").alias("source_file"))
        store.ensure("json_records", landed_df.schema)
        store.append("json_records", landed_df)
        return records

    step, _ = measure("spark_json_reader", load, memory=memory, repeats=repeats, setup=lambda: _fresh(warehouse))
    landed = open_store(spark, str(warehouse)).read("json_records").count()
    step.extra.update(
        records=landed,
        records_per_second=round(landed / step.seconds, 1) if step.seconds else None,
    )
    return step


def ingest_figures(steps: dict[str, Step]) -> dict[str, Any]:
    """records/s per input format and the binary / Spark-JSON ratio."""
    rate = {name: step.extra.get("records_per_second") for name, step in steps.items()}
    binary, spark_json = rate.get("ingest_binary"), rate.get("spark_json_reader")
    return {
        "records_per_second": rate,
        "binary_vs_spark_json": round(binary / spark_json, 3) if binary and spark_json else None,
    }
