"""Intermediate shapes of the what-if (``transforms.whatif``): change operations as rows, and fallback rows.

``simulate``'s results are ``schemas.changes.SIMULATIONS``; these frames exist only inside a run.
"""

from __future__ import annotations

from typing import Final

from schemas.kafka_vocabulary import ConfigSource

# One row per operation of a change (legacy `replace` entries contribute a SET per listed key).
OPS_DDL: Final = (
    "seq int, explicit boolean, cluster_id string, resource_type string, resource_name string, layer string, "
    "op string, key string, value string, value_hash string"
)
# One row per legacy `replace` entry: the keys it keeps (every other key stored at that layer is deleted).
REPLACE_DDL: Final = (
    "seq int, explicit boolean, cluster_id string, resource_type string, resource_name string, layer string, "
    "keep_keys array<string>"
)

# The override layers a remediation may delete (the `deleted_source` of a fallback row): the value below each one
# is found by resolving the state without it. Client-metrics subscriptions have no defaults and a client entity's
# key falls back to other entities' entries, so their fixes stay SETs.
FALLBACK_SOURCES: Final = (
    ConfigSource.DYNAMIC_BROKER_CONFIG,
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    ConfigSource.DYNAMIC_TOPIC_CONFIG,
    ConfigSource.DYNAMIC_GROUP_CONFIG,
)

# What a key resolves to once the override it comes from is deleted (`resolve_fallbacks`): the EFFECTIVE_CONFIGS
# columns that remediation needs, plus the layer removed.
FALLBACK_COLUMNS: Final = (
    "cluster_id",
    "resource_type",
    "resource_name",
    "node_id",
    "config_name",
    "deleted_source",
    "value",
    "value_hash",
    "is_sensitive",
    "config_type",
    "source",
    "synonym",
)
