"""What one ingest is asked to read (``IngestSettings``, the files found: ``IngestInputs``) and what it reports
(``IngestResult``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jobs.discover import Discovery


@dataclass(frozen=True)
class IngestSettings:
    """What varies per ingest run."""

    inputs: tuple[str, ...]
    warehouse: str
    cluster_id: str | None = None
    static_configs: tuple[str, ...] = ()
    cluster_per_input: bool = False  # name each input directory's cluster after the directory (see discover)


@dataclass(frozen=True)
class IngestInputs:
    """What the ``--input`` and ``--static-config`` arguments expand to, found before Spark starts."""

    discovery: Discovery
    static_configs: tuple[tuple[str, int, str], ...]  # (cluster, node id, absolute path), every part resolved


@dataclass
class IngestResult:
    """What an ingest did, for the summary and for ``run``."""

    ingest_id: str
    clusters: list[str] = field(default_factory=list)
    files_seen: int = 0
    files_ingested: int = 0
    files_unchanged: int = 0
    bytes_ingested: int = 0
    records: int = 0
    quarantined: int = 0
    records_by_type: dict[str, int] = field(default_factory=dict)
    static_config_files: int = 0
    tables: dict[str, str] = field(default_factory=dict)
    # For ``run``'s bronze checks, not the summary (``summary_fields``). No bronze table existed when the ingest
    # began: no earlier ingest of any cluster can have rows waiting to be checked.
    first_ingest: bool = False
    # The rows this ingest wrote, per bronze table, as frames whose plans are local relations in the driver: set
    # when every row it wrote is among them (a small input, read and decoded by the driver), else None.
    written: dict[str, list[Any]] | None = field(default=None, repr=False, compare=False)
    # the versions of each bronze table this ingest committed (``DeltaStore.own_commits``)
    own_commits: dict[str, set[int]] = field(default_factory=dict, repr=False, compare=False)

    def summary_fields(self) -> dict[str, Any]:
        """The fields of the machine-readable summary (counts and names; never a value)."""
        hidden = {"first_ingest", "written", "own_commits"}
        return {name: value for name, value in vars(self).items() if name not in hidden}
