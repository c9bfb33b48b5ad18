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

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.gold import FINDING_ROWS, FINDINGS
from transforms.kit.timestamps import as_utc
from transforms.replay.cluster_pass import output


def with_run_columns(findings_df: DataFrame, *, run_id: str, run_ts: datetime) -> DataFrame:
    """Gold ``FINDINGS`` from ``FINDING_ROWS`` rows of one run (a naive ``run_ts`` is taken as UTC)."""
    return findings_df.select(
        F.lit(run_id).alias("run_id"), F.lit(as_utc(run_ts)).alias("run_ts"), *FINDING_ROWS.fieldNames()
    ).select(*FINDINGS.fieldNames())


def to_replay_findings(pass_df: DataFrame) -> DataFrame:
    """``FINDING_ROWS`` of the replay pass (``transforms.replay.cluster_pass``): conflicts, unterminated
    transactions, undecoded records."""
    return output(pass_df, "finding").select(*FINDING_ROWS.fieldNames())
