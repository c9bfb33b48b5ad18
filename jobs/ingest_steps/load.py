"""Transform and write: the input files decoded (by the driver for a small input, else on the executors) into the
bronze tables, the files recorded last in ``ingested_files``; the ``--static-config`` files into ``static_configs``."""

from __future__ import annotations

import hashlib
from collections import Counter
from datetime import datetime

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import conf_loader
from jobs.discover import InputFile, read_head
from jobs.ingest_steps.hashing import binary_files
from jobs.ingest_steps.history import INGEST_NOTE, previous_hashes
from jobs.ingest_steps.settings import IngestResult
from jobs.redaction_key import redaction_key
from jobs.runtime.holding import SMALL_INPUT_BYTES, one_job
from jobs.runtime.progress import stage
from jobs.storage import ConcurrentCommitError, DeltaStore
from schemas import bronze
from schemas.errors import StorageError
from schemas.kafka_vocabulary import ResourceType
from transforms.decode.files import FileDescriptor, decode_files, decoded_table
from transforms.decode.redaction import SensitivityRules, redact_text, redact_value, safe_config_name
from transforms.decode.text.properties import parse_server_properties
from transforms.kit.local_frames import arrow_frame, local_frame

# A concurrent ingest of the same files wins at most this many times in a row before this one gives up.
ATTEMPTS = 3
FILE_OPEN_COST = 64 << 10


# Kafka reads node.id as a Java int (KafkaConfig, ConfigDef.Type.INT)
JAVA_INT_MAX = (1 << 31) - 1


READ_PARTITIONS_PER_CORE = 2


TABLES = {
    "metadata_records": (bronze.METADATA_RECORDS, bronze.METADATA_RECORDS_PARTITIONS),
    "quarantine": (bronze.QUARANTINE, bronze.QUARANTINE_PARTITIONS),
    "static_configs": (bronze.STATIC_CONFIGS, bronze.STATIC_CONFIGS_PARTITIONS),
    "ingested_files": (bronze.INGESTED_FILES, bronze.INGESTED_FILES_PARTITIONS),
}


class Superseded(Exception):
    """Another ingest committed some of these files first; this ingest's rows were undone."""


def file_scan_settings(spark: SparkSession) -> dict[str, str]:
    """How the ingest's file reads are split into tasks.

    Spark packs whole files (``binaryFile`` never splits one) into read partitions counting each file as its bytes
    plus ``openCostInBytes`` (4 MiB by default), in descending size, closing a partition once it would pass
    ``totalBytes / minPartitionNum``. With metadata segments and snapshots of a few hundred KB the open cost
    dominates, so the partitions hold the same number of files but not the same bytes: on benchmark M (60 files,
    10.4 MB, two cores) the two decode tasks ran 1.1 s and 3.7 s. Counting a file as its bytes plus 64 KiB, over
    twice as many partitions as cores, balances the decoding. And the listing of the given files runs on the driver
    (they are files, not directories: a stat each) instead of as a Spark job of one task per path once there are
    more than 32 of them (0.4 s per read on benchmark M).
    """
    cores = spark.sparkContext.defaultParallelism
    return {
        "spark.sql.files.openCostInBytes": str(FILE_OPEN_COST),
        "spark.sql.files.minPartitionNum": str(READ_PARTITIONS_PER_CORE * cores),
        "spark.sql.sources.parallelPartitionDiscovery.threshold": str(1 << 20),
    }


def ingest_files(
    spark: SparkSession,
    store: DeltaStore,
    todo: list[tuple[InputFile, str]],
    unrecognised: list[InputFile],
    changed: set[tuple[str, str]],
    result: IngestResult,
    now: datetime,
    *,
    files_version: int,
    contents: dict[str, bytes] | None,
) -> None:
    """Decode ``todo`` (by the driver from ``contents`` when it holds them, else on the executors) and load the
    bronze tables."""
    rules = conf_loader.sensitivity_rules()
    descriptors = _descriptors(todo)
    result.files_ingested = len(todo)
    result.bytes_ingested = sum(item.size_bytes for item, _ in todo)
    small = result.bytes_ingested <= SMALL_INPUT_BYTES
    where = "in the driver" if contents is not None else "on the executors"
    with stage(spark, f"decoding {len(todo)} files ({result.bytes_ingested / 1e6:.1f} MB) {where}"):
        if contents is not None:
            decoded = decoded_table(
                ((item.path, contents[item.path]) for item, _ in todo),
                descriptors=descriptors,
                rules=rules,
                redaction_key=redaction_key(),
            )
            per_file = rows_per_file(decoded)
            held_df = arrow_frame(spark, decoded, bronze.DECODED_ROWS)
            # one task writes them: a file per cluster (a local relation is scanned in as many slices as cores)
            decoded_df = held_df.coalesce(1)
        else:
            decoded_df, per_file = decode_on_executors(spark, todo, descriptors, rules, small=small)
            result.written = None  # its rows are on the executors
    records_df, quarantine_df = _bronze_rows(decoded_df, result.ingest_id, now)
    unrecognised_df = unrecognised_rows(spark, unrecognised, rules, result, now) if unrecognised else None
    if unrecognised_df is not None:
        quarantine_df = quarantine_df.unionByName(unrecognised_df)
    files_df = ingested_file_rows(spark, todo, per_file, result, now)
    if contents is not None and result.written is not None:
        # the same rows for the bronze checks, without the coalesce: plans that fold into local relations
        held_records, held_quarantine = _bronze_rows(held_df, result.ingest_id, now)
        written(result, "metadata_records", held_records)
        if any(kind != "RECORD" for _file, kind, _type in per_file):
            written(result, "quarantine", held_quarantine)
        if unrecognised_df is not None:
            written(result, "quarantine", unrecognised_df)
        written(result, "ingested_files", files_df)
    commits: list[tuple[str, int]] = []
    claimed = {(item.cluster_id, item.path): digest for item, digest in todo}
    with stage(spark, "writing bronze tables"):
        try:
            note = INGEST_NOTE + result.ingest_id
            commits += load(store, "metadata_records", records_df, changed, note=note)
            # a quarantine without a row to add or to replace commits nothing (one Spark job and one commit fewer)
            if changed or unrecognised or any(kind != "RECORD" for _file, kind, _type in per_file):
                commits += load(store, "quarantine", quarantine_df, changed, note=note)
            commit_ingested_files(store, files_df, claimed, files_version)
        except Superseded:
            undo(store, commits)
            raise
        finally:
            decoded_df.unpersist()
    _count_rows(result, per_file, unrecognised)


def _descriptors(todo: list[tuple[InputFile, str]]) -> dict[str, FileDescriptor]:
    """What the decoder needs to know of each file to decode, by path (its cluster, kind and digest)."""
    return {
        item.path: FileDescriptor(
            path=item.path,
            source_file=item.path,
            cluster_id=item.cluster_id,
            input_kind=item.input_kind or "UNKNOWN",
            file_sha256=digest,
            snapshot_end_offset=item.snapshot_end_offset,
        )
        for item, digest in todo
    }


def _bronze_rows(decoded_df: DataFrame, ingest_id: str, now: datetime) -> tuple[DataFrame, DataFrame]:
    """The decoded rows as ``metadata_records`` and ``quarantine`` rows (their schemas' columns, in order), stamped
    with this ingest."""
    stamp = {
        "ingest_id": F.lit(ingest_id).alias("ingest_id"),
        "ingested_at": F.lit(now).cast("timestamp").alias("ingested_at"),
    }
    records_df = decoded_df.filter(F.col("row_kind") == "RECORD").select(
        *[stamp[f.name] if f.name in stamp else F.col(f.name) for f in bronze.METADATA_RECORDS.fields]
    )
    quarantine_df = decoded_df.filter(F.col("row_kind") == "QUARANTINE").select(
        *[stamp[f.name] if f.name in stamp else F.col(f.name) for f in bronze.QUARANTINE.fields]
    )
    return records_df, quarantine_df


def _count_rows(
    result: IngestResult, per_file: dict[tuple[str, str, str | None], int], unrecognised: list[InputFile]
) -> None:
    """Add the ingest's rows to ``result``: records per record type, quarantined rows (an unrecognised file is
    one)."""
    by_type: Counter[str] = Counter()
    for (_file, kind, record_type), n in per_file.items():
        if kind == "RECORD":
            by_type[str(record_type)] += n  # a RECORD row always has its type
        else:
            result.quarantined += n
    result.quarantined += len(unrecognised)
    result.records = sum(by_type.values())
    result.records_by_type = dict(sorted(by_type.items()))


def decode_on_executors(
    spark: SparkSession,
    todo: list[tuple[InputFile, str]],
    descriptors: dict[str, FileDescriptor],
    rules: SensitivityRules,
    *,
    small: bool,
) -> tuple[DataFrame, dict[tuple[str, str, str | None], int]]:
    """The decoded rows, persisted, and their count per (source file, row kind, record type): one Spark job."""
    decoded_df = decode_files(
        binary_files(spark, [item.path for item, _ in todo]) if todo else no_files(spark),
        descriptors=descriptors,
        rules=rules,
        redaction_key=redaction_key(),
    )
    # Held by cluster: the bronze tables are partitioned by cluster_id, and a task writes one file per cluster
    # it holds, at 15-25 ms a file on this machine's local disk whatever its size. Decoded as read (files
    # packed by size, clusters mixed), every task held rows of most clusters: benchmark M wrote 100 files of
    # metadata_records for 20 clusters (its write 1.6 s; 1.2 s by cluster). A small input is decoded in one
    # task instead (no shuffle, which would be one more Spark job): a few MB at most.
    decoded_df = decoded_df.coalesce(1) if small else decoded_df.repartition("cluster_id")
    decoded_df = decoded_df.persist(StorageLevel.MEMORY_AND_DISK)
    with one_job(spark):  # the decode, the cache of its rows and these counts
        per_file = {
            (r["source_file"], r["row_kind"], r["record_type"]): r["n"]
            for r in decoded_df.groupBy("source_file", "row_kind", "record_type").agg(F.count("*").alias("n")).collect()
        }
    return decoded_df, per_file


def rows_per_file(decoded: pa.Table) -> dict[tuple[str, str, str | None], int]:
    """The decoded rows' count per (source file, row kind, record type), as ``decode_on_executors`` counts them."""
    keys = ["source_file", "row_kind", "record_type"]
    counts = decoded.group_by(keys, use_threads=False).aggregate([([], "count_all")])
    columns = [counts.column(name).to_pylist() for name in [*keys, "count_all"]]
    return {(path, kind, record_type): n for path, kind, record_type, n in zip(*columns, strict=True)}


def no_files(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([], "path string, content binary")


def load(
    store: DeltaStore, table: str, df: DataFrame, changed: set[tuple[str, str]], *, note: str
) -> list[tuple[str, int]]:
    """Append; when files were re-ingested, swap their clusters' partitions so their old rows disappear.

    Returns the (table, version) of every commit made. The swap is committed only at the version it read (a
    concurrent writer to the table makes this ingest start again rather than drop or double its rows).
    """
    if not changed:
        return [(table, store.append(table, df, note=note))]
    clusters = sorted({cluster for cluster, _ in changed})
    stale = [path for _, path in changed]
    version = store.version(table)
    kept = store.read(table, version=version).filter(
        F.col("cluster_id").isin(clusters) & ~F.col("source_file").isin(stale)
    )
    try:
        replaced = store.replace_partitions(
            table,
            kept.unionByName(df.filter(F.col("cluster_id").isin(clusters))),
            {"cluster_id": clusters},
            read_version=version,
            note=note,
        )
    except ConcurrentCommitError as error:
        raise Superseded(f"a write to {table}") from error
    others = df.filter(~F.col("cluster_id").isin(clusters))
    return [(table, replaced), (table, store.append(table, others, note=note))]


def commit_ingested_files(
    store: DeltaStore, files_df: DataFrame, claimed: dict[tuple[str, str], str], files_version: int
) -> None:
    """Append this ingest's ``ingested_files`` rows at the version its decisions came from (the commit point).

    When other ingests committed meanwhile: if they recorded any of these files (whatever content), this ingest's
    rows may duplicate theirs, so it is superseded; otherwise the commit is retried at the newer version.
    """
    for _attempt in range(ATTEMPTS * 10):
        try:
            store.append("ingested_files", files_df, read_version=files_version)
            return
        except ConcurrentCommitError:
            newest = store.version("ingested_files")
            since = previous_hashes(store, newest)
            before = previous_hashes(store, files_version)
            taken = sorted(key for key in claimed if since.get(key) != before.get(key))
            if taken:
                raise Superseded(f"{len(taken)} of these files (e.g. {taken[0][1]})") from None
            files_version = newest
    raise Superseded("ingested_files, which other ingests kept changing")


def undo(store: DeltaStore, commits: list[tuple[str, int]]) -> None:
    """Undo this attempt's data commits, newest first (only their own files are touched)."""
    for table, version in reversed(commits):
        store.undo(table, version)


def unrecognised_rows(
    spark: SparkSession, files: list[InputFile], rules: SensitivityRules, result: IngestResult, now: datetime
) -> DataFrame:
    rows = []
    for item in files:
        # Never opens a FIFO or a dangling symlink (skip_reason): read_head reads regular files only.
        head = "" if item.skip_reason else read_head(item.path, 80).decode("utf-8", errors="replace")
        rows.append(
            (
                item.cluster_id,
                item.path,
                None,
                None,
                0,
                item.size_bytes,
                None,
                None,
                f"not a recognised KRaft input: {item.skip_reason}"
                if item.skip_reason
                else "not a recognised KRaft input (segment, snapshot, dump-log text or JSON lines)",
                redact_text(head, rules) if head else None,
                result.ingest_id,
                now,
            )
        )
    return local_frame(spark, rows, bronze.QUARANTINE)


def ingested_file_rows(
    spark: SparkSession,
    todo: list[tuple[InputFile, str]],
    per_file: dict[tuple[str, str, str | None], int],
    result: IngestResult,
    now: datetime,
) -> DataFrame:
    records: Counter[str] = Counter()
    quarantined: Counter[str] = Counter()
    for (path, kind, _type), n in per_file.items():
        (records if kind == "RECORD" else quarantined)[path] += n
    rows = [
        (
            item.cluster_id,
            item.path,
            item.input_kind,
            digest,
            item.size_bytes,
            records[item.path],
            quarantined[item.path],
            result.ingest_id,
            now,
        )
        for item, digest in todo
    ]
    return local_frame(spark, rows, bronze.INGESTED_FILES)


def ingest_static_configs(
    spark: SparkSession,
    store: DeltaStore,
    static_args: list[tuple[str, int, str]],
    result: IngestResult,
    now: datetime,
) -> None:
    rules = conf_loader.sensitivity_rules()
    key = redaction_key()
    rows: list[tuple[object, ...]] = []
    quarantine_rows: list[tuple[object, ...]] = []
    nodes: list[tuple[str, int]] = []
    for cluster, node_id, path in static_args:
        raw = conf_loader.read_static_config(path)  # a regular file, at most 1 MiB
        props, problems = parse_server_properties(raw.decode("utf-8", errors="replace"))
        nodes.append((cluster, node_id))
        digest = hashlib.sha256(raw).hexdigest()
        for name, value in sorted(props.items()):
            shown, value_hash = redact_value(name, value, ResourceType.BROKER.kind, rules, key)
            shown_name = safe_config_name(name, key)  # a mangled line can make a value part of the name
            rows.append((cluster, node_id, path, digest, shown_name, shown, value_hash, result.ingest_id, now))
        for problem in problems:
            quarantine_rows.append(
                (
                    cluster,
                    path,
                    "STATIC_CONFIG",
                    digest,
                    None,
                    None,
                    problem.line_number,
                    None,
                    problem.reason,
                    redact_text(problem.excerpt, rules),
                    result.ingest_id,
                    now,
                )
            )
    df = local_frame(spark, rows, bronze.STATIC_CONFIGS)
    written(result, "static_configs", df)
    clusters = sorted({cluster for cluster, _ in nodes})
    for _attempt in range(ATTEMPTS * 3):
        # Replacing a node's rows by its file's rows is idempotent: beside a concurrent writer, re-read and redo.
        version = store.version("static_configs")
        try:
            store.replace_partitions(
                "static_configs",
                replace_nodes(store, df, nodes, version),
                {"cluster_id": clusters},
                read_version=version,
            )
            break
        except ConcurrentCommitError:
            continue
    else:
        raise StorageError("static_configs: other writers kept committing; the static configs were not written")
    if quarantine_rows:
        quarantine_df = local_frame(spark, quarantine_rows, bronze.QUARANTINE)
        written(result, "quarantine", quarantine_df)
        store.append("quarantine", quarantine_df)
        result.quarantined += len(quarantine_rows)
    result.static_config_files = len(static_args)


def written(result: IngestResult, table: str, df: DataFrame) -> None:
    """Keep ``df``, rows this ingest writes to ``table``, in ``result.written`` (unless the ingest has rows that are
    not held in the driver: then it keeps none)."""
    if result.written is not None:
        result.written.setdefault(table, []).append(df)


def replace_nodes(store: DeltaStore, df: DataFrame, nodes: list[tuple[str, int]], version: int) -> DataFrame:
    """The static configs of the clusters of ``nodes`` (at ``version``) with those (cluster, node)s' rows replaced
    by the new files' rows."""
    clusters = sorted({cluster for cluster, _ in nodes})
    replaced = F.lit(False)
    for cluster in clusters:
        ids = sorted({node for named, node in nodes if named == cluster})
        replaced = replaced | ((F.col("cluster_id") == cluster) & F.col("node_id").isin(ids))
    kept = store.read("static_configs", version=version).filter(F.col("cluster_id").isin(clusters) & ~replaced)
    return kept.unionByName(df)
