"""Checks of the command line that need no Spark: run before the session starts, each mistake one line, exit 2.

A gate must not run for minutes and then fail to write its JUnit file (the verdict printed, the exit code saying
otherwise), nor start Spark only to learn that ``--master`` is not a master URL or the warehouse is a file.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from jobs.output_files import output_problem
from schemas.errors import UsageError

__all__ = ["OUTPUT_OPTIONS", "check_args", "check_master", "check_output_file", "check_warehouse"]

# Spark's master URLs (SparkContext.createTaskScheduler and the cluster managers Spark ships: YARN, Kubernetes).
_MASTER = re.compile(
    r"local(\[(\*|[1-9][0-9]*)(,\s*[0-9]+)?\])?"
    r"|local-cluster\[[1-9][0-9]*,\s*[1-9][0-9]*,\s*[1-9][0-9]*\]"
    r"|spark://[^\s/]+(:[0-9]+)?(,[^\s/]+(:[0-9]+)?)*/?"
    r"|yarn"
    r"|k8s://\S+"
)
# argparse destinations of the files a command writes (option name for messages).
OUTPUT_OPTIONS: dict[str, str] = {
    "summary_json": "--summary-json",
    "junit": "--junit",
    "remediation_out": "--remediation-out",
    "report": "--report",
}
# `report --out` is a file; `synth --out` is a directory (created by the job).
_FILE_OUT_COMMANDS = frozenset({"report"})


def check_master(master: str | None) -> None:
    """``--master`` is a URL Spark can start (``local[*]``, ``spark://host:7077``, ``yarn``, ``k8s://...``); ``yarn``
    needs the cluster's Hadoop configuration (Spark reads ``HADOOP_CONF_DIR`` or ``YARN_CONF_DIR``, and fails
    without them only after the JVM started)."""
    if master is not None and not _MASTER.fullmatch(master.strip()):
        raise UsageError(
            f"--master {master!r} is not a Spark master URL (local, local[N], local[*], spark://HOST:PORT, yarn, "
            "k8s://URL)"
        )
    if master is not None and master.strip() == "yarn":
        conf_dirs = [os.environ.get(name, "") for name in ("HADOOP_CONF_DIR", "YARN_CONF_DIR")]
        if not any(d and os.path.isdir(d) for d in conf_dirs):
            raise UsageError(
                "--master yarn needs the cluster's Hadoop configuration: set HADOOP_CONF_DIR (or YARN_CONF_DIR) to "
                "the directory holding yarn-site.xml"
            )


def _local_path(location: str) -> Path | None:
    parsed = urlparse(location)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if "://" in location:
        return None  # a remote file system: Spark and delta-rs report its problems
    return Path(location)


def check_warehouse(location: str) -> None:
    """A warehouse is named (an empty ``--warehouse`` would put every table in the current directory); a local one
    is a writable directory or can become one: not a file, not below a file, not on /proc or /sys. A remote one
    (``s3a://``, ``abfss://``...) is checked once Spark runs, before the first write (``DeltaStore.check_tables``).
    """
    if not location.strip():
        raise UsageError("--warehouse is empty: give a directory or a URI (default ./warehouse)")
    path = _local_path(location)
    if path is None:
        return
    path = path.absolute()
    if path.exists() and not path.is_dir():
        raise UsageError(f"--warehouse {location}: is a file, not a directory")
    # a table's folder inside it must be creatable: the nearest existing ancestor is a real, writable directory
    if (problem := output_problem(path / "_delta_log")) is not None:
        raise UsageError(f"--warehouse {location}: {problem}")


def check_output_file(option: str, location: str) -> None:
    """A file the command will write: ``jobs.output_files.output_problem`` says whether it can be, before the run.

    A new path or a regular file is replaced atomically; its directory exists or can be made (the commands create
    missing parent directories) and is writable. A character device or a named pipe is written into, never
    replaced; a directory, socket, block device or anything on /proc or /sys is refused. Nothing is created or
    opened: the check has no side effect, so a run that fails later leaves nothing behind.
    """
    if (problem := output_problem(location)) is not None:
        raise UsageError(f"{option} {location}: {problem}")


def check_args(args: argparse.Namespace) -> None:
    """Every check above that applies to the parsed command line."""
    check_master(getattr(args, "master", None))
    if getattr(args, "warehouse", None) is not None:
        check_warehouse(args.warehouse)
    for dest, option in OUTPUT_OPTIONS.items():
        value = getattr(args, dest, None)
        if value:
            check_output_file(option, value)
    if getattr(args, "command", None) in _FILE_OUT_COMMANDS and getattr(args, "out", None):
        check_output_file("--out", args.out)
