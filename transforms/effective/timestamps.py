"""The 3.6–3.9 fallback of the message timestamp bounds to ``message.timestamp.difference.max.ms``.

Kafka 3.6–3.9 (KIP-937) added ``message.timestamp.before.max.ms`` / ``message.timestamp.after.max.ms`` and kept the
deprecated ``message.timestamp.difference.max.ms``; a bound whose value is ``Long.MAX_VALUE`` (its default) uses
the difference instead:

* broker (confluentinc/kafka 3.6, 3.7: core/src/main/scala/kafka/server/KafkaConfig.scala; 3.8, 3.9: the same file
  with ``ServerLogConfigs``): ``logMessageTimestampBeforeMaxMs`` / ``logMessageTimestampAfterMaxMs`` return
  ``log.message.timestamp.difference.max.ms`` when ``log.message.timestamp.before|after.max.ms`` equals
  ``Long.MAX_VALUE``; ``extractLogConfigMap`` hands these derived values to every topic as its defaults;
* topic (confluentinc/kafka 3.6–3.9: storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java,
  ``getMessageTimestampBeforeMaxMs`` / ``getMessageTimestampAfterMaxMs``): the topic's bound (its override, else
  the broker's derived value) equal to ``Long.MAX_VALUE`` uses the topic's difference (its override, else the
  broker's).

So the rule applies twice for a topic: a broker's derived bound is inherited before the topic's own fallback (a
broker difference of 1 h wins over a topic difference override when the broker's bound is at its default).
Kafka 4.0 removed ``message.timestamp.difference.max.ms`` (and the fallback): from 4.0 the bound is its own value.

The row keeps the key's name and shows the value used: ``value``, ``source``, ``synonym`` (the difference key),
``source_offset`` / ``source_timestamp`` come from the difference, ``value_set`` holds the bound as set, and
``is_assumed`` is true when either is assumed. A fallback that changes nothing (the difference is also
``Long.MAX_VALUE``) leaves the row as it is. NULL or unparseable values never fall back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from schemas.effective import RESOLVED_FIELDS
from schemas.kafka_catalog import applied_rank, release_rank
from schemas.kafka_vocabulary import ResourceType
from schemas.per_cluster import KafkaVersions, PerCluster
from transforms.effective.common import cluster_release, resolved
from transforms.kit.releases import release_rank_column

# Releases (ranks, major * 1000 + minor) with the fallback: 3.6 (KIP-937) up to 3.9; 4.0 removed the key.
FALLBACK_FROM_RANK: Final = 3006
FALLBACK_TO_RANK: Final = 3009
JAVA_LONG_MAX: Final = 9223372036854775807
TOPIC_DIFFERENCE_KEY: Final = "message.timestamp.difference.max.ms"
TOPIC_BOUND_KEYS: Final = ("message.timestamp.before.max.ms", "message.timestamp.after.max.ms")
BROKER_DIFFERENCE_KEY: Final = "log." + TOPIC_DIFFERENCE_KEY
BROKER_BOUND_KEYS: Final = tuple("log." + k for k in TOPIC_BOUND_KEYS)

# The EFFECTIVE_CONFIGS / resolved fields taken from the difference when a bound falls back to it.
_TAKEN: Final = ("value", "value_hash", "source", "synonym", "source_offset", "source_timestamp")


def fallback_planned(release_ranks: Sequence[int], *, kafka_version: KafkaVersions, oldest_release: str | None) -> bool:
    """Whether some broker may apply a 3.6-3.9 catalog release, so the fallbacks below have to be planned.

    A broker takes the newest catalog release (``release_ranks``) not newer than the release it runs, or the
    oldest one when none is (``schemas.kafka_catalog.applied_rank``); ``kafka_version``, when given, is the release of
    every broker. That choice never decreases as the release grows, so when every broker runs at least
    ``oldest_release`` (e.g. an audit's target release: ``audit_scope.with_release_at_least``), no broker applies
    a release older than the one chosen for it. Not planned only when that release is newer than 3.9 (or, with
    ``kafka_version``, outside 3.6-3.9): the fallbacks would change no row. True when unknown. Per cluster: when
    any cluster's release may apply them.

    Raises:
        ConfigError: when ``kafka_version`` or ``oldest_release`` is not a release.
    """
    if isinstance(kafka_version, PerCluster):
        return any(
            fallback_planned(release_ranks, kafka_version=given, oldest_release=oldest_release)
            for given in kafka_version.values()
        )
    wanted = kafka_version or oldest_release
    if wanted is None or not release_ranks:
        return True
    applied = applied_rank(release_ranks, release_rank(wanted))
    if kafka_version:
        return FALLBACK_FROM_RANK <= applied <= FALLBACK_TO_RANK
    return applied <= FALLBACK_TO_RANK


def _is_max(value: Column) -> Column:
    """The value parses as a Java long equal to ``Long.MAX_VALUE`` (false for NULL or unparseable)."""
    return F.coalesce(F.trim(value).try_cast("long") == F.lit(JAVA_LONG_MAX), F.lit(False))


def _in_range(rank: Column) -> Column:
    return F.coalesce(rank.between(FALLBACK_FROM_RANK, FALLBACK_TO_RANK), F.lit(False))


def _falls_back(name: Column, value: Column, rank: Column, bound_keys: tuple[str, ...]) -> Column:
    return name.isin(*bound_keys) & _in_range(rank) & _is_max(value)


def with_broker_timestamp_fallback(broker_df: DataFrame) -> DataFrame:
    """BROKER ``EFFECTIVE_CONFIGS`` rows with the 3.6–3.9 fallback applied to the two broker bounds.

    Each bound row meets its broker's difference row through a window over the broker's rows (one read of them;
    a broker has one row per key, so at most one difference). ``to_broker_effective`` hands its rows over
    partitioned by broker, so the window adds no shuffle. (A filter of the bound rows joined to a filter of the
    difference rows, beside the other rows, read the rows three times. At benchmark L, 1,000 brokers, the broker
    rows with this fallback took 7.1-7.2 s that way and 3.0-3.4 s now, warm, written to the no-op sink.)"""
    columns = broker_df.columns
    rank = release_rank_column(F.col("kafka_release"))
    is_bound = _falls_back(F.col("config_name"), F.col("value"), rank, BROKER_BOUND_KEYS)
    is_difference = F.col("config_name") == BROKER_DIFFERENCE_KEY
    difference = F.max(F.when(is_difference, F.struct(*_TAKEN, "is_assumed"))).over(
        Window.partitionBy("cluster_id", "node_id")
    )
    return _fallen_back(broker_df.select(*columns, F.when(is_bound, difference).alias("d")), columns)


def _fallen_back(joined_df: DataFrame, columns: list[str]) -> DataFrame:
    """``columns`` of rows with the difference each bound falls back to (struct ``d``, NULL for a row without one):
    the difference's value and origin where it is not ``Long.MAX_VALUE`` itself, the bound as set in
    ``value_set``."""
    uses = F.col("d").isNotNull() & ~_is_max(F.col("d.value"))
    replaced = {name: F.when(uses, F.col(f"d.{name}")).otherwise(F.col(name)) for name in _TAKEN}
    replaced["value_set"] = F.when(uses, F.col("value")).otherwise(F.col("value_set"))
    replaced["is_assumed"] = F.col("is_assumed") | (uses & F.coalesce(F.col("d.is_assumed"), F.lit(False)))
    return joined_df.select(*[replaced[c].alias(c) if c in replaced else F.col(c) for c in columns])


def with_view_timestamp_fallback(views_df: DataFrame) -> DataFrame:
    """``to_topic_node_views`` rows (``cluster_id, node_id, config_name, r``) with the fallback applied: what each
    broker's ``extractLogConfigMap`` gives topics as the default bounds."""
    is_bound = _falls_back(F.col("config_name"), F.col("r.value"), F.col("r.release_rank"), TOPIC_BOUND_KEYS)
    flat_df = views_df.where(is_bound).select(
        "cluster_id", "node_id", "config_name", *[F.col(f"r.{name}").alias(name) for name in RESOLVED_FIELDS]
    )
    difference_df = views_df.where(F.col("config_name") == TOPIC_DIFFERENCE_KEY).select(
        "cluster_id", "node_id", F.struct(*[F.col(f"r.{n}").alias(n) for n in (*_TAKEN, "is_assumed")]).alias("d")
    )
    joined_df = flat_df.join(difference_df, on=["cluster_id", "node_id"], how="left")
    fallen_df = _fallen_back(joined_df, flat_df.columns).select(
        "cluster_id", "node_id", "config_name", resolved(**{n: F.col(n) for n in RESOLVED_FIELDS}).alias("r")
    )
    return views_df.where(~is_bound).unionByName(fallen_df)


def with_topic_timestamp_fallback(topic_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    """TOPIC ``EFFECTIVE_CONFIGS`` rows with the topic-level fallback (LogConfig) applied.

    A bound row without ``kafka_release`` (an override) takes the cluster's release (``cluster_release``). A bound
    resolved for all brokers (``node_id`` NULL) whose difference differs per broker becomes one row per broker.

    The rows of the three timestamp keys are read twice (each row, and the differences); the other rows, about 90%
    of a topic's, pass through in one read. The key filters reach the plans that make the rows, so each read makes
    only its own keys' rows. (Measured at L, 4.7 M topic rows made and written with no other work, one process:
    reading every row three times, as before, took 29-32 s of executor CPU; this, 24 s; the rows without any
    fallback, 23-28 s.)
    """
    keys = F.col("config_name").isin(*TOPIC_BOUND_KEYS, TOPIC_DIFFERENCE_KEY)
    other_df = topic_df.where(~keys | F.col("config_name").isNull())
    return other_df.unionByName(_with_topic_fallback(topic_df.where(keys), nodes_df))


def _with_topic_fallback(topic_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    """``with_topic_timestamp_fallback`` of rows that include every bound and difference row of their topics.

    One left join pairs each bound that may fall back with its topic's difference (of the same view; one row per
    pairing, so a shared bound meets per-broker differences as one row per broker); every other row meets no
    difference and stays as it is."""
    columns = topic_df.columns
    releases_df = cluster_release(nodes_df).select("cluster_id", F.col("release_rank").alias("cluster_rank"))
    rank = F.coalesce(release_rank_column(F.col("kafka_release")), F.col("cluster_rank"))
    is_topic = F.col("resource_type") == ResourceType.TOPIC
    may_fall_back = is_topic & _falls_back(F.col("config_name"), F.col("value"), rank, TOPIC_BOUND_KEYS)
    ranked_df = topic_df.join(F.broadcast(releases_df), on="cluster_id", how="left").select(
        *columns, may_fall_back.alias("may_fall_back")
    )
    difference_df = topic_df.where(is_topic & (F.col("config_name") == TOPIC_DIFFERENCE_KEY)).select(
        "cluster_id",
        "resource_name",
        F.col("node_id").alias("d_node"),
        F.struct(*_TAKEN, "is_assumed").alias("d"),
    )
    b, d = ranked_df.alias("b"), difference_df.alias("dif")
    same_view = F.col("b.node_id").isNull() | F.col("d_node").isNull() | (F.col("b.node_id") == F.col("d_node"))
    on = (
        (F.col("b.cluster_id") == F.col("dif.cluster_id"))
        & (F.col("b.resource_name") == F.col("dif.resource_name"))
        & F.col("b.may_fall_back")
        & same_view
    )
    paired_df = b.join(d, on, how="left").select(
        *[F.col(f"b.{c}").alias(c) for c in columns if c != "node_id"],
        F.coalesce(F.col("b.node_id"), F.col("d_node")).alias("node_id"),
        F.col("dif.d").alias("d"),
    )
    return _fallen_back(paired_df, columns)
