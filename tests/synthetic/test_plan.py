"""Cluster plans: a mixed fleet, each cluster drawn from ``(seed, index)`` alone."""

from __future__ import annotations

from synthetic.plan import plan_fleet
from synthetic.spec import RELEASES
from tests.synthetic.fleets import generate, levels, spec


def test_clusters_do_not_depend_on_the_fleet_size_or_order() -> None:
    alone = generate(spec(clusters=1), 0).files
    assert generate(spec(clusters=5), 0).files == alone


def test_fleet_mixes_releases_static_configs_and_lagging_metadata_versions() -> None:
    plans = list(plan_fleet(spec(clusters=100)))
    assert {p.release for p in plans} == set(RELEASES)
    assert 0.35 < sum(p.static_configs for p in plans) / len(plans) < 0.85
    assert any(p.bootstrap_level < p.level for p in plans)
    assert all(p.level == dict(levels())[p.release] for p in plans)
