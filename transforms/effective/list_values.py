"""LIST values as a 4.2+ broker holds them: without repeated elements.

``ConfigDef.parseValue`` de-duplicates the value of a LIST key whose validator is a ``ValidList``, logging a WARN
("contains duplicate values. Duplicates will be removed"), before the validator sees it (KAFKA-19875; confluentinc/kafka
4.2, 4.3, 4.4 clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java): the broker runs the list of first
occurrences, in order, and DescribeConfigs shows it joined with ``,`` (oracle scenario
``duplicate-list-elements-at-start``: a static ``classic,consumer,classic`` is described as ``classic,consumer`` by
4.2.0, 4.3.1 and 4.4.0, as set by 3.7.2 … 4.1.2). The keys are those of the release catalogs whose validator is a
KIP-1161 ``ValidList`` (``CatalogFrames.deduplicated_lists``); a value without repeated elements is left as set.
"""

from __future__ import annotations

from collections.abc import Collection

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

_SEPARATOR = "\u0000"


def with_deduplicated_lists(rows_df: DataFrame, keys: Collection[tuple[str, str, str]]) -> DataFrame:
    """``rows_df`` (``EFFECTIVE_CONFIGS`` columns) with the ``value`` of each row whose ``(kafka_release,
    resource_type, config_name)`` is in ``keys`` and that repeats an element replaced by its distinct elements."""
    if not keys:
        return rows_df
    wanted = sorted(_SEPARATOR.join(key) for key in keys)
    row_key = F.concat_ws(_SEPARATOR, "kafka_release", "resource_type", "config_name")
    elements = F.split(F.trim(F.col("value")), r"\s*,\s*")
    distinct = F.array_distinct(elements)
    # the cheap tests first: And stops at the first false
    repeated = (F.col("config_type") == "LIST") & row_key.isin(wanted) & (F.size(distinct) < F.size(elements))
    return rows_df.withColumn("value", F.when(repeated, F.array_join(distinct, ",")).otherwise(F.col("value")))
