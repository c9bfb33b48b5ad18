"""Spark jobs started during a benchmark step, per audit stage.

A job count does not drift with the machine's load, so it is the figure to compare across runs. Jobs are read
from the driver's status store (what the Spark UI lists; ``spark.ui.retainedJobs`` bounds how many it keeps):
each job carries the description ``jobs.runtime.progress.stage``/``step`` set when it started (``<stage>: <step>``), so
it is attributed to the stage whose title starts its description. Jobs started outside any stage (reading the
scope, the run summary, ``audit_runs``) count as ``other``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import SparkSession

# Stage title prefixes (jobs.runtime.progress.stage titles) → the stage's short name, first match wins.
STAGES: tuple[tuple[str, str], ...] = (
    ("hashing ", "ingest"),
    ("decoding ", "ingest"),
    ("writing bronze", "ingest"),
    ("replaying ", "replay"),
    ("resolving effective", "effective"),
    ("evaluating ", "evaluation"),
    ("checking data quality", "dq"),
)


def stage_of(description: str | None) -> str:
    """The short stage name a job description belongs to (``other`` outside any stage)."""
    for prefix, name in STAGES:
        if description and description.startswith(prefix):
            return name
    return "other"


@dataclass
class JobCounts:
    """The jobs one block started: total, per stage, per full description."""

    total: int = 0
    by_stage: dict[str, int] = field(default_factory=dict)
    by_description: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"total": self.total, "by_stage": self.by_stage, "by_description": self.by_description}


def _jobs(spark: SparkSession) -> dict[int, str | None]:
    """Job id → description of every job the status store holds."""
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(None)
    found: dict[int, str | None] = {}
    for index in range(jobs.size()):
        job = jobs.apply(index)
        description = job.description()
        found[int(job.jobId())] = str(description.get()) if description.isDefined() else None
    return found


@contextmanager
def counting(spark: SparkSession) -> Iterator[JobCounts]:
    """Count the Spark jobs started while the block runs (filled in when it ends)."""
    before = set(_jobs(spark))
    counts = JobCounts()
    try:
        yield counts
    finally:
        new = {job: text for job, text in _jobs(spark).items() if job not in before}
        stages = Counter(stage_of(text) for text in new.values())
        texts = Counter(text or "(none)" for text in new.values())
        counts.total = len(new)
        counts.by_stage = dict(sorted(stages.items()))
        counts.by_description = dict(texts.most_common())
