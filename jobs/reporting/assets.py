"""The report page's inline CSS and JavaScript (sortable tables, row filters), and the CSP that pins them.

The script reads only the DOM (no data is embedded in it), sets ``data-ready="1"`` on ``<body>`` once every
table is wired, and ``data-js-error`` if anything throws. The Content-Security-Policy allows no network access
and only this exact script (by hash), so even a value that escaped escaping could not run.
"""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root { --fg:#1d232a; --muted:#66717d; --line:#d9dee3; --bg:#f6f7f9; --err:#c0392b; --warn:#d68910;
  --safe:#2e8b57; --unsafe:#c94c4c; --accent:#1f5fbf; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg);
  background:var(--bg); }
header.verdict { padding:20px 28px; color:#fff; }
header.verdict.pass { background:var(--safe); }
header.verdict.fail { background:var(--err); }
header h1 { margin:0 0 4px; font-size:24px; }
header .sub { opacity:.9; overflow-wrap:anywhere; }
nav { position:sticky; top:0; background:#fff; border-bottom:1px solid var(--line); padding:8px 28px; z-index:2; }
nav a { margin-right:16px; color:var(--accent); text-decoration:none; }
main { padding:8px 28px 40px; }
section { background:#fff; border:1px solid var(--line); border-radius:6px; margin:18px 0; padding:14px 18px; }
h2 { font-size:18px; margin:0 0 10px; }
h3 { font-size:15px; margin:8px 0; }
.stats { display:grid; grid-template-columns:repeat(auto-fill, minmax(170px, 1fr)); gap:10px; margin-top:14px; }
.stat { background:rgba(255,255,255,.14); border-radius:6px; padding:8px 10px; }
.stat .k { font-size:12px; opacity:.85; } .stat .v { font-size:20px; font-weight:600; word-break:break-word; }
.grid2 { display:grid; grid-template-columns:repeat(auto-fit, minmax(560px, 1fr)); gap:16px; }
.scroll { overflow-x:auto; }
.muted, .null { color:var(--muted); }
.redacted { color:var(--muted); font-style:italic; }
table { border-collapse:collapse; width:100%; font-size:13px; }
th, td { border-bottom:1px solid var(--line); padding:5px 7px; text-align:left; vertical-align:top; }
th { background:#eef1f4; white-space:nowrap; }
tr.selected td { background:#eef4ff; }
table.sortable th { cursor:pointer; user-select:none; }
table.sortable th[aria-sort=ascending]::after { content:" ▲"; }
table.sortable th[aria-sort=descending]::after { content:" ▼"; }
td.num { text-align:right; font-variant-numeric:tabular-nums; }
td.msg { min-width:240px; max-width:480px; }
table.fixed { table-layout:fixed; min-width:1100px; }
table.fixed td { overflow-wrap:anywhere; }
table.fixed th { white-space:normal; }
td code { margin-top:4px; }
.small { font-size:12px; }
details summary { color:var(--accent); cursor:pointer; font-size:12px; }
td code { white-space:pre-wrap; word-break:break-word; font-size:12px; background:#f1f3f5;
  padding:2px 4px; border-radius:3px; display:block; }
.value { font-family:ui-monospace, SFMono-Regular, Menlo, monospace; }
.badge { display:inline-block; padding:0 6px; border-radius:9px; font-size:12px; color:#fff; }
.badge.error { background:var(--err); } .badge.warning { background:var(--warn); }
.badge.other { background:#888; } .badge.pass { background:var(--safe); } .badge.fail { background:var(--err); }
.filters { display:flex; gap:10px; align-items:center; margin:8px 0; flex-wrap:wrap; }
.filters input { padding:5px 8px; min-width:260px; border:1px solid var(--line); border-radius:4px; }
.filters select { padding:4px; }
tr[hidden] { display:none; }
svg.chart { max-width:100%; height:auto; font-size:11px; }
svg .label { fill:var(--fg); } svg .count, svg .axis, svg .legend, svg .muted { fill:var(--muted); }
svg .sev-error { fill:var(--err); stroke:var(--err); } svg .sev-warning { fill:var(--warn); stroke:var(--warn); }
svg .sev-other { fill:#999; }
svg .series { fill:none; stroke-width:2; } svg .dot { stroke:#fff; stroke-width:1; }
svg .grid { stroke:#e4e7ea; } svg .sel { stroke:var(--accent); stroke-dasharray:4 3; }
svg .cell.safe { fill:var(--safe); } svg .cell.unsafe { fill:var(--unsafe); }
svg .cell.highest { stroke:#111; stroke-width:2.5; }
svg .mark { fill:#fff; font-size:14px; } svg .cell-text { fill:#fff; font-size:10px; }
svg .current { fill:#fff; } svg .target { fill:none; stroke:var(--accent); stroke-width:2; stroke-dasharray:5 3; }
footer { color:var(--muted); padding:0 28px 30px; font-size:12px; }
@media print { nav { display:none; } }
"""

JS = """
(function () {
  "use strict";
  window.addEventListener("error", function (e) {
    document.body.setAttribute("data-js-error", String(e.message || e));
  });
  var each = function (list, fn) { Array.prototype.forEach.call(list, fn); };
  function key(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var v = cell.getAttribute("data-sort");
    return v !== null ? v : cell.textContent.trim();
  }
  function compare(a, b, numeric) {
    if (numeric) {
      var x = parseFloat(a), y = parseFloat(b);
      if (isNaN(x)) { x = -Infinity; }
      if (isNaN(y)) { y = -Infinity; }
      return x === y ? 0 : (x < y ? -1 : 1);
    }
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }
  function sortBy(table, index, th) {
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    each(th.parentNode.cells, function (other) { other.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir);
    var numeric = th.getAttribute("data-type") === "number";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var r = compare(key(a, index), key(b, index), numeric);
      return dir === "ascending" ? r : -r;
    });
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r); });
    body.appendChild(frag);
  }
  function sortable(table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    each(table.tHead.rows[0].cells, function (th, index) {
      th.setAttribute("tabindex", "0");
      th.setAttribute("aria-sort", "none");
      var go = function () { sortBy(table, index, th); };
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); }
      });
    });
    table.setAttribute("data-sortable", "1");
  }
  function filterable(box) {
    var table = document.getElementById(box.getAttribute("data-filter-for"));
    if (!table || !table.tBodies.length) { return; }
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var text = box.querySelector("input");
    var selects = box.querySelectorAll("select");
    var shown = box.querySelector(".shown");
    function apply() {
      var q = text ? text.value.trim().toLowerCase() : "";
      var n = 0;
      rows.forEach(function (row) {
        var ok = !q || row.textContent.toLowerCase().indexOf(q) >= 0;
        each(selects, function (sel) {
          if (sel.value && row.getAttribute("data-" + sel.getAttribute("data-attr")) !== sel.value) { ok = false; }
        });
        row.hidden = !ok;
        if (ok) { n += 1; }
      });
      if (shown) { shown.textContent = n + " of " + rows.length + " rows"; }
    }
    if (text) { text.addEventListener("input", apply); }
    each(selects, function (sel) { sel.addEventListener("change", apply); });
    apply();
    box.setAttribute("data-filter-ready", "1");
  }
  each(document.querySelectorAll("table.sortable"), sortable);
  each(document.querySelectorAll(".filters[data-filter-for]"), filterable);
  document.body.setAttribute("data-ready", "1");
})();
"""


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


# No fetches of any kind; inline styles; only the script above (by hash); images only as data: URIs.
CSP = (
    "default-src 'none'; "
    "style-src 'unsafe-inline'; "
    f"script-src 'sha256-{_sha256(JS)}'; "
    "img-src data:; "
    "base-uri 'none'; form-action 'none'"
)
