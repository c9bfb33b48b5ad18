"""Table writes a job runs beside its next steps instead of one after another.

A write of a small table is mostly fixed cost in one Spark task: at benchmark L each silver table is 100 files of a
few rows (one per cluster), and writing one took 1.0-2.4 s with one core busy and the other idle, the eight of
them 14 s of the replay stage. ``ConcurrentWrites`` runs each write in a thread of its own (at most ``workers`` at a
time), so the writes share the cores with each other and with the plans the job goes on to compute. The job decides
where they must be done (``wait``): before anything reads what they wrote, and before it commits a table that must
not land unless they did.

Each thread starts with the Spark job description of the thread that submitted the write (the stage that wrote it,
``jobs.progress``), so the jobs are attributed as before. Spark runs jobs of several threads in one session side by
side; their results do not depend on the order (each write commits a table of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any

from pyspark.util import inheritable_thread_target

__all__ = ["ConcurrentWrites"]


class ConcurrentWrites:
    """A context manager running submitted writes in at most ``workers`` threads; leaving it waits for them all.

    ``wait`` raises the first error of a write, after every write has ended, so none is left running behind the
    error. Leaving the block on an error of its own also waits first, then lets that error through.
    """

    def __init__(self, workers: int = 2) -> None:
        """No write submitted yet."""
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kraft-audit-write")
        self._pending: list[Future[Any]] = []

    def submit(self, write: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Start ``write(*args, **kwargs)`` in a thread (with this thread's Spark job description)."""
        self._pending.append(self._pool.submit(inheritable_thread_target(write), *args, **kwargs))

    def wait(self) -> None:
        """Wait for every write submitted so far; raise the first one's error, if any failed."""
        pending, self._pending = self._pending, []
        errors = [error for error in (future.exception() for future in pending) if error is not None]
        if errors:
            raise errors[0]

    def __enter__(self) -> ConcurrentWrites:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        try:
            if error is None:
                self.wait()
            else:
                for future in self._pending:  # ended, but this block's own error is the one reported
                    future.exception()
        finally:
            self._pool.shutdown(wait=True)
