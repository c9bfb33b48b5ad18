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

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.silver import TOPICS
from transforms.replay.cluster_pass import output


def to_topics(pass_df: DataFrame) -> DataFrame:
    """Silver ``TOPICS`` from the replay pass (``transforms.replay.cluster_pass``)."""
    # array_compact: the pass's nodes are never NULL, and the table's array says so (containsNull false)
    return output(pass_df, "topic").select(
        *[F.array_compact(name).alias(name) if name == "replica_nodes" else F.col(name) for name in TOPICS.fieldNames()]
    )
