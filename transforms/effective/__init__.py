"""Effective configuration of brokers, topics, groups, client-metrics and client entities (see ``resolve``)."""

from transforms.effective.catalog_frames import CatalogFrames, to_catalog_frames
from transforms.effective.resolve import (
    effective_findings,
    resolve_effective_configs,
    resolve_without_node_layer,
    resolve_without_overrides,
    unapplied_layer_rows,
)

__all__ = [
    "CatalogFrames",
    "effective_findings",
    "resolve_effective_configs",
    "resolve_without_node_layer",
    "resolve_without_overrides",
    "to_catalog_frames",
    "unapplied_layer_rows",
]
