"""The tables an audit writes, and how: state tables replaced per cluster, run tables appended per run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from jobs import upgrade_effects
from jobs.runtime.holding import by_cluster
from jobs.storage import DeltaStore
from schemas import gold, silver
from schemas.upgrade_effects import UPGRADE_EFFECTS
from schemas.violations import HIGHEST_SAFE_LEVELS, VIOLATIONS, VIOLATIONS_BY_LEVEL

# Tables describing the latest audited state: replaced per cluster on every audit.
STATE_TABLES: dict[str, Any] = {
    "brokers": silver.BROKERS,
    "broker_static_configs": silver.BROKER_STATIC_CONFIGS,
    "topics": silver.TOPICS,
    "dynamic_configs": silver.DYNAMIC_CONFIGS,
    "client_entity_configs": silver.CLIENT_ENTITY_CONFIGS,
    "features": silver.FEATURES,
    "controllers": silver.CONTROLLERS,
    "cluster_state": silver.CLUSTER_STATE,
    "effective_configs": gold.EFFECTIVE_CONFIGS,
}


# Tables that keep every run.
RUN_TABLES: dict[str, Any] = {
    "violations": VIOLATIONS,
    "findings": gold.FINDINGS,
    "violations_by_level": gold.with_run_columns(VIOLATIONS_BY_LEVEL),
    "highest_safe_levels": gold.with_run_columns(HIGHEST_SAFE_LEVELS),
    upgrade_effects.TABLE: gold.with_run_columns(UPGRADE_EFFECTS),
}


def replace_state(store: DeltaStore, table: str, df: DataFrame, clusters: list[str], *, local_rows: int) -> int:
    """Replace ``clusters``' partitions of a state table with ``df``; the version of the commit."""
    schema = STATE_TABLES[table]
    store.ensure(table, schema, ["cluster_id"])
    return store.replace_partitions(
        table, by_cluster(df.select(*schema.names), local_rows=local_rows), {"cluster_id": clusters}
    )


def append_run(store: DeltaStore, table: str, df: DataFrame, *, local_rows: int) -> int:
    """Append one run's rows to a run table; the version of the commit."""
    schema = RUN_TABLES[table]
    store.ensure(table, schema, ["cluster_id"])
    return store.append(table, by_cluster(df.select(*schema.names), local_rows=local_rows))


def with_run(df: DataFrame, run_id: str, run_ts: datetime) -> DataFrame:
    """``df`` with the run's ``run_id`` and ``run_ts`` in front."""
    return df.select(F.lit(run_id).alias("run_id"), F.lit(run_ts).cast("timestamp").alias("run_ts"), "*")


def only_clusters(df: DataFrame, clusters: Sequence[str]) -> DataFrame:
    """The rows of ``clusters`` (all rows when none is named)."""
    return df.filter(F.col("cluster_id").isin(list(clusters))) if clusters else df
