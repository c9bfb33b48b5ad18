"""Finalized feature levels (silver ``FEATURES``) from ``FEATURE_LEVEL_RECORD``.

The newest record per feature wins; level 0 means the feature is disabled or removed, so it has no row. Logs
written before metadata.version 3.3 carry no FeatureLevelRecord: such clusters have no ``metadata.version`` row
and ``CLUSTER_STATE.current_level`` is NULL.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.silver import FEATURES
from transforms.replay.payloads import filter_parsed


def to_features(applied_df: DataFrame) -> DataFrame:
    """Silver ``FEATURES`` from the parsed applied records (``with_parsed_payloads``)."""
    return (
        filter_parsed(applied_df, "FEATURE_LEVEL_RECORD")
        .where(F.col("p.name").isNotNull() & F.col("p.featureLevel").isNotNull())
        .groupBy("cluster_id", F.col("p.name").alias("feature"))
        .agg(F.max_by(F.struct(F.col("p.featureLevel").alias("level"), "offset"), F.col("seq")).alias("f"))
        .where(F.col("f.level") != 0)
        .select("cluster_id", "feature", F.col("f.level").alias("level"), F.col("f.offset").alias("source_offset"))
        .select(*FEATURES.fieldNames())
    )
