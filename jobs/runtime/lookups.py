"""The Kafka catalog's lookup frames, built once per Spark application: ``catalog_frames(spark)``.

``transforms.effective.to_catalog_frames`` builds them from Python rows, which carry no size statistics: the planner
would shuffle both sides of every join with them, and every scan would unpickle the rows in a Python worker again.
Collected once per application (four small jobs) and held as local relations (``jobs.runtime.holding``; together about
10,600 rows), their size is known and filters on them are folded while planning (a broadcast of a local relation is
still a job, a cheap one). Jobs that resolve configurations (audit, simulate) take the frames from here.
"""

from __future__ import annotations

import dataclasses

from pyspark.sql import DataFrame, SparkSession

from jobs import conf_loader
from jobs.runtime.holding import held_locally
from transforms.effective.catalog_frames import (
    CatalogFrames,
    broker_key_check_rows,
    broker_layer_checks,
    to_catalog_frames,
)

# (application id, start time) -> the frames of the shipped catalog
_BUILT: dict[tuple[str, int], CatalogFrames] = {}


# Far above the largest frame (config keys: ~5,800 rows over every release); a catalog that outgrew it would fail
# loudly here rather than be held in the driver.
_CATALOG_ROWS = 100_000


def _materialized(df: DataFrame) -> DataFrame:
    held = held_locally(df, _CATALOG_ROWS)
    if held is None:
        raise ValueError(f"a Kafka catalog frame has more than {_CATALOG_ROWS} rows")
    return held


def held_catalog_frames(frames: CatalogFrames) -> CatalogFrames:
    """``frames`` with each lookup frame computed once and held as a local relation (see the module docstring)."""
    return dataclasses.replace(
        frames,
        config_keys_df=_materialized(frames.config_keys_df),
        synonyms_df=_materialized(frames.synonyms_df),
        releases_df=_materialized(frames.releases_df),
        key_checks_df=_materialized(frames.key_checks_df),
    )


def catalog_frames(spark: SparkSession) -> CatalogFrames:
    """The lookup frames of the shipped Kafka catalog (``conf/kafka``), held as local relations once per application."""
    context = spark.sparkContext
    key = (context.applicationId, context.startTime)
    if key not in _BUILT:
        documents = conf_loader.kafka_catalog_documents()
        _BUILT[key] = held_catalog_frames(
            to_catalog_frames(
                spark,
                conf_loader.kafka_catalog(),
                key_checks=broker_key_check_rows(documents, conf_loader.metadata_versions()),
                layer_checks=broker_layer_checks(documents),
            )
        )
    return _BUILT[key]
