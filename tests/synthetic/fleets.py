"""Synthetic fleets for the tests: a small spec, each cluster generated, its files decoded (and checked to decode
without quarantine), cached per spec for the session."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from jobs.conf_loader import metadata_versions
from schemas.decoded import DecodedRecord, QuarantineItem
from synthetic.files import ClusterEncoder
from synthetic.history import ClusterSynth
from synthetic.plan import plan_cluster
from synthetic.spec import FleetSpec, release_levels
from transforms.decode.binary.decode import decode_file

INTERNAL = {"__consumer_offsets", "__transaction_state"}
SEGMENT_NAME = re.compile(r"^(\d{20})\.log$")
SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


@functools.cache
def levels() -> tuple[tuple[str, int], ...]:
    return release_levels(metadata_versions())


def spec(**overrides: Any) -> FleetSpec:
    values: dict[str, Any] = {
        "clusters": 8,
        "brokers": 3,
        "topics": 30,
        "partitions": 3,
        "topic_configs": 3,
        "violation_rate": 0.3,
        "seed": 7,
        "segment_records": 97,
    }
    values.update(overrides)
    return FleetSpec(release_levels=levels(), **values)


@dataclass
class Cluster:
    """One generated cluster: its synth (manifest side), files and decoded records."""

    synth: ClusterSynth
    encoder: ClusterEncoder
    files: dict[str, bytes]
    decoded: dict[str, list[DecodedRecord]] = field(default_factory=dict)

    def segments(self) -> list[tuple[int, list[DecodedRecord]]]:
        out = []
        for path, records in sorted(self.decoded.items()):
            match = SEGMENT_NAME.match(path.rpartition("/")[2])
            if match:
                out.append((int(match.group(1)), records))
        return out

    def snapshot(self) -> tuple[int, int, list[DecodedRecord]] | None:
        for path, records in self.decoded.items():
            match = SNAPSHOT_NAME.match(path.rpartition("/")[2])
            if match:
                return int(match.group(1)), int(match.group(2)), records
        return None


def kind_of(path: str) -> tuple[str, int | None] | None:
    name = path.rpartition("/")[2]
    if SEGMENT_NAME.match(name):
        return "LOG_SEGMENT", None
    match = SNAPSHOT_NAME.match(name)
    if match:
        return "SNAPSHOT", int(match.group(1))
    if name == "bootstrap.checkpoint":
        return "BOOTSTRAP_SNAPSHOT", 0
    return None


def generate(fleet: FleetSpec, index: int) -> Cluster:
    synth = ClusterSynth(fleet, plan_cluster(fleet, index))
    encoder = ClusterEncoder(synth)
    cluster = Cluster(synth, encoder, dict(encoder.files()))
    for path, data in cluster.files.items():
        kind = kind_of(path)
        if kind is None:
            continue
        items = list(decode_file(data, kind=kind[0], snapshot_end_offset=kind[1]))
        quarantined = [item for item in items if isinstance(item, QuarantineItem)]
        assert not quarantined, (path, quarantined[:3])
        cluster.decoded[path] = [item for item in items if isinstance(item, DecodedRecord)]
    return cluster


@functools.cache
def fleet(**overrides: Any) -> tuple[Cluster, ...]:
    fleet_spec = spec(**overrides)
    return tuple(generate(fleet_spec, index) for index in range(fleet_spec.clusters))


def default_fleet() -> tuple[Cluster, ...]:
    return fleet()
