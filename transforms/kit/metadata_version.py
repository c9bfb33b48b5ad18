"""Parsing the metadata.version names users type: ``4.4-IV1``, ``IBP_4_4_IV1``, ``4.4`` or a level number.

A bare release ``X.Y`` means what ``kafka-features.sh upgrade --release-version X.Y`` sets with brokers of release
X.Y: the newest ``X.Y-IVn`` that release accepts as production (``MetadataVersionTable.production_levels``, read
from each release branch's ``LATEST_PRODUCTION``); the last IV of X.Y in the table when the release's facts are
not recorded.
"""

from __future__ import annotations

import re

from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersion, MetadataVersionTable

_IBP = re.compile(r"^IBP_(\d+)_(\d+)_IV(\d+)$", re.IGNORECASE)
_NAME = re.compile(r"^(\d+)\.(\d+)-IV(\d+)$", re.IGNORECASE)
_RELEASE = re.compile(r"^(\d+)\.(\d+)$")


def parse_metadata_version(text: str | int, table: MetadataVersionTable) -> MetadataVersion:
    """Resolve an MV given as name, IBP constant, bare release (its last IV) or feature level.

    Raises:
        UsageError: when the text names no known level; the message lists the known names.
    """
    raw = str(text).strip()
    found: MetadataVersion | None = None
    if raw.isdigit():
        found = table.by_level(int(raw))
    elif m := _IBP.match(raw) or _NAME.match(raw):
        name = f"{int(m.group(1))}.{int(m.group(2))}-IV{int(m.group(3))}"
        found = next((v for v in table.levels if v.name == name), None)
    elif m := _RELEASE.match(raw):
        release = f"{int(m.group(1))}.{int(m.group(2))}"
        candidates = [v for v in table.levels if v.release == release]
        production = table.production_levels(release)
        if production is not None and candidates:
            accepted = [v for v in candidates if v in production]
            if not accepted:
                names = ", ".join(v.name for v in candidates)
                raise UsageError(
                    f"metadata.version {raw!r}: Kafka {release} accepts none of {names} as production (its "
                    f"MetadataVersion.LATEST_PRODUCTION is {production[-1].name}, confluentinc/kafka {release}), so "
                    f"`kafka-features.sh upgrade --release-version {release}` fails; audit {production[-1].name}, "
                    "or name a level to audit it anyway"
                )
            candidates = accepted
        found = candidates[-1] if candidates else None
    if found is None:
        known = ", ".join(v.name for v in table.levels)
        raise UsageError(
            f"unknown metadata.version {raw!r}; use a name ({known}), IBP_x_y_IVz, a release (e.g. 4.2) "
            f"or a feature level 1..{len(table.levels)}"
        )
    return found
