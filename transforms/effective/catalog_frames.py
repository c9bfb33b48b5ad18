"""Turn a loaded :class:`~schemas.kafka_catalog.KafkaCatalog` into the small lookup DataFrames resolution joins.

``to_catalog_frames(spark, catalog)`` is the only entry point. It builds rows in Python from the (small, already
validated) catalog and creates three DataFrames with the ``schemas.kafka_catalog.CATALOG_*`` shapes; it runs no
Spark job. Jobs build the frames once per run (``jobs.lookups.catalog_frames`` caches them, so the planner knows
they are small) and pass them to ``resolve_effective_configs``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession

from schemas.kafka_catalog import (
    CATALOG_CONFIG_KEYS,
    CATALOG_RELEASES,
    CATALOG_SYNONYMS,
    NEGATIVE_MEANS_UNLIMITED,
    ConfigKey,
    KafkaCatalog,
    ReleaseCatalog,
    release_rank,
)
from schemas.kafka_vocabulary import CONFIG_RESOURCE_TYPES, ResourceType


@dataclass(frozen=True)
class CatalogFrames:
    """Lookup DataFrames of a catalog (shapes ``CATALOG_CONFIG_KEYS``, ``CATALOG_SYNONYMS``, ``CATALOG_RELEASES``)."""

    config_keys_df: DataFrame
    synonyms_df: DataFrame
    releases_df: DataFrame


def _key_row(release: str, resource_type: ResourceType, key: ConfigKey) -> tuple[object, ...]:
    scope = key.dynamic if resource_type == ResourceType.BROKER else None
    prefix_required = key.listener_prefix_required and resource_type == ResourceType.BROKER
    return (
        release,
        resource_type,
        key.name,
        key.type,
        key.default,
        key.sensitive,
        key.internal,
        scope,
        prefix_required,
    )


def _synonym_rows(rel: ReleaseCatalog) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for group in rel.broker_synonym_groups:
        unlimited = group.primary in NEGATIVE_MEANS_UNLIMITED
        rows.extend(
            (rel.release, ResourceType.BROKER, group.primary, member.name, i, member.converter, unlimited)
            for i, member in enumerate(group.members)
        )
    no_server_default = set(rel.topic_configs_without_server_default)
    for topic in rel.topic_synonyms:
        if topic.topic_config in no_server_default:
            continue
        unlimited = topic.topic_config in NEGATIVE_MEANS_UNLIMITED
        rows.extend(
            (rel.release, ResourceType.TOPIC, topic.topic_config, syn.name, i, syn.converter, unlimited)
            for i, syn in enumerate(topic.synonyms)
        )
    rows.extend(
        (rel.release, ResourceType.GROUP, g.group_config, g.broker_config, 0, "NONE", False) for g in rel.group_synonyms
    )
    return rows


def to_catalog_frames(spark: SparkSession, catalog: KafkaCatalog) -> CatalogFrames:
    """Build the lookup frames of every release in ``catalog``.

    Topic keys listed in ``topic_configs_without_server_default`` get no synonym rows, so they resolve to the
    topic default unless set on the topic. Broker synonym groups whose primary is in
    ``NEGATIVE_MEANS_UNLIMITED`` (``log.retention.ms``) and the topic key ``retention.ms`` carry
    ``negative_means_unlimited``.
    """
    key_rows = [
        _key_row(rel.release, resource_type, key)
        for rel in catalog.releases
        for resource_type in CONFIG_RESOURCE_TYPES
        for key in getattr(rel, resource_type.kind)  # ReleaseCatalog names its key lists by kind
    ]
    synonym_rows = [row for rel in catalog.releases for row in _synonym_rows(rel)]
    release_rows = [(rel.release, release_rank(rel.release)) for rel in catalog.releases]
    return CatalogFrames(
        config_keys_df=spark.createDataFrame(key_rows, CATALOG_CONFIG_KEYS),
        synonyms_df=spark.createDataFrame(synonym_rows, CATALOG_SYNONYMS),
        releases_df=spark.createDataFrame(release_rows, CATALOG_RELEASES),
    )
