"""The upgrade's own side effects in an audit: the ``--upgrade-with`` option, the prediction and its summary entry.

``audit``/``run``/``gate`` predict what the upgrade command itself writes (``transforms.effective.upgrade_effects``),
judge the state after it, append the ``upgrade_effects`` table and report it in the summary (docs/contract.md §5.7).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from typing import Any

from pyspark.sql import Column, DataFrame

from jobs.runtime.holding import truncated
from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersionTable
from schemas.per_cluster import PerCluster, Targets
from schemas.upgrade_effects import UpgradeWith
from transforms.effective.upgrade_effects import ELR_ENABLING_MV, to_upgrade_effects
from transforms.kit.metadata_version import parse_metadata_version
from transforms.replay.state import ReplayResult

TABLE = "upgrade_effects"


def add_argument(parser: argparse.ArgumentParser) -> None:
    """``--upgrade-with release-version|metadata``."""
    parser.add_argument(
        "--upgrade-with",
        action="append",
        metavar="{" + ",".join(form.value for form in UpgradeWith) + "}",
        help="how the MV will be raised: `kafka-features.sh upgrade --release-version` (default; also raises "
        "eligible.leader.replicas.version, whose controller-side effects are predicted) or `--metadata`; "
        "CLUSTER=FORM for one cluster (repeatable)",
    )


def upgrade_form(text: str) -> UpgradeWith:
    """An ``--upgrade-with`` value (exit 2 for another)."""
    try:
        return UpgradeWith(text.strip())
    except ValueError:
        forms = ", ".join(form.value for form in UpgradeWith)
        raise UsageError(f"--upgrade-with {text[:40]!r}: one of {forms}") from None


def predict(
    state: ReplayResult,
    static_configs_df: DataFrame,
    target_keys_df: DataFrame,
    *,
    target: Targets,
    mv_table: MetadataVersionTable,
    upgrade_with: UpgradeWith | PerCluster[UpgradeWith],
    local_rows: int = 0,
    target_release: Column | None = None,
) -> DataFrame:
    """``UPGRADE_EFFECTS`` rows (no run columns) of the audited clusters, computed once
    (``jobs.runtime.holding.truncated`` with ``local_rows``)."""
    return truncated(
        to_upgrade_effects(
            dynamic_configs_df=state.dynamic_configs,
            features_df=state.features,
            cluster_state_df=state.cluster_state,
            brokers_df=state.brokers,
            controllers_df=state.controllers,
            static_configs_df=static_configs_df,
            target_keys_df=target_keys_df,
            target=target,
            elr_level=parse_metadata_version(ELR_ENABLING_MV, mv_table).level,
            upgrade_with=upgrade_with,
            target_release=target_release,
        ),
        local_rows=local_rows,
    )


def summary_entry(upgrade_with: str | None, rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary's ``upgrade_effects`` object: the command form and what the upgrade itself would change."""
    rows = list(rows)
    return {
        "upgrade_with": upgrade_with,
        "configs_set": sum(1 for r in rows if r["operation"] == "SET"),
        "configs_deleted": sum(1 for r in rows if r["operation"] == "DELETE"),
        "assumed_clusters": sorted({str(r["cluster_id"]) for r in rows if r["is_assumed"]}),
        "changes": [
            {
                "cluster_id": r["cluster_id"],
                "resource_type": r["resource_type"],
                "resource_name": r["resource_name"],
                "config_name": r["config_name"],
                "operation": r["operation"],
                "value_before": r["value_before"],
                "value_after": r["value_after"],
                "is_assumed": r["is_assumed"],
            }
            for r in sorted(rows, key=lambda r: (r["cluster_id"], r["resource_name"], r["config_name"]))
        ],
    }
