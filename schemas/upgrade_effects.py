"""The upgrade's own side effects: configs the feature update itself would write (docs/contract.md §6.1, §5.7).

``UPGRADE_EFFECTS`` is the per-run table (``gold.with_run_columns`` adds ``run_id`` / ``run_ts``): one row per
cluster, target and config the upgrade command would set or delete, with the values before and after and the
Kafka mechanism that writes it. ``UpgradeWith`` names the command forms ``--upgrade-with`` accepts.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from pyspark.sql.types import BooleanType, IntegerType, LongType, StringType, StructField, StructType


class UpgradeWith(StrEnum):
    """How the operator raises the metadata.version (``kafka-features.sh upgrade ...``).

    ``RELEASE_VERSION`` (``--release-version X``, the form Kafka's docs recommend) moves every production feature
    to its default level at X; ``METADATA`` (``--metadata X``, deprecated) moves only ``metadata.version``.
    """

    RELEASE_VERSION = "release-version"
    METADATA = "metadata"


UPGRADE_EFFECTS: Final = StructType(
    [
        StructField("cluster_id", StringType(), False),
        StructField("target_mv", StringType(), False),
        StructField("target_level", IntegerType(), False),
        StructField("upgrade_with", StringType(), False),  # UpgradeWith value
        StructField("command", StringType(), False),  # the kafka-features.sh command whose effect this is
        StructField("feature", StringType(), False),  # the feature update that triggers it
        StructField("feature_level_before", IntegerType(), False),  # finalized level now (0 = not set)
        StructField("feature_level_after", IntegerType(), False),  # level the command requests
        StructField("resource_type", StringType(), False),  # BROKER
        StructField("resource_name", StringType(), False),  # "" = cluster default, else the broker id
        StructField("config_name", StringType(), False),
        StructField("operation", StringType(), False),  # AlterConfigOpType: SET or DELETE
        StructField("value_before", StringType(), True),  # null: not set at that layer
        StructField("value_after", StringType(), True),  # null: deleted
        StructField("source_offset_before", LongType(), True),  # offset of the record that set value_before
        StructField("value_origin", StringType(), True),  # SET: STATIC_BROKER_CONFIG (a controller's) or DEFAULT_CONFIG
        StructField("controller_node_id", IntegerType(), True),  # the controller whose server.properties gave it
        StructField("is_assumed", BooleanType(), False),  # value_after is not known from the controller's file
        StructField("mechanism", StringType(), False),  # what in Kafka writes the record
        StructField("reference", StringType(), False),  # repository, branch and file of that code
        StructField("message", StringType(), False),
    ]
)
UPGRADE_EFFECTS_PARTITIONS: Final = ("cluster_id",)
