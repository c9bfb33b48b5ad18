"""``kraft-audit ingest``: decode KRaft metadata inputs into the bronze Delta tables.

Extract: discover files, hash them, skip files already ingested with the same content. Transform: decode the new
files, redacting as it goes. An input of at most ``SMALL_INPUT_BYTES`` (a gate's, a test's) is read, hashed and
decoded by the driver (``decoded_table``): no Spark job, the same decoder. A larger one
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
import logging
import sys
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from pyspark.sql import SparkSession

from jobs import conf_loader
from jobs.discover import InputFile, discover_inputs, parse_static_config_args
from jobs.ingest_steps.hashing import input_hashes, read_files, total_size
from jobs.ingest_steps.history import previous_ingests, unfinished_ingests
from jobs.ingest_steps.load import (
    ATTEMPTS,
    JAVA_INT_MAX,
    TABLES,
    Superseded,
    file_scan_settings,
    ingest_files,
    ingest_static_configs,
)
from jobs.ingest_steps.settings import IngestInputs, IngestResult, IngestSettings
from jobs.output_files import write_output
from jobs.runtime.entry import run_job_file
from jobs.runtime.holding import SMALL_INPUT_BYTES, interpreted, session_settings
from jobs.runtime.progress import stage
from jobs.runtime.session import build_session
from jobs.storage import open_store
from schemas.errors import InputError, StorageError, UsageError
from transforms.decode.text.properties import parse_server_properties

HELP = "decode inputs into the bronze tables"

log = logging.getLogger("kraft_audit")


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
            with interpreted(spark, when=small), session_settings(spark, file_scan_settings(spark)):
                return _run_once(spark, settings, inputs)
        except Superseded as superseded:
            log.info(
                "  another ingest committed %s first; rows of this attempt undone (attempt %d)", superseded, attempt
            )
    raise StorageError(
        f"another ingest committed these files first {ATTEMPTS} times in a row; nothing of this ingest was kept "
        "(run it again when the other ingests are done)"
    )


def _run_once(spark: SparkSession, settings: IngestSettings, inputs: IngestInputs) -> IngestResult:
    result = IngestResult(ingest_id=uuid.uuid4().hex, written={})
    now = datetime.now(UTC)
    discovery, static_args = inputs.discovery, list(inputs.static_configs)
    store = open_store(spark, settings.warehouse)
    store.check_tables(TABLES)  # an unreachable warehouse or a corrupt table stops the ingest before it writes
    result.first_ingest = not any(store.exists(name) for name in TABLES)
    for name, (schema, partitions) in TABLES.items():
        store.ensure(name, schema, partitions)
        result.tables[name] = store.path(name)
    result.files_seen = len(discovery.files)
    result.clusters = sorted({f.cluster_id for f in discovery.files})

    inputs_known = [f for f in discovery.files if f.input_kind]
    # A small input is read, hashed and decoded by the driver (no Spark job; the same decoder), a larger one on the
    # executors. Files that cannot be read here as regular files, or grew past the limit, go to the executors.
    size = total_size(inputs_known)
    contents = read_files(inputs_known, SMALL_INPUT_BYTES) if size <= SMALL_INPUT_BYTES else None
    with stage(spark, f"hashing {len(discovery.files)} input files"):
        hashes = input_hashes(spark, inputs_known, contents, size)
    files_version = store.version("ingested_files")
    previous, finished = previous_ingests(store, files_version)
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
    if todo and (stopped := unfinished_ingests(store, finished)):
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
        ingest_files(
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
        ingest_static_configs(spark, store, static_args, result, now)
    store.create_pending()  # every bronze table exists after an ingest, with rows or without
    result.own_commits = {name: store.own_commits(name) for name in TABLES}
    return result


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
    import json

    write_output(path, json.dumps(result.summary_fields(), indent=2, sort_keys=True) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/ingest.py --input ...``."""
    return run_job_file("ingest", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
