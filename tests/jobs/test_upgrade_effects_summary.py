"""The summary entry and verdict lines of the upgrade's own side effects (jobs.upgrade_effects, jobs.summary)."""

from __future__ import annotations

import argparse

import pytest

from jobs.audit import per_cluster_option
from jobs.summary import RunSummary, verdict_text
from jobs.upgrade_effects import add_argument, summary_entry, upgrade_form
from schemas.errors import UsageError
from schemas.per_cluster import PerCluster
from schemas.upgrade_effects import UpgradeWith

ROWS = [
    {
        "cluster_id": "eu",
        "resource_type": "BROKER",
        "resource_name": "2",
        "config_name": "min.insync.replicas",
        "operation": "DELETE",
        "value_before": "3",
        "value_after": None,
        "is_assumed": False,
    },
    {
        "cluster_id": "eu",
        "resource_type": "BROKER",
        "resource_name": "",
        "config_name": "min.insync.replicas",
        "operation": "SET",
        "value_before": None,
        "value_after": "1",
        "is_assumed": True,
    },
]


def summary(effects: dict[str, object] | None) -> RunSummary:
    return RunSummary(
        run_id="r",
        target_mv="4.2-IV1",
        target_level=29,
        clusters=["eu"],
        records_read=1,
        records_quarantined=0,
        violations_total=0,
        violations_by_severity={},
        highest_safe_mv={"eu": "4.2-IV1"},
        verdict="pass",
        tables={},
        upgrade_effects=effects,
    )


def test_the_entry_counts_sets_deletes_and_assumed_clusters_in_a_stable_order() -> None:
    entry = summary_entry("release-version", ROWS)
    assert (entry["configs_set"], entry["configs_deleted"], entry["assumed_clusters"]) == (1, 1, ["eu"])
    assert [c["resource_name"] for c in entry["changes"]] == ["", "2"]
    assert summary(entry).to_json()["upgrade_effects"] == entry


def test_the_verdict_names_what_the_upgrade_itself_changes() -> None:
    text = verdict_text(summary(summary_entry("release-version", ROWS)))
    assert (
        "  eu: the upgrade itself sets cluster-level min.insync.replicas=1 (assumed), "
        "deletes broker 2 min.insync.replicas=3 (upgrade_effects)"
    ) in text.splitlines()


def test_no_entry_no_key_and_no_line() -> None:
    assert "upgrade_effects" not in summary(None).to_json()
    assert "upgrade itself" not in verdict_text(summary(summary_entry("metadata", [])))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "release-version"),
        (["--upgrade-with", "metadata"], "metadata"),
        (
            ["--upgrade-with", "metadata", "--upgrade-with", "eu=release-version"],
            PerCluster(UpgradeWith.METADATA, (("eu", UpgradeWith.RELEASE_VERSION),)),
        ),
    ],
)
def test_the_option_defaults_to_release_version_and_takes_a_form_per_cluster(argv: list[str], expected: object) -> None:
    parser = argparse.ArgumentParser()
    add_argument(parser)
    given = parser.parse_args(argv).upgrade_with
    assert per_cluster_option("--upgrade-with", given, upgrade_form, UpgradeWith.RELEASE_VERSION) == expected


@pytest.mark.parametrize("argv", [["--upgrade-with", "feature"], ["--upgrade-with", "eu=feature"]])
def test_an_unknown_form_is_a_usage_error(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    add_argument(parser)
    given = parser.parse_args(argv).upgrade_with
    with pytest.raises(UsageError, match="--upgrade-with 'feature': one of release-version, metadata"):
        per_cluster_option("--upgrade-with", given, upgrade_form, UpgradeWith.RELEASE_VERSION)
