"""Variants of the cluster state resolved together: the what-if of ``simulate`` and the remediation fallbacks.

``resolution_state`` builds a state to resolve from its frames (e.g. the stored silver tables), ``with_layers``
swaps its configuration layers (``changes.apply_changes``), ``union_scenarios`` combines tagged variants into one
state; ``tagged`` / ``untagged`` add and remove a scenario tag on ``cluster_id`` (``c1`` → ``c1`` +
``SCENARIO_SEPARATOR`` + tag).

Effective resolution (``transforms.effective.resolve_effective_configs``) works per cluster. Several variants of
one state are resolved in a single call by giving each variant's clusters a tagged id (``c1`` + U+001F +
``after``): one set of Spark jobs and checkpoints instead of one per variant, and each variant is resolved by
exactly the code that resolved the audited state. Tagged ids never reach a table: callers ``untagged`` the rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import reduce
from typing import Final

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from schemas.gold import FINDING_ROWS
from schemas.replay import REPLAY_COUNTS
from schemas.silver import CLUSTER_STATE, CONTROLLERS, FEATURES
from transforms.replay.state import ReplayResult
from transforms.whatif.changes import ConfigLayers

__all__ = [
    "RESOLUTION_INPUTS",
    "SCENARIO_SEPARATOR",
    "resolution_state",
    "tagged",
    "union_scenarios",
    "untagged",
    "with_layers",
]

SCENARIO_SEPARATOR: Final = "\u001f"
# The ReplayResult frames the effective resolution reads (all keyed by cluster_id).
# (``controllers``: which nodes' view decides the topic keys the active controller enforces)
RESOLUTION_INPUTS: Final = (
    "brokers",
    "broker_static_configs",
    "topics",
    "dynamic_configs",
    "client_entity_configs",
    "controllers",
)


def resolution_state(
    spark: SparkSession,
    *,
    brokers: DataFrame,
    broker_static_configs: DataFrame,
    topics: DataFrame,
    dynamic_configs: DataFrame,
    client_entity_configs: DataFrame,
    controllers: DataFrame | None = None,
    cluster_state: DataFrame | None = None,
) -> ReplayResult:
    """A ReplayResult holding the frames resolution needs; the replay-only frames are empty."""

    def empty(schema: StructType) -> DataFrame:
        return spark.createDataFrame([], schema)

    return ReplayResult(
        brokers=brokers,
        broker_static_configs=broker_static_configs,
        topics=topics,
        dynamic_configs=dynamic_configs,
        client_entity_configs=client_entity_configs,
        features=empty(FEATURES),
        controllers=controllers if controllers is not None else empty(CONTROLLERS),
        cluster_state=cluster_state if cluster_state is not None else empty(CLUSTER_STATE),
        findings=empty(FINDING_ROWS),
        replay_counts=empty(REPLAY_COUNTS),
    )


def with_layers(state: ReplayResult, layers: ConfigLayers) -> ReplayResult:
    """``state`` with its configuration layers replaced (e.g. by ``changes.apply_changes``)."""
    return dataclasses.replace(
        state,
        dynamic_configs=layers.dynamic_configs,
        broker_static_configs=layers.broker_static_configs,
        client_entity_configs=layers.client_entity_configs,
    )


def tagged(df: DataFrame, tag: str) -> DataFrame:
    """``df`` with every ``cluster_id`` suffixed by the scenario tag (column order kept)."""
    suffix = F.lit(SCENARIO_SEPARATOR + tag)
    return df.select(*[(F.concat(F.col(c), suffix).alias(c) if c == "cluster_id" else F.col(c)) for c in df.columns])


def untagged(df: DataFrame, tag: str) -> DataFrame:
    """The rows of scenario ``tag`` with their original ``cluster_id`` (column order kept)."""
    suffix = SCENARIO_SEPARATOR + tag
    original = F.substring_index(F.col("cluster_id"), SCENARIO_SEPARATOR, 1)
    return df.where(F.col("cluster_id").endswith(suffix)).select(
        *[(original.alias(c) if c == "cluster_id" else F.col(c)) for c in df.columns]
    )


def union_scenarios(scenarios: Mapping[str, ReplayResult]) -> ReplayResult:
    """One state holding every scenario under its tag (only ``RESOLUTION_INPUTS`` and ``cluster_state`` are
    combined; the replay-only frames are those of the first scenario)."""
    if not scenarios:
        raise ValueError("union_scenarios needs at least one scenario")
    first = next(iter(scenarios.values()))

    def combined(name: str) -> DataFrame:
        frames = [tagged(getattr(state, name), tag) for tag, state in scenarios.items()]
        return reduce(DataFrame.unionByName, frames)

    return dataclasses.replace(
        first, cluster_state=combined("cluster_state"), **{name: combined(name) for name in RESOLUTION_INPUTS}
    )
