"""Findings replay notices, in the run-independent shape ``FINDING_ROWS``.

``FINDING_ROWS`` (``schemas.gold``) is gold ``FINDINGS`` without ``run_id`` / ``run_ts``; the audit job adds those with
:func:`with_run_columns`. Kinds produced here:

* ``REPLICA_CONFLICT`` (blocking): copies of one log or snapshot position differ; names the files and the copy
  applied (see ``transforms.replay.ordering`` for the rule).
* ``UNTERMINATED_TRANSACTION``: a metadata transaction without END before the end of the replayed stream (or
  before the next BEGIN); its records were not applied.
* ``UNDECODED_RECORD``: a record kept raw by the decoder (unknown apiKey or version); replay could not read it.
"""

from __future__ import annotations

from datetime import datetime

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.gold import FINDING_ROWS, FINDINGS
from transforms.finding_rows import finding_rows
from transforms.replay.ordering import BEGIN, TXN_MARKERS
from transforms.timestamps import as_utc


def with_run_columns(findings_df: DataFrame, *, run_id: str, run_ts: datetime) -> DataFrame:
    """Gold ``FINDINGS`` from ``FINDING_ROWS`` rows of one run (a naive ``run_ts`` is taken as UTC)."""
    return findings_df.select(
        F.lit(run_id).alias("run_id"), F.lit(as_utc(run_ts)).alias("run_ts"), *FINDING_ROWS.fieldNames()
    ).select(*FINDINGS.fieldNames())


def _position() -> Column:
    """``offset N`` for a log record, ``snapshot record N`` for a record inside the snapshot file."""
    offset = F.col("file_offset").cast("string")
    return F.when(F.col("from_snapshot"), F.concat(F.lit("snapshot record "), offset)).otherwise(
        F.concat(F.lit("offset "), offset)
    )


def _conflicts(stream_df: DataFrame) -> DataFrame:
    message = F.concat(
        F.col("copies").cast("string"),
        F.lit(" copies of "),
        _position(),
        F.lit(" differ (files: "),
        F.array_join(F.col("conflict_files"), ", "),
        F.lit("); applied the "),
        F.col("record_type"),
        F.lit(" from "),
        F.col("source_file"),
        F.lit(" (highest leader epoch, then first file name)"),
    )
    return stream_df.where(F.col("is_conflict")).transform(
        finding_rows, kind="REPLICA_CONFLICT", message=message, offset=F.col("offset"), blocking=True
    )


def _unterminated(stream_df: DataFrame) -> DataFrame:
    is_data = ~F.col("record_type").isin(*TXN_MARKERS)
    skipped_df = (
        stream_df.where(is_data & (F.col("txn_state") == "UNTERMINATED"))
        .groupBy("cluster_id", "from_snapshot", F.col("txn_begin_offset").alias("file_offset"))
        .agg(F.count(F.lit(1)).alias("skipped"))
    )
    begins_df = stream_df.where((F.col("record_type") == BEGIN) & (F.col("txn_state") == "UNTERMINATED")).select(
        "cluster_id", "from_snapshot", "file_offset", "offset"
    )
    message = F.concat(
        F.lit("metadata transaction begun at "),
        _position(),
        F.lit(" has no END_TRANSACTION_RECORD before the end of the replayed log or the next BEGIN; its "),
        F.coalesce(F.col("skipped"), F.lit(0)).cast("string"),
        F.lit(" records were not applied"),
    )
    return begins_df.join(skipped_df, on=["cluster_id", "from_snapshot", "file_offset"], how="left").transform(
        finding_rows, kind="UNTERMINATED_TRANSACTION", message=message, offset=F.col("offset")
    )


def _undecoded(stream_df: DataFrame) -> DataFrame:
    is_raw = F.get_json_object("payload", "$._raw").isNotNull()
    message = F.concat(
        F.col("record_type"),
        F.lit(" v"),
        F.coalesce(F.col("record_version").cast("string"), F.lit("?")),
        F.lit(" at "),
        _position(),
        F.lit(" could not be decoded (unknown apiKey or version) and was not replayed"),
    )
    return stream_df.where(F.col("is_applied") & F.col("is_unknown") & is_raw).transform(
        finding_rows, kind="UNDECODED_RECORD", message=message, offset=F.col("offset")
    )


def to_replay_findings(stream_df: DataFrame) -> DataFrame:
    """``FINDING_ROWS`` of a ``REPLAY_STREAM``: conflicts, unterminated transactions, undecoded records."""
    return (
        _conflicts(stream_df)
        .unionByName(_unterminated(stream_df))
        .unionByName(_undecoded(stream_df))
        .select(*FINDING_ROWS.fieldNames())
    )
