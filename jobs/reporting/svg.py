"""Inline SVG charts of the HTML report, drawn in Python (no JavaScript, no external assets).

Every chart is one ``<svg data-chart=ID role="img">`` with a ``<title>`` and per-mark tooltips; every label is
escaped by ``jobs.reporting.markup``. Colours come from the page's CSS classes so the legend and the page agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from jobs.reporting.markup import Markup, el, fmt_int, join

BAR_LIMIT = 25  # bars per chart; the rest are summed into one "N more" bar
LABEL_CHARS = 42


@dataclass(frozen=True)
class Bar:
    """One bar: violations of one label split by severity."""

    label: str
    errors: int
    warnings: int
    total: int


@dataclass(frozen=True)
class Cell:
    """One cluster x MV level cell of the readiness heat-map."""

    cluster_id: str
    level: int
    mv: str
    errors: int
    warnings: int
    is_safe: bool
    is_highest_safe: bool
    is_current: bool


@dataclass(frozen=True)
class Point:
    """One audit run on the trend chart."""

    label: str  # the run's time
    run_id: str
    target_mv: str
    errors: int
    warnings: int
    verdict: str
    selected: bool  # the run the report is about


def _svg(chart_id: str, title: str, width: float, height: float, *body: object) -> Markup:
    return el(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "class": "chart",
            "data-chart": chart_id,
            "role": "img",
            "aria-label": title,
            "width": f"{width:.0f}",
            "height": f"{height:.0f}",
            "viewBox": f"0 0 {width:.0f} {height:.0f}",
        },
        el("title", None, title),
        *body,
    )


def _short(label: str, limit: int = LABEL_CHARS) -> str:
    """``label`` cut in the middle: constraint ids differ at the end (``...-broker-log.segment.bytes-min``)."""
    if len(label) <= limit:
        return label
    head = limit // 3
    return label[:head] + "…" + label[len(label) - (limit - head - 1) :]


def _text(x: float, y: float, text: object, cls: str = "", anchor: str = "start", **extra: object) -> Markup:
    attrs: dict[str, object] = {"x": f"{x:.1f}", "y": f"{y:.1f}", "class": cls or None, "text-anchor": anchor}
    attrs.update(extra)
    return el("text", attrs, text)


def _rect(x: float, y: float, w: float, h: float, cls: str, tip: str | None = None, **extra: object) -> Markup:
    attrs: dict[str, object] = {"x": f"{x:.1f}", "y": f"{y:.1f}", "width": f"{w:.1f}", "height": f"{h:.1f}"}
    attrs["class"] = cls
    attrs.update(extra)
    return el("rect", attrs, el("title", None, tip) if tip else "")


def _legend(x: float, y: float, items: Sequence[tuple[str, str]]) -> Markup:
    parts: list[Markup] = []
    for name, cls in items:
        parts.append(_rect(x, y - 9, 10, 10, cls))
        parts.append(_text(x + 14, y, name, "legend"))
        x += 24 + 7 * len(name)
    return join(parts)


def bar_chart(chart_id: str, title: str, bars: Sequence[Bar], *, limit: int = BAR_LIMIT) -> Markup:
    """Horizontal stacked bars (errors, warnings, other severities), largest first as given."""
    shown = list(bars[:limit])
    rest = bars[limit:]
    if rest:
        shown.append(
            Bar(
                label=f"{len(rest)} more",
                errors=sum(b.errors for b in rest),
                warnings=sum(b.warnings for b in rest),
                total=sum(b.total for b in rest),
            )
        )
    label_w, bar_w, row_h, top = 300.0, 260.0, 22.0, 30.0
    width = label_w + bar_w + 70
    height = top + max(len(shown), 1) * row_h + 8
    body: list[Markup] = [_legend(label_w, 14, [("error", "sev-error"), ("warning", "sev-warning")])]
    if not shown:
        body.append(_text(label_w, top + 15, "no violations", "muted"))
        return _svg(chart_id, title, width, height, *body)
    scale = bar_w / max(max(b.total for b in shown), 1)
    for i, bar in enumerate(shown):
        y = top + i * row_h
        other = max(bar.total - bar.errors - bar.warnings, 0)
        body.append(_text(label_w - 6, y + 14, _short(bar.label), "label", "end"))
        x = label_w
        for count, cls, name in ((bar.errors, "sev-error", "errors"), (bar.warnings, "sev-warning", "warnings")):
            if count:
                tip = f"{bar.label}: {fmt_int(count)} {name}"
                body.append(_rect(x, y + 3, max(count * scale, 1.5), row_h - 6, cls, tip))
                x += max(count * scale, 1.5)
        if other:
            body.append(_rect(x, y + 3, max(other * scale, 1.5), row_h - 6, "sev-other", f"{bar.label}: {other} other"))
            x += max(other * scale, 1.5)
        body.append(_text(x + 5, y + 14, fmt_int(bar.total), "count"))
    return _svg(chart_id, title, width, height, *body)


def heatmap(chart_id: str, title: str, cells: Sequence[Cell], *, target_level: int | None) -> Markup:
    """Cluster x MV level grid: green safe, red unsafe; ★ the highest safe level, a bar under the current one."""
    clusters = sorted({c.cluster_id for c in cells})
    levels = sorted({(c.level, c.mv) for c in cells})
    col_of = {level: i for i, (level, _mv) in enumerate(levels)}
    row_of = {cluster: i for i, cluster in enumerate(clusters)}
    label_w, cell_w, cell_h, top = 200.0, 30.0, 24.0, 96.0
    width = label_w + max(len(levels), 1) * cell_w + 20
    height = top + max(len(clusters), 1) * cell_h + 40
    body: list[Markup] = []
    if not cells:
        body.append(_text(label_w, top + 16, "no readiness data for this run", "muted"))
        return _svg(chart_id, title, width, height, *body)
    for level, mv in levels:
        x = label_w + col_of[level] * cell_w + cell_w / 2
        transform = f"rotate(-55 {x:.1f} {top - 6:.1f})"
        body.append(_text(x, top - 6, mv, "axis", "start", transform=transform))
    for cluster in clusters:
        y = top + row_of[cluster] * cell_h
        body.append(_text(label_w - 6, y + 16, _short(cluster, 32), "label", "end"))
    for cell in cells:
        x = label_w + col_of[cell.level] * cell_w
        y = top + row_of[cell.cluster_id] * cell_h
        state = "safe" if cell.is_safe else "unsafe"
        notes = [state]
        if cell.is_highest_safe:
            notes.append("highest safe")
        if cell.is_current:
            notes.append("current level")
        if cell.level == target_level:
            notes.append("target")
        tip = (
            f"{cell.cluster_id} at {cell.mv} (level {cell.level}): {fmt_int(cell.errors)} errors, "
            f"{fmt_int(cell.warnings)} warnings; " + ", ".join(notes)
        )
        cls = f"cell {state}" + (" highest" if cell.is_highest_safe else "")
        body.append(_rect(x + 1, y + 1, cell_w - 2, cell_h - 2, cls, tip, **{"data-level": cell.level}))
        if cell.is_highest_safe:
            body.append(_text(x + cell_w / 2, y + 17, "★", "mark", "middle"))
        elif not cell.is_safe:
            body.append(_text(x + cell_w / 2, y + 16, _compact(cell.errors), "cell-text", "middle"))
        if cell.is_current:
            body.append(_rect(x + 5, y + cell_h - 6, cell_w - 10, 3, "current"))
    if target_level is not None and target_level in col_of:
        x = label_w + col_of[target_level] * cell_w
        body.append(_rect(x, top - 1, cell_w, len(clusters) * cell_h + 2, "target", f"target level {target_level}"))
    legend_y = top + len(clusters) * cell_h + 24
    body.append(_legend(label_w, legend_y, [("safe", "cell safe"), ("unsafe (errors)", "cell unsafe")]))
    body.append(_text(label_w + 210, legend_y, "★ highest safe   ▁ current level   ┆ target", "legend"))
    return _svg(chart_id, title, width, height, *body)


def _compact(n: int) -> str:
    return str(n) if n < 100 else "99+"


def _nice_max(value: int) -> int:
    """An axis maximum >= value whose quarters are round numbers (1, 2 or 5 times a power of ten)."""
    if value <= 4:
        return 4
    magnitude = 10 ** math.floor(math.log10(value / 4))
    for step in (1, 2, 5, 10):
        if value <= 4 * step * magnitude:
            return 4 * step * magnitude
    return 4 * 10 * magnitude


def line_chart(chart_id: str, title: str, points: Sequence[Point]) -> Markup:
    """Errors and warnings per run, oldest left; the reported run gets a vertical marker."""
    left, right, top, plot_h, inset = 56.0, 20.0, 30.0, 200.0, 70.0
    plot_w = max(560.0, 40.0 * len(points) + 2 * inset)
    width, height = left + plot_w + right, top + plot_h + 90
    body: list[Markup] = [_legend(left, 14, [("errors", "sev-error"), ("warnings", "sev-warning")])]
    if not points:
        body.append(_text(left, top + 20, "no audit runs", "muted"))
        return _svg(chart_id, title, width, height, *body)
    y_max = _nice_max(max(max(p.errors, p.warnings) for p in points))
    step = (plot_w - 2 * inset) / max(len(points) - 1, 1)

    def xy(i: int, v: int) -> tuple[float, float]:
        x = left + (inset + i * step if len(points) > 1 else plot_w / 2)
        return x, top + plot_h - v / y_max * plot_h

    for k in range(5):
        v = y_max * k / 4
        y = top + plot_h - v / y_max * plot_h
        body.append(el("line", {"x1": left, "x2": left + plot_w, "y1": f"{y:.1f}", "y2": f"{y:.1f}", "class": "grid"}))
        body.append(_text(left - 6, y + 4, fmt_int(int(v)), "axis", "end"))
    label_every = max(1, math.ceil(len(points) / 14))
    for i, p in enumerate(points):
        x, _y = xy(i, 0)
        if p.selected:
            body.append(el("line", {"x1": f"{x:.1f}", "x2": f"{x:.1f}", "y1": top, "y2": top + plot_h, "class": "sel"}))
        if i % label_every == 0 or p.selected:
            transform = f"rotate(-40 {x:.1f} {top + plot_h + 14:.1f})"
            body.append(_text(x, top + plot_h + 14, p.label, "axis", "end", transform=transform))
    for series, cls in (("errors", "sev-error"), ("warnings", "sev-warning")):
        coords = [xy(i, getattr(p, series)) for i, p in enumerate(points)]
        if len(coords) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            body.append(el("polyline", {"points": path, "class": f"series {cls}"}))
        for (x, y), p in zip(coords, points, strict=True):
            tip = f"{p.label} run {p.run_id} → {p.target_mv}: {getattr(p, series)} {series}, verdict {p.verdict}"
            body.append(
                el(
                    "circle",
                    {"cx": f"{x:.1f}", "cy": f"{y:.1f}", "r": 4, "class": f"dot {cls}"},
                    el("title", None, tip),
                )
            )
    return _svg(chart_id, title, width, height, *body)
