"""Which bronze records replay applies, and in which order (docs/contract.md §4, docs/kafka-semantics.md §2.1, §2.7).

Per cluster:

1. **As-of bound.** ``as_of_offset`` N keeps log records with offset ≤ N. ``as_of_time`` T stops replay at the
   first log record (in offset order, control records included) whose timestamp is after T: every log record
   before it applies, including records without a timestamp. Both may be given; the tighter bound wins.
2. **Snapshot.** The newest snapshot (``SNAPSHOT`` or ``BOOTSTRAP_SNAPSHOT`` rows; a bootstrap snapshot counts as
   end offset 0 and loses a tie against a real snapshot) whose state is inside the bound: ``end - 1 ≤ N`` and,
   with T, its ``SNAPSHOT_HEADER`` ``lastContainedLogTimestamp`` (else its newest record timestamp, if any) ≤ T.
   Its data records apply first, in file order. Without a qualifying snapshot replay starts at the log's start.
3. **Log.** ``LOG_SEGMENT`` / ``DUMP_LOG_TEXT`` / ``JSON_LINES`` data records with offset ≥ the snapshot's end
   offset and inside the bound, in offset order. Control records never change state and are left out.
4. **Replica copies.** Copies of one position, (cluster, offset) in the log or (cluster, snapshot, offset in the
   file) in the snapshot, are applied once. Copies are identical when record type and payload are equal after
   JSON normalisation (key order, whitespace and number spelling do not matter). When copies differ the position
   is a conflict: the copy with the highest leader epoch is applied (Raft truncates a follower's diverging
   uncommitted tail to the leader's log), ties broken by the lexicographically first ``source_file`` and then
   by the smallest normalised payload, so the choice is deterministic; every conflict becomes a
   ``REPLICA_CONFLICT`` finding (``transforms.replay.findings``).
5. **Metadata transactions.** A data record after a ``BEGIN_TRANSACTION_RECORD`` applies only if the next
   transaction marker after it is an ``END_TRANSACTION_RECORD``; an ``ABORT_TRANSACTION_RECORD`` discards it;
   a transaction still open at the end of the replayed stream (or followed by another BEGIN) is not applied and
   is reported (``UNTERMINATED_TRANSACTION``). Computed with window functions over the ordered stream.

Records with ``is_unknown`` stay in the stream; the state transforms skip payloads they cannot read (their key
fields parse to NULL) and ``transforms.replay.findings`` reports them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.replay import APPLIED_RECORDS
from transforms.timestamps import as_utc

SNAPSHOT_KINDS: Final = ("SNAPSHOT", "BOOTSTRAP_SNAPSHOT")
LOG_KINDS: Final = ("LOG_SEGMENT", "DUMP_LOG_TEXT", "JSON_LINES")
BEGIN: Final = "BEGIN_TRANSACTION_RECORD"
END: Final = "END_TRANSACTION_RECORD"
ABORT: Final = "ABORT_TRANSACTION_RECORD"
TXN_MARKERS: Final = (BEGIN, END, ABORT)


def _snapshot_epoch(source_file: Column) -> Column:
    """The epoch of a snapshot file named ``<end offset>-<epoch>.checkpoint`` (Kafka's snapshot id); -1 otherwise."""
    epoch = F.regexp_extract(source_file, r"[0-9]{20}-([0-9]{10})\.checkpoint$", 1)
    return F.coalesce(F.when(epoch != "", epoch.try_cast("long")), F.lit(-1).cast("long"))


def _snapshot_end(kind: Column, end: Column) -> Column:
    return F.when(kind == "BOOTSTRAP_SNAPSHOT", F.lit(0).cast("long")).otherwise(end)


def to_replay_bounds(
    records_df: DataFrame, *, as_of_offset: int | None = None, as_of_time: datetime | None = None
) -> DataFrame:
    """One ``REPLAY_BOUNDS`` row per cluster of ``records_df`` (METADATA_RECORDS).

    NULL behaviour: snapshot rows of kind ``SNAPSHOT`` without ``snapshot_end_offset`` cannot be placed and are
    never chosen; records without a timestamp never stop an ``as_of_time`` replay.
    """
    # One aggregate over the records gives every cluster, its snapshots and its time stop, and the bounds are
    # chosen from it in one chain (no branch a second scan could serve): the bronze records are scanned once. Log
    # rows fall into one group per cluster with NULL snapshot columns.
    kind = F.col("input_kind")
    is_snapshot = kind.isin(*SNAPSHOT_KINDS)
    header_ts = F.when(
        F.col("record_type") == "SNAPSHOT_HEADER",
        F.timestamp_millis(F.get_json_object("payload", "$.lastContainedLogTimestamp").try_cast("long")),
    )
    stop = (
        F.lit(None).cast("long")
        if as_of_time is None
        else F.when(kind.isin(*LOG_KINDS) & (F.col("timestamp") > F.lit(as_utc(as_of_time))), F.col("offset"))
    )
    groups_df = (
        records_df.select(
            "cluster_id",
            F.when(is_snapshot, kind).alias("snapshot_kind"),
            F.when(is_snapshot, _snapshot_end(kind, F.col("snapshot_end_offset"))).alias("snapshot_end_offset"),
            F.when(is_snapshot, _snapshot_epoch(F.col("source_file"))).alias("snapshot_epoch"),
            F.when(is_snapshot, header_ts).alias("header_ts"),
            F.when(is_snapshot, F.col("timestamp")).alias("snapshot_record_ts"),
            stop.alias("stop"),
        )
        .groupBy("cluster_id", "snapshot_kind", "snapshot_end_offset", "snapshot_epoch")
        .agg(
            F.coalesce(F.max("header_ts"), F.max("snapshot_record_ts")).alias("snapshot_timestamp"),
            F.min("stop").alias("stop_offset"),
        )
    )
    upper = F.lit(as_of_offset).cast("long")
    if as_of_time is not None:
        upper = F.least(upper, F.min("stop_offset").over(Window.partitionBy("cluster_id")) - 1)
    in_offset_bound = F.col("upper_offset").isNull() | (F.col("snapshot_end_offset") - 1 <= F.col("upper_offset"))
    in_time_bound = (
        F.lit(True)
        if as_of_time is None
        else F.col("snapshot_timestamp").isNull() | (F.col("snapshot_timestamp") <= F.lit(as_utc(as_of_time)))
    )
    # A snapshot's id is (end offset, epoch); Kafka reads the greatest (KafkaMetadataLog.latestSnapshotId, ordered by
    # OffsetAndEpoch.compareTo: epoch, then offset; confluentinc/kafka 4.2). Epochs never fall as offsets grow, so
    # ordering by end offset first agrees on a consistent log; the epoch settles two snapshots at one end offset,
    # which are different snapshots: only the later one is read (never merged record by record).
    newest = F.struct(
        F.col("snapshot_end_offset"), (F.col("snapshot_kind") == "SNAPSHOT").alias("is_real"), F.col("snapshot_epoch")
    )
    # a placed snapshot (its end offset known; NULL for the log rows' group) inside the bounds; max_by skips the
    # rows whose ordering is NULL
    eligible = F.col("snapshot_end_offset").isNotNull() & in_offset_bound & in_time_bound
    return (
        groups_df.select("*", upper.alias("upper_offset"))
        .groupBy("cluster_id")
        .agg(
            F.max_by(
                F.struct("snapshot_end_offset", "snapshot_kind", "snapshot_timestamp", "snapshot_epoch"),
                F.when(eligible, newest),
            ).alias("s"),
            F.min("upper_offset").alias("upper_offset"),  # one value per cluster
        )
        .select(
            F.col("cluster_id"),
            F.col("s.snapshot_end_offset").alias("snapshot_end_offset"),
            F.col("s.snapshot_kind").alias("snapshot_kind"),
            F.col("s.snapshot_timestamp").alias("snapshot_timestamp"),
            F.col("s.snapshot_epoch").alias("snapshot_epoch"),
            F.col("upper_offset"),
        )
    )


def _candidates(records_df: DataFrame, bounds_df: DataFrame) -> DataFrame:
    """Data records of the chosen snapshot and of the log range, one row per copy."""
    kind = F.col("r.input_kind")
    in_chosen_snapshot = (
        kind.isin(*SNAPSHOT_KINDS)
        & (kind == F.col("b.snapshot_kind"))
        & (_snapshot_end(kind, F.col("r.snapshot_end_offset")) == F.col("b.snapshot_end_offset"))
        & (_snapshot_epoch(F.col("r.source_file")) == F.col("b.snapshot_epoch"))
    )
    after_snapshot = F.col("b.snapshot_end_offset").isNull() | (F.col("r.offset") >= F.col("b.snapshot_end_offset"))
    in_bound = F.col("b.upper_offset").isNull() | (F.col("r.offset") <= F.col("b.upper_offset"))
    in_log_range = kind.isin(*LOG_KINDS) & after_snapshot & in_bound
    is_snapshot_kind = kind.isin(*SNAPSHOT_KINDS)
    position = F.when(
        is_snapshot_kind,
        F.when(F.col("b.snapshot_kind") == "SNAPSHOT", F.col("b.snapshot_end_offset") - 1),
    ).otherwise(F.col("r.offset"))
    return (
        records_df.alias("r")
        .where(~F.col("is_control"))
        .join(bounds_df.alias("b"), on="cluster_id", how="inner")
        .where(in_chosen_snapshot | in_log_range)
        .select(
            F.col("cluster_id"),
            is_snapshot_kind.alias("from_snapshot"),
            F.col("r.offset").alias("file_offset"),
            position.alias("offset"),
            F.when(~is_snapshot_kind, F.col("r.timestamp")).alias("timestamp"),
            F.col("r.record_type").alias("record_type"),
            F.col("r.record_version").alias("record_version"),
            F.col("r.payload").alias("payload"),
            F.col("r.is_unknown").alias("is_unknown"),
            F.col("r.source_file").alias("source_file"),
            F.col("r.leader_epoch").alias("leader_epoch"),
        )
    )


def _normalized_payload(payload: Column) -> Column:
    """The payload JSON with sorted keys and canonical numbers; the raw text when it is not JSON."""
    return F.coalesce(F.to_json(F.try_parse_json(payload)), payload)


def _dedup_copies(candidates_df: DataFrame) -> DataFrame:
    """One row per position: the kept copy, with copy count and conflict facts."""
    identity = F.concat_ws("\u0000", F.col("record_type"), F.col("norm_payload"))
    position = Window.partitionBy("cluster_id", "from_snapshot", "file_offset")
    preference = position.orderBy(
        F.col("leader_epoch").desc_nulls_last(), F.col("source_file").asc(), F.col("norm_payload").asc()
    )
    is_conflict = F.min("identity").over(position) != F.max("identity").over(position)
    # Copies equal as they are are equal once normalised: only the positions whose copies differ in their text are
    # parsed and printed again (about a quarter of the stream's time at L when every payload was: 9.3 -> 6.8 s)
    raw = F.concat_ws("\u0000", F.col("record_type"), F.col("payload"))
    same_text = F.min(raw).over(position) == F.max(raw).over(position)
    norm_payload = F.when(same_text, F.col("payload")).otherwise(_normalized_payload(F.col("payload")))
    return (
        candidates_df.select("*", norm_payload.alias("norm_payload"))
        .select("*", identity.alias("identity"))
        .select(
            "*",
            F.row_number().over(preference).alias("copy_rank"),
            F.count(F.lit(1)).over(position).cast("int").alias("copies"),
            is_conflict.alias("is_conflict"),
            F.when(is_conflict, F.sort_array(F.collect_set("source_file").over(position))).alias("conflict_files"),
        )
        .where(F.col("copy_rank") == 1)
    )


def _with_transactions(deduped_df: DataFrame) -> DataFrame:
    """Replay order and transaction outcome of every record (window functions, one pass per cluster)."""
    stream = Window.partitionBy("cluster_id").orderBy(F.col("from_snapshot").desc(), F.col("file_offset"))
    upto_here = stream.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    # The rows after this one, read from the stream's end: a growing frame. (Spark evaluates a shrinking frame,
    # "1 following to unbounded following", again for every row, quadratic in a cluster's records: at L, 18,000
    # records a cluster, that one window took 400 s of CPU.) The order is the stream's, reversed (nulls too).
    backwards = Window.partitionBy("cluster_id").orderBy(F.col("from_snapshot").asc(), F.col("file_offset").desc())
    after_here = backwards.rowsBetween(Window.unboundedPreceding, -1)
    marker = F.when(F.col("record_type").isin(*TXN_MARKERS), F.col("record_type"))
    inside = F.last(marker, ignorenulls=True).over(upto_here) == F.lit(BEGIN)
    closer = F.last(marker, ignorenulls=True).over(after_here)
    txn_state = (
        F.when(~F.coalesce(inside, F.lit(False)), F.lit("NONE"))
        .when(closer == F.lit(END), F.lit("COMMITTED"))
        .when(closer == F.lit(ABORT), F.lit("ABORTED"))
        .otherwise(F.lit("UNTERMINATED"))
    )
    begin_offset = F.when(F.col("record_type") == F.lit(BEGIN), F.col("file_offset"))
    return deduped_df.select(
        "*",
        F.row_number().over(stream).cast("long").alias("seq"),
        txn_state.alias("txn_state"),
        F.when(inside, F.last(begin_offset, ignorenulls=True).over(upto_here)).alias("txn_begin_offset"),
    )


def to_replay_stream(records_df: DataFrame, bounds_df: DataFrame) -> DataFrame:
    """The ``REPLAY_STREAM`` of ``records_df`` (METADATA_RECORDS) within ``bounds_df`` (REPLAY_BOUNDS).

    Deterministic: the same input gives the same rows, and byte-identical replicas give the rows of one copy
    (``copies`` aside).
    """
    stream_df = _with_transactions(_dedup_copies(_candidates(records_df, bounds_df)))
    is_marker = F.col("record_type").isin(*TXN_MARKERS)
    is_applied = ~is_marker & F.col("txn_state").isin("NONE", "COMMITTED")
    return stream_df.select(
        "cluster_id",
        "seq",
        "from_snapshot",
        "file_offset",
        "offset",
        "timestamp",
        "record_type",
        "record_version",
        "payload",
        "is_unknown",
        "source_file",
        "copies",
        "is_conflict",
        "conflict_files",
        "txn_state",
        "txn_begin_offset",
        is_applied.alias("is_applied"),
    )


def filter_applied(stream_df: DataFrame) -> DataFrame:
    """The ``APPLIED_RECORDS`` of a ``REPLAY_STREAM``."""
    return stream_df.where(F.col("is_applied")).select(*APPLIED_RECORDS.fieldNames())
