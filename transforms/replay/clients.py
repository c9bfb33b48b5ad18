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

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.silver import CLIENT_ENTITY_CONFIGS
from transforms.replay.payloads import filter_parsed

DEFAULT_ENTITY: Final = "<default>"


def entity_part(entity: Column, entity_type: str) -> Column:
    """The name of one part of an entity list: ``"<default>"`` for a NULL name, NULL when the part is absent."""
    part = F.try_element_at(F.filter(entity, lambda e: e["entityType"] == F.lit(entity_type)), F.lit(1))
    return F.when(part.isNotNull(), F.coalesce(part["entityName"], F.lit(DEFAULT_ENTITY)))


def _entries(applied_df: DataFrame, record_type: str, kind: str) -> DataFrame:
    parsed_df = filter_parsed(applied_df, record_type)
    if kind == "QUOTA":
        value = F.when(~F.coalesce(F.col("p.remove"), F.lit(False)), F.col("p.value").cast("string"))
        value_hash = F.lit(None).cast("string")
    else:
        value = F.col("p.value")
        value_hash = F.col("p.valueHash")
    return parsed_df.where(F.col("p.key").isNotNull() & (F.size(F.col("p.entity")) > 0)).select(
        "cluster_id",
        entity_part(F.col("p.entity"), "user").alias("entity_user"),
        entity_part(F.col("p.entity"), "client-id").alias("entity_client_id"),
        entity_part(F.col("p.entity"), "ip").alias("entity_ip"),
        F.lit(kind).alias("kind"),
        F.col("p.key").alias("name"),
        F.struct(
            F.col("seq"),
            value.alias("value"),
            value_hash.alias("value_hash"),
            F.col("offset"),
            F.col("timestamp"),
        ).alias("r"),
    )


def to_client_entity_configs(applied_df: DataFrame) -> DataFrame:
    """Silver ``CLIENT_ENTITY_CONFIGS`` from the parsed applied records (``with_parsed_payloads``)."""
    keys = ["cluster_id", "entity_user", "entity_client_id", "entity_ip", "kind", "name"]
    entries_df = _entries(applied_df, "CLIENT_QUOTA_RECORD", "QUOTA").unionByName(
        _entries(applied_df, "CLIENT_CONFIG_RECORD", "CLIENT_CONFIG")
    )
    return (
        entries_df.groupBy(*keys)
        .agg(F.max_by(F.col("r"), F.col("r.seq")).alias("r"))
        .where(F.col("r.value").isNotNull())
        .select(
            *keys,
            F.col("r.value").alias("value"),
            F.col("r.value_hash").alias("value_hash"),
            F.col("r.offset").alias("source_offset"),
            F.col("r.timestamp").alias("source_timestamp"),
        )
        .select(*CLIENT_ENTITY_CONFIGS.fieldNames())
    )
