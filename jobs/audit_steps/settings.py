"""What one audit is asked to do (``AuditSettings``, from the command line or a caller) and what it gives
back (``AuditResult``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from jobs.summary import RunSummary
from schemas.constraints import CompiledCatalog
from schemas.lifecycle import Waiver
from schemas.metadata_version import MetadataVersion
from schemas.per_cluster import KafkaVersions, PerCluster
from schemas.upgrade_effects import UpgradeWith

# The compiled constraint catalogs of a run and the files they came from.
Rules = tuple[CompiledCatalog, list[str]]


@dataclass(frozen=True)
class AuditSettings:
    """What varies per audit run."""

    # ``--target-mv``, ``--kafka-version`` and ``--upgrade-with``: the run's value, or a PerCluster with some
    # clusters' own (schemas.per_cluster)
    target_mv: str | PerCluster[str]
    warehouse: str
    command: str = "audit"
    as_of_offset: int | None = None
    as_of_time: datetime | None = None
    constraints: tuple[str, ...] = ()
    no_default_constraints: bool = False
    cluster_ids: tuple[str, ...] = ()
    kafka_version: KafkaVersions = None
    waivers: tuple[Waiver, ...] = ()  # validated --waivers files
    run_id: str | None = None  # given by `run`/`gate`, whose bronze checks carry the same id
    dq: bool = True  # the data-quality stage (--no-dq skips it)
    upgrade_with: UpgradeWith | PerCluster[UpgradeWith] = UpgradeWith.RELEASE_VERSION  # the kafka-features.sh form
    # Delta time travel: the bronze tables as the warehouse held them at metadata_records' version N, or at an instant
    warehouse_version: int | None = None
    warehouse_as_of: datetime | None = None

    @property
    def point_in_time(self) -> bool:
        """An audit of a past state (of the log or of the warehouse), which must not move the current lifecycle."""
        return any(
            v is not None for v in (self.as_of_offset, self.as_of_time, self.warehouse_version, self.warehouse_as_of)
        )


@dataclass
class AuditResult:
    """What an audit found, for summaries, gates and tests."""

    run_id: str
    run_ts: datetime
    target: MetadataVersion
    summary: RunSummary
    violations: list[dict[str, Any]] = field(default_factory=list)
    exit_code: int = 0
