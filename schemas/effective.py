"""Intermediate shapes of effective-config resolution (``transforms.effective``), before gold ``EFFECTIVE_CONFIGS``."""

from __future__ import annotations

from typing import Final

# Columns of a broker layer row: one value of one key at one layer of one broker (``to_broker_layers``).
LAYER_COLUMNS: Final = (
    "cluster_id",
    "node_id",
    "catalog_release",
    "release_rank",
    "resource_name",
    "name",
    "value",
    "value_hash",
    "layer",
    "source",
    "source_offset",
    "source_timestamp",
    "ignored_reason",  # why brokers do not apply the row (NULL: applied)
    "ignored_kind",  # the finding kind of an ignored row: IGNORED_DYNAMIC_CONFIG or INVALID_DYNAMIC_CONFIG
)

# The fields every resolved value carries, in this order, with their types (``transforms.effective.common.resolved``).
RESOLVED_TYPES: Final = {
    "value": "string",
    "value_hash": "string",
    "source": "string",
    "synonym": "string",
    "source_offset": "long",
    "source_timestamp": "timestamp",
    "config_type": "string",
    "is_sensitive": "boolean",
    "kafka_release": "string",
    "release_rank": "int",
    "value_set": "string",
    "is_assumed": "boolean",
}
RESOLVED_FIELDS: Final = tuple(RESOLVED_TYPES)
# The fields two broker views must agree on for a topic or group row to be shared (types and releases aside).
COMPARED_FIELDS: Final = (
    "value",
    "value_hash",
    "source",
    "synonym",
    "source_offset",
    "source_timestamp",
    "value_set",
    "is_assumed",
)
