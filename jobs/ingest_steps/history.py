"""What the warehouse remembers of earlier ingests: the hash each file had when it was last ingested, and the ingests
that committed rows but stopped before recording their files."""

from __future__ import annotations

from pyspark.sql import functions as F

from jobs.runtime.holding import one_job
from jobs.storage import DeltaStore

# The userMetadata of a bronze data commit: this prefix and the ingest's id.
INGEST_NOTE = "ingest "


# How many recent commits of metadata_records are looked through for ingests that never recorded their files.
UNFINISHED_LOOKBACK = 50


def previous_hashes(store: DeltaStore, version: int) -> dict[tuple[str, str], str]:
    return previous_ingests(store, version)[0]


def previous_ingests(store: DeltaStore, version: int) -> tuple[dict[tuple[str, str], str], set[str]]:
    """At ``version`` of ``ingested_files``: the latest hash of every (cluster, file) recorded, and the ids of the
    ingests that recorded files (ingests that ended). Version -1, before the table was created, holds nothing (no
    Spark job)."""
    if version == -1:
        return {}, set()
    with one_job(store.spark):
        rows = (
            store.read("ingested_files", version=version)
            .groupBy("cluster_id", "source_file")
            .agg(F.max_by("file_sha256", "ingested_at").alias("sha"), F.collect_set("ingest_id").alias("ingests"))
            .collect()
        )
    hashes = {(r["cluster_id"], r["source_file"]): r["sha"] for r in rows}
    return hashes, {ingest for r in rows for ingest in r["ingests"]}


def unfinished_ingests(store: DeltaStore, finished: set[str]) -> list[str]:
    """Ingests named by the recent commits of ``metadata_records`` that never recorded their files: killed (or
    still running elsewhere, which the commit point of ``ingested_files`` then settles). One Spark job."""
    notes = store.notes("metadata_records", limit=UNFINISHED_LOOKBACK)
    ingests = {note.removeprefix(INGEST_NOTE) for note in notes if note.startswith(INGEST_NOTE)}
    return sorted(ingests - finished)
