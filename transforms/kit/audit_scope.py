"""Which effective values a constraint evaluation may judge.

Two kinds of DEFAULT_CONFIG rows describe no real value and would only produce false violations:

* a default that is NULL: Kafka requires such a key to be set (``node.id``, ``process.roles``,
  ``controller.listener.names``) or leaves it unset on purpose; when the static layer is unknown (no v5
  registration, no ``--static-config``) the running value is unknown, not null — the COVERAGE_GAP finding says so;
* a default of a key the target release no longer defines (``zookeeper.*``, ``message.format.version`` after
  4.0): a broker at the target runs a release without that key, so nothing is set. Keys still *set* explicitly
  (any other source) stay, and the "removed but still set" rules report them.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import ConfigSource, ResourceType
from schemas.per_cluster import PerCluster
from transforms.kit.per_cluster import per_cluster_column
from transforms.kit.releases import release_rank_column


def set_by_a_layer(source: Column) -> Column:
    """The value comes from a layer someone set, not from the release default (DEFAULT_CONFIG); a NULL source counts
    as not set. The clamps cap only such values, the layer checks and the expressions' ``set_keys`` list only their
    keys, and the default catalog's expressions judge an entity only when one of their keys is among them."""
    return F.coalesce(source != F.lit(ConfigSource.DEFAULT_CONFIG), F.lit(False))


def filter_auditable(
    effective_df: DataFrame, *, target_keys_df: DataFrame, target_release: Column | None = None
) -> DataFrame:
    """EFFECTIVE_CONFIGS rows without the defaults described in the module docstring.

    Args:
        effective_df: EFFECTIVE_CONFIGS.
        target_keys_df: ``resource_type``, ``name`` of every key the target release defines (unique pairs); with
            ``release``, of the targets' releases when ``target_release`` names each cluster's.
        target_release: the catalog release of the row's cluster's target (None: ``target_keys_df`` holds one).

    NULL behaviour: a NULL ``source`` is kept (it is not a default).
    """
    is_default = F.col("source") == ConfigSource.DEFAULT_CONFIG
    keys = ["_keys_type", "config_name", "_release"]
    no_release = F.lit("")  # one release: every key matches
    known_df = target_keys_df.select(
        F.col("resource_type").alias("_keys_type"),
        F.col("name").alias("config_name"),
        (no_release if target_release is None else F.col("release")).alias("_release"),
        F.lit(True).alias("_known"),
    ).dropDuplicates(keys)
    # the controller's view of a topic holds TOPIC keys
    keys_type = F.when(F.col("resource_type") == ResourceType.CONTROLLER_TOPIC, F.lit(ResourceType.TOPIC)).otherwise(
        F.col("resource_type")
    )
    unknown_default = is_default & (F.col("value").isNull() | F.col("_known").isNull())
    release = no_release if target_release is None else target_release
    return (
        effective_df.select("*", keys_type.alias("_keys_type"), release.alias("_release"))
        .join(F.broadcast(known_df), on=keys, how="left")
        .filter(~F.coalesce(unknown_default, F.lit(False)))
        .select(*effective_df.columns)
    )


def to_unique_topic_names(topics_df: DataFrame) -> DataFrame:
    """TOPICS with one row per (cluster, topic name): the most recently created one.

    Kafka never has two live topics with one name. Replica logs whose uncommitted tails diverged can each carry a
    TopicRecord for the same name at different offsets; the replay keeps both, which would double every topic row
    downstream. The latest creation wins (ties: the greater topic id), as the surviving log would show.
    """
    from pyspark.sql import Window

    order = Window.partitionBy("cluster_id", "topic_name").orderBy(
        F.col("created_offset").desc_nulls_last(), F.col("topic_id").desc()
    )
    return (
        topics_df.select("*", F.row_number().over(order).alias("_rank"))
        .filter(F.col("_rank") == 1)
        .select(*topics_df.columns)
    )


def with_release_at_least(brokers_df: DataFrame, *, release: str | PerCluster[str]) -> DataFrame:
    """BROKERS whose ``kafka_release`` is raised to ``release`` where it is older (or unknown: NULL, or not a
    release).

    Raising the metadata.version to a level needs every broker to run a release that supports it, so at the
    target a broker runs at least the target's release and takes that release's ConfigDef defaults; a broker
    already on a newer release (a downgrade audit) keeps its own. Per cluster: each cluster's target release.
    """
    target = per_cluster_column(release, F.lit)
    older = F.coalesce(release_rank_column(F.col("kafka_release")) < release_rank_column(target), F.lit(True))
    return brokers_df.select(
        *[
            (F.when(older, target).otherwise(F.col(c)).alias(c) if c == "kafka_release" else F.col(c))
            for c in brokers_df.columns
        ]
    )
