"""The redaction key: created once per machine, never half-written, the same for runs that start together."""

from __future__ import annotations

import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jobs.redaction_key import redaction_key


def test_runs_starting_together_on_a_new_machine_share_one_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "config" / "redaction.key"
    monkeypatch.delenv("KRAFT_AUDIT_REDACTION_KEY", raising=False)
    monkeypatch.setenv("KRAFT_AUDIT_KEY_FILE", str(key_file))
    with ThreadPoolExecutor(max_workers=8) as pool:
        keys = set(pool.map(lambda _: redaction_key(), range(32)))
    assert keys == {key_file.read_text().strip().encode()}
    assert len(next(iter(keys))) == 64
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert [p.name for p in key_file.parent.iterdir()] == ["redaction.key"]  # no staging files left


def test_the_environment_variable_wins_over_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KRAFT_AUDIT_REDACTION_KEY", "from-env")
    monkeypatch.setenv("KRAFT_AUDIT_KEY_FILE", str(tmp_path / "redaction.key"))
    assert redaction_key() == b"from-env"
    assert not (tmp_path / "redaction.key").exists()
