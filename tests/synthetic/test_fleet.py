"""``write_fleet`` called directly (the CLI's files, manifest and usage errors are tested in tests/jobs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobs.conf_loader import metadata_versions
from synthetic.fleet import write_fleet
from synthetic.spec import FleetSpec, FleetSpecError
from tests.synthetic.fleets import levels


def test_write_fleet_fills_in_the_release_levels_and_records_the_parameters(tmp_path: Path) -> None:
    spec = FleetSpec(out=str(tmp_path / "fleet"), clusters=2, brokers=2, topics=3, seed=9, workers=1)
    result = write_fleet(spec, metadata_versions())
    manifest = json.loads(Path(result.manifest).read_text(encoding="utf-8"))
    assert (
        manifest["parameters"]
        == FleetSpec(release_levels=levels(), clusters=2, brokers=2, topics=3, seed=9).parameters()
    )
    assert result.cluster_names == [c["name"] for c in manifest["clusters"]] and result.workers == 1
    assert sorted(p.name for p in (tmp_path / "fleet").iterdir()) == sorted(["manifest.json", *result.cluster_names])


def test_write_fleet_needs_somewhere_to_write(tmp_path: Path) -> None:
    with pytest.raises(FleetSpecError, match="out must name"):
        write_fleet(FleetSpec(), metadata_versions())
