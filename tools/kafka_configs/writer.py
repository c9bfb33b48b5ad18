"""The catalog document as YAML: block style for entries, flow style for validators and short lists.

The layout is fixed by hand (not ``yaml.dump``) so that catalogs diff well between releases; the result is parsed
back before it is returned.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

__all__ = ["dump"]

# The committed catalogs' second header line names the tool that first produced them; keeping the text keeps
# re-extraction byte-identical (the command is documented in conf/kafka/README.md).
GENERATOR = "tools/extract_kafka_configs.py"

ENTRY_ORDER = [
    "name",
    "type",
    "default",
    "required",
    "validator",
    "code_checks",
    "importance",
    "sensitive",
    "internal",
    "dynamic",
    "listener_prefix_required",
    "dynamic_only",
    "hand_checked",
    "source",
]
# flags written only when true
_FLAGS = ("required", "sensitive", "internal", "listener_prefix_required", "dynamic_only", "hand_checked")
# plain scalars YAML 1.1 would read as null or booleans
_RESERVED = ("null", "true", "false", "yes", "no", "on", "off", "y", "n", "~")


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    s = str(v)
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-/]*", s) and s.lower() not in _RESERVED:
        return s
    return json.dumps(s, ensure_ascii=False)


def _flow(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return _scalar(v)


def _entries(resource: str, entries: list[dict[str, Any]]) -> list[str]:
    if not entries:
        return [f"{resource}: []"]
    out = [f"{resource}:"]
    for e in entries:
        keys = [k for k in ENTRY_ORDER if k in e] + [k for k in e if k not in ENTRY_ORDER]
        first = True
        for k in keys:
            v = e[k]
            if k in _FLAGS and not v:
                continue
            line = f"{k}: {_flow(v) if k == 'validator' or isinstance(v, (dict, list)) else _scalar(v)}"
            out.append(("  - " if first else "    ") + line)
            first = False
    return out


def dump(doc: dict[str, Any]) -> str:
    """The document as YAML text (``conf/kafka/README.md`` format).

    Args:
        doc: a document from :func:`tools.kafka_configs.build.build`.

    Returns:
        The text, ending in a newline.

    Raises:
        yaml.YAMLError: if the text does not parse back (a bug in this module).
    """
    src = doc["sources"]
    out: list[str] = [
        f"# Kafka {doc['release']} config definitions, extracted from {src['repo']}@{src['ref']}",
        f"# by {GENERATOR} and reviewed by hand. Format: conf/kafka/README.md.",
        f"release: {_scalar(doc['release'])}",
        "sources:",
        f"  repo: {src['repo']}",
        f"  ref: {_scalar(src['ref'])}",
        f"  commit: {src['commit']}",
        "  files_read:",
    ]
    out += [f"    - {f}" for f in src["files_read"]]
    out.append("counts: " + _flow(doc["counts"]))
    out.append("list_validation:")
    out += [f"  {k}: {_scalar(v)}" for k, v in doc["list_validation"].items()]
    for resource in ("broker", "topic", "group", "client_metrics"):
        out += _entries(resource, doc[resource])
    out.append("topic_synonyms:")
    for k, v in doc["topic_synonyms"].items():
        out.append(f"  {_scalar(k)}: {_flow(v)}")
    out.append("broker_synonym_groups:")
    for g in doc["broker_synonym_groups"]:
        out.append("  - " + _flow(g))
    if doc["group_synonyms"]:
        out.append("group_synonyms:")
        for k, v in doc["group_synonyms"].items():
            out.append(f"  {_scalar(k)}: {_scalar(v)}")
    else:
        out.append("group_synonyms: {}")
    if doc.get("group_synonyms_note"):
        out.append(f"group_synonyms_note: {_scalar(doc['group_synonyms_note'])}")
    out.append("topic_configs_without_server_default: " + _flow(doc["topic_configs_without_server_default"]))
    out += _removed_since(doc["removed_since"])
    out += _checks(doc["cross_field_checks"])
    out += _list_block("notes", doc["notes"])
    out += _list_block("unresolved", doc["unresolved"])
    text = "\n".join(out) + "\n"
    yaml.safe_load(text)  # must round-trip
    return text


def _removed_since(removed: dict[str, Any] | None) -> list[str]:
    if not removed:
        return ["removed_since: null"]
    out = ["removed_since:", f"  previous_release: {_scalar(removed['previous_release'])}"]
    if removed["keys"]:
        out.append("  keys:")
        out += [f"    {k}: {_flow(v)}" for k, v in removed["keys"].items()]
    else:
        out.append("  keys: {}")
    return out


def _checks(checks: list[dict[str, Any]]) -> list[str]:
    if not checks:
        return ["cross_field_checks: []"]
    out = ["cross_field_checks:"]
    for c in checks:
        first = True
        for k, v in c.items():
            out.append(
                ("  - " if first else "    ") + f"{k}: {_flow(v) if isinstance(v, (list, dict)) else _scalar(v)}"
            )
            first = False
    return out


def _list_block(key: str, items: list[str]) -> list[str]:
    if not items:
        return [f"{key}: []"]
    return [f"{key}:", *(f"  - {_scalar(n)}" for n in items)]
