"""The waivers file: validation before Spark starts, glob scopes, expiry (pure Python)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from jobs import conf_loader
from jobs.cli import main as cli_main
from schemas.errors import ConfigError
from schemas.lifecycle import expired_summary, glob_to_regex, load_waivers_text

ROOT = Path(__file__).resolve().parents[2]

VALID = """
waivers:
  - id: WVR-1
    scope: {cluster_id: "prod-*", resource_type: topic, resource_name: orders}
    owner: team-payments
    reason: RF raised next quarter
    expires: 2026-09-30
  - id: 42
    scope: {resource_type: BROKER, resource_name: 1, constraint_id: broker-log-segment-bytes-3mib}
    owner: platform
    reason: rolling restart planned
    expires: "2025-01-31"
"""


def test_a_valid_file_loads_with_normalised_scope_and_dates() -> None:
    waivers = load_waivers_text(VALID, "w.yaml").waivers
    assert [w.id for w in waivers] == ["WVR-1", "42"]
    assert waivers[0].scope.resource_type == "TOPIC"
    assert waivers[0].expires == date(2026, 9, 30)
    assert (waivers[1].scope.resource_name, waivers[1].expires) == ("1", date(2025, 1, 31))
    assert waivers[0].to_row() == (
        "WVR-1",
        "^prod\\-.*$",
        "^TOPIC$",
        "^orders$",
        None,
        None,
        "team-payments",
        "RF raised next quarter",
        date(2026, 9, 30),
    )


def test_the_shipped_example_is_valid() -> None:
    waivers = conf_loader.waivers([str(ROOT / "conf" / "waivers.example.yaml")])
    assert waivers and all(w.owner and w.reason for w in waivers)


def test_a_waiver_applies_through_its_expiry_day() -> None:
    waiver = load_waivers_text(VALID, "w.yaml").waivers[1]
    assert not waiver.is_expired(date(2025, 1, 31))
    assert waiver.is_expired(date(2025, 2, 1))
    waivers = load_waivers_text(VALID, "w.yaml").waivers
    assert expired_summary(waivers, date(2025, 6, 1)) == [{"id": "42", "owner": "platform", "expires": "2025-01-31"}]


ENTRY = "{id: W1, scope: {constraint_id: c1}, owner: o, reason: r, expires: 2025-01-01}"


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (
            "waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, reason: r, expires: 2025-01-01, x: 1}",
            ["W1", "x"],
        ),
        (
            "waivers:\n  - {id: W1, scope: {constraint: c1}, owner: o, reason: r, expires: 2025-01-01}",
            ["W1", "constraint"],
        ),
        ("waivers:\n  - {id: W1, scope: {constraint_id: c1}, reason: r, expires: 2025-01-01}", ["W1", "owner"]),
        ("waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, expires: 2025-01-01}", ["W1", "reason"]),
        ("waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, reason: r}", ["W1", "expires"]),
        (
            "waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, reason: '  ', expires: 2025-01-01}",
            ["W1", "blank"],
        ),
        (
            "waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, reason: r, expires: 2025-13-01}",
            ["W1", "2025-13-01"],
        ),
        (
            "waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, reason: r, expires: tomorrow}",
            ["W1", "YYYY-MM-DD"],
        ),
        (
            "waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, reason: r, expires: 20250101}",
            ["W1", "YYYY-MM-DD"],
        ),
        (
            "waivers:\n  - {id: W1, scope: {constraint_id: c1}, owner: o, reason: r, expires: 2025-01-01T10:00:00}",
            ["W1", "YYYY-MM-DD"],
        ),
        ("waivers:\n  - {id: W1, scope: {}, owner: o, reason: r, expires: 2025-01-01}", ["W1", "at least one"]),
        (
            "waivers:\n  - {id: W1, scope: {resource_type: topics}, owner: o, reason: r, expires: 2025-01-01}",
            ["W1", "topics"],
        ),
        ("waivers:\n  - {scope: {constraint_id: c1}, owner: o, reason: r, expires: 2025-01-01}", ["waiver #1", "id"]),
        (f"waivers:\n  - {ENTRY}\n  - {ENTRY}", ["W1", "defined twice"]),
        ("waiver:\n  - {id: W1}", ["single `waivers:` list"]),
        ("waivers: {id: W1}", ["must be a list"]),
        ("waivers: [", ["not valid YAML"]),
    ],
    ids=[
        "unknown-key",
        "unknown-scope-key",
        "missing-owner",
        "missing-reason",
        "missing-expires",
        "blank-reason",
        "month-13",
        "not-a-date",
        "int-date",
        "date-time",
        "empty-scope",
        "bad-resource-type",
        "missing-id",
        "duplicate-id",
        "wrong-top-level-key",
        "not-a-list",
        "bad-yaml",
    ],
)
def test_invalid_waivers_name_the_file_and_the_waiver(text: str, needles: list[str]) -> None:
    with pytest.raises(ConfigError) as error:
        load_waivers_text(text, "team/waivers.yaml")
    message = str(error.value)
    assert message.startswith("team/waivers.yaml: "), message
    for needle in needles:
        assert needle in message, message


def test_an_id_defined_in_two_files_names_both(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(f"waivers:\n  - {ENTRY}\n")
    second.write_text(f"waivers:\n  - {ENTRY}\n")
    with pytest.raises(ConfigError, match=r"a\.yaml and .*b\.yaml: waiver W1: id is defined twice"):
        conf_loader.waivers([str(first), str(second)])


def test_an_empty_file_has_no_waivers(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text("# nothing waived yet\n")
    assert conf_loader.waivers([str(tmp_path / "w.yaml")]) == ()


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("prod-*", ["prod-", "prod-eu-1"], ["prod", "xprod-eu", "Prod-eu"]),
        ("t?", ["t1", "tx"], ["t", "t12"]),
        ("user=alice,client-id=app", ["user=alice,client-id=app"], ["user=alice,client-id=apps"]),
        ("log.segment.bytes", ["log.segment.bytes"], ["logXsegmentXbytes"]),
        ("a+b (c)|[d]^$\\", ["a+b (c)|[d]^$\\"], ["aab (c)|[d]^$\\"]),
    ],
    ids=["star", "question-mark", "entity-name", "dots-are-literal", "regex-metacharacters-are-literal"],
)
def test_globs_become_anchored_regexes(pattern: str, matches: list[str], misses: list[str]) -> None:
    regex = re.compile(glob_to_regex(pattern))
    assert all(regex.search(text) for text in matches)
    assert not any(regex.search(text) for text in misses)


def test_a_bad_waivers_file_is_exit_2_before_spark_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "waivers.yaml"
    bad.write_text("waivers:\n  - {id: W7, scope: {constraint_id: c1}, owner: o, reason: r, expires: 2025-02-30}\n")
    code = cli_main(
        ["gate", "--input", str(tmp_path), "--target-mv", "4.2", "--waivers", str(bad), "--warehouse", str(tmp_path)]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and str(bad) in err and "waiver W7" in err and "\n" not in err, err
