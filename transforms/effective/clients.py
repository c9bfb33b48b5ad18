"""Client entity effective configs (quotas and the seed KIP's client configs).

Kafka's quota precedence for a client with user U and client-id C (docs "Quotas", ClientQuotaManager), first
match wins::

    1 <U, C>   2 <U, default client-id>   3 <U>
    4 <default user, C>   5 <default user, default client-id>   6 <default user>
    7 <C>   8 <default client-id>

Every entity present in silver ``CLIENT_ENTITY_CONFIGS`` is resolved as a client of that entity: a named part
matches itself, then the default entity, then "no such part"; ``<default>`` and absent parts stand for a
user / client-id that has no entry of its own. So ``user=alice`` resolves as alice's clients with an unconfigured
client-id (levels 2, 3, 5, 6, 8), ``client-id=app`` as app used by a user without user quotas (levels 4–8), and
``user=alice,client-id=app`` over all eight. IP entities resolve ``<ip>`` over ``<default ip>``. Each key resolves
independently (quota and client-config keys alike); the row's offset is that of the record of the matching entity.

``resource_name`` is ``user=alice,client-id=app`` (parts in the order user, client-id, ip; ``<default>`` for
defaults). Quota values are float64 strings (``config_type`` DOUBLE). Source: ``DYNAMIC_CLIENT_CONFIG``.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.gold import EFFECTIVE_CONFIGS
from schemas.kafka_vocabulary import ConfigSource, ResourceType

DEFAULT: Final = "<default>"


def _candidates(part: Column) -> Column:
    """Entity names whose entries apply to a part, with their precedence (0 = the part itself)."""
    named = F.array(
        F.struct(part.alias("name"), F.lit(0).alias("rank")),
        F.struct(F.lit(DEFAULT).alias("name"), F.lit(1).alias("rank")),
        F.struct(F.lit(None).cast("string").alias("name"), F.lit(2).alias("rank")),
    )
    unnamed = F.array(
        F.struct(F.lit(DEFAULT).alias("name"), F.lit(1).alias("rank")),
        F.struct(F.lit(None).cast("string").alias("name"), F.lit(2).alias("rank")),
    )
    return F.when(part.isNull() | (part == DEFAULT), unnamed).otherwise(named)


def _ip_candidates(part: Column) -> Column:
    return F.when(part == DEFAULT, F.array(F.struct(F.lit(DEFAULT).alias("name"), F.lit(1).alias("rank")))).otherwise(
        F.array(
            F.struct(part.alias("name"), F.lit(0).alias("rank")),
            F.struct(F.lit(DEFAULT).alias("name"), F.lit(1).alias("rank")),
        )
    )


def client_entity_name(user: Column, client_id: Column, ip: Column) -> Column:
    """``user=alice,client-id=app`` (parts in the order user, client-id, ip; absent parts left out)."""
    return F.concat_ws(
        ",",
        F.when(user.isNotNull(), F.concat(F.lit("user="), user)),
        F.when(client_id.isNotNull(), F.concat(F.lit("client-id="), client_id)),
        F.when(ip.isNotNull(), F.concat(F.lit("ip="), ip)),
    )


def _matching_entities(entries_df: DataFrame) -> DataFrame:
    """``(cluster_id, t_user, t_client, t_ip, c_user, c_client, c_ip, rank)``: entities applying to each entity."""
    targets_df = entries_df.select(
        "cluster_id",
        F.col("entity_user").alias("t_user"),
        F.col("entity_client_id").alias("t_client"),
        F.col("entity_ip").alias("t_ip"),
    ).distinct()
    user_client_df = (
        targets_df.where(F.col("t_ip").isNull())
        .select("*", F.explode(_candidates(F.col("t_user"))).alias("u"))
        .select("*", F.explode(_candidates(F.col("t_client"))).alias("c"))
        .where(F.col("u.name").isNotNull() | F.col("c.name").isNotNull())
        .select(
            "cluster_id",
            "t_user",
            "t_client",
            "t_ip",
            F.col("u.name").alias("c_user"),
            F.col("c.name").alias("c_client"),
            F.lit(None).cast("string").alias("c_ip"),
            (F.col("u.rank") * 3 + F.col("c.rank")).alias("rank"),
        )
    )
    ip_df = (
        targets_df.where(F.col("t_ip").isNotNull() & F.col("t_user").isNull() & F.col("t_client").isNull())
        .select("*", F.explode(_ip_candidates(F.col("t_ip"))).alias("i"))
        .select(
            "cluster_id",
            "t_user",
            "t_client",
            "t_ip",
            F.lit(None).cast("string").alias("c_user"),
            F.lit(None).cast("string").alias("c_client"),
            F.col("i.name").alias("c_ip"),
            F.col("i.rank").alias("rank"),
        )
    )
    return user_client_df.unionByName(ip_df)


def to_client_effective(client_entity_configs_df: DataFrame) -> DataFrame:
    """``EFFECTIVE_CONFIGS`` rows of resource type CLIENT from silver ``CLIENT_ENTITY_CONFIGS``."""
    entries_df = client_entity_configs_df
    matches_df = _matching_entities(entries_df).alias("m")
    e = entries_df.alias("e")
    on = (
        (F.col("m.cluster_id") == F.col("e.cluster_id"))
        & F.col("m.c_user").eqNullSafe(F.col("e.entity_user"))
        & F.col("m.c_client").eqNullSafe(F.col("e.entity_client_id"))
        & F.col("m.c_ip").eqNullSafe(F.col("e.entity_ip"))
    )
    entry = F.struct(
        F.col("e.kind").alias("kind"),
        F.col("e.value").alias("value"),
        F.col("e.value_hash").alias("value_hash"),
        F.col("e.source_offset").alias("source_offset"),
        F.col("e.source_timestamp").alias("source_timestamp"),
    )
    best_df = (
        matches_df.join(e, on, how="inner")
        .groupBy(F.col("m.cluster_id").alias("cluster_id"), "t_user", "t_client", "t_ip", F.col("e.name").alias("name"))
        .agg(F.min_by(entry, F.col("m.rank")).alias("b"))
    )
    is_quota = F.col("b.kind") == "QUOTA"
    return best_df.select(
        F.col("cluster_id"),
        F.lit(ResourceType.CLIENT).alias("resource_type"),
        client_entity_name(F.col("t_user"), F.col("t_client"), F.col("t_ip")).alias("resource_name"),
        F.lit(None).cast("int").alias("node_id"),
        F.col("name").alias("config_name"),
        F.col("b.value").alias("value"),
        F.col("b.value_hash").alias("value_hash"),
        (~is_quota & F.col("b.value_hash").isNotNull()).alias("is_sensitive"),
        F.when(is_quota, F.lit("DOUBLE")).alias("config_type"),
        F.lit(ConfigSource.DYNAMIC_CLIENT_CONFIG).alias("source"),
        F.col("name").alias("synonym"),
        F.col("b.source_offset").alias("source_offset"),
        F.col("b.source_timestamp").alias("source_timestamp"),
        F.lit(None).cast("string").alias("kafka_release"),
        F.lit(None).cast("string").alias("value_set"),
        F.lit(False).alias("is_assumed"),
    ).select(*EFFECTIVE_CONFIGS.fieldNames())
