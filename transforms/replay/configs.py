"""Dynamic configs at the audited offset (silver ``DYNAMIC_CONFIGS``) from ``CONFIG_RECORD``.

Kafka semantics (ConfigurationDelta / ConfigurationControlManager ``replay(ConfigRecord)``):

* resource types 2 TOPIC, 4 BROKER (``""`` = cluster default), 16 CLIENT_METRICS and 32 GROUP are kept; other
  codes (8 BROKER_LOGGER is never persisted, unknown codes) are skipped;
* the last record per (resource, key) in replay order wins; a NULL value deletes the key;
* a ``REMOVE_TOPIC_RECORD`` deletes every TOPIC config of the removed topic's name set before the removal, so a
  topic re-created with the same name starts clean;
* records whose resource type, resource name or key do not parse are skipped.

Rows set by a snapshot record carry ``from_snapshot`` and ``source_offset = snapshot end - 1`` (NULL for a
bootstrap snapshot) and a NULL ``source_timestamp`` (the snapshot does not keep when the value was set).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.silver import DYNAMIC_CONFIGS
from transforms.replay.cluster_pass import output, timestamp


def to_dynamic_configs(pass_df: DataFrame) -> DataFrame:
    """Silver ``DYNAMIC_CONFIGS`` from the replay pass (``transforms.replay.cluster_pass``)."""
    return output(pass_df, "dynamic_config").select(
        *[
            timestamp("source_timestamp_us").alias(name) if name == "source_timestamp" else F.col(name)
            for name in DYNAMIC_CONFIGS.fieldNames()
        ]
    )
