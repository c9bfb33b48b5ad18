"""The run summary (``--summary-json``), the JUnit report of ``gate`` and the short human verdict."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jobs.output_files import write_output


@dataclass
class RunSummary:
    """docs/contract.md §8's summary; field names are the JSON keys."""

    run_id: str
    target_mv: str
    target_level: int
    clusters: list[str]
    records_read: int
    records_quarantined: int
    violations_total: int
    violations_by_severity: dict[str, int]
    highest_safe_mv: dict[str, str | None]
    verdict: str
    tables: dict[str, str]
    downgrade_clusters: list[str] = field(default_factory=list)
    findings_total: int = 0
    duration_seconds: float = 0.0
    violations_waived: int = 0  # counted in violations_total too; they do not fail the verdict
    errors_waived: int = 0
    expired_waivers: list[dict[str, str]] = field(default_factory=list)  # id, owner, expires; ignored
    dq: dict[str, Any] | None = None  # data-quality stage: expectations checked, failed critical/warning
    # what the upgrade command itself would set or delete (jobs.upgrade_effects.summary_entry)
    upgrade_effects: dict[str, Any] | None = None
    # clusters the run was given but could not read (cluster id -> why): each blocks the verdict
    clusters_not_audited: dict[str, str] = field(default_factory=dict)
    # registrations that make Kafka refuse the upgrade (cluster id -> the findings' messages): each blocks the verdict
    upgrade_refused: dict[str, list[str]] = field(default_factory=dict)
    # clusters audited at a metadata.version of their own (--target-mv CLUSTER=MV): cluster id -> that MV
    cluster_targets: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON object written by ``--summary-json``."""
        return {
            "run_id": self.run_id,
            "target_mv": self.target_mv,
            "target_level": self.target_level,
            "clusters": self.clusters,
            "records_read": self.records_read,
            "records_quarantined": self.records_quarantined,
            "violations_total": self.violations_total,
            "violations_by_severity": {"error": 0, "warning": 0, **self.violations_by_severity},
            "highest_safe_mv": self.highest_safe_mv,
            "verdict": self.verdict,
            "tables": self.tables,
            "downgrade_clusters": self.downgrade_clusters,
            "findings_total": self.findings_total,
            "duration_seconds": round(self.duration_seconds, 3),
            "violations_waived": self.violations_waived,
            "expired_waivers": self.expired_waivers,
            "clusters_not_audited": self.clusters_not_audited,
            "upgrade_refused": self.upgrade_refused,
            **({"cluster_targets": self.cluster_targets} if self.cluster_targets else {}),
            **({"dq": self.dq} if self.dq is not None else {}),
            **({"upgrade_effects": self.upgrade_effects} if self.upgrade_effects is not None else {}),
        }


def write_summary_json(path: str, summary: RunSummary) -> None:
    """Write the summary file (UTF-8, stable key order)."""
    write_output(path, json.dumps(summary.to_json(), indent=2, sort_keys=True) + "\n")


def write_junit(path: str, summary: RunSummary, violations: Sequence[Mapping[str, Any]]) -> None:
    """JUnit XML: one test suite per cluster, one failed case per violation (errors fail, warnings are skipped).

    A violation with a ``waiver_id`` (see ``jobs.lifecycle.mark_waived``) is skipped whatever its severity, with
    the waiver's id, owner and expiry in the message. A cluster without violations gets one passing case, so CI
    systems show it as checked.
    """
    root = ET.Element("testsuites", name=f"kraft-audit {summary.target_mv}", tests="0", failures="0")
    by_cluster: dict[str, list[Mapping[str, Any]]] = {c: [] for c in summary.clusters}
    for row in violations:
        by_cluster.setdefault(str(row["cluster_id"]), []).append(row)
    total = failures = 0
    for cluster, rows in sorted(by_cluster.items()):
        errors = [r for r in rows if r["severity"] == "error" and not r.get("waiver_id")]
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"{cluster} → {summary.target_mv}",
            tests=str(max(len(rows), 1)),
            failures=str(len(errors)),
            skipped=str(len(rows) - len(errors)),
        )
        if not rows:
            ET.SubElement(suite, "testcase", classname=cluster, name="no violations at the target")
            total += 1
        for row in rows:
            name = f"{row['resource_type']} {row['resource_name']} {row['config_name']} [{row['constraint_id']}]"
            case = ET.SubElement(suite, "testcase", classname=f"{cluster}.{row['resource_type']}", name=name)
            body = f"{row['message']}\nfix (review before running it): {row.get('remediation') or '-'}"
            if row.get("waiver_id"):
                owner, until = row.get("waiver_owner"), row.get("waiver_expires")
                waiver = f"waived by {row['waiver_id']} (owner {owner}, until {until})"
                ET.SubElement(case, "skipped", message=f"{waiver}: {row['message']}").text = body
            elif row["severity"] == "error":
                ET.SubElement(case, "failure", message=str(row["message"]), type=str(row["constraint_id"])).text = body
            else:
                ET.SubElement(case, "skipped", message=f"warning: {row['message']}").text = body
            total += 1
        failures += len(errors)
    for cluster, reason in sorted(summary.clusters_not_audited.items()):
        suite = ET.SubElement(
            root, "testsuite", name=f"{cluster} → {summary.target_mv}", tests="1", failures="1", skipped="0"
        )
        case = ET.SubElement(suite, "testcase", classname=cluster, name="cluster audited")
        ET.SubElement(case, "failure", message=f"not audited: {reason}", type="NOT_AUDITED").text = (
            f"kraft-audit read no record of cluster {cluster}: {reason}. A cluster that was not read cannot be "
            "called safe."
        )
        total += 1
        failures += 1
    for cluster, reasons in sorted(summary.upgrade_refused.items()):
        suite = ET.SubElement(
            root, "testsuite", name=f"{cluster} → {summary.target_mv}", tests="1", failures="1", skipped="0"
        )
        case = ET.SubElement(suite, "testcase", classname=cluster, name="the controller accepts the upgrade")
        ET.SubElement(case, "failure", message=reasons[0], type="UNSUPPORTED_REGISTRATION").text = "\n".join(reasons)
        total += 1
        failures += 1
    root.set("tests", str(total))
    root.set("failures", str(failures))
    write_output(path, "<?xml version='1.0' encoding='utf-8'?>\n" + ET.tostring(root, encoding="unicode") + "\n")


def verdict_text(summary: RunSummary) -> str:
    """A few lines a person reads before deciding to upgrade."""
    errors = summary.violations_by_severity.get("error", 0)
    warnings = summary.violations_by_severity.get("warning", 0)
    head = "SAFE to upgrade" if summary.verdict == "pass" else "DO NOT upgrade"
    waived = f" ({summary.violations_waived} waived)" if summary.violations_waived else ""
    lines = [
        f"{head} to metadata.version {summary.target_mv} (level {summary.target_level}): "
        f"{errors} error(s), {warnings} warning(s){waived} across {len(summary.clusters)} cluster(s)"
        + (f", {len(summary.clusters_not_audited)} more NOT audited." if summary.clusters_not_audited else "."),
    ]
    for cluster, reason in sorted(summary.clusters_not_audited.items()):
        lines.append(f"  {cluster}: NOT AUDITED, {reason}")
    for cluster, reasons in sorted(summary.upgrade_refused.items()):
        lines.extend(f"  {cluster}: UPGRADE REFUSED, {reason}" for reason in reasons)
    if summary.violations_waived:
        lines.append(
            f"  waived, not blocking: {summary.errors_waived} error(s), "
            f"{summary.violations_waived - summary.errors_waived} warning(s)"
        )
    for expired in summary.expired_waivers:
        lines.append(
            f"  expired waiver {expired['id']} (owner {expired['owner']}, expired {expired['expires']}): ignored"
        )
    if summary.downgrade_clusters:
        lines.append("  downgrade audit for: " + ", ".join(summary.downgrade_clusters))
    lines.extend(_upgrade_effect_lines(summary.upgrade_effects))
    for cluster, mv in sorted(summary.highest_safe_mv.items()):
        lines.append(f"  {cluster}: highest safe MV {mv or 'none above the current level'}")
    if "violations" in summary.tables:
        lines.append(f"  violations: {summary.tables['violations']}")
    return "\n".join(lines)


def _upgrade_effect_lines(effects: Mapping[str, Any] | None) -> list[str]:
    """One line per cluster whose upgrade command itself changes configs (docs/contract.md §5.7)."""
    by_cluster: dict[str, list[str]] = {}
    for change in (effects or {}).get("changes", []):
        where = "cluster-level" if change["resource_name"] == "" else f"broker {change['resource_name']}"
        if change["operation"] == "SET":
            text = f"sets {where} {change['config_name']}={change['value_after']}"
            text += " (assumed)" if change["is_assumed"] else ""
        else:
            text = f"deletes {where} {change['config_name']}={change['value_before']}"
        by_cluster.setdefault(str(change["cluster_id"]), []).append(text)
    return [
        f"  {cluster}: the upgrade itself {', '.join(texts)} (upgrade_effects)"
        for cluster, texts in sorted(by_cluster.items())
    ]
