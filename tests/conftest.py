"""Shared fixtures: one SparkSession for the whole run and a fresh warehouse per test."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REAL_METADATA = Path(__file__).resolve().parent.parent.parent / "shared" / "real-metadata"
REAL_METADATA = Path(os.environ.get("KRAFT_AUDIT_REAL_METADATA", str(REAL_METADATA)))


def real_metadata_dir() -> Path:
    """The shared real KRaft files, or skip the calling test with the reason."""
    if not REAL_METADATA.is_dir():
        pytest.skip(f"real KRaft metadata not present at {REAL_METADATA} (set KRAFT_AUDIT_REAL_METADATA)")
    return REAL_METADATA


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """One local[2] session: few shuffle partitions, UI off, UTC."""
    from jobs.session import build_session

    session = build_session(
        master="local[2]",
        app_name="kraft-audit-tests",
        shuffle_partitions=2,
        extra_conf={
            "spark.ui.enabled": "false",
            "spark.sql.adaptive.coalescePartitions.initialPartitionNum": "2",
            "spark.default.parallelism": "2",
            "spark.sql.warehouse.dir": str(Path(os.environ.get("TMPDIR", "/tmp")) / "kraft-audit-test-wh"),
        },
    )
    yield session
    session.stop()


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """An empty warehouse directory for one test."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


# Spark hands timestamps to Python in the process time zone; pin it so rows compare the same everywhere.
os.environ["TZ"] = "UTC"
time.tzset()
