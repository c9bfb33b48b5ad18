"""The Kafka catalog's lookup frames, cached once per Spark application: ``catalog_frames(spark)``.

``transforms.effective.to_catalog_frames`` builds them from Python rows, which carry no size statistics: the
planner would shuffle both sides of every join with them, and every scan would unpickle the rows in a Python worker
again. Cached and counted (four small jobs, once per application), their size is known, joins broadcast them and
scans read the cached columns. Jobs that resolve configurations (audit, simulate) take the frames from here.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession

from jobs import conf_loader
from transforms.effective.catalog_frames import (
    CatalogFrames,
    broker_key_check_rows,
    broker_layer_checks,
    to_catalog_frames,
)

# (application id, start time) -> the frames of the shipped catalog
_BUILT: dict[tuple[str, int], CatalogFrames] = {}


def _materialized(df: DataFrame) -> DataFrame:
    df.persist(StorageLevel.MEMORY_AND_DISK)
    df.count()
    return df


def catalog_frames(spark: SparkSession) -> CatalogFrames:
    """The lookup frames of the shipped Kafka catalog (``conf/kafka``), cached and counted once per application."""
    context = spark.sparkContext
    key = (context.applicationId, context.startTime)
    if key not in _BUILT:
        documents = conf_loader.kafka_catalog_documents()
        frames = to_catalog_frames(
            spark,
            conf_loader.kafka_catalog(),
            key_checks=broker_key_check_rows(documents, conf_loader.metadata_versions()),
            layer_checks=broker_layer_checks(documents),
        )
        _BUILT[key] = CatalogFrames(
            config_keys_df=_materialized(frames.config_keys_df),
            synonyms_df=_materialized(frames.synonyms_df),
            releases_df=_materialized(frames.releases_df),
            key_checks_df=_materialized(frames.key_checks_df),
            layer_checks=frames.layer_checks,
        )
    return _BUILT[key]
