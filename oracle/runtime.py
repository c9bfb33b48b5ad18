"""Where a fetched Kafka release lives and how to run its classes.

``scripts/kafka-oracle/fetch.sh`` copies each release's jars into ``<cache>/<version>/`` (default
``~/.cache/kraft-audit/kafka``, or ``$KRAFT_AUDIT_KAFKA_CACHE``), outside the repository, and marks a complete copy
with a ``.complete`` file. Everything here only reads that cache: a missing release is a ``RuntimeMissing`` with a
one-line message naming the command that fetches it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FETCH_SCRIPT = REPO / "scripts" / "kafka-oracle" / "fetch.sh"
DEFAULT_VERSIONS = ("3.9.1", "4.2.0", "4.4.0")


class RuntimeMissing(Exception):
    """A release (or Java) is not available here; the message says how to get it."""


def cache_dir() -> Path:
    """The directory holding one sub-directory per fetched release."""
    configured = os.environ.get("KRAFT_AUDIT_KAFKA_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "kraft-audit" / "kafka"


@dataclass(frozen=True)
class Release:
    """One fetched Kafka release: its version and the directory of its jars."""

    version: str
    jars: Path

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def minor(self) -> int:
        return int(self.version.split(".")[1])

    @property
    def feature_line(self) -> str:
        """``X.Y``: the release version FeatureCommand and StorageTool accept for this release."""
        return f"{self.major}.{self.minor}"

    @property
    def classpath(self) -> str:
        """A JVM classpath of every jar of the release (the JVM expands the wildcard)."""
        return str(self.jars / "*")

    @property
    def log4j2(self) -> bool:
        """Kafka 4.x logs through log4j2; 3.x through reload4j (the log4j 1 API)."""
        return self.major >= 4

    def java(self, *args: str, jvm: tuple[str, ...] = ()) -> list[str]:
        """A command line running ``args`` (a main class and its arguments) on this release's classpath."""
        return [java_binary(), *jvm, "-cp", self.classpath, *args]


def java_binary() -> str:
    """The ``java`` launcher (``$JAVA_HOME/bin/java`` first), or ``RuntimeMissing``."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise RuntimeMissing("java is not installed: the Kafka oracle needs Java 17 or later")
    return found


def release(version: str) -> Release:
    """The fetched release ``version``, or ``RuntimeMissing`` saying how to fetch it."""
    jars = cache_dir() / version
    if not (jars / ".complete").is_file():
        raise RuntimeMissing(f"Kafka {version} is not fetched: run `{FETCH_SCRIPT.relative_to(REPO)} {version}`")
    return Release(version, jars)


def available(versions: tuple[str, ...] | list[str] = DEFAULT_VERSIONS) -> list[Release]:
    """The releases among ``versions`` that are fetched (none is an empty list, never an error)."""
    found = []
    for version in versions:
        try:
            found.append(release(version))
        except RuntimeMissing:
            continue
    return found
