"""Plan a fleet: the fixed facts of each cluster (release, ids, nodes, racks, clock), drawn from ``(seed, index)``
alone, so clusters can be generated in any order or in parallel processes and still come out byte-identical."""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from synthetic.pools import ENVS, RACK_SETS, TEAMS
from synthetic.spec import RELEASE_WEIGHTS, RELEASES, FleetSpec

__all__ = ["BASE_TIMESTAMP_MS", "ClusterPlan", "new_uuid", "plan_cluster", "plan_fleet", "seed_for"]

BASE_TIMESTAMP_MS: Final = 1_735_689_600_000  # 2025-01-01T00:00:00Z; clusters start up to ~300 days later


@dataclass(frozen=True)
class ClusterPlan:
    """The fixed facts of one synthetic cluster, drawn from ``(seed, index)``."""

    index: int
    name: str  # also its directory name
    cluster_id: str
    seed: int
    release: str
    level: int  # metadata.version level at the end of the log
    bootstrap_level: int  # level the cluster was formatted with (< level when its MV lags its binaries)
    static_configs: bool  # brokers register with RegisterBrokerRecord v5 staticConfigs
    dedicated_controllers: bool
    controller_ids: tuple[int, ...]
    broker_ids: tuple[int, ...]  # live brokers at the end of the log
    unregistered_broker_id: int  # registered, then decommissioned
    racks: tuple[str, ...] | None
    base_timestamp_ms: int
    first_epoch: int


def seed_for(seed: int, *parts: object) -> int:
    """A stable 64-bit seed for a sub-stream (independent of Python's hash randomisation)."""
    text = ":".join(str(p) for p in (seed, *parts)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def new_uuid(rng: random.Random) -> str:
    """A Kafka uuid as 22-char URL-safe base64; like ``Uuid.randomUuid`` never one starting with ``-``."""
    while True:
        text = base64.urlsafe_b64encode(rng.randbytes(16)).decode("ascii")[:22]
        if text[0] != "-":
            return text


def plan_cluster(spec: FleetSpec, index: int) -> ClusterPlan:
    """Draw the fixed facts of cluster ``index`` from ``(spec.seed, index)``.

    Args:
        spec: The fleet.
        index: 0-based cluster index.

    Returns:
        The cluster's plan.

    Raises:
        ValueError: ``spec.release_levels`` is empty (see ``FleetSpec.with_release_levels``).
    """
    if not spec.release_levels:
        raise ValueError("FleetSpec.release_levels is empty: fill it in with FleetSpec.with_release_levels")
    seed = seed_for(spec.seed, "cluster", index)
    rng = random.Random(seed)
    levels = dict(spec.release_levels)
    release = rng.choices(RELEASES, weights=RELEASE_WEIGHTS)[0]
    level = levels[release]
    position = RELEASES.index(release)
    # One cluster in five runs new binaries at the previous release's MV and finalizes the upgrade later.
    lagging = position > 0 and rng.random() < 0.2
    bootstrap_level = levels[RELEASES[position - 1]] if lagging else level
    dedicated = rng.random() < 0.5
    n_controllers = 3 if dedicated or spec.brokers >= 3 else 1
    broker_ids = tuple(range(1, spec.brokers + 1))
    controller_ids = tuple(range(3000, 3000 + n_controllers)) if dedicated else broker_ids[:n_controllers]
    racks = rng.choice(RACK_SETS) if rng.random() < 0.7 else None
    return ClusterPlan(
        index=index,
        name=f"{rng.choice(ENVS)}-{rng.choice(TEAMS)}-{index:03d}",
        cluster_id=new_uuid(rng),
        seed=seed,
        release=release,
        level=level,
        bootstrap_level=bootstrap_level,
        static_configs=rng.random() < 0.6,
        dedicated_controllers=dedicated,
        controller_ids=controller_ids,
        broker_ids=broker_ids,
        unregistered_broker_id=spec.brokers + 1,
        racks=racks,
        base_timestamp_ms=BASE_TIMESTAMP_MS + rng.randrange(300) * 86_400_000 + rng.randrange(86_400_000),
        first_epoch=rng.randint(1, 40),
    )


def plan_fleet(spec: FleetSpec) -> Iterator[ClusterPlan]:
    """The plans of every cluster of the fleet, lazily."""
    for index in range(spec.clusters):
        yield plan_cluster(spec, index)
