"""The metadata.version table as a validated model (loaded from ``conf/metadata_versions.yaml`` by jobs)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator


class MetadataVersion(BaseModel):
    """One feature level of ``metadata.version``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    level: int
    name: str  # "4.4-IV1"
    release: str  # "4.4"
    metadata_changed: bool
    production: bool
    removed_in: str | None = None
    description: str = ""

    @property
    def ibp(self) -> str:
        """The Java enum constant name, e.g. ``IBP_4_4_IV1``."""
        return "IBP_" + self.name.replace(".", "_").replace("-", "_")


class ReleaseFeatures(BaseModel):
    """What a broker binary of one Kafka release registers as supported, and what it accepts as production."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    release: str  # "4.4"
    latest_production_mv: str  # MetadataVersion.LATEST_PRODUCTION on that release's branch, e.g. "4.3-IV0"
    features: dict[str, int]  # feature -> the maximum level its registration supports (absent = 0)


class MetadataVersionTable(BaseModel):
    """All known levels, ascending, without gaps; and per release the feature ranges its brokers register."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    levels: tuple[MetadataVersion, ...]
    releases: tuple[ReleaseFeatures, ...] = ()

    @model_validator(mode="after")
    def _levels_are_contiguous(self) -> MetadataVersionTable:
        expected = list(range(1, len(self.levels) + 1))
        if [v.level for v in self.levels] != expected:
            raise ValueError("metadata.version levels must be 1..N in order without gaps")
        return self

    @model_validator(mode="after")
    def _release_facts_name_known_levels(self) -> MetadataVersionTable:
        names = {v.name for v in self.levels}
        for entry in self.releases:
            if entry.latest_production_mv not in names:
                raise ValueError(f"release {entry.release}: unknown latest_production_mv {entry.latest_production_mv}")
        return self

    def production_levels(self, release: str) -> tuple[MetadataVersion, ...] | None:
        """The levels release ``release`` accepts as production (``MetadataVersion.fromVersionString`` of its
        branch without unstable versions, from the table's oldest level on), or None when the release is unknown."""
        entry = next((r for r in self.releases if r.release == release), None)
        if entry is None:
            return None
        top = next(v.level for v in self.levels if v.name == entry.latest_production_mv)
        return tuple(v for v in self.levels if v.level <= top)

    def by_level(self, level: int) -> MetadataVersion | None:
        """The entry for a feature level, or None when unknown."""
        return self.levels[level - 1] if 1 <= level <= len(self.levels) else None

    def release_of(self, level: int) -> str | None:
        """The Kafka release a level belongs to (the newest release when the level is above the table)."""
        if level > len(self.levels):
            return self.levels[-1].release
        entry = self.by_level(level)
        return entry.release if entry else None
