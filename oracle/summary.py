"""A short text account of what Kafka answered, from the result directories ``oracle.scenarios`` wrote.

Per scenario and release: whether the node formatted and started (and Kafka's error when not), the requests Kafka
refused, the dynamic changes the broker logged as not applied, feature levels before and after an upgrade, and,
per described resource, every entry not at its default (the harness's own static keys aside), with the value
Kafka shows, its source and, when the value differs from the top synonym's, that synonym (a stored value the
broker did not apply).

``python -m oracle.summary [DIR]`` (default ``out/oracle``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from oracle.node import base_properties
from oracle.runtime import REPO, Release

# The keys every oracle node sets for itself (listeners, quorum, log dir, ...): not part of any scenario.
HARNESS_KEYS = frozenset(base_properties(0, 0, Path("data"), Release("4.0.0", Path("."))))


def _levels(features: dict[str, Any] | None) -> str:
    if not features:
        return "-"
    if "finalized" not in features:
        return f"error {features.get('error_class')}: {features.get('error_message')}"
    return ", ".join(f"{k}={v}" for k, v in sorted(features["finalized"].items())) or "none"


def _entries(configs: dict[str, Any]) -> Iterator[str]:
    if "error_class" in configs:
        yield f"refused: {configs['error_class']}: {configs.get('error_message')}"
        return
    for key, entry in sorted(configs.items()):
        synonyms = entry.get("synonyms") or []
        if entry.get("source") == "DEFAULT_CONFIG" and len(synonyms) <= 1:
            continue
        if key in HARNESS_KEYS and entry.get("source") == "STATIC_BROKER_CONFIG":
            continue
        line = f"{key}={entry.get('value')} ({entry.get('source')})"
        if synonyms and synonyms[0].get("value") != entry.get("value"):
            line += f"  [stored, not applied: {synonyms[0].get('value')} ({synonyms[0].get('source')})]"
        yield line


def summarize(result: dict[str, Any]) -> list[str]:
    """The lines describing one scenario × release result (a parsed ``kafka.json``)."""
    lines = [f"== {result['scenario']} on {result['release']}"]
    fmt = result.get("format") or {}
    if fmt.get("returncode"):
        lines.append(f"  format refused: {fmt.get('error')}")
    starts = result.get("starts") or []
    if starts:
        lines.append("  starts: " + "; ".join("ok" if s["started"] else f"FAILED {s['error']}" for s in starts))
    elif not fmt.get("returncode"):
        lines.append("  never started")
    for refused in result.get("refused") or []:
        op = refused["op"]
        what = f"{op.get('op')} {op.get('type', '')}:{op.get('name', '')} via {op.get('via', 'broker')}"
        lines.append(f"  refused {what}: {refused['error_class']}: {refused['error_message']}")
    reasons = sorted({r["reason"] or r["line"][:200] for r in result.get("config_refusals_logged") or []})
    for reason in reasons:
        lines.append(f"  logged not applied: {reason[:300]}")
    features = result.get("features") or {}
    for phase in ("initial", "before_upgrade", "after_upgrade", "final"):
        if phase in features:
            lines.append(f"  features {phase}: {_levels(features[phase])}")
    for command in result.get("feature_commands") or []:
        if "describe" not in command["args"]:
            state = "ok" if command["returncode"] == 0 else f"exit {command['returncode']}: {command['error']}"
            lines.append(f"  kafka-features {' '.join(command['args'][3:])}: {state}")
    for phase in ("describe", "describe_after_restart"):
        for resource, configs in (result.get(phase) or {}).items():
            lines.append(f"  {phase} {resource}:")
            lines.extend(f"    {line}" for line in _entries(configs))
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else REPO / "out" / "oracle"
    files = sorted(root.glob("*/*/kafka.json"))
    if not files:
        print(f"kafka-oracle: no results under {root} (run `make kafka-oracle`)", file=sys.stderr)
        return 2
    for path in files:
        print("\n".join(summarize(json.loads(path.read_text()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
