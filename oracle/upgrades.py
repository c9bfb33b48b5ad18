"""What Kafka's upgrade wrote against what kraft-audit predicts it writes (``upgrade_effects``).

A fixture whose scenario upgraded the node (``kafka-features upgrade``, not the dry run) holds, in its metadata log,
the batch the controller wrote for the upgrade: its FeatureLevelRecords and, when the request turned
``eligible.leader.replicas.version`` on, the ConfigRecords of ``maybeGenerateElrSafetyRecords``. The log cut just
before that batch is the cluster as it was when the operator ran the command. kraft-audit audits that cut as its
own cluster (``<fixture>.before-upgrade``), with ``--upgrade-with`` the command's mode and ``--target-mv`` the
release line Kafka reached, and must:

* predict in ``upgrade_effects`` exactly the ConfigRecords of the batch (resource, key, and the value set, or a
  delete);
* report no error violation at the target: Kafka accepted the upgrade.

The feature levels the batch finalizes are listed beside the comparison; kraft-audit predicts the ones its rules
read (``metadata.version`` and, through the effects above, ELR), not the others.

An upgrade Kafka's controller refused wrote nothing, so the fixture's own log is the cluster as the command met it:
kraft-audit's audit of the fixture (at the release's own line, the command's target) must refuse it too, with a
blocking finding that says so (``UNSUPPORTED_REGISTRATION``); an upgrade Kafka accepted must have none.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle.fixtures import METADATA_DIR
from schemas.decoded import DecodedRecord
from schemas.kafka_vocabulary import CONFIG_RESOURCE_IDS
from transforms.decode.binary.decode import decode_file

BEFORE_UPGRADE = ".before-upgrade"
# kraft-audit's findings that refuse an upgrade outright (the controller's own refusal, not a configuration's).
REFUSING_FINDINGS = ("UNSUPPORTED_REGISTRATION",)
_FLAGS = {"--release-version": "release-version", "--metadata": "metadata"}

# (resource type, resource name, key, value set or None for a delete)
ConfigChange = tuple[str, str, str, str | None]


@dataclass
class KafkaUpgrade:
    """The upgrade one fixture ran, and the batch Kafka's controller wrote for it."""

    fixture: str
    server_properties: Path  # the fixture's static file, the cut log's too
    mode: str  # release-version | metadata
    target: str  # the command's argument, e.g. 4.2
    segment: str  # the log segment holding the batch
    position: int  # byte position of the batch in it
    written: set[ConfigChange]
    features: dict[str, int]  # feature -> level the batch finalized

    @property
    def cluster(self) -> str:
        """The cluster id of the cut log in the comparison's warehouse."""
        return self.fixture + BEFORE_UPGRADE


@dataclass
class UpgradeComparison:
    """Kafka's upgrade batch against kraft-audit's ``upgrade_effects`` and verdict for the cut log."""

    upgrade: KafkaUpgrade
    predicted: set[ConfigChange] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.predicted == self.upgrade.written and not self.errors


@dataclass
class RefusedUpgrade:
    """An upgrade Kafka's controller refused, and kraft-audit's findings refusing it for the fixture's log."""

    fixture: str
    mode: str
    target: str
    error: str
    refusals: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return bool(self.refusals)


def _command(result: dict[str, Any], *, refused: bool = False) -> tuple[str, str, str | None] | None:
    """(mode, target, error) of the fixture's real upgrade command that Kafka accepted (or, with ``refused``, the
    one it refused), if it ran one."""
    for command in result.get("feature_commands") or []:
        args = command["args"]
        if "upgrade" not in args or "--dry-run" in args or bool(command.get("error")) != refused:
            continue
        # the controller's reason (FeatureControlManager: "Invalid update version ..."), not the tool's count
        reasons = [line for line in command.get("output") or [] if "Invalid update version" in line]
        for flag, mode in _FLAGS.items():
            if flag in args:
                return mode, args[args.index(flag) + 1], (reasons[-1] if reasons else command.get("error"))
    return None


def refused_upgrade_of(fixture: Path, result: dict[str, Any]) -> RefusedUpgrade | None:
    """The upgrade command of a fixture that Kafka refused (None: it ran none, or Kafka accepted it)."""
    command = _command(result, refused=True)
    if command is None:
        return None
    mode, target, error = command
    return RefusedUpgrade(fixture.name, mode, target, str(error))


def refusal_findings(findings: list[dict[str, Any]]) -> list[str]:
    """kraft-audit's blocking findings that refuse an upgrade, in short."""
    return sorted(
        f"{f['kind']}: {f['message']}" for f in findings if f["kind"] in REFUSING_FINDINGS and f["is_blocking"]
    )


def upgrade_of(fixture: Path, result: dict[str, Any]) -> KafkaUpgrade | None:
    """The upgrade a fixture ran and the batch it wrote: the first batch with a ``metadata.version``
    FeatureLevelRecord at the level Kafka finalized, past the bootstrap's level (None: no upgrade, or no log)."""
    command = _command(result)
    after = ((result.get("features") or {}).get("after_upgrade") or {}).get("finalized") or {}
    before = ((result.get("features") or {}).get("before_upgrade") or {}).get("finalized") or {}
    level = after.get("metadata.version")
    if command is None or level is None or level == before.get("metadata.version"):
        return None
    for segment in sorted((fixture / METADATA_DIR).glob("*.log")):
        records = [r for r in decode_file(segment.read_bytes(), kind="LOG_SEGMENT") if isinstance(r, DecodedRecord)]
        batch = next(
            (
                r.batch_base_offset
                for r in records
                if r.record_type == "FEATURE_LEVEL_RECORD"
                and r.data.get("name") == "metadata.version"
                and r.data.get("featureLevel") == level
            ),
            None,
        )
        if batch is None:
            continue
        in_batch = [r for r in records if r.batch_base_offset == batch]
        types = {code: name for name, code in CONFIG_RESOURCE_IDS.items()}
        return KafkaUpgrade(
            fixture=fixture.name,
            server_properties=fixture / "server.properties",
            mode=command[0],
            target=command[1],
            segment=segment.name,
            position=min(r.position for r in in_batch if r.position is not None),
            written={
                (str(types[r.data["resourceType"]]), r.data["resourceName"], r.data["name"], r.data["value"])
                for r in in_batch
                if r.record_type == "CONFIG_RECORD"
            },
            features={
                r.data["name"]: int(r.data["featureLevel"]) for r in in_batch if r.record_type == "FEATURE_LEVEL_RECORD"
            },
        )
    return None


def write_cut(fixture: Path, upgrade: KafkaUpgrade, dest: Path) -> Path:
    """The fixture's log up to the upgrade's batch (segments before it whole, its own cut at the batch; snapshots
    left out: they may hold the state after it), as ``dest/<cluster>/__cluster_metadata-0``; returns that folder."""
    out = dest / upgrade.cluster / METADATA_DIR
    out.mkdir(parents=True)
    for segment in sorted((fixture / METADATA_DIR).glob("*.log")):
        if segment.name == upgrade.segment:
            (out / segment.name).write_bytes(segment.read_bytes()[: upgrade.position])
            break
        shutil.copyfile(segment, out / segment.name)
    return out


def predicted_changes(effects: list[dict[str, Any]]) -> set[ConfigChange]:
    """kraft-audit's ``upgrade_effects`` rows of one cluster as ConfigRecords."""
    return {
        (
            row["resource_type"],
            row["resource_name"],
            row["config_name"],
            row["value_after"] if row["operation"] == "SET" else None,
        )
        for row in effects
    }


def report_lines(comparisons: list[UpgradeComparison], refused: list[RefusedUpgrade] | None = None) -> list[str]:
    """One line per upgrade, then what differs; then one line per refused upgrade."""
    lines = []
    for c in comparisons:
        u = c.upgrade
        features = ", ".join(f"{k}={v}" for k, v in sorted(u.features.items()))
        verdict = "agree" if c.agrees else "DISAGREE"
        lines.append(
            f"{u.fixture}: upgrade --{u.mode} {u.target}: Kafka wrote {len(u.written)} config record(s)"
            f" [{features}]; kraft-audit predicted {len(c.predicted)}, {len(c.errors)} error(s): {verdict}"
        )
        for change in sorted(u.written - c.predicted, key=str):
            lines.append(f"    written by Kafka, not predicted: {change}")
        for change in sorted(c.predicted - u.written, key=str):
            lines.append(f"    predicted, not written by Kafka: {change}")
        lines.extend(f"    error at the target: {e}" for e in c.errors)
    for r in refused or []:
        verdict = "agree" if r.agrees else "DISAGREE: kraft-audit does not refuse it"
        lines.append(f"{r.fixture}: upgrade --{r.mode} {r.target} refused by Kafka ({r.error}): {verdict}")
        lines.extend(f"    kraft-audit: {finding}" for finding in r.refusals)
    return lines
