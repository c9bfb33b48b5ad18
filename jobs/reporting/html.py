"""The report page: one self-contained HTML document from the collected report data.

Sections: verdict header with the run's counts, highest safe MV per cluster, violation charts, readiness
heat-map, trend across runs, findings, the violation table (sortable, filterable, remediation in ``<code>``),
quarantine. Everything user-supplied is escaped by ``jobs.reporting.markup``; nothing is loaded from the network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from jobs.reporting.assets import CSP, CSS, JS
from jobs.reporting.markup import Markup, el, fmt_int, fmt_ts, join, value_cell
from jobs.reporting.svg import Bar, Cell, Point, bar_chart, heatmap, line_chart

Row = Mapping[str, Any]
FOLD_AT = 320  # characters of a long finding message shown before "more"

CHARTS = {
    "constraint_id": ("by-constraint", "Violations by constraint"),
    "severity": ("by-severity", "Violations by severity"),
    "cluster_id": ("by-cluster", "Violations by cluster"),
    "value_source": ("by-source", "Violations by value source"),
}


@dataclass
class ReportData:
    """Everything the page shows, already collected (plain Python values)."""

    run: Row  # the audit_runs row of the reported run
    warehouse: str
    generated_at: datetime
    counts: dict[str, list[Bar]] = field(default_factory=dict)  # by CHARTS key
    safe_levels: Sequence[Row] = ()
    cells: list[Cell] = field(default_factory=list)
    trend: list[Point] = field(default_factory=list)
    runs: Sequence[Row] = ()  # RUN_TREND rows, oldest first
    violations: Sequence[Row] = ()  # VIOLATION_ROWS, possibly capped
    violations_total: int = 0
    finding_counts: Sequence[Row] = ()
    findings: Sequence[Row] = ()
    findings_total: int = 0
    quarantine: Sequence[Row] = ()
    upgrade_effects: Sequence[Row] = ()  # UPGRADE_EFFECTS rows of the run


def render_report(data: ReportData) -> str:
    """The whole HTML document."""
    run = data.run
    head = el(
        "head",
        None,
        Markup('<meta charset="utf-8">'),
        el("meta", {"http-equiv": "Content-Security-Policy", "content": CSP}),
        el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
        el("meta", {"name": "generator", "content": "kraft-audit report"}),
        el("title", None, f"kraft-audit {run['verdict'].upper()} → {run['target_mv']} ({run['run_id']})"),
        el("style", None, Markup(CSS)),
    )
    nav = el(
        "nav",
        None,
        *(
            el("a", {"href": f"#{anchor}"}, name)
            for anchor, name in (
                ("safe-levels", "Highest safe MV"),
                ("charts", "Charts"),
                ("readiness", "Readiness"),
                ("trend", "Trend"),
                ("upgrade-effects", "Upgrade effects"),
                ("findings", "Findings"),
                ("violations", "Violations"),
                ("quarantine", "Quarantine"),
            )
        ),
    )
    main = el(
        "main",
        None,
        _safe_levels(data),
        _charts(data),
        _readiness(data),
        _trend(data),
        _upgrade_effects(data),
        _findings(data),
        _violations(data),
        _quarantine(data),
    )
    body = el("body", {"data-ready": "0"}, _header(data), nav, main, _footer(data), el("script", None, Markup(JS)))
    return "<!DOCTYPE html>\n" + el("html", {"lang": "en"}, head, body) + "\n"


def _stat(key: str, value: object) -> Markup:
    return el("div", {"class": "stat"}, el("div", {"class": "k"}, key), el("div", {"class": "v"}, value))


def _header(data: ReportData) -> Markup:
    run = data.run
    verdict = str(run["verdict"]).lower()
    passed = verdict == "pass"
    title = ("PASS: safe to upgrade" if passed else "FAIL: do not upgrade") + f" to metadata.version {run['target_mv']}"
    clusters = list(run["clusters"] or [])
    stats = [
        ("target", f"{run['target_mv']} (level {run['target_level']})"),
        ("clusters", str(len(clusters))),
        ("errors", fmt_int(run["violations_error"])),
        ("warnings", fmt_int(run["violations_warning"])),
        ("findings", fmt_int(run["findings"])),
        ("records read", fmt_int(run["records_read"])),
        ("records quarantined", fmt_int(run["records_quarantined"])),
        ("entities evaluated", fmt_int(run["entities_evaluated"])),
        ("constraints evaluated", fmt_int(run["constraints_evaluated"])),
        ("duration", f"{run['duration_ms'] / 1000:.1f} s"),
    ]
    if run["downgrade_clusters"]:
        stats.append(("downgrade audit for", ", ".join(run["downgrade_clusters"])))
    sub = f"run {run['run_id']} · {run['command']} · {fmt_ts(run['run_ts'])}"
    if run.get("as_of_offset") is not None:
        sub += f" · as of offset {run['as_of_offset']}"
    if run.get("as_of_time") is not None:
        sub += f" · as of {fmt_ts(run['as_of_time'])}"
    return el(
        "header",
        {"class": f"verdict {'pass' if passed else 'fail'}", "data-verdict": verdict},
        el("h1", None, title),
        el("div", {"class": "sub"}, sub),
        el("div", {"class": "sub clusters"}, "clusters: " + (", ".join(clusters) or "none")),
        el("div", {"class": "stats"}, *(_stat(k, v) for k, v in stats)),
    )


def _section(anchor: str, title: str, *body: object) -> Markup:
    return el("section", {"id": anchor}, el("h2", None, title), *body)


def _table(
    table_id: str,
    columns: Sequence[tuple[str, bool]],
    rows: Sequence[Markup],
    empty: str,
    widths: Sequence[int | None] = (),
) -> Markup:
    """A sortable table; ``columns`` are (header, numeric). ``widths`` (px, None = the rest) fix the layout."""
    if not rows:
        return el("p", {"class": "muted"}, empty)
    head = el("thead", None, el("tr", None, *(el("th", {"data-type": "number" if n else None}, h) for h, n in columns)))
    cols = el("colgroup", None, *(el("col", {"width": w}) for w in widths)) if widths else ""
    table = el(
        "table",
        {"id": table_id, "class": "sortable fixed" if widths else "sortable"},
        cols,
        head,
        el("tbody", None, *rows),
    )
    return el("div", {"class": "scroll"}, table)


def _num(value: int | None) -> Markup:
    return el("td", {"class": "num", "data-sort": "" if value is None else value}, fmt_int(value))


def _td(value: object, **attrs: object) -> Markup:
    return el("td", attrs or None, "-" if value is None else value)


def _mv_of(data: ReportData) -> dict[int, str]:
    return {c.level: c.mv for c in data.cells}


def _safe_levels(data: ReportData) -> Markup:
    mv_of = _mv_of(data)
    downgrades = set(data.run["downgrade_clusters"] or [])
    rows = [
        el(
            "tr",
            None,
            _td(r["cluster_id"]),
            _td(_level_name(r["current_level"], mv_of)),
            _td(r["highest_safe_mv"] or "none", **{"class": None if r["highest_safe_mv"] else "muted"}),
            _num(r["highest_safe_level"]),
            _td("yes" if r["cluster_id"] in downgrades else "no"),
        )
        for r in data.safe_levels
    ]
    columns = [("cluster", False), ("current MV", False), ("highest safe MV", False), ("level", True)]
    return _section(
        "safe-levels",
        "Highest safe metadata.version per cluster",
        _table("safe-table", [*columns, ("downgrade", False)], rows, "No per-cluster levels recorded for this run."),
    )


def _level_name(level: int | None, mv_of: Mapping[int, str]) -> str:
    if level is None:
        return "unknown"
    return f"{mv_of[level]} (level {level})" if level in mv_of else f"level {level}"


def _charts(data: ReportData) -> Markup:
    figures = [
        el("figure", None, el("h3", None, title), bar_chart(chart_id, title, data.counts.get(key, [])))
        for key, (chart_id, title) in CHARTS.items()
    ]
    note = el("p", {"class": "muted"}, f"{fmt_int(data.violations_total)} violations in this run.")
    return _section("charts", "Violations at a glance", note, el("div", {"class": "grid2"}, *figures))


def _readiness(data: ReportData) -> Markup:
    chart = heatmap(
        "readiness",
        "Readiness: cluster x metadata.version level",
        data.cells,
        target_level=data.run["target_level"],
    )
    note = el(
        "p",
        {"class": "muted"},
        "Each cell: would the cluster be free of error violations at that level? The number is the error count.",
    )
    return _section("readiness", "Upgrade readiness by metadata.version", note, el("div", {"class": "scroll"}, chart))


def _trend(data: ReportData) -> Markup:
    chart = line_chart("trend", "Errors and warnings across audit runs", data.trend)
    rows = [
        el(
            "tr",
            {"class": "selected" if r["run_id"] == data.run["run_id"] else None},
            _td(fmt_ts(r["run_ts"]), **{"data-sort": fmt_ts(r["run_ts"])}),
            _td(r["run_id"]),
            _td(r["command"]),
            _td(f"{r['target_mv']} ({r['target_level']})"),
            _num(r["clusters"]),
            _num(r["errors"]),
            _num(r["warnings"]),
            _num(r["findings"]),
            el("td", None, _badge(r["verdict"])),
        )
        for r in reversed(data.runs)
    ]
    columns = [("run time", False), ("run id", False), ("command", False), ("target", False)]
    columns += [("clusters", True), ("errors", True), ("warnings", True), ("findings", True), ("verdict", False)]
    return _section(
        "trend",
        "Trend across runs",
        el("div", {"class": "scroll"}, chart),
        _table("runs-table", columns, rows, "No runs."),
    )


def _badge(text: object) -> Markup:
    value = str(text).lower()
    cls = value if value in ("error", "warning", "pass", "fail") else "other"
    return el("span", {"class": f"badge {cls}"}, value)


def _filters(table_id: str, selects: Mapping[str, tuple[str, Sequence[str]]], what: str) -> Markup:
    """Search box and one drop-down per row attribute (``data-<attr>``); ``selects``: attr -> (plural, values)."""
    controls: list[Markup] = [el("input", {"type": "search", "placeholder": f"filter {what}…", "aria-label": "filter"})]
    for attr, (plural, values) in selects.items():
        options = [el("option", {"value": ""}, f"all {plural}")] + [el("option", {"value": v}, v) for v in values]
        controls.append(el("select", {"data-attr": attr, "aria-label": attr}, *options))
    controls.append(el("span", {"class": "shown muted"}))
    return el("div", {"class": "filters", "data-filter-for": table_id}, *controls)


def _upgrade_effects(data: ReportData) -> Markup:
    rows = [
        el(
            "tr",
            {"data-cluster": r["cluster_id"]},
            _td(r["cluster_id"]),
            _td(
                _resource(
                    r["resource_type"], "cluster default" if r["resource_name"] == "" else r["resource_name"], None
                )
            ),
            _td(r["config_name"]),
            _td(r["operation"]),
            el("td", None, _set_or(r["value_before"], "not set")),
            el("td", None, _set_or(r["value_after"], "deleted")),
            _td("yes" if r["is_assumed"] else "no"),
            el("td", {"class": "msg"}, el("div", None, _folded(r["message"])), el("code", None, r["mechanism"])),
        )
        for r in data.upgrade_effects
    ]
    columns = [("cluster", False), ("resource", False), ("config", False), ("operation", False)]
    columns += [("before", False), ("after", False), ("assumed", False), ("why (Kafka mechanism)", False)]
    note = el(
        "p",
        {"class": "muted"},
        "Configs the upgrade command itself writes; the audit at the target judges the state after them.",
    )
    return _section(
        "upgrade-effects",
        "Upgrade effects",
        note,
        _table("upgrade-effects-table", columns, rows, "The upgrade command changes no configs in this run."),
    )


def _set_or(value: str | None, absent: str) -> Markup:
    return el("span", {"class": "muted"}, absent) if value is None else value_cell(value)


def _findings(data: ReportData) -> Markup:
    count_rows = [
        el("tr", None, _td(r["kind"]), _num(r["findings"]), _num(r["blocking"]), _num(r["clusters"]))
        for r in data.finding_counts
    ]
    rows = [
        el(
            "tr",
            {"data-cluster": r["cluster_id"], "data-kind": r["kind"]},
            _td(r["kind"]),
            _td("yes" if r["is_blocking"] else "no"),
            _td(r["cluster_id"]),
            _td(_resource(r["resource_type"], r["resource_name"], None)),
            _td(r["config_name"]),
            _num(r["offset"]),
            el("td", {"class": "msg"}, _folded(r["message"])),
        )
        for r in data.findings
    ]
    columns = [("kind", False), ("blocking", False), ("cluster", False), ("resource", False), ("config", False)]
    columns += [("offset", True), ("message", False)]
    kinds = sorted({str(r["kind"]) for r in data.findings})
    clusters = sorted({str(r["cluster_id"]) for r in data.findings})
    return _section(
        "findings",
        "Findings (coverage gaps, ignored configs, conflicts)",
        _capped_note(len(data.findings), data.findings_total, "findings"),
        _table(
            "finding-counts",
            [("kind", False), ("findings", True), ("blocking", True), ("clusters", True)],
            count_rows,
            "No findings in this run.",
        ),
        _filters("findings-table", {"kind": ("kinds", kinds), "cluster": ("clusters", clusters)}, "findings")
        if rows
        else "",
        _table("findings-table", columns, rows, "", (160, 70, 150, 170, 180, 70, None)),
    )


def _folded(text: str | None, keep: int = FOLD_AT) -> Markup:
    """Long text as its beginning plus a ``<details>`` with the rest, cut only at whitespace (so a
    ``[redacted]`` marker is never split)."""
    text = text or ""
    cut = text.rfind(" ", 0, keep) if len(text) > keep + 80 else -1
    if cut <= 0:
        return el("span", None, text)
    more = el("details", None, el("summary", None, f"{len(text) - cut:,} more characters"), text[cut:])
    return el("span", None, text[:cut], " …", more)


def _capped_note(shown: int, total: int, what: str) -> Markup | str:
    if shown >= total:
        return ""
    return el(
        "p", {"class": "muted"}, f"Showing the first {fmt_int(shown)} of {fmt_int(total)} {what}; query the table."
    )


def _resource(resource_type: str | None, resource_name: str | None, node_id: int | None) -> str:
    text = " ".join(str(p) for p in (resource_type, resource_name) if p is not None) or "-"
    # node_id names the failing broker view of a topic; on a BROKER row it repeats the name
    return text + (f" (broker {node_id})" if node_id is not None and str(node_id) != resource_name else "")


# The remediation commands are built from names and values in the audited metadata: a reader pastes them into a
# shell, so the page says what they are before showing them (docs/contract.md §6.3).
REVIEW_NOTE = (
    "Review every remediation command before you run it: it is generated from the audited metadata. Names and values"
    " are shell-quoted; replace '<bootstrap>' with the cluster's bootstrap servers; text after # is a note, and a"
    " line that starts with # is not meant to be run as it stands."
)


def _violations(data: ReportData) -> Markup:
    rows = [_violation_row(r) for r in data.violations]
    columns = [("severity", False), ("cluster", False), ("constraint", False), ("resource", False)]
    columns += [("config = value (source)", False), ("new at target", False), ("message and remediation", False)]
    severities = sorted({str(r["severity"]) for r in data.violations})
    clusters = sorted({str(r["cluster_id"]) for r in data.violations})
    return _section(
        "violations",
        "Violations",
        _capped_note(len(data.violations), data.violations_total, "violations (errors first)"),
        el("p", {"class": "review-note"}, REVIEW_NOTE) if rows else "",
        _filters(
            "violations-table",
            {"severity": ("severities", severities), "cluster": ("clusters", clusters)},
            "violations",
        )
        if rows
        else "",
        _table("violations-table", columns, rows, "No violations in this run.", (76, 150, 210, 170, 230, 70, None)),
    )


def rule_origin_text(origin: str | None, release: str | None, since_mv: str | None) -> str:
    """What kind of rule fired, in words: ``base validator of Kafka 4.2`` (the ConfigDef checks of the release the
    brokers run at that level), ``Kafka MV validator since 4.3-IV0``, ``user base rule``, ``user MV validator since
    4.4-IV1``."""
    if origin == "kafka_base":
        return f"base validator of Kafka {release}" if release else "Kafka base validator"
    if origin == "kafka_mv":
        return f"Kafka MV validator since {since_mv}"
    if origin == "user_mv":
        return f"user MV validator since {since_mv}"
    return "user base rule"


def _violation_row(r: Row) -> Markup:
    origin = rule_origin_text(r["constraint_origin"], r["constraint_release"], r["constraint_mv"])
    since = el("div", {"class": "small muted"}, origin)
    topics = r["affected_topics"]
    inherit = el("div", {"class": "small muted"}, f"{fmt_int(topics)} topic(s) inherit it") if topics else ""
    source = el("div", {"class": "small muted"}, r["value_source"] or "source unknown")
    new = r["new_at_target"]
    return el(
        "tr",
        {"data-severity": r["severity"], "data-cluster": r["cluster_id"]},
        el("td", {"data-sort": 0 if str(r["severity"]).lower() == "error" else 1}, _badge(r["severity"])),
        _td(r["cluster_id"]),
        el("td", {"data-sort": r["constraint_id"]}, el("div", None, r["constraint_id"]), since),
        el("td", None, el("div", None, _resource(r["resource_type"], r["resource_name"], r["node_id"])), inherit),
        el(
            "td",
            {"data-sort": r["config_name"]},
            el("div", None, r["config_name"], " = ", value_cell(r["value"])),
            source,
        ),
        _td("unknown" if new is None else "yes" if new else "no"),
        el("td", None, el("div", None, r["message"]), el("code", None, r["remediation"])),
    )


def _quarantine(data: ReportData) -> Markup:
    rows = [
        el(
            "tr",
            None,
            _td(r["cluster_id"]),
            el("td", {"class": "msg"}, _folded(r["reason"])),
            _num(r["rows"]),
            _num(r["files"]),
            _td(join([r["example_file"] or "-", f" @ {r['example_location']}" if r["example_location"] else ""])),
            el("td", None, el("code", None, r["example_excerpt"] or "")),
        )
        for r in data.quarantine
    ]
    columns = [("cluster", False), ("reason", False), ("rows", True), ("files", True), ("first at", False)]
    return _section(
        "quarantine",
        "Quarantined input (clusters of this run)",
        _table("quarantine-table", [*columns, ("excerpt (redacted)", False)], rows, "Nothing quarantined."),
    )


def _footer(data: ReportData) -> Markup:
    run = data.run
    return el(
        "footer",
        None,
        f"Generated {fmt_ts(data.generated_at)} by kraft-audit from {data.warehouse} · code "
        f"{run['code_fingerprint']} · catalogs {run['catalog_fingerprint']}",
    )
