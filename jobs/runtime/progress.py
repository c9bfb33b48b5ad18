"""Progress on a terminal: stage lines always (through logging), a live Spark task counter when stderr is a TTY."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from pyspark.sql import SparkSession

log = logging.getLogger("kraft_audit")


@contextmanager
def stage(spark: SparkSession, title: str) -> Iterator[None]:
    """Log a stage, show finished/total Spark tasks while it runs (TTY only), then its duration."""
    log.info("• %s", title)
    started = time.monotonic()
    context = spark.sparkContext
    previous = context.getLocalProperty("spark.job.description")
    context.setJobDescription(title)  # the Spark UI names each job after the stage that ran it
    stop = threading.Event()
    ticker: threading.Thread | None = None
    if sys.stderr.isatty() and log.isEnabledFor(logging.INFO):
        ticker = threading.Thread(target=_tick, args=(spark, title, stop), daemon=True)
        ticker.start()
    try:
        yield
    finally:
        context.setJobDescription(previous)  # type: ignore[arg-type]
        stop.set()
        if ticker is not None:
            ticker.join(timeout=1)
            sys.stderr.write("\r\033[K")
        log.debug("  %s took %.1fs", title, time.monotonic() - started)


@contextmanager
def step(spark: SparkSession, title: str) -> Iterator[None]:
    """A step inside a stage: its Spark jobs carry ``<stage>: <title>`` as description (UI, profiles); logged at
    debug level only."""
    context = spark.sparkContext
    previous = context.getLocalProperty("spark.job.description")
    context.setJobDescription(f"{previous}: {title}" if previous else title)
    started = time.monotonic()
    try:
        yield
    finally:
        context.setJobDescription(previous)  # type: ignore[arg-type]
        log.debug("    %s took %.1fs", title, time.monotonic() - started)


def _tick(spark: SparkSession, title: str, stop: threading.Event) -> None:
    tracker = spark.sparkContext.statusTracker()
    while not stop.wait(0.5):
        done = total = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                done += info.numCompletedTasks
                total += info.numTasks
        if total:
            sys.stderr.write(f"\r  {title}: {done}/{total} tasks")
            sys.stderr.flush()
