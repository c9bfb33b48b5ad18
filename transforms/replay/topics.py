"""Topics at the audited offset (silver ``TOPICS``) and topic removals.

* A ``TOPIC_RECORD`` creates a topic (name, id); a later ``REMOVE_TOPIC_RECORD`` with its id drops it. Ids are
  unique per creation, so a topic re-created with the same name is a new topic.
* Partitions come from ``PARTITION_RECORD`` (one per partition id; a repeated record replaces the earlier one).
  A ``PARTITION_CHANGE_RECORD`` of a partition no ``PARTITION_RECORD`` created is skipped: Kafka cannot apply it
  (``TopicDelta.replay(PartitionChangeRecord)`` throws "Unable to find partition", confluentinc/kafka 4.2
  metadata/src/main/java/org/apache/kafka/image/TopicDelta.java).
  A partition's replicas are those of the newest ``PARTITION_RECORD`` or ``PARTITION_CHANGE_RECORD`` whose
  ``replicas`` is present (a change record without ``replicas`` leaves them as they are).
* A partition's adding replicas (a reassignment in progress) follow the same rule: a ``PARTITION_RECORD`` sets them
  (absent: none), a ``PARTITION_CHANGE_RECORD`` replaces them when its ``addingReplicas`` is present
  (``PartitionRegistration.merge``, confluentinc/kafka 4.2 metadata/src/main/java/org/apache/kafka/metadata/).
* ``replication_factor`` is the largest partition replication factor (NULL when the topic has no replicas), where a
  partition's is its replicas without the adding ones, as ``kafka-topics --describe`` reports it during a
  reassignment (``TopicCommand.getReplicationFactor``: replicas - addingReplicas, confluentinc/kafka 4.2
  tools/src/main/java/org/apache/kafka/tools/TopicCommand.java); ``replica_nodes`` the sorted distinct brokers
  hosting any replica, adding ones included.
* ``internal`` follows Kafka's ``Topic.isInternal``: exactly ``__consumer_offsets``, ``__transaction_state`` and
  ``__share_group_state``. Other names starting with ``__`` (``__remote_log_metadata``, Connect or Streams
  topics) are ordinary topics to Kafka and stay ``internal = false``.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.silver import TOPICS
from transforms.replay.payloads import filter_parsed, payload_column

INTERNAL_TOPICS: Final = ("__consumer_offsets", "__transaction_state", "__share_group_state")


def to_topic_ids(applied_df: DataFrame) -> DataFrame:
    """``(cluster_id, topic_id, topic_name, created_seq, created_offset, removed_seq)``: every topic id an applied
    ``TOPIC_RECORD`` created (its last such record), with the last ``REMOVE_TOPIC_RECORD`` of that id (NULL: none).

    One aggregate over the rows of both record types of the parsed applied records (``with_parsed_payloads``);
    the live topics and the removed topic names are read from it (``to_topics``, ``to_removed_topic_names``)."""
    created = F.col(payload_column("TOPIC_RECORD"))
    removed = F.col(payload_column("REMOVE_TOPIC_RECORD"))
    is_created = (F.col("record_type") == "TOPIC_RECORD") & created["topicId"].isNotNull() & created["name"].isNotNull()
    is_removed = (F.col("record_type") == "REMOVE_TOPIC_RECORD") & removed["topicId"].isNotNull()
    return (
        applied_df.where(is_created | is_removed)
        .select(
            "cluster_id",
            F.when(is_created, created["topicId"]).otherwise(removed["topicId"]).alias("topic_id"),
            F.when(is_created, F.struct(created["name"].alias("name"), "seq", "offset")).alias("c"),
            F.when(is_removed, F.col("seq")).alias("removed_seq"),
        )
        .groupBy("cluster_id", "topic_id")
        .agg(F.max_by("c", F.col("c.seq")).alias("t"), F.max("removed_seq").alias("removed_seq"))
        .where(F.col("t").isNotNull())  # a removal of an id no TopicRecord created removes nothing
        .select(
            "cluster_id",
            "topic_id",
            F.col("t.name").alias("topic_name"),
            F.col("t.seq").alias("created_seq"),
            F.col("t.offset").alias("created_offset"),
            "removed_seq",
        )
    )


def to_removed_topic_names(topic_ids_df: DataFrame) -> DataFrame:
    """``(cluster_id, topic_name, removed_seq)``: when a topic of that name was last removed (names via ids;
    ``topic_ids_df``: ``to_topic_ids``)."""
    return (
        topic_ids_df.where(F.col("removed_seq") > F.col("created_seq"))
        .groupBy("cluster_id", "topic_name")
        .agg(F.max("removed_seq").alias("removed_seq"))
    )


def _live_topics(topic_ids_df: DataFrame) -> DataFrame:
    return topic_ids_df.where(F.col("removed_seq").isNull() | (F.col("removed_seq") < F.col("created_seq"))).drop(
        "removed_seq"
    )


def _partitions(applied_df: DataFrame) -> DataFrame:
    """``(cluster_id, topic_id, partitions, replication_factor, replica_nodes)`` per topic id."""
    records_df = (
        filter_parsed(applied_df, "PARTITION_RECORD")
        .withColumn("adding", F.coalesce(F.col("p.addingReplicas"), F.array().cast("array<int>")))
        .unionByName(
            filter_parsed(applied_df, "PARTITION_CHANGE_RECORD").withColumn("adding", F.col("p.addingReplicas"))
        )
        .where(F.col("p.topicId").isNotNull() & F.col("p.partitionId").isNotNull())
    )
    # one aggregate per partition (the payloads are parsed once): a partition exists once a PARTITION_RECORD created it
    replicas_df = (
        records_df.groupBy(
            "cluster_id", F.col("p.topicId").alias("topic_id"), F.col("p.partitionId").alias("partition_id")
        )
        .agg(
            F.max(F.col("record_type") == "PARTITION_RECORD").alias("created"),
            F.max_by(F.col("p.replicas"), F.when(F.col("p.replicas").isNotNull(), F.col("seq"))).alias("replicas"),
            F.max_by(F.col("adding"), F.when(F.col("adding").isNotNull(), F.col("seq"))).alias("adding"),
        )
        .where(F.col("created"))
        .select(
            "*",
            F.size(F.array_except("replicas", F.coalesce("adding", F.array().cast("array<int>")))).alias("rf"),
        )
    )
    return replicas_df.groupBy("cluster_id", "topic_id").agg(
        F.count(F.lit(1)).cast("int").alias("partitions"),
        F.max(F.coalesce(F.col("rf"), F.lit(0))).alias("rf"),
        F.max(F.col("replicas").isNotNull()).alias("has_replicas"),
        F.array_sort(
            F.array_distinct(F.flatten(F.collect_list(F.coalesce(F.col("replicas"), F.array().cast("array<int>")))))
        ).alias("replica_nodes"),
    )


def to_topics(applied_df: DataFrame, topic_ids_df: DataFrame) -> DataFrame:
    """Silver ``TOPICS`` from the parsed applied records (``with_parsed_payloads``) and their ``to_topic_ids``.
    Partition records of removed topics are ignored."""
    empty_nodes = F.array().cast("array<int>")
    return (
        _live_topics(topic_ids_df)
        .join(_partitions(applied_df), on=["cluster_id", "topic_id"], how="left")
        .select(
            F.col("cluster_id"),
            F.col("topic_id"),
            F.col("topic_name"),
            F.coalesce(F.col("partitions"), F.lit(0)).alias("partitions"),
            F.when(F.col("has_replicas"), F.col("rf")).cast("int").alias("replication_factor"),
            F.col("topic_name").isin(*INTERNAL_TOPICS).alias("internal"),
            F.array_compact(F.coalesce(F.col("replica_nodes"), empty_nodes)).alias("replica_nodes"),
            F.col("created_offset"),
        )
        .select(*TOPICS.fieldNames())
    )
