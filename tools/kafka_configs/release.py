"""Kafka releases as ordered values: ``"4.10"`` sorts after ``"4.2"``, which string comparison gets wrong."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Release"]

_RELEASE = re.compile(r"(\d+)\.(\d+)")


@dataclass(frozen=True, order=True)
class Release:
    """A Kafka feature release ``major.minor``, ordered by ``(major, minor)``."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> Release:
        """Parse ``"3.9"`` / ``"4.10"``.

        Args:
            text: the release as written in the catalogs and on the command line.

        Returns:
            The release.

        Raises:
            ValueError: when ``text`` is not ``<major>.<minor>`` (patch versions such as ``4.2.1`` are refused:
                config definitions are read per feature release).
        """
        match = _RELEASE.fullmatch(text)
        if match is None:
            raise ValueError(f"not a Kafka release: {text!r} (expected <major>.<minor>, e.g. 4.2)")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"
