"""Effective configuration of brokers, topics, groups, client-metrics and client entities (see ``resolve``)."""

from transforms.effective.catalog_frames import CatalogFrames, to_catalog_frames
from transforms.effective.resolve import effective_findings, resolve_effective_configs

__all__ = ["CatalogFrames", "effective_findings", "resolve_effective_configs", "to_catalog_frames"]
