"""Finalized feature levels (silver ``FEATURES``) from ``FEATURE_LEVEL_RECORD``.

The newest record per feature wins; level 0 means the feature is disabled or removed, so it has no row. Logs
written before metadata.version 3.3 carry no FeatureLevelRecord: such clusters have no ``metadata.version`` row
and ``CLUSTER_STATE.current_level`` is NULL.
"""

from __future__ import annotations

from pyspark.sql import DataFrame

from schemas.silver import FEATURES
from transforms.replay.cluster_pass import output


def to_features(pass_df: DataFrame) -> DataFrame:
    """Silver ``FEATURES`` from the replay pass (``transforms.replay.cluster_pass``)."""
    return output(pass_df, "feature").select(*FEATURES.fieldNames())
