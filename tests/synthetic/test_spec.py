"""``FleetSpec``, the one settings model: the releases' levels, sizes no fleet can have (one usage error), and what
the manifest records of it."""

from __future__ import annotations

from typing import Any

import pytest

from jobs.conf_loader import metadata_versions
from schemas.errors import UsageError
from synthetic.plan import plan_cluster
from synthetic.spec import RELEASES, FleetSpec, FleetSpecError
from tests.synthetic.fleets import levels, spec


def test_release_levels_are_the_last_iv_of_each_release() -> None:
    assert dict(levels()) == {"3.6": 14, "3.7": 19, "3.8": 20, "3.9": 21, "4.0": 25, "4.1": 27, "4.2": 29, "4.3": 30}


@pytest.mark.parametrize(
    "overrides",
    [{"clusters": 0}, {"brokers": 0}, {"partitions": 0}, {"violation_rate": 1.5}, {"segment_records": 3}],
    ids=["no-clusters", "no-brokers", "no-partitions", "rate-above-one", "tiny-segments"],
)
def test_fleet_spec_rejects_impossible_sizes(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        spec(**overrides)


def test_one_spec_holds_where_and_how_and_the_manifest_parameters_leave_them_out() -> None:
    run = FleetSpec(release_levels=levels(), out="fleet", workers=2, overwrite=True, seed=3)
    parameters = run.parameters()
    assert list(parameters) == [
        "release_levels",
        "clusters",
        "brokers",
        "topics",
        "partitions",
        "topic_configs",
        "violation_rate",
        "seed",
        "snapshot",
        "segment_records",
        "records_per_batch",
        "batch_interval_ms",
    ]
    assert parameters["release_levels"] == dict(levels()) and parameters["seed"] == 3
    assert parameters == FleetSpec(release_levels=levels(), seed=3).parameters()


def test_spec_errors_are_one_usage_error_that_is_also_a_value_error() -> None:
    with pytest.raises(FleetSpecError) as caught:
        FleetSpec(brokers=0, workers=-1)
    assert isinstance(caught.value, UsageError) and isinstance(caught.value, ValueError)
    assert str(caught.value) == "synth: brokers must be at least 1; --workers must be 0 (automatic) or more"
    with pytest.raises(FleetSpecError, match="release_levels lacks"):
        FleetSpec(release_levels=(("3.6", 14),))


def test_release_levels_come_from_the_table_only_when_the_spec_has_none() -> None:
    table = metadata_versions()
    assert FleetSpec(seed=4).with_release_levels(table) == FleetSpec(release_levels=levels(), seed=4)
    given = FleetSpec(release_levels=tuple((r, 1) for r in RELEASES))
    assert given.with_release_levels(table) is given
    with pytest.raises(ValueError, match="release_levels is empty"):
        plan_cluster(FleetSpec(), 0)
