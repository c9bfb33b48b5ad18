"""The config changes Kafka's brokers refused against what ``kraft-audit simulate`` says of the same changes.

A scenario step that alters configs through the broker (``op: alter`` without ``via: controller``) is validated by
the broker as Kafka validates any AlterConfigs; the fixture records each refused one with Kafka's error. Nothing a
refused request asked is written, so the fixture's final state is the state the request met (the scenarios refuse
their last config change; a later ``create_topic`` writes no config). kraft-audit simulates the same change on that
audited state, at the fixture's release, and must flag it: refused (``SimulateResult.refused``: the layer a broker
would not apply) or an error violation it introduces (the rules Kafka applies at request time as MV validators,
e.g. the per-broker ``min.insync.replicas`` while ELR is enabled).

Not compared: refusals by the client itself (a 3.x Admin client has no GROUP resource type:
``IllegalArgumentException`` before any request), and requests Kafka accepted (the final state already holds them:
simulating one again changes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas.changes import ChangeSet

# refusals raised by the Admin client before any request reached Kafka
CLIENT_SIDE = ("java.lang.IllegalArgumentException",)


@dataclass
class RefusedRequest:
    """One AlterConfigs Kafka refused, and whether kraft-audit's simulate flags it."""

    fixture: str
    resource_type: str
    resource_name: str
    keys: dict[str, str]
    error: str  # Kafka's error class and message
    flagged_as: list[str]  # kraft-audit's refusal or introduced error violations for it (empty: not flagged)

    @property
    def agrees(self) -> bool:
        return bool(self.flagged_as)


def refused_requests(fixture: str, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The broker-side refused alters of one fixture (Kafka's ``refused`` entries)."""
    return [
        entry
        for entry in result.get("refused") or []
        if entry["op"].get("op") == "alter" and entry.get("error_class") not in CLIENT_SIDE
    ]


def change_set(requests: list[tuple[str, dict[str, Any]]]) -> ChangeSet:
    """The simulate changes file of ``(fixture, refused entry)`` pairs: one change per resource, with the keys of
    every request refused on it (Kafka refused each request alone; the scenarios refuse different keys of a resource
    in separate requests, each judged by single-key validators, so one simulate of their union flags each key as
    its own request would: ``flags`` attributes by key)."""
    merged: dict[tuple[str, str, str], dict[str, str]] = {}
    for fixture, entry in requests:
        op = entry["op"]
        merged.setdefault((fixture, op["type"], op["name"]), {}).update(op["set"])
    return ChangeSet.model_validate(
        {
            "changes": [
                {
                    "cluster_id": fixture,
                    "resource_type": resource_type,
                    "resource_name": name,
                    "ops": [{"op": "SET", "key": k, "value": v} for k, v in sorted(keys.items())],
                }
                for (fixture, resource_type, name), keys in merged.items()
            ]
        }
    )


def flags(fixture: str, entry: dict[str, Any], refused: list[str], introduced: list[str]) -> list[str]:
    """What kraft-audit's simulate said of one request: its refusal lines and the error violations it introduced on
    the resource's keys the request set (``SimulateResult`` strings: ``"<cluster> BROKER '<name>': ..."`` and
    ``"<cluster> <type> <name> <node> <key> <constraint>"``)."""
    op = entry["op"]
    own = [line for line in refused if line.startswith(f"{fixture} {op['type']} {op['name']!r}:")]
    prefix = f"{fixture} {op['type']} {op['name']} "
    keys = set(op["set"])
    return own + [line for line in introduced if line.startswith(prefix) and line[len(prefix) :].split(" ")[1] in keys]


def report_lines(requests: list[RefusedRequest]) -> list[str]:
    """One line per refused request."""
    lines = []
    for r in requests:
        keys = ", ".join(f"{k}={v}" for k, v in sorted(r.keys.items()))
        verdict = "agree" if r.agrees else "DISAGREE: simulate does not flag it"
        lines.append(f"{r.fixture}: Kafka refused {r.resource_type} {r.resource_name!r} {{{keys}}}: {verdict}")
        lines.extend(f"    kraft-audit: {flag}" for flag in r.flagged_as)
    return lines
