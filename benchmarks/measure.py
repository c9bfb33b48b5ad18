"""Timing and driver memory of one benchmark step.

Driver memory is measured three ways, each reset before a step and read after it:

* ``jvm_peak_rss_mib``: the driver JVM's peak resident set (``VmHWM`` in ``/proc/<pid>/status``; reset by
  writing ``5`` to ``/proc/<pid>/clear_refs``). In local mode the driver JVM also runs the executors, so this
  bounds what the whole Spark side held;
* ``jvm_peak_heap_mib``: the sum of the peak usage of the JVM's heap memory pools (``MemoryPoolMXBean``, reset
  per step); an upper bound of the live heap at its highest point;
* ``python_peak_rss_mib``: the Python driver process's peak resident set (same ``/proc`` mechanism). Python
  worker processes (mapInArrow decoders, UDF workers) are executors, not the driver, and are not counted.

Where ``/proc`` is missing or refuses the reset, the figures are None or cover the process lifetime (said by
``memory_reset``).
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pyspark.sql import SparkSession

T = TypeVar("T")
_TOOK = re.compile(r"^\s*(?P<title>.+?) took (?P<seconds>[0-9.]+)s$")


def _vm_hwm_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_hwm(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="utf-8") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


class DriverMemory:
    """Peak memory of the driver (JVM and Python) between ``reset`` and ``read``."""

    def __init__(self, spark: SparkSession) -> None:
        """Find the driver JVM's pid and heap pools through py4j."""
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        self._jvm = jvm
        self.jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
        self.python_pid = os.getpid()
        self.max_heap_mib = round(int(jvm.java.lang.Runtime.getRuntime().maxMemory()) / 2**20)
        self._resets_work = True

    def _heap_pools(self) -> list[Any]:
        pools = self._jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
        return [p for p in pools if str(p.getType().toString()) == "Heap memory"]

    def reset(self) -> None:
        """Start a new measurement window."""
        ok = _reset_hwm(self.jvm_pid) & _reset_hwm(self.python_pid)
        self._resets_work = self._resets_work and ok
        for pool in self._heap_pools():
            pool.resetPeakUsage()

    def read(self) -> dict[str, Any]:
        """Peaks since the last ``reset`` (MiB)."""
        heap = sum(int(p.getPeakUsage().getUsed()) for p in self._heap_pools())
        jvm_rss = _vm_hwm_kib(self.jvm_pid)
        py_rss = _vm_hwm_kib(self.python_pid)
        return {
            "jvm_peak_rss_mib": round(jvm_rss / 1024) if jvm_rss is not None else None,
            "jvm_peak_heap_mib": round(heap / 2**20),
            "python_peak_rss_mib": round(py_rss / 1024) if py_rss is not None else None,
            "memory_reset": self._resets_work,
        }


@dataclass
class Step:
    """One measured step: best wall time over its runs, every run's time, peak memory of the best run's window."""

    name: str
    seconds: float
    runs: list[float] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "seconds": round(self.seconds, 3),
            "runs": [round(r, 3) for r in self.runs],
            "memory": self.memory,
            **self.extra,
        }


def measure(
    name: str,
    fn: Callable[[], T],
    *,
    memory: DriverMemory,
    repeats: int = 1,
    setup: Callable[[], None] | None = None,
) -> tuple[Step, T]:
    """Run ``fn`` ``repeats`` times (``setup`` before each run, untimed); keep the fastest run.

    Memory peaks are the maximum over all runs (a peak is a peak, whichever run reached it).
    """
    runs: list[float] = []
    peaks: dict[str, Any] = {}
    result: T | None = None
    for _ in range(max(1, repeats)):
        if setup is not None:
            setup()
        memory.reset()
        started = time.perf_counter()
        result = fn()
        runs.append(time.perf_counter() - started)
        now = memory.read()
        for key, value in now.items():
            if isinstance(value, int) and not isinstance(value, bool):
                peaks[key] = max(peaks.get(key, 0), value)
            else:
                peaks[key] = value
    assert result is not None or runs
    return Step(name=name, seconds=min(runs), runs=runs, memory=peaks), result  # type: ignore[return-value]


class StageTimes(logging.Handler):
    """Collects the ``<stage> took N s`` lines that ``jobs.runtime.progress.stage`` logs (at DEBUG) during a job."""

    def __init__(self) -> None:
        """Empty."""
        super().__init__(level=logging.DEBUG)
        self.stages: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        """Keep stage durations."""
        match = _TOOK.match(record.getMessage())
        if match:
            title = match.group("title").strip()
            self.stages[title] = self.stages.get(title, 0.0) + float(match.group("seconds"))


@contextmanager
def stage_times() -> Iterator[StageTimes]:
    """Capture the product's stage durations while the block runs."""
    logger = logging.getLogger("kraft_audit")
    handler = StageTimes()
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
