"""Fixtures shared by the replay and effective tests (imported by both conftest.py files)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from pyspark.sql import SparkSession

from jobs.runtime.holding import interpreted
from schemas.metadata_version import MetadataVersionTable

CONF = Path(__file__).resolve().parents[3] / "conf"


@pytest.fixture(scope="session")
def mv_table() -> MetadataVersionTable:
    """The project's metadata.version table (conf/metadata_versions.yaml)."""
    return MetadataVersionTable.model_validate(yaml.safe_load((CONF / "metadata_versions.yaml").read_text()))


@pytest.fixture(scope="module")
def interpreted_spark(spark: SparkSession) -> Iterator[SparkSession]:
    """The shared session, evaluating without code generation for one module (``jobs.runtime.holding.interpreted``).

    The replay plans are deep and the test inputs tiny, so compiling generated Java for every new query dominated
    the runtime (about 3x). Results are the same either way; the previous settings are restored afterwards.
    """
    with interpreted(spark):
        yield spark
