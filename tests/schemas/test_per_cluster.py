"""``PerCluster``: a run's value of a setting and the clusters with their own (``--target-mv CLUSTER=MV``)."""

from __future__ import annotations

from schemas.per_cluster import PerCluster, per_cluster

SETTING = PerCluster("4.2", (("eu", "4.1"), ("us", "4.2"), ("ap", "4.1"), ("sa", "4.3")))


def test_a_cluster_takes_its_own_value_or_the_runs() -> None:
    assert [SETTING.of(c) for c in ("eu", "us", "ap", "sa", "other")] == ["4.1", "4.2", "4.1", "4.3", "4.2"]
    assert SETTING.clusters == ("eu", "us", "ap", "sa")


def test_groups_leave_out_clusters_that_take_the_runs_value_and_keep_the_order() -> None:
    assert SETTING.groups() == [("4.1", ["eu", "ap"]), ("4.3", ["sa"])]
    assert PerCluster("4.2").groups() == []


def test_values_are_distinct_and_of_the_clusters_asked_for() -> None:
    assert SETTING.values() == ["4.2", "4.1", "4.3"]
    assert SETTING.values(["us", "other"]) == ["4.2"]
    assert SETTING.values(["sa", "eu", "ap"]) == ["4.3", "4.1"]


def test_map_applies_to_every_value_and_a_plain_value_is_the_runs() -> None:
    assert SETTING.map(len).groups() == []  # every value maps to 3 characters: no cluster differs from the run
    assert SETTING.map(lambda v: v + "-IV0").of("sa") == "4.3-IV0"
    assert per_cluster("4.2") == PerCluster("4.2")
    assert per_cluster(None) == PerCluster(None)
    assert per_cluster(SETTING) is SETTING
