"""Hand-checked Kafka facts (``*.yaml`` in this directory), loaded and validated before any extraction.

Each file holds one kind of fact that was written by reading Kafka's code, with its source or reason next to it:

* ``releases.yaml``   which ConfigDefs make up each resource per release, synonym tables, where checks are read
* ``dynamic.yaml``    which reconfigurable sets DynamicBrokerConfig unions per release
* ``validators.yaml`` code validators: exact structured forms and descriptions
* ``constants.yaml``  values defaults are computed from that the source does not spell out
* ``manual.yaml``     corrections of extracted entries and catalog notes
* ``synonyms.yaml``   broker synonym groups, group synonyms of releases without a table
* ``checks.yaml``     hand-written cross-field checks and client-metrics code checks
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel

from tools.kafka_configs.facts.models import (
    ChecksFacts,
    ConstantsFacts,
    DynamicFacts,
    ManualFacts,
    ReleasesFacts,
    SynonymsFacts,
    ValidatorsFacts,
)
from tools.kafka_configs.release import Release

__all__ = ["FACTS_DIR", "Facts", "FactsError", "load_facts"]

FACTS_DIR = Path(__file__).resolve().parent

_M = TypeVar("_M", bound=BaseModel)

# libyaml's loader when PyYAML was built with it (30x faster; same safe constructors)
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class FactsError(ValueError):
    """A facts file is missing, not YAML, or does not match its model."""


@dataclass(frozen=True)
class Facts:
    """All hand-checked facts, validated and cross-checked (one field per file)."""

    releases: ReleasesFacts
    dynamic: DynamicFacts
    validators: ValidatorsFacts
    constants: ConstantsFacts
    manual: ManualFacts
    synonyms: SynonymsFacts
    checks: ChecksFacts

    def __post_init__(self) -> None:
        if set(self.dynamic.dynamic) != set(self.releases.releases):
            raise FactsError("dynamic.yaml and releases.yaml must list the same releases")

    @property
    def known_releases(self) -> list[Release]:
        """The releases the facts describe, oldest first."""
        return sorted(self.releases.releases)


def _read(directory: Path, name: str, model: type[_M]) -> _M:
    path = directory / name
    try:
        data: Any = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
        return model.model_validate(data)
    except (OSError, yaml.YAMLError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        raise FactsError(f"{path}: {exc}") from exc


def load_facts(directory: Path = FACTS_DIR) -> Facts:
    """Load and validate every facts file.

    Args:
        directory: where the YAML files are (default: next to this module).

    Returns:
        The facts.

    Raises:
        FactsError: when a file is missing or invalid, or the files disagree.
    """
    return Facts(
        releases=_read(directory, "releases.yaml", ReleasesFacts),
        dynamic=_read(directory, "dynamic.yaml", DynamicFacts),
        validators=_read(directory, "validators.yaml", ValidatorsFacts),
        constants=_read(directory, "constants.yaml", ConstantsFacts),
        manual=_read(directory, "manual.yaml", ManualFacts),
        synonyms=_read(directory, "synonyms.yaml", SynonymsFacts),
        checks=_read(directory, "checks.yaml", ChecksFacts),
    )
