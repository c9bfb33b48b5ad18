"""Fixtures shared by the replay and effective tests (imported by both conftest.py files)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from schemas.metadata_version import MetadataVersionTable

CONF = Path(__file__).resolve().parents[3] / "conf"
_INTERPRETED = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}


@pytest.fixture(scope="session")
def mv_table() -> MetadataVersionTable:
    """The project's metadata.version table (conf/metadata_versions.yaml)."""
    return MetadataVersionTable.model_validate(yaml.safe_load((CONF / "metadata_versions.yaml").read_text()))


@pytest.fixture(scope="module")
def interpreted_spark(spark: object) -> Iterator[object]:
    """The shared session, evaluating without code generation for one module.

    The replay plans are deep and the test inputs tiny, so compiling generated Java for every new query dominated
    the runtime (about 3x). Results are the same either way; the previous settings are restored afterwards.
    """
    conf = spark.conf  # type: ignore[attr-defined]
    saved = {key: conf.get(key, None) for key in _INTERPRETED}
    for key, value in _INTERPRETED.items():
        conf.set(key, value)
    yield spark
    for key, value in saved.items():
        if value is None:
            conf.unset(key)
        else:
            conf.set(key, value)
