"""Client entity quotas and configs (silver ``CLIENT_ENTITY_CONFIGS``).

* ``CLIENT_QUOTA_RECORD`` (kind ``QUOTA``): ``entity`` is a list of ``{entityType: user|client-id|ip,
  entityName}`` (NULL name = the default entity, stored as ``"<default>"``); the newest record per (entity, key)
  wins; ``remove: true`` deletes the key. The float64 value is kept as Spark's string of the double
  (``1048576.0``, ``1.0E7``).
* ``CLIENT_CONFIG_RECORD`` (kind ``CLIENT_CONFIG``, the seed KIP's dynamic client configs, JSON lines only): same
  entity shape, string ``value``; a NULL value deletes the key.

An entity is identified by its (user, client-id, ip) parts regardless of the order of the list; a part the
entity does not have is NULL. Records without a key or with an empty entity list are skipped.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.silver import CLIENT_ENTITY_CONFIGS
from transforms.replay.cluster_pass import output, timestamp


def to_client_entity_configs(pass_df: DataFrame) -> DataFrame:
    """Silver ``CLIENT_ENTITY_CONFIGS`` from the replay pass (``transforms.replay.cluster_pass``)."""
    return output(pass_df, "client_entity_config").select(
        *[
            timestamp("source_timestamp_us").alias(name) if name == "source_timestamp" else F.col(name)
            for name in CLIENT_ENTITY_CONFIGS.fieldNames()
        ]
    )
