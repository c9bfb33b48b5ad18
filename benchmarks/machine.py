"""What the numbers were measured on: cores, memory, CPU model, load, and the versions of everything involved."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from typing import Any


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gib() -> float | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _java_version() -> str | None:
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    first = (out.stderr or out.stdout).strip().splitlines()
    return first[0] if first else None


def machine_info() -> dict[str, Any]:
    """Cores, RAM, CPU model, OS and the load average when the size started (other work on a shared box)."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "cores": os.cpu_count(),
        "ram_gib": _ram_gib(),
        "cpu_model": _cpu_model(),
        "os": f"{platform.system()} {platform.release()}",
        "load_average_1_5_15": [round(x, 2) for x in load] if load else None,
    }


def versions() -> dict[str, Any]:
    """Versions of Python, Java, Spark, delta-spark (the storage engine), Great Expectations, pyarrow, pandas, and
    of deltalake (delta-rs: the tests' second reader, not the engine) when it is installed."""
    found = {
        "python": sys.version.split()[0],
        "java": _java_version(),
        "pyspark": _version("pyspark"),
        "delta_spark": _version("delta-spark"),
        "storage_engine": "delta-spark",
        "great_expectations": _version("great-expectations"),
        "pyarrow": _version("pyarrow"),
        "pandas": _version("pandas"),
    }
    deltalake = _version("deltalake")
    if deltalake is not None:
        found["deltalake"] = deltalake
    return found
