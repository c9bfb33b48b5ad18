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

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import CONFIG_RESOURCE_IDS, ResourceType
from schemas.silver import DYNAMIC_CONFIGS
from transforms.replay.payloads import filter_parsed
from transforms.replay.topics import to_removed_topic_names


def resource_type_name(code: Column) -> Column:
    """ConfigResource type code → name; NULL for codes replay does not keep."""
    expr = F.lit(None).cast("string")
    for name, value in CONFIG_RESOURCE_IDS.items():
        expr = F.when(code == value, F.lit(name)).otherwise(expr)
    return expr


def to_dynamic_configs(applied_df: DataFrame, topic_ids_df: DataFrame) -> DataFrame:
    """Silver ``DYNAMIC_CONFIGS`` from the parsed applied records (``with_parsed_payloads``) and their topic ids
    (``transforms.replay.topics.to_topic_ids``)."""
    last_df = (
        filter_parsed(applied_df, "CONFIG_RECORD")
        .select(
            "cluster_id",
            resource_type_name(F.col("p.resourceType")).alias("resource_type"),
            F.col("p.resourceName").alias("resource_name"),
            F.col("p.name").alias("name"),
            F.struct(
                F.col("seq"),
                F.col("p.value").alias("value"),
                F.col("p.valueHash").alias("value_hash"),
                F.col("offset"),
                F.col("timestamp"),
                F.col("from_snapshot"),
            ).alias("r"),
        )
        .where(F.col("resource_type").isNotNull() & F.col("resource_name").isNotNull() & F.col("name").isNotNull())
        .groupBy("cluster_id", "resource_type", "resource_name", "name")
        .agg(F.max_by(F.col("r"), F.col("r.seq")).alias("r"))
    )
    removed_df = to_removed_topic_names(topic_ids_df).select(
        "cluster_id",
        F.lit(ResourceType.TOPIC).alias("resource_type"),
        F.col("topic_name").alias("resource_name"),
        "removed_seq",
    )
    survives_removal = F.col("removed_seq").isNull() | (F.col("r.seq") > F.col("removed_seq"))
    return (
        last_df.join(removed_df, on=["cluster_id", "resource_type", "resource_name"], how="left")
        .where(F.col("r.value").isNotNull() & survives_removal)
        .select(
            F.col("cluster_id"),
            F.col("resource_type"),
            F.col("resource_name"),
            F.col("name"),
            F.col("r.value").alias("value"),
            F.col("r.value_hash").alias("value_hash"),
            F.col("r.offset").alias("source_offset"),
            F.col("r.timestamp").alias("source_timestamp"),
            F.col("r.from_snapshot").alias("from_snapshot"),
        )
        .select(*DYNAMIC_CONFIGS.fieldNames())
    )
