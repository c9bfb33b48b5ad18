"""The one settings model of a synthetic fleet: what to generate, and where and how to write it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersionTable

__all__ = ["RELEASES", "RELEASE_WEIGHTS", "FleetSpec", "FleetSpecError", "release_levels"]

# Kafka releases a synthetic cluster runs, and how often each appears in a fleet.
RELEASES: Final = ("3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2", "4.3")
RELEASE_WEIGHTS: Final = (1, 2, 2, 3, 3, 3, 3, 2)

# Where and how a run writes, not what it writes: they never change a byte, so the manifest leaves them out.
_RUN_FIELDS: Final = frozenset({"out", "workers", "overwrite"})


class FleetSpecError(UsageError, ValueError):
    """Settings no fleet can have. A ``UsageError`` (the CLI prints it as one line, exit code 2) and a
    ``ValueError`` (what a bad value is to callers that build a spec in code)."""


@dataclass(frozen=True)
class FleetSpec:
    """What to generate, and where. Every count is exact: ``topics`` live user topics per cluster, each with
    ``partitions`` partitions and ``topic_configs`` distinct overrides (capped by the override pool); ``brokers``
    live brokers.

    ``release_levels`` maps each release in ``RELEASES`` to its current ``metadata.version`` level (the last IV
    of the release, see ``release_levels``); left empty, ``synthetic.fleet.write_fleet`` fills it in from the
    metadata.version table. ``out``, ``workers`` and ``overwrite`` only matter to ``write_fleet``.

    Raises:
        FleetSpecError: A count, rate or size out of range (all problems in one message).
    """

    release_levels: tuple[tuple[str, int], ...] = ()
    clusters: int = 3
    brokers: int = 3
    topics: int = 20
    partitions: int = 3
    topic_configs: int = 3
    violation_rate: float = 0.05
    seed: int = 0
    snapshot: bool = True
    segment_records: int = 100_000
    records_per_batch: int = 64
    batch_interval_ms: int = 500  # time between consecutive batches (the controller's NoOp cadence)
    out: str = ""  # directory the fleet is written into
    workers: int = 0  # parallel processes; 0 = automatic
    overwrite: bool = False  # replace the fleet a previous run wrote into ``out``

    def __post_init__(self) -> None:
        problems = []
        for name, low in (("clusters", 1), ("brokers", 1), ("topics", 0), ("partitions", 1), ("topic_configs", 0)):
            if getattr(self, name) < low:
                problems.append(f"{name} must be at least {low}")
        if not 0.0 <= self.violation_rate <= 1.0:
            problems.append("violation_rate must be between 0 and 1")
        if self.segment_records < 10:
            problems.append("segment_records must be at least 10")
        if self.records_per_batch < 1:
            problems.append("records_per_batch must be at least 1")
        missing = [r for r in RELEASES if r not in dict(self.release_levels)]
        if self.release_levels and missing:
            problems.append(f"release_levels lacks {missing}")
        if self.workers < 0:  # worded as the synth CLI has always reported it
            problems.append("--workers must be 0 (automatic) or more")
        if problems:
            raise FleetSpecError("synth: " + "; ".join(problems))

    def with_release_levels(self, table: MetadataVersionTable) -> FleetSpec:
        """This spec, with ``release_levels`` from ``table`` when it has none.

        Args:
            table: The metadata.version table (``conf/metadata_versions.yaml``).

        Returns:
            The spec, complete for planning.

        Raises:
            FleetSpecError: A release has no production level in ``table``.
        """
        if self.release_levels:
            return self
        try:
            levels = release_levels(table)
        except ValueError as error:
            raise FleetSpecError(f"synth: {error}") from error
        return dataclasses.replace(self, release_levels=levels)

    def parameters(self) -> dict[str, Any]:
        """What was generated, for the manifest: every field but ``out``, ``workers`` and ``overwrite``."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in _RUN_FIELDS}
        out["release_levels"] = dict(self.release_levels)
        return out


def release_levels(table: MetadataVersionTable, releases: Sequence[str] = RELEASES) -> tuple[tuple[str, int], ...]:
    """The current ``metadata.version`` level of each release: the last production IV of that release.

    Args:
        table: The metadata.version table (``conf/metadata_versions.yaml``).
        releases: Releases to map.

    Returns:
        ``((release, level), ...)`` in the order of ``releases``.

    Raises:
        ValueError: A release has no production level in the table.
    """
    result = []
    for release in releases:
        levels = [v.level for v in table.levels if v.release == release and v.production]
        if not levels:
            raise ValueError(f"metadata.version table has no production level for release {release}")
        result.append((release, max(levels)))
    return tuple(result)
