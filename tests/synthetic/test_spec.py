"""``FleetSpec``: the releases' levels, and sizes no fleet can have."""

from __future__ import annotations

from typing import Any

import pytest

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
