"""``replay_state``: bronze records → silver cluster state + replay findings (docs/contract.md §4).

Usage (the audit job)::

    state = replay_state(records_df, static_configs_df, mv_table=mv_table, as_of_offset=None, as_of_time=None)
    write(state.brokers, ...); ...; write(with_run_columns(state.findings, run_id=..., run_ts=...), ...)

A pure plan: nothing runs during the call. Each cluster's records are replayed in one ordered pass
(``transforms.replay.cluster_pass``: grouped by cluster, ``transforms.replay.machine`` applies them in order)
whose rows hold every silver table, the findings and the counts at once. That frame and every silver frame pass
through the caller's ``keep`` (``transforms.kit.checkpoints``) under their field name (``replay_pass`` for the first),
so a job replays the records once and lets later plans read the held rows (the audit job checkpoints them:
``jobs.runtime.holding``).

Replaying the same input twice gives identical tables, and byte-identical replica files give the tables of one
copy. See ``transforms.replay.ordering`` for snapshot choice, as-of bounds, replica de-duplication and metadata
transactions, and the modules per table for Kafka's replay rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersionTable
from schemas.replay import REPLAY_COUNTS
from transforms.kit.checkpoints import Keep, as_planned
from transforms.replay.brokers import to_broker_static_configs, to_brokers, to_controllers
from transforms.replay.clients import to_client_entity_configs
from transforms.replay.cluster import to_cluster_state
from transforms.replay.cluster_pass import output, replay_pass
from transforms.replay.configs import to_dynamic_configs
from transforms.replay.features import to_features
from transforms.replay.findings import to_replay_findings
from transforms.replay.topics import to_topics


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
        replay_counts: ``schemas.replay.REPLAY_COUNTS`` (the records replay read per cluster).
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
    replay_counts: DataFrame


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
    pass_df = keep("replay_pass", replay_pass(records_df, as_of_offset=as_of_offset, as_of_time=as_of_time))
    brokers_df = keep("brokers", to_brokers(pass_df, static_configs_df, mv_table=mv_table))
    return ReplayResult(
        brokers=brokers_df,
        broker_static_configs=keep("broker_static_configs", to_broker_static_configs(pass_df, static_configs_df)),
        topics=keep("topics", to_topics(pass_df)),
        dynamic_configs=keep("dynamic_configs", to_dynamic_configs(pass_df)),
        client_entity_configs=keep("client_entity_configs", to_client_entity_configs(pass_df)),
        features=keep("features", to_features(pass_df)),
        controllers=keep("controllers", to_controllers(pass_df)),
        cluster_state=keep("cluster_state", to_cluster_state(pass_df, brokers_df=brokers_df)),
        findings=keep("findings", to_replay_findings(pass_df)),
        replay_counts=output(pass_df, "cluster")
        .select("cluster_id", F.col("stream_records").alias("records"))
        .select(*REPLAY_COUNTS.fieldNames()),
    )
