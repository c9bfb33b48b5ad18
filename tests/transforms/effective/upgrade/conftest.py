"""Fixtures for the upgrade-effect tests."""

from tests.transforms.replay.fixtures import interpreted_spark, mv_table

__all__ = ["interpreted_spark", "mv_table"]
