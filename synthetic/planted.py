"""What the generator planted, for the manifest: violations (bad values in effect at the end of the log), decoys
(bad values that are not in effect, which a correct replay must not report) and fake secrets (to check
redaction)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "SECRET_MARKER",
    "SRC_BROKER",
    "SRC_CLIENT_METRICS",
    "SRC_DEFAULT_BROKER",
    "SRC_GROUP",
    "SRC_STATIC",
    "SRC_TOPIC",
    "Planted",
]

SECRET_MARKER: Final = "synth-fake-secret-"  # prefix of every planted fake password

# Sources as the audit names them (docs/contract.md §4), for the manifest.
SRC_TOPIC: Final = "DYNAMIC_TOPIC_CONFIG"
SRC_BROKER: Final = "DYNAMIC_BROKER_CONFIG"
SRC_DEFAULT_BROKER: Final = "DYNAMIC_DEFAULT_BROKER_CONFIG"
SRC_STATIC: Final = "STATIC_BROKER_CONFIG"
SRC_GROUP: Final = "DYNAMIC_GROUP_CONFIG"
SRC_CLIENT_METRICS: Final = "DYNAMIC_CLIENT_METRICS_CONFIG"


@dataclass(frozen=True)
class Planted:
    """One planted value: a violation, a decoy (a bad value that is not in effect) or a fake secret."""

    cluster: str
    cluster_id: str
    resource_type: str  # BROKER, TOPIC, GROUP, CLIENT_METRICS
    resource_name: str  # "" = cluster default (BROKER), node id, topic, group or subscription name
    config: str
    value: str
    kind: str
    source: str  # DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, ..., STATIC_BROKER_CONFIG
    related: tuple[tuple[str, str], ...] = ()  # other keys of the entity the kind is about (e.g. the session timeout)
    reason: str = ""  # decoys: why the value is not in effect
    sensitive: bool = False  # a fake secret: the manifest carries its hash, never the value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the manifest; a sensitive value is replaced by its SHA-256 and ``SECRET_MARKER``
        (every fake secret starts with it, so a leak check can search any output for the marker)."""
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "cluster_id": self.cluster_id,
            "resource_type": self.resource_type,
            "resource_name": self.resource_name,
            "config": self.config,
            "value": "[redacted]" if self.sensitive else self.value,
            "kind": self.kind,
            "source": self.source,
        }
        if self.sensitive:
            out["value_sha256"] = hashlib.sha256(self.value.encode("utf-8")).hexdigest()
            out["marker"] = SECRET_MARKER
        if self.related:
            out["related"] = dict(self.related)
        if self.reason:
            out["reason"] = self.reason
        return out
