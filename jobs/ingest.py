"""``kraft-audit ingest``: decode KRaft metadata inputs into the bronze Delta tables.

Extract: discover files, hash them, skip files already ingested with the same content. Transform: decode the new
files, redacting as it goes. An input of at most ``SMALL_INPUT_BYTES`` (a gate's, a test's) is read, hashed and
decoded by the driver (``decoded_table``): no Spark job, about 0.3 s against 0.8 s for 3,262 records. A larger one
is hashed by the driver too, streamed, a thread per core (up to ``DRIVER_HASH_BYTES``; beyond it, or when a file
cannot be read there, by ``sha2`` over ``binaryFile`` on the executors), and decoded (``decode_files``) on the
executors. Both run the same decoder.
Load: append to ``metadata_records`` / ``quarantine`` / ``ingested_files`` — or, when a file already ingested has
changed (an active segment that grew), replace its clusters' partitions so its old rows go away in the same
commit. Re-ingesting the same inputs is a no-op. ``ingested_files`` is committed last: an ingest killed before it
leaves bronze rows under an ingest id that ``ingested_files`` does not know (each bronze commit names its ingest in
its ``userMetadata``); the next ingest that finds such a commit replaces its files' rows instead of appending, so
a re-run after a kill holds every record once.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import stat
import sys
import uuid
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import BinaryIO

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import conf_loader
from jobs.discover import Discovery, InputFile, discover_inputs, parse_static_config_args, read_head
from jobs.output_files import write_output
from jobs.redaction_key import redaction_key
from jobs.runtime.entry import run_job_file
from jobs.runtime.holding import SMALL_INPUT_BYTES, interpreted, one_job, session_settings
from jobs.runtime.progress import stage
from jobs.runtime.session import build_session
from jobs.storage import ConcurrentCommitError, DeltaStore, open_store
from schemas import bronze
from schemas.errors import InputError, StorageError, UsageError
from schemas.kafka_vocabulary import ResourceType
from transforms.decode.files import FileDescriptor, decode_files, decoded_table, local_path
from transforms.decode.redaction import SensitivityRules, redact_text, redact_value, safe_config_name
from transforms.decode.text.properties import parse_server_properties
from transforms.kit.local_frames import arrow_frame, local_frame

HELP = "decode inputs into the bronze tables"

log = logging.getLogger("kraft_audit")

FILE_OPEN_COST = 64 << 10
# Kafka reads node.id as a Java int (KafkaConfig, ConfigDef.Type.INT)
JAVA_INT_MAX = (1 << 31) - 1
# Inputs up to this size are hashed by the driver (``_hash_in_driver``); larger ones by the executors.
DRIVER_HASH_BYTES = 1 << 30
_HASH_CHUNK_BYTES = 1 << 20
READ_PARTITIONS_PER_CORE = 2
TABLES = {
    "metadata_records": (bronze.METADATA_RECORDS, bronze.METADATA_RECORDS_PARTITIONS),
    "quarantine": (bronze.QUARANTINE, bronze.QUARANTINE_PARTITIONS),
    "static_configs": (bronze.STATIC_CONFIGS, bronze.STATIC_CONFIGS_PARTITIONS),
    "ingested_files": (bronze.INGESTED_FILES, bronze.INGESTED_FILES_PARTITIONS),
}


@dataclass(frozen=True)
class IngestSettings:
    """What varies per ingest run."""

    inputs: tuple[str, ...]
    warehouse: str
    cluster_id: str | None = None
    static_configs: tuple[str, ...] = ()
    cluster_per_input: bool = False  # name each input directory's cluster after the directory (see discover)


@dataclass(frozen=True)
class IngestInputs:
    """What the ``--input`` and ``--static-config`` arguments expand to, found before Spark starts."""

    discovery: Discovery
    static_configs: tuple[tuple[str, int, str], ...]  # (cluster, node id, absolute path), every part resolved


@dataclass
class IngestResult:
    """What an ingest did, for the summary and for ``run``."""

    ingest_id: str
    clusters: list[str] = field(default_factory=list)
    files_seen: int = 0
    files_ingested: int = 0
    files_unchanged: int = 0
    bytes_ingested: int = 0
    records: int = 0
    quarantined: int = 0
    records_by_type: dict[str, int] = field(default_factory=dict)
    static_config_files: int = 0
    tables: dict[str, str] = field(default_factory=dict)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Ingest options (docs/contract.md §2)."""
    add_ingest_arguments(parser, required=True)


def add_ingest_arguments(parser: argparse.ArgumentParser, *, required: bool) -> None:
    """Options shared by ``ingest``, ``run`` and ``gate``."""
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        required=required,
        metavar="PATH",
        help="file, directory (walked recursively) or glob; repeatable",
    )
    parser.add_argument(
        "--cluster-id",
        action="append",
        default=[],
        metavar="ID",
        help="cluster id for these inputs (default: meta.properties, else the directory name)",
    )
    parser.add_argument(
        "--static-config",
        action="append",
        default=[],
        metavar="[CLUSTER/]NODE=PATH",
        help="a node's server.properties; NODE may be omitted when the file has node.id (CLUSTER/=PATH); CLUSTER/ "
        "names its cluster when the inputs hold several",
    )


def settings_from_args(args: argparse.Namespace) -> IngestSettings:
    """Validated settings from parsed arguments."""
    if len(args.cluster_id) > 1:
        raise UsageError("ingest takes at most one --cluster-id (it names the cluster of all inputs)")
    return IngestSettings(
        inputs=tuple(args.input),
        warehouse=args.warehouse,
        cluster_id=args.cluster_id[0] if args.cluster_id else None,
        static_configs=tuple(args.static_config),
    )


def find_inputs(settings: IngestSettings) -> IngestInputs:
    """Expand the inputs and static-config files; missing or empty inputs are user errors (exit 2), found without
    Spark.

    Raises:
        InputError: an input or static-config file does not exist, or the inputs hold no file.
        UsageError: a malformed ``--static-config`` argument.
    """
    static_args = parse_static_config_args(list(settings.static_configs))
    discovery = discover_inputs(
        list(settings.inputs), cluster_id=settings.cluster_id, cluster_per_input=settings.cluster_per_input
    )
    if not discovery.files and not static_args:
        raise InputError("no input files found in " + ", ".join(settings.inputs))
    if not static_args:
        return IngestInputs(discovery=discovery, static_configs=())
    clusters = sorted({f.cluster_id for f in discovery.files})
    resolved = []
    for named, node, path in static_args:
        cluster = named or settings.cluster_id or (clusters[0] if len(clusters) == 1 else None)
        if cluster is None:
            raise UsageError(
                "--static-config needs --cluster-id when the inputs hold several clusters (or none), or the "
                f"cluster in the argument: CLUSTER/NODE={path} (clusters: {', '.join(clusters) or 'none'})"
            )
        if named is not None and clusters and named not in clusters:
            raise UsageError(f"--static-config {named}/...: no input is of cluster {named!r} ({', '.join(clusters)})")
        resolved.append((cluster, _static_node_id(node, path), path))
    return IngestInputs(discovery=discovery, static_configs=tuple(resolved))


def _static_node_id(node: int | None, path: str) -> int:
    """The node a ``--static-config`` file describes: the one given as ``NODE=``, else the file's ``node.id`` (or
    ``broker.id``), a Java int as Kafka reads it (``KafkaConfig``: an INT). Read before anything is written."""
    raw = conf_loader.read_static_config(path)  # its kind and size checked before Spark starts, even with NODE=
    if node is None:
        props, _ = parse_server_properties(raw.decode("utf-8", errors="replace"))
        text = (props.get("node.id") or props.get("broker.id") or "").strip()
        if not text.isascii() or not text.isdigit():
            raise UsageError(f"--static-config {path}: the file has no node.id; give it as NODE={path}")
        node = int(text[:12])
    if node > JAVA_INT_MAX:
        raise UsageError(f"--static-config {path}: node id {str(node)[:12]} is above {JAVA_INT_MAX} (a Java int)")
    return node


def execute(args: argparse.Namespace) -> int:
    """CLI entry: run the ingest and print its summary."""
    settings = settings_from_args(args)
    inputs = find_inputs(settings)  # input mistakes are exit 2 before Spark starts
    spark = build_session(master=args.master)
    result = run(spark, settings, inputs=inputs)
    print_summary(result)
    if args.summary_json:
        write_ingest_summary(args.summary_json, result)
    return 0


# A concurrent ingest of the same files wins at most this many times in a row before this one gives up.
ATTEMPTS = 3
# The userMetadata of a bronze data commit: this prefix and the ingest's id.
INGEST_NOTE = "ingest "
# How many recent commits of metadata_records are looked through for ingests that never recorded their files.
UNFINISHED_LOOKBACK = 50


class _Superseded(Exception):
    """Another ingest committed some of these files first; this ingest's rows were undone."""


def run(spark: SparkSession, settings: IngestSettings, *, inputs: IngestInputs | None = None) -> IngestResult:
    """Extract, decode and load the inputs; see the module docstring. ``inputs`` from :func:`find_inputs`.

    Safe beside other ingests into the same warehouse: ``ingested_files`` is committed last and only at the version
    whose hashes decided what to ingest. When another ingest committed the same files meanwhile, this ingest's data
    commits are undone and it starts again (now finding those files unchanged), so no row is stored twice; ingests
    of other files or clusters only make the commit retry at the newer version.
    """
    inputs = inputs or find_inputs(settings)
    # small input files are decoded and loaded without generated code (jobs.runtime.holding.interpreted)
    small = sum(f.size_bytes for f in inputs.discovery.files) <= SMALL_INPUT_BYTES
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with interpreted(spark, when=small), session_settings(spark, _file_scan_settings(spark)):
                return _run_once(spark, settings, inputs)
        except _Superseded as superseded:
            log.info(
                "  another ingest committed %s first; rows of this attempt undone (attempt %d)", superseded, attempt
            )
    raise StorageError(
        f"another ingest committed these files first {ATTEMPTS} times in a row; nothing of this ingest was kept "
        "(run it again when the other ingests are done)"
    )


def _file_scan_settings(spark: SparkSession) -> dict[str, str]:
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


def _run_once(spark: SparkSession, settings: IngestSettings, inputs: IngestInputs) -> IngestResult:
    result = IngestResult(ingest_id=uuid.uuid4().hex)
    now = datetime.now(UTC)
    discovery, static_args = inputs.discovery, list(inputs.static_configs)
    store = open_store(spark, settings.warehouse)
    store.check_tables(TABLES)  # an unreachable warehouse or a corrupt table stops the ingest before it writes
    for name, (schema, partitions) in TABLES.items():
        store.ensure(name, schema, partitions)
        result.tables[name] = store.path(name)
    result.files_seen = len(discovery.files)
    result.clusters = sorted({f.cluster_id for f in discovery.files})

    inputs_known = [f for f in discovery.files if f.input_kind]
    # A small input is read, hashed and decoded by the driver (no Spark job; the same decoder), a larger one on the
    # executors. Files that cannot be read here as regular files, or grew past the limit, go to the executors.
    size = _size(inputs_known)
    contents = _read_files(inputs_known, SMALL_INPUT_BYTES) if size <= SMALL_INPUT_BYTES else None
    with stage(spark, f"hashing {len(discovery.files)} input files"):
        hashes = _input_hashes(spark, inputs_known, contents, size)
    files_version = store.version("ingested_files")
    previous, finished = _previous_ingests(store, files_version)
    todo: list[tuple[InputFile, str]] = []
    changed: set[tuple[str, str]] = set()
    for item in discovery.files:
        if not item.input_kind:
            continue
        digest = hashes[item.path]
        before = previous.get((item.cluster_id, item.path))
        if before == digest:
            result.files_unchanged += 1
            continue
        if before is not None:
            changed.add((item.cluster_id, item.path))
        todo.append((item, digest))
    unrecognised = [f for f in discovery.files if not f.input_kind and (f.cluster_id, f.path) not in previous]
    if todo and (stopped := _unfinished_ingests(store, finished)):
        # their rows of these files (if any) are replaced, not doubled
        log.info("  %d earlier ingest(s) stopped before recording their files: %s", len(stopped), ", ".join(stopped))
        changed |= {(item.cluster_id, item.path) for item, _ in todo}
    log.info(
        "  %d new or changed, %d unchanged, %d unrecognised (%d not regular files), %d side files ignored",
        len(todo),
        result.files_unchanged,
        len(unrecognised),
        len(discovery.skipped),
        len(discovery.ignored),
    )

    if todo or unrecognised:
        _ingest_files(
            spark,
            store,
            todo,
            unrecognised,
            changed,
            result,
            now,
            files_version=files_version,
            contents=contents,
        )
    if static_args:
        _ingest_static_configs(spark, store, static_args, result, now)
    store.create_pending()  # every bronze table exists after an ingest, with rows or without
    return result


def _input_hashes(
    spark: SparkSession, files: Sequence[InputFile], contents: dict[str, bytes] | None, size: int
) -> dict[str, str]:
    """local path -> sha256 hex of ``files`` (``size`` bytes in all): of the bytes the driver read (``contents``, a
    small input), else streamed by the driver (up to ``DRIVER_HASH_BYTES``), else on the executors."""
    if contents is not None:
        return _hashes(contents)
    hashed = _hash_in_driver(files) if size <= DRIVER_HASH_BYTES else None
    return hashed if hashed is not None else _hash_files(spark, files)


def _hash_files(spark: SparkSession, files: Sequence[InputFile]) -> dict[str, str]:
    """local path -> sha256 hex, computed on the executors."""
    if not files:
        return {}
    rows = (
        _binary_files(spark, [f.path for f in files]).select("path", F.sha2("content", 256).alias("sha256")).collect()
    )
    return {local_path(r["path"]): r["sha256"] for r in rows}


def _hash_in_driver(files: Sequence[InputFile]) -> dict[str, str] | None:
    """local path -> sha256 hex, each file streamed through ``hashlib`` by the driver, a thread per core (the hash
    and the reads release the GIL); None when a file is no longer a regular file or cannot be read (the executors
    then hash the input, as before). What it saves: the executors' hashing job, a read of every byte into the JVM
    (benchmark M, 60 files of 10.4 MB: 0.1-0.2 s of an ingest after the first in a process, about 0.7 s of the
    first)."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        digests = list(pool.map(_file_digest, [item.path for item in files]))
    if any(digest is None for digest in digests):
        return None
    return {item.path: digest for item, digest in zip(files, digests, strict=True) if digest is not None}


def _file_digest(path: str) -> str | None:
    """The sha256 hex of one regular file, or None."""
    handle = _regular_file(path)
    if handle is None:
        return None
    digest = hashlib.sha256()
    try:
        with handle:
            while chunk := handle.read(_HASH_CHUNK_BYTES):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def _regular_file(path: str) -> BinaryIO | None:
    """``path`` opened for reading if it is a regular file, else None. Opened non-blocking and checked with
    ``fstat``, like discovery: a FIFO is never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    handle = os.fdopen(fd, "rb")
    try:
        if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return handle
    except OSError:
        pass
    handle.close()
    return None


def _size(files: Sequence[InputFile]) -> int:
    return sum(f.size_bytes for f in files)


def _read_files(files: Sequence[InputFile], limit: int) -> dict[str, bytes] | None:
    """Each file's bytes by its local path, read by the driver; None when one is no longer a regular file or cannot
    be read (``_regular_file``), or the files together now hold more than ``limit`` bytes (then the executors read
    them, as for a large input)."""
    contents: dict[str, bytes] = {}
    total = 0
    for item in files:
        handle = _regular_file(item.path)
        if handle is None:
            return None
        try:
            with handle:
                data = handle.read(limit - total + 1)
        except OSError:
            return None
        total += len(data)
        if total > limit:
            return None
        contents[item.path] = data
    return contents


def _hashes(contents: dict[str, bytes]) -> dict[str, str]:
    """local path -> sha256 hex of files the driver read: what ``_hash_files`` gives."""
    return {path: hashlib.sha256(data).hexdigest() for path, data in contents.items()}


def _binary_files(spark: SparkSession, paths: Sequence[str]) -> DataFrame:
    # binaryFile treats paths as Hadoop globs: escape the glob characters of real file names.
    escaped = [_escape_glob(p) for p in paths]
    return spark.read.format("binaryFile").load(escaped)


def _escape_glob(path: str) -> str:
    return "".join("\\" + ch if ch in "{}[]*?\\" else ch for ch in path)


def _previous_hashes(store: DeltaStore, version: int) -> dict[tuple[str, str], str]:
    return _previous_ingests(store, version)[0]


def _previous_ingests(store: DeltaStore, version: int) -> tuple[dict[tuple[str, str], str], set[str]]:
    """At ``version`` of ``ingested_files``: the latest hash of every (cluster, file) recorded, and the ids of the
    ingests that recorded files (ingests that ended)."""
    with one_job(store.spark):
        rows = (
            store.read("ingested_files", version=version)
            .groupBy("cluster_id", "source_file")
            .agg(F.max_by("file_sha256", "ingested_at").alias("sha"), F.collect_set("ingest_id").alias("ingests"))
            .collect()
        )
    hashes = {(r["cluster_id"], r["source_file"]): r["sha"] for r in rows}
    return hashes, {ingest for r in rows for ingest in r["ingests"]}


def _unfinished_ingests(store: DeltaStore, finished: set[str]) -> list[str]:
    """Ingests named by the recent commits of ``metadata_records`` that never recorded their files: killed (or
    still running elsewhere, which the commit point of ``ingested_files`` then settles). One Spark job."""
    notes = store.notes("metadata_records", limit=UNFINISHED_LOOKBACK)
    ingests = {note.removeprefix(INGEST_NOTE) for note in notes if note.startswith(INGEST_NOTE)}
    return sorted(ingests - finished)


def _ingest_files(
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
    descriptors = {
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
    result.files_ingested = len(todo)
    result.bytes_ingested = sum(item.size_bytes for item, _ in todo)
    small = result.bytes_ingested <= SMALL_INPUT_BYTES
    stamp = {
        "ingest_id": F.lit(result.ingest_id).alias("ingest_id"),
        "ingested_at": F.lit(now).cast("timestamp").alias("ingested_at"),
    }
    where = "in the driver" if contents is not None else "on the executors"
    with stage(spark, f"decoding {len(todo)} files ({result.bytes_ingested / 1e6:.1f} MB) {where}"):
        if contents is not None:
            decoded = decoded_table(
                ((item.path, contents[item.path]) for item, _ in todo),
                descriptors=descriptors,
                rules=rules,
                redaction_key=redaction_key(),
            )
            per_file = _rows_per_file(decoded)
            # one task writes them: a file per cluster (a local relation is scanned in as many slices as cores)
            decoded_df = arrow_frame(spark, decoded, bronze.DECODED_ROWS).coalesce(1)
        else:
            decoded_df, per_file = _decode_on_executors(spark, todo, descriptors, rules, small=small)
    records_df = decoded_df.filter(F.col("row_kind") == "RECORD").select(
        *[stamp[f.name] if f.name in stamp else F.col(f.name) for f in bronze.METADATA_RECORDS.fields]
    )
    quarantine_df = decoded_df.filter(F.col("row_kind") == "QUARANTINE").select(
        *[stamp[f.name] if f.name in stamp else F.col(f.name) for f in bronze.QUARANTINE.fields]
    )
    if unrecognised:
        quarantine_df = quarantine_df.unionByName(_unrecognised_rows(spark, unrecognised, rules, result, now))
    files_df = _ingested_file_rows(spark, todo, per_file, result, now)
    commits: list[tuple[str, int]] = []
    claimed = {(item.cluster_id, item.path): digest for item, digest in todo}
    with stage(spark, "writing bronze tables"):
        try:
            note = INGEST_NOTE + result.ingest_id
            commits += _load(store, "metadata_records", records_df, changed, note=note)
            # a quarantine without a row to add or to replace commits nothing (one Spark job and one commit fewer)
            if changed or unrecognised or any(kind != "RECORD" for _file, kind, _type in per_file):
                commits += _load(store, "quarantine", quarantine_df, changed, note=note)
            _commit_ingested_files(store, files_df, claimed, files_version)
        except _Superseded:
            _undo(store, commits)
            raise
        finally:
            decoded_df.unpersist()
    by_type: Counter[str] = Counter()
    for (_file, kind, record_type), n in per_file.items():
        if kind == "RECORD":
            by_type[str(record_type)] += n  # a RECORD row always has its type
        else:
            result.quarantined += n
    result.quarantined += len(unrecognised)
    result.records = sum(by_type.values())
    result.records_by_type = dict(sorted(by_type.items()))


def _decode_on_executors(
    spark: SparkSession,
    todo: list[tuple[InputFile, str]],
    descriptors: dict[str, FileDescriptor],
    rules: SensitivityRules,
    *,
    small: bool,
) -> tuple[DataFrame, dict[tuple[str, str, str | None], int]]:
    """The decoded rows, persisted, and their count per (source file, row kind, record type): one Spark job."""
    decoded_df = decode_files(
        _binary_files(spark, [item.path for item, _ in todo]) if todo else _no_files(spark),
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


def _rows_per_file(decoded: pa.Table) -> dict[tuple[str, str, str | None], int]:
    """The decoded rows' count per (source file, row kind, record type), as ``_decode_on_executors`` counts them."""
    keys = ["source_file", "row_kind", "record_type"]
    counts = decoded.group_by(keys, use_threads=False).aggregate([([], "count_all")])
    columns = [counts.column(name).to_pylist() for name in [*keys, "count_all"]]
    return {(path, kind, record_type): n for path, kind, record_type, n in zip(*columns, strict=True)}


def _no_files(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([], "path string, content binary")


def _load(
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
        raise _Superseded(f"a write to {table}") from error
    others = df.filter(~F.col("cluster_id").isin(clusters))
    return [(table, replaced), (table, store.append(table, others, note=note))]


def _commit_ingested_files(
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
            since = _previous_hashes(store, newest)
            before = _previous_hashes(store, files_version)
            taken = sorted(key for key in claimed if since.get(key) != before.get(key))
            if taken:
                raise _Superseded(f"{len(taken)} of these files (e.g. {taken[0][1]})") from None
            files_version = newest
    raise _Superseded("ingested_files, which other ingests kept changing")


def _undo(store: DeltaStore, commits: list[tuple[str, int]]) -> None:
    """Undo this attempt's data commits, newest first (only their own files are touched)."""
    for table, version in reversed(commits):
        store.undo(table, version)


def _unrecognised_rows(
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


def _ingested_file_rows(
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


def _ingest_static_configs(
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
    clusters = sorted({cluster for cluster, _ in nodes})
    for _attempt in range(ATTEMPTS * 3):
        # Replacing a node's rows by its file's rows is idempotent: beside a concurrent writer, re-read and redo.
        version = store.version("static_configs")
        try:
            store.replace_partitions(
                "static_configs",
                _replace_nodes(store, df, nodes, version),
                {"cluster_id": clusters},
                read_version=version,
            )
            break
        except ConcurrentCommitError:
            continue
    else:
        raise StorageError("static_configs: other writers kept committing; the static configs were not written")
    if quarantine_rows:
        store.append("quarantine", local_frame(spark, quarantine_rows, bronze.QUARANTINE))
        result.quarantined += len(quarantine_rows)
    result.static_config_files = len(static_args)


def _replace_nodes(store: DeltaStore, df: DataFrame, nodes: list[tuple[str, int]], version: int) -> DataFrame:
    """The static configs of the clusters of ``nodes`` (at ``version``) with those (cluster, node)s' rows replaced
    by the new files' rows."""
    clusters = sorted({cluster for cluster, _ in nodes})
    replaced = F.lit(False)
    for cluster in clusters:
        ids = sorted({node for named, node in nodes if named == cluster})
        replaced = replaced | ((F.col("cluster_id") == cluster) & F.col("node_id").isin(ids))
    kept = store.read("static_configs", version=version).filter(F.col("cluster_id").isin(clusters) & ~replaced)
    return kept.unionByName(df)


def print_summary(result: IngestResult) -> None:
    """The human summary of an ingest (stdout)."""
    out = sys.stdout
    out.write(
        f"ingest {result.ingest_id}: {result.files_ingested} files ingested "
        f"({result.bytes_ingested / 1e6:.1f} MB), {result.files_unchanged} unchanged, "
        f"{result.records} records, {result.quarantined} quarantined, clusters: {', '.join(result.clusters) or '-'}\n"
    )
    for record_type, n in sorted(result.records_by_type.items(), key=lambda kv: -kv[1]):
        out.write(f"  {record_type:<40} {n:>10}\n")


def write_ingest_summary(path: str, result: IngestResult) -> None:
    """The machine-readable summary of an ingest (counts only; never a value)."""
    import dataclasses
    import json

    write_output(path, json.dumps(dataclasses.asdict(result), indent=2, sort_keys=True) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/ingest.py --input ...``."""
    return run_job_file("ingest", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
