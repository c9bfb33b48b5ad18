"""Intermediate shapes of the what-if (``transforms.whatif``): change operations as rows, and fallback rows.

``simulate``'s results are ``schemas.changes.SIMULATIONS``; these frames exist only inside a run.
"""

from __future__ import annotations

from typing import Final

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
