"""Planted secrets: unique markers, and every form in which one could leak into a row."""

from __future__ import annotations

import base64
import random
from collections.abc import Iterable, Sequence
from typing import Any


def new_marker(place: str, rng: random.Random) -> str:
    """A unique secret for one planting place: letters and digits only, so no encoding changes it."""
    return f"MK{place.upper()}{rng.getrandbits(48):012X}Z"


def leak_forms(marker: str) -> tuple[str, ...]:
    """The marker as text, as hex (binary excerpts), and as base64 at each of the three alignments (raw bytes)."""
    raw = marker.encode()
    forms = [marker, raw.hex(), raw.hex().upper()]
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + raw).decode()
        forms.append(encoded[4 : len(encoded) - 4])  # the groups holding only marker bytes
    return tuple(form for form in forms if len(form) >= 12)


def leaks(rows: Iterable[Sequence[Any]], markers: Iterable[str]) -> list[str]:
    """The markers (each once) that appear, in any form, in any column of any row."""
    text = "\x1f".join("\x1e".join(str(value) for value in row) for row in rows)
    return [marker for marker in markers if any(form in text for form in leak_forms(marker))]
