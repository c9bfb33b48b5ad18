"""Benchmark fleet sizes: what ``kraft-audit synth`` generates for each, and how much each size repeats.

Effective-config rows per fleet are about 37 per topic plus about 350 per broker (every broker key with its
release's default), so L (140,000 topics, 1,000 brokers) lands above 5 M effective rows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Size:
    """One benchmark size."""

    name: str
    clusters: int
    brokers: int  # live brokers per cluster
    topics: int  # user topics per cluster
    partitions: int = 3
    topic_configs: int = 3
    repeats: int = 2  # each timed step runs this often; the fastest run is reported (the machine is shared)
    gx_rules: int = 12  # rules Great Expectations runs (sampled evenly), extrapolated per rule to the catalog
    catalog_sizes: tuple[int, ...] = (100, 1_000, 5_000)
    # The single-key rules the peers' steps run (the product's evaluate_checks and verdicts, the Python UDF, Great
    # Expectations, cuallee, DQX, all alike): every one, or only those on keys some layer sets in the fleet (the
    # smoke test's size: the same steps and comparisons on a few dozen rules instead of every one).
    peers_on_set_keys: bool = False
    # Minimums the size must reach (checked after the run and reported): clusters, brokers, topics, rows.
    minimums: tuple[tuple[str, int], ...] = ()

    @property
    def total_brokers(self) -> int:
        """Live brokers in the fleet."""
        return self.clusters * self.brokers

    @property
    def total_topics(self) -> int:
        """User topics in the fleet."""
        return self.clusters * self.topics


SIZES: dict[str, Size] = {
    # XS: the smoke test's size (tests/benchmarks): every step runs once, on a handful of entities.
    "XS": Size(
        "XS", clusters=1, brokers=2, topics=8, repeats=1, gx_rules=2, catalog_sizes=(100, 300), peers_on_set_keys=True
    ),
    "S": Size("S", clusters=3, brokers=3, topics=60),
    "M": Size("M", clusters=20, brokers=5, topics=500),
    "L": Size(
        "L",
        clusters=100,
        brokers=10,
        topics=1_400,
        repeats=1,
        gx_rules=8,
        minimums=(("clusters", 100), ("brokers", 1_000), ("topics", 100_000), ("effective_rows", 5_000_000)),
    ),
}


def parse_sizes(text: str) -> list[Size]:
    """``"S,M,L"`` → the sizes, in the order given.

    Raises:
        ValueError: An unknown size name.
    """
    names = [part.strip().upper() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in SIZES]
    if unknown or not names:
        raise ValueError(f"unknown size(s) {unknown or text!r}; known: {', '.join(SIZES)}")
    return [SIZES[n] for n in names]
