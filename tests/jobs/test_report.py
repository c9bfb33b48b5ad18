"""``kraft-audit report``: a small warehouse built with the storage layer, rendered to HTML, checked as text and
in headless Chromium (self-contained, counts, one SVG per chart, escaping, redaction, working JavaScript)."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import StringType, StructField, StructType, TimestampType

from jobs import report
from jobs.reporting.html import _folded
from jobs.reporting.markup import el, esc, value_cell
from jobs.storage import open_store
from schemas import bronze, gold
from schemas.errors import InputError
from schemas.violations import HIGHEST_SAFE_LEVELS, VIOLATIONS, VIOLATIONS_BY_LEVEL

T_OLD = dt.datetime(2026, 11, 20, 5, 0, tzinfo=dt.UTC)
T_NEW = dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.UTC)
XSS = "<script>document.body.setAttribute('data-pwned','1')</script>"
IMG_XSS = "<img src=x onerror=\"document.body.setAttribute('data-pwned2','1')\">"
RUN_COLS = [StructField("run_id", StringType(), False), StructField("run_ts", TimestampType(), False)]
BY_LEVEL = StructType([*RUN_COLS, *VIOLATIONS_BY_LEVEL.fields])
SAFE = StructType([*RUN_COLS, *HIGHEST_SAFE_LEVELS.fields])
CHART_IDS = ("by-constraint", "by-severity", "by-cluster", "by-source", "readiness", "trend")
MVS = {20: "3.8-IV0", 21: "3.9-IV0", 22: "4.0-IV3", 23: "4.1-IV1", 24: "4.2-IV0"}


def row(schema: StructType, **values: Any) -> tuple[Any, ...]:
    """A tuple in schema order; unnamed fields are None (so a missing required field fails at createDataFrame)."""
    unknown = set(values) - set(schema.names)
    assert not unknown, unknown
    return tuple(values.get(name) for name in schema.names)


def violation(run_id: str, run_ts: dt.datetime, cluster: str, constraint: str, severity: str, **extra: Any) -> tuple:
    values: dict[str, Any] = {
        "run_id": run_id,
        "run_ts": run_ts,
        "cluster_id": cluster,
        "target_mv": "4.2-IV0",
        "target_level": 24,
        "current_level": 21,
        "is_downgrade": False,
        "resource_type": "TOPIC",
        "resource_name": "orders",
        "config_name": "segment.bytes",
        "value": "1",
        "value_source": "DYNAMIC_TOPIC_CONFIG",
        "constraint_id": constraint,
        "constraint_source": "conf/kafka/4.2.yaml",
        "constraint_kind": "min",
        "constraint_level": 23,
        "constraint_mv": "4.1-IV1",
        "constraint_origin": "user_mv",
        "severity": severity,
        "violation_code": "BELOW_MIN",
        "message": f"{constraint} fails",
        "remediation": "kafka-configs.sh --bootstrap-server HOST:9092 --alter --entity-type topics",
        "new_at_target": True,
    }
    values.update(extra)
    return row(VIOLATIONS, **values)


def audit_run(run_id: str, run_ts: dt.datetime, errors: int, warnings: int, verdict: str) -> tuple:
    return row(
        gold.AUDIT_RUNS,
        run_id=run_id,
        run_ts=run_ts,
        command="audit",
        target_mv="4.2-IV0",
        target_level=24,
        clusters=["alpha", "beta"],
        downgrade_clusters=[],
        records_read=1234,
        records_quarantined=1,
        entities_evaluated=40,
        constraints_evaluated=17,
        violations_error=errors,
        violations_warning=warnings,
        findings=1,
        highest_safe_mv={"alpha": "4.0-IV3", "beta": "4.2-IV0"},
        verdict=verdict,
        duration_ms=4321,
        code_fingerprint="c0de",
        catalog_fingerprint="ca7a",
    )


def build_warehouse(spark: SparkSession, warehouse: Path) -> None:
    """Two runs: r-old (pass, 2 warnings) and r-new (fail, 3 errors + 1 warning over two clusters)."""
    store = open_store(spark, str(warehouse))

    def put(name: str, schema: StructType, rows: list[tuple], partitions: list[str]) -> None:
        store.ensure(name, schema, partitions)
        store.append(name, spark.createDataFrame(rows, schema))

    put(
        "violations",
        VIOLATIONS,
        [
            violation("r-old", T_OLD, "alpha", "old-only-rule", "warning"),
            violation("r-old", T_OLD, "beta", "old-only-rule", "warning"),
            violation("r-new", T_NEW, "alpha", "segment-bytes-min", "error", value=XSS, message=f"bad {IMG_XSS}"),
            violation(
                "r-new",
                T_NEW,
                "alpha",
                "jaas-required",
                "error",
                resource_type="BROKER",
                resource_name="1",
                config_name="sasl.jaas.config",
                value="[redacted]",
                value_source=None,
                affected_topics=7,
                remediation="edit server.properties & restart <broker 1>",
                constraint_origin="kafka_base",
                constraint_release="4.2",
                constraint_mv=None,
                constraint_level=None,
            ),
            violation("r-new", T_NEW, "beta", "segment-bytes-min", "error", new_at_target=None),
            violation("r-new", T_NEW, "beta", "retention-warning", "warning", value=None),
        ],
        ["cluster_id"],
    )
    by_level = []
    for level, mv in MVS.items():
        alpha_errors = 0 if level <= 22 else 2
        by_level.append(
            row(
                BY_LEVEL,
                run_id="r-new",
                run_ts=T_NEW,
                cluster_id="alpha",
                level=level,
                mv=mv,
                errors=alpha_errors,
                warnings=0,
                is_safe=alpha_errors == 0,
            )
        )
        by_level.append(
            row(
                BY_LEVEL,
                run_id="r-new",
                run_ts=T_NEW,
                cluster_id="beta",
                level=level,
                mv=mv,
                errors=0,
                warnings=1,
                is_safe=True,
            )
        )
    put("violations_by_level", BY_LEVEL, by_level, ["cluster_id"])
    put(
        "highest_safe_levels",
        SAFE,
        [
            row(
                SAFE,
                run_id="r-new",
                run_ts=T_NEW,
                cluster_id="alpha",
                current_level=21,
                highest_safe_level=22,
                highest_safe_mv="4.0-IV3",
            ),
            row(
                SAFE,
                run_id="r-new",
                run_ts=T_NEW,
                cluster_id="beta",
                current_level=21,
                highest_safe_level=24,
                highest_safe_mv="4.2-IV0",
            ),
        ],
        ["cluster_id"],
    )
    put(
        "findings",
        gold.FINDINGS,
        [
            row(
                gold.FINDINGS,
                run_id="r-new",
                run_ts=T_NEW,
                cluster_id="beta",
                resource_type="TOPIC",
                resource_name="payments",
                kind="COVERAGE_GAP",
                config_name="x.unknown",
                message="no constraint covers x.unknown <b>",
                is_blocking=False,
            ),
        ],
        ["cluster_id"],
    )
    put(
        "quarantine",
        bronze.QUARANTINE,
        [
            row(
                bronze.QUARANTINE,
                cluster_id="alpha",
                source_file="/data/alpha/00000000000000000000.log",
                input_kind="LOG_SEGMENT",
                position=4096,
                reason="bad CRC",
                excerpt="<?? bytes>",
                ingest_id="i1",
                ingested_at=T_OLD,
            ),
        ],
        list(bronze.QUARANTINE_PARTITIONS),
    )
    put(
        "audit_runs",
        gold.AUDIT_RUNS,
        [audit_run("r-old", T_OLD, 0, 2, "pass"), audit_run("r-new", T_NEW, 3, 1, "fail")],
        [],
    )


@pytest.fixture(scope="module")
def built(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The warehouse of ``build_warehouse``, built once: the tests only read it (pages go elsewhere, except the
    CLI's default ``<warehouse>/report.html``)."""
    warehouse = tmp_path_factory.mktemp("report") / "warehouse"
    warehouse.mkdir()
    build_warehouse(spark, warehouse)
    return warehouse


@pytest.fixture(scope="module")
def rendered(spark: SparkSession, built: Path) -> tuple[Path, str]:
    path = report.write_report(spark, str(built), str(built.parent / "rendered" / "report.html"))
    return path, path.read_text(encoding="utf-8")


def stat(page: str, key: str) -> str:
    found = re.search(rf'<div class="k">{re.escape(key)}</div><div class="v">([^<]*)</div>', page)
    assert found, f"no header stat {key!r}"
    return found.group(1)


def test_report_is_one_self_contained_file(rendered: tuple[Path, str]) -> None:
    path, page = rendered
    assert path.name == "report.html" and path.is_file()
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:)?//""", page, re.I)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "default-src &#x27;none&#x27;" in page  # the CSP (attribute-escaped) forbids every fetch
    assert page.count("<script") == 1  # only the report's own script


def test_header_shows_verdict_target_clusters_and_counts(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    assert 'data-verdict="fail"' in page
    assert "FAIL: do not upgrade to metadata.version 4.2-IV0" in page
    assert stat(page, "target") == "4.2-IV0 (level 24)"
    assert stat(page, "clusters") == "2"
    assert '<div class="sub clusters">clusters: alpha, beta</div>' in page
    assert stat(page, "errors") == "3"
    assert stat(page, "warnings") == "1"
    assert stat(page, "records read") == "1,234"
    assert "4 violations in this run." in page


def test_every_chart_is_an_inline_svg(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    for chart_id in CHART_IDS:
        assert len(re.findall(rf'<svg [^>]*data-chart="{chart_id}"', page)) == 1, chart_id
    # by constraint: segment-bytes-min has 2 errors, jaas-required 1, retention-warning 1 warning.
    by_constraint = re.search(r'<svg [^>]*data-chart="by-constraint".*?</svg>', page, re.S)
    assert by_constraint and "segment-bytes-min: 2 errors" in by_constraint.group(0)
    assert "old-only-rule" not in by_constraint.group(0)  # another run's violations are not counted
    by_source = re.search(r'<svg [^>]*data-chart="by-source".*?</svg>', page, re.S)
    assert by_source and "(none): 1 errors" in by_source.group(0)


def test_readiness_heatmap_marks_safe_unsafe_and_highest_safe(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    heat = re.search(r'<svg [^>]*data-chart="readiness".*?</svg>', page, re.S)
    assert heat
    svg = heat.group(0)
    cells = re.findall(r'class="cell ([a-z ]+)" data-level="(\d+)"', svg)
    assert len(cells) == 2 * len(MVS)
    assert sorted(int(level) for state, level in cells if state == "unsafe") == [23, 24]  # alpha only
    assert sorted(int(level) for state, level in cells if state == "safe highest") == [22, 24]  # alpha, beta
    assert "alpha at 4.0-IV3 (level 22): 0 errors, 0 warnings; safe, highest safe" in svg
    assert "alpha at 3.9-IV0 (level 21): 0 errors, 0 warnings; safe, current level" in svg
    assert 'class="target"' in svg


def test_trend_covers_every_run_and_the_violation_table_only_the_reported_one(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    trend = re.search(r'<svg [^>]*data-chart="trend".*?</svg>', page, re.S)
    assert trend and trend.group(0).count("<circle") == 4  # 2 runs x (errors, warnings)
    table = re.search(r'<table id="violations-table".*?</table>', page, re.S)
    assert table
    assert table.group(0).count("<tr data-severity=") == 4
    assert "old-only-rule" not in table.group(0)
    assert "<code>kafka-configs.sh --bootstrap-server HOST:9092 --alter --entity-type topics</code>" in table.group(0)


def test_the_page_says_remediation_commands_are_to_be_reviewed_before_running(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    section = re.search(r'<section id="violations".*?</section>', page, re.S)
    assert section
    text = re.sub(r"\s+", " ", section.group(0))
    assert "Review every remediation command before you run it" in text
    assert text.index("Review every remediation command") < text.index('<table id="violations-table"')


def test_each_violation_says_which_kind_of_rule_fired(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    table = re.search(r'<table id="violations-table".*?</table>', page, re.S)
    assert table
    # jaas-required: a base validator of the release the brokers run; the others: user MV validators since 4.1-IV1
    assert table.group(0).count("base validator of Kafka 4.2") == 1
    assert table.group(0).count("user MV validator since 4.1-IV1") == 3


def test_user_values_are_escaped(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    assert XSS not in page and IMG_XSS not in page
    assert esc(XSS) in page and esc(IMG_XSS) in page
    assert "<code>edit server.properties &amp; restart &lt;broker 1&gt;</code>" in page
    assert "no constraint covers x.unknown &lt;b&gt;" in page
    assert "&lt;?? bytes&gt;" in page


def test_redacted_values_are_shown_only_as_redacted(rendered: tuple[Path, str]) -> None:
    _path, page = rendered
    assert '<span class="redacted">[redacted]</span>' in page
    assert page.count("[redacted]") == 1


def test_run_id_selects_an_older_run(spark: SparkSession, built: Path, tmp_path: Path) -> None:
    page = report.write_report(spark, str(built), str(tmp_path / "old.html"), "r-old").read_text()
    assert 'data-verdict="pass"' in page
    assert "old-only-rule" in page and "segment-bytes-min" not in page
    assert "No readiness" not in page and "no readiness data for this run" in page


def test_no_audit_runs_is_an_input_error(spark: SparkSession, warehouse: Path) -> None:
    with pytest.raises(InputError, match="no audit runs"):
        report.write_report(spark, str(warehouse), str(warehouse / "r.html"))


def test_cli_exit_codes_and_printed_path(
    spark: SparkSession, warehouse: Path, built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert report.main(["--warehouse", str(warehouse)]) == 2  # the empty one
    err = capsys.readouterr().err
    assert err.startswith("kraft-audit: error: no audit runs") and err.count("\n") == 1
    warehouse = built
    assert report.main(["--warehouse", str(warehouse), "--run-id", "nope"]) == 2
    assert "no audit run nope" in capsys.readouterr().err
    out = tmp_path / "sub" / "r.html"
    summary = tmp_path / "summary.json"
    assert report.main(["--warehouse", str(warehouse), "--out", str(out), "--summary-json", str(summary)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.is_file() and '"verdict": "fail"' in summary.read_text()
    assert report.main(["--warehouse", str(warehouse)]) == 0
    assert capsys.readouterr().out.strip() == str(warehouse / "report.html")


def test_max_violations_caps_the_table_not_the_counts(spark: SparkSession, built: Path, tmp_path: Path) -> None:
    page = report.write_report(spark, str(built), str(tmp_path / "r.html"), max_violations=1).read_text()
    assert page.count("<tr data-severity=") == 1
    assert "Showing the first 1 of 4 violations" in page
    assert "4 violations in this run." in page


def test_markup_escapes_attributes_and_keeps_redaction() -> None:
    assert el("td", {"title": '"><script>'}, "<b>") == '<td title="&quot;&gt;&lt;script&gt;">&lt;b&gt;</td>'
    assert value_cell("[redacted]") == '<span class="redacted">[redacted]</span>'
    assert value_cell(None) == '<span class="null">null</span>'
    with pytest.raises(ValueError, match="bad attribute"):
        el("td", {"onclick x": 1})


@pytest.mark.parametrize("start", range(300, 330), ids=lambda n: f"marker-at-{n}")
def test_folding_a_long_message_never_splits_a_redacted_marker(start: int) -> None:
    text = ("ab " * 200)[: start - 1] + " [redacted] " + "y " * 200
    folded = _folded(text)
    assert "<details>" in folded
    assert folded.count("[redacted]") == 1
    assert "[redacted]" in re.sub(r"<[^>]+>", "", folded)  # whole in the text a reader sees, never cut


# --- headless Chromium ----------------------------------------------------------------------------------------

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("headless Chromium not installed (Debian: apt-get install -y chromium); CI installs it")
    return found


def run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.system
def test_report_renders_in_headless_chromium(rendered: tuple[Path, str], tmp_path: Path) -> None:
    binary = chromium()
    path, _page = rendered
    url = path.as_uri()
    dom = run_chromium(binary, tmp_path / "profile-dom", "--virtual-time-budget=5000", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body, dom.stdout[:500]
    assert 'data-ready="1"' in body.group(0), body.group(0)
    assert "data-js-error" not in body.group(0)
    assert "data-pwned" not in body.group(0)
    # every table the page has is sortable, and both filter bars are wired
    assert dom.stdout.count('data-sortable="1"') == dom.stdout.count("<table") == 6
    assert dom.stdout.count('data-filter-ready="1"') == 2
    assert "4 of 4 rows" in dom.stdout

    png = tmp_path / "report.png"
    shot = run_chromium(binary, tmp_path / "profile-png", f"--screenshot={png}", "--window-size=1400,2000", url)
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 30_000  # a blank 1400x2000 page compresses to a few KB
