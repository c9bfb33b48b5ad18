"""The hand-checked facts files load, validate and are consistent; bad data is refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from tools.kafka_configs.facts import FACTS_DIR, FactsError, load_facts
from tools.kafka_configs.facts.models import ChecksFacts, EntryFix, ReleaseRange
from tools.kafka_configs.release import Release


def test_facts_files_load_and_validate() -> None:
    facts = load_facts()
    releases = [str(r) for r in facts.known_releases]
    assert releases == ["3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2", "4.3", "4.4"]
    assert sorted(facts.dynamic.dynamic) == facts.known_releases
    # every entry carries its citation or reason
    assert all(f.why for f in facts.manual.entry_fixes)
    assert all(k.note for k in facts.validators.known)
    assert all(c.source for c in facts.checks.checks)
    assert all(spec.note for spec in facts.releases.releases.values())
    # every check applies to at least one known release, and has a source there
    for c in facts.checks.checks:
        covered = [r for r in facts.known_releases if c.applies_to(r)]
        assert covered, c.id
        for r in covered:
            assert c.source_for(r)
    # KIP-1161 list validation exactly from 4.2
    assert [str(r) for r, s in facts.releases.releases.items() if s.kip1161] == ["4.2", "4.3", "4.4"]


def test_release_ranges_compare_as_releases() -> None:
    r = ReleaseRange.model_validate({"since": "4.2", "until": "4.10"})
    assert r.applies_to(Release(4, 9))
    assert not r.applies_to(Release(4, 10))
    assert not r.applies_to(Release(4, 1))
    assert ReleaseRange().applies_to(Release(3, 3))


def test_unquoted_release_is_refused() -> None:
    # YAML reads `until: 4.10` as the float 4.1
    data = yaml.safe_load("since: 4.10")
    with pytest.raises(ValidationError, match="quoted string"):
        ReleaseRange.model_validate(data)


def test_empty_range_is_refused() -> None:
    with pytest.raises(ValidationError, match="empty release range"):
        ReleaseRange.model_validate({"since": "4.0", "until": "4.0"})


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        EntryFix.model_validate(
            {"resource": "broker", "key": "k", "values": {"default": "1"}, "why": "w", "reason": "typo"}
        )


def test_validator_forms_are_checked() -> None:
    with pytest.raises(ValidationError):
        EntryFix.model_validate(
            {"resource": "broker", "key": "k", "values": {"validator": {"kind": "between", "min": 1}}, "why": "w"}
        )


def test_overlapping_variants_of_a_check_are_refused() -> None:
    check = {"id": "x", "resource": "topic", "keys": ["a"], "rule": "r", "expr": None, "source": "s"}
    data = {
        "kafka_effects": {"broker": "b", "topic": "t", "group": "g"},
        "checks": [{**check, "until": "4.2"}, {**check, "since": "4.1"}],
        "client_metrics_code_checks": {},
    }
    with pytest.raises(ValidationError, match="two variants"):
        ChecksFacts.model_validate(data)
    data["checks"] = [{**check, "until": "4.2"}, {**check, "since": "4.2"}]
    ChecksFacts.model_validate(data)


def test_load_facts_names_the_bad_file(tmp_path: Path) -> None:
    for f in FACTS_DIR.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    text = (tmp_path / "manual.yaml").read_text(encoding="utf-8")
    (tmp_path / "manual.yaml").write_text(text.replace('until: "3.8"', "until: 3.8", 1), encoding="utf-8")
    with pytest.raises(FactsError, match=r"manual\.yaml"):
        load_facts(tmp_path)


def test_releases_and_dynamic_must_agree(tmp_path: Path) -> None:
    for f in FACTS_DIR.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    data = yaml.safe_load((tmp_path / "dynamic.yaml").read_text(encoding="utf-8"))
    del data["dynamic"]["4.4"]
    (tmp_path / "dynamic.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(FactsError, match="same releases"):
        load_facts(tmp_path)
