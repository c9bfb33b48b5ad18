"""``replay_state``: bronze records → silver cluster state + replay findings (docs/contract.md §4).

Usage (the audit job)::

    state = replay_state(records_df, static_configs_df, mv_table=mv_table, as_of_offset=None, as_of_time=None)
    write(state.brokers, ...); ...; write(with_run_columns(state.findings, run_id=..., run_ts=...), ...)

A pure plan: nothing runs during the call. The replay bounds, the replay stream, the applied records with their
parsed payloads (read by every silver frame) and every silver frame pass through the caller's ``keep``
(``transforms.checkpoints``) under their field name (``replay_bounds``, ``replay_stream`` and ``parsed_records``
for the first three), so a job can compute each once and let later plans read the stored rows instead of
re-planning the lineage (the audit job checkpoints them: ``jobs.stages``).

Replaying the same input twice gives identical tables, and byte-identical replica files give the tables of one
copy. See ``transforms.replay.ordering`` for snapshot choice,
as-of bounds, replica de-duplication and metadata transactions, and the modules per table for Kafka's replay
rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pyspark.sql import DataFrame

from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersionTable
from transforms.checkpoints import Keep, as_planned
from transforms.replay.brokers import to_broker_static_configs, to_brokers, to_controllers
from transforms.replay.clients import to_client_entity_configs
from transforms.replay.cluster import to_cluster_state
from transforms.replay.configs import to_dynamic_configs
from transforms.replay.features import to_features
from transforms.replay.findings import to_replay_findings
from transforms.replay.ordering import filter_applied, to_replay_bounds, to_replay_stream
from transforms.replay.payloads import with_parsed_payloads
from transforms.replay.topics import to_topic_ids, to_topics


@dataclass(frozen=True)
class ReplayResult:
    """Silver state of every cluster at the audited offset.

    Attributes:
        brokers: ``schemas.silver.BROKERS``.
        broker_static_configs: ``BROKER_STATIC_CONFIGS``.
        topics: ``TOPICS``.
        dynamic_configs: ``DYNAMIC_CONFIGS``.
        client_entity_configs: ``CLIENT_ENTITY_CONFIGS``.
        features: ``FEATURES``.
        controllers: ``CONTROLLERS``.
        cluster_state: ``CLUSTER_STATE``.
        findings: ``schemas.gold.FINDING_ROWS`` (gold FINDINGS without run_id / run_ts).
        applied_records: ``schemas.replay.APPLIED_RECORDS``, what every silver frame is built from.
        replay_stream: ``schemas.replay.REPLAY_STREAM`` (all de-duplicated records with decisions).
    """

    brokers: DataFrame
    broker_static_configs: DataFrame
    topics: DataFrame
    dynamic_configs: DataFrame
    client_entity_configs: DataFrame
    features: DataFrame
    controllers: DataFrame
    cluster_state: DataFrame
    findings: DataFrame
    applied_records: DataFrame
    replay_stream: DataFrame


def replay_state(
    records_df: DataFrame,
    static_configs_df: DataFrame,
    *,
    mv_table: MetadataVersionTable,
    as_of_offset: int | None = None,
    as_of_time: datetime | None = None,
    keep: Keep = as_planned,
) -> ReplayResult:
    """Replay bronze ``METADATA_RECORDS`` (all clusters) into silver state.

    Args:
        records_df: bronze ``METADATA_RECORDS``.
        static_configs_df: bronze ``STATIC_CONFIGS`` (``--static-config`` server.properties rows).
        mv_table: the metadata.version table (gives each broker's ``kafka_release``).
        as_of_offset: replay log records with offset ≤ this (inclusive); None = to the end.
        as_of_time: stop at the first log record stamped after this instant (naive = UTC); None = no limit.
        keep: how the caller holds each reused frame (default: the plan as it is).

    Raises:
        UsageError: a negative ``as_of_offset``.
    """
    if as_of_offset is not None and as_of_offset < 0:
        raise UsageError(f"--as-of-offset must be ≥ 0, got {as_of_offset}")
    bounds_df = keep("replay_bounds", to_replay_bounds(records_df, as_of_offset=as_of_offset, as_of_time=as_of_time))
    stream_df = keep("replay_stream", to_replay_stream(records_df, bounds_df))
    applied_df = filter_applied(stream_df)
    parsed_df = keep("parsed_records", with_parsed_payloads(applied_df))  # every payload parsed once
    brokers_df = keep("brokers", to_brokers(parsed_df, static_configs_df, mv_table=mv_table))
    # the topic ids, created and removed: one aggregate, planned into the topics and the dynamic configs (a removal
    # drops the configs). Not held: at L each reader aggregating it is faster than holding it (8.3-9.7 s for both
    # frames, against 9.3-13.2 s held; 12.1-16.2 s before, with two aggregates and a join each)
    topic_ids_df = to_topic_ids(parsed_df)
    topics_df = keep("topics", to_topics(parsed_df, topic_ids_df))
    features_df = keep("features", to_features(parsed_df))
    return ReplayResult(
        brokers=brokers_df,
        broker_static_configs=keep("broker_static_configs", to_broker_static_configs(parsed_df, static_configs_df)),
        topics=topics_df,
        dynamic_configs=keep("dynamic_configs", to_dynamic_configs(parsed_df, topic_ids_df)),
        client_entity_configs=keep("client_entity_configs", to_client_entity_configs(parsed_df)),
        features=features_df,
        controllers=keep("controllers", to_controllers(parsed_df)),
        cluster_state=keep(
            "cluster_state",
            to_cluster_state(bounds_df, stream_df, brokers_df=brokers_df, topics_df=topics_df, features_df=features_df),
        ),
        findings=keep("findings", to_replay_findings(stream_df)),
        applied_records=applied_df,
        replay_stream=stream_df,
    )
