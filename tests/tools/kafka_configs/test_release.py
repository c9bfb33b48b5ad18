"""Releases compare by (major, minor), not as strings."""

from __future__ import annotations

import pytest

from tools.kafka_configs.release import Release


def test_parse_and_str_round_trip() -> None:
    assert Release.parse("4.10") == Release(4, 10)
    assert str(Release.parse("3.9")) == "3.9"


def test_ordering_is_numeric_not_lexicographic() -> None:
    assert "4.10" < "4.2"  # the string comparison this type replaces
    assert Release.parse("4.10") > Release.parse("4.2")
    assert Release.parse("3.9") < Release.parse("4.0") < Release.parse("4.1")
    assert Release.parse("10.0") > Release.parse("9.9")


def test_sorting() -> None:
    texts = ["4.10", "3.3", "4.2", "4.0", "3.10", "3.9"]
    assert [str(r) for r in sorted(map(Release.parse, texts))] == ["3.3", "3.9", "3.10", "4.0", "4.2", "4.10"]


def test_hashable_and_equal_by_value() -> None:
    assert {Release.parse("4.4"): 1}[Release(4, 4)] == 1


@pytest.mark.parametrize("text", ["4", "4.2.1", "v4.2", "4.x", " 4.2", ""])
def test_rejects_non_releases(text: str) -> None:
    with pytest.raises(ValueError, match="not a Kafka release"):
        Release.parse(text)
