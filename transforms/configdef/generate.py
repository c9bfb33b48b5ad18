"""The default constraint catalog, generated from Kafka's config definitions per release (``conf/kafka``).

``generate_default_catalog(documents, mv_table)`` builds the catalog (source ``DEFAULT_SOURCE``) from
``(file name, yaml.safe_load of conf/kafka/<release>.yaml)`` pairs; ``constraint_count_by_release`` counts its
constraints per release and ``untranslated_validators`` lists the code validators it does not check.

Jobs read the files; this function is pure. Each release's ConfigDef becomes a set of **base validators bound to
that release** (``release: X``, KIP-1294's ``validator`` argument of ``define``): the checks a broker binary of
release X runs whatever the metadata.version. At a level L a broker runs ``max(the release it runs now, the
release of L)`` (``selection``), so an audit checks what that release's ConfigDef checks, and a later release's
set *replaces* the earlier one for the brokers running it (a relaxed validator relaxes, a dropped validator
disappears). MV validators (rules with ``since``, e.g. ``kafka_mv_gates``) are evaluated in addition and never
remove these.

* Every key gets a ``type`` check (INT/LONG/SHORT/DOUBLE/BOOLEAN/CLASS must parse; STRING/LIST/PASSWORD always
  pass, which still marks "this release validates the key" so older validators stop applying).
* Validators: ``at_least`` → ``min``; ``between`` → ``between``; ``in`` → ``in`` (case-insensitive sets become an
  anchored ``(?i)`` regex); ``list_in`` → ``in`` per element, plus KIP-1161's rules when the release has them
  (``not_null`` unless null is allowed, ``non_empty_list`` unless empty is allowed, ``no_empty_elements``;
  duplicates are not checked because ConfigDef de-duplicates ValidList values first, KAFKA-19875);
  ``non_duplicate_list`` → the same KIP-1161 rules; ``non_empty_string`` → ``not_in: ['']``; ``non_null`` →
  ``not_null``; ``code_checks`` of the key are treated like validators; ``custom`` validators (Java code) are
  translated by ``kafka_validators.translate_custom`` into checks and single-key expressions from the facts read
  in Kafka's source; what stays untranslated (whether a client-metrics ``match`` pattern compiles) is listed in
  the rule ``description`` of the type check so reviewers see the gap (``untranslated_validators`` lists it).
* A key removed in a release gets, from that release, a warning expression ``value is null`` ("still set but
  removed in Kafka X"); it also ends the removed key's earlier validators.
* ``cross_field_checks`` with an ``expr`` become expression constraints keyed by their sorted keys (severity
  warning when Kafka only logs, error otherwise); a check that a later release no longer has is retired by a
  constant-true expression at that release.
* An unchanged set of validators is not registered again: the earlier registration stays the floor entry,
  which keeps the catalog small and reports the release since which the rule holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from schemas.constraints import ConstraintCatalog, parse_catalog
from schemas.errors import ConfigError
from schemas.kafka_catalog import release_rank
from schemas.kafka_vocabulary import CONFIG_RESOURCE_TYPES
from schemas.metadata_version import MetadataVersionTable
from transforms.configdef.kafka_validators import translate_custom

__all__ = ["DEFAULT_SOURCE", "constraint_count_by_release", "generate_default_catalog", "untranslated_validators"]

DEFAULT_SOURCE: Final = "<default catalog>"
RESOURCES: Final = tuple(t.kind for t in CONFIG_RESOURCE_TYPES)  # the sections of conf/kafka/<release>.yaml
_TYPE_NAMES: Final = {
    "INT": "int",
    "LONG": "long",
    "SHORT": "short",
    "DOUBLE": "double",
    "BOOLEAN": "boolean",
    "CLASS": "class",
    "LIST": "list",
    "STRING": "string",
    "PASSWORD": "password",
}
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]")

Entry = dict[str, Any]
Rule = dict[str, Any]


def _slug(text: str) -> str:
    return _ID_UNSAFE.sub("_", text)


def _kip1161_list_checks(validator: Mapping[str, Any]) -> list[tuple[str, Entry]]:
    checks: list[tuple[str, Entry]] = []
    if not validator.get("null_allowed", True):
        checks.append(("not-null", {"not_null": True}))
    if not validator.get("empty_allowed", True):
        checks.append(("non-empty", {"non_empty_list": True}))
    checks.append(("no-empty-elements", {"no_empty_elements": True}))
    return checks


def _translate(validator: Any, release: str) -> tuple[list[tuple[str, Rule]], list[str]]:
    """(rules as (id suffix, ``{"check": ...}`` or ``{"expr": ...}``), names of validators not translated)."""
    if validator is None:
        return [], []
    if isinstance(validator, list):
        rules, skipped = [], []
        for part in validator:
            r, s = _translate(part, release)
            rules += r
            skipped += s
        return rules, skipped
    if validator.get("kind") == "custom":
        return translate_custom(validator, release)
    checks, skipped = _translate_declarative(validator)
    return [(suffix, {"check": check}) for suffix, check in checks], skipped


def _translate_declarative(validator: Mapping[str, Any]) -> tuple[list[tuple[str, Entry]], list[str]]:
    kind = validator.get("kind")
    if kind == "at_least":
        return [("min", {"min": validator["min"]})], []
    if kind == "between":
        return [("between", {"between": [validator["min"], validator["max"]]})], []
    if kind == "in":
        values = [v for v in validator.get("values", [])]
        if validator.get("case_insensitive"):
            pattern = "(?i)(?:" + "|".join(re.escape(str(v)) for v in values) + ")"
            return [("in", {"regex": pattern})], []
        return [("in", {"in": values})], []
    if kind == "list_in":
        checks = [("in", {"in": list(validator["values"])})] if validator.get("values") else []
        if validator.get("kip1161"):
            checks += _kip1161_list_checks(validator)
        return checks, []
    if kind == "non_duplicate_list":
        return (_kip1161_list_checks(validator) if validator.get("kip1161", True) else []), []
    if kind == "non_empty_string":
        return [("non-empty", {"not_in": [""]})], []
    if kind == "non_null":
        return [("not-null", {"not_null": True})], []
    return [], [str(validator.get("name") or kind)]


def _reference(doc_sources: Mapping[str, Any], release: str, where: str) -> str:
    """``confluentinc/kafka 4.2: core/src/main/scala/kafka/server/KafkaConfig.scala:1234``: repository, branch,
    file."""
    repo = str(doc_sources.get("repo") or "confluentinc/kafka")
    ref = str(doc_sources.get("ref") or release)
    return f"{repo} {ref}: {where}" if where else f"{repo} {ref}"


def _key_constraints(
    resource: str, key: Mapping[str, Any], release: str, doc_sources: Mapping[str, Any] | None = None
) -> list[Entry]:
    name = key["name"]
    rules, skipped = _translate(key.get("validator"), release)
    for code_check in key.get("code_checks") or []:
        r, s = _translate(code_check, release)
        rules += r
        skipped += s
    type_name = _TYPE_NAMES.get(str(key.get("type") or "STRING").upper(), "string")
    description = f"Kafka {release} ConfigDef type {type_name}"
    if skipped:
        description += f"; not translated (code validators): {', '.join(sorted(set(skipped)))}"
    entries: list[Entry] = [{"suffix": "type", "check": {"type": type_name}, "description": description}]
    seen: set[str] = set()
    for suffix, rule in rules:
        unique = suffix if suffix not in seen else f"{suffix}-{len(seen)}"
        seen.add(unique)
        entries.append({"suffix": unique, **rule, "description": f"Kafka {release} ConfigDef validator"})
    return [
        {
            "id": f"kafka-{release}-{resource}-{_slug(name)}-{e['suffix']}",
            "resource": resource,
            "config": name,
            **({"check": e["check"]} if "check" in e else {"expr": e["expr"]}),
            "severity": "error",
            "description": e["description"],
            "reference": _reference(doc_sources or {}, release, str(key.get("source") or f"{resource} ConfigDef")),
        }
        for e in entries
    ]


def _cross_constraint(check: Mapping[str, Any], release: str, doc_sources: Mapping[str, Any] | None = None) -> Entry:
    enforced = "not enforced" not in str(check.get("kafka_effect", ""))
    return {
        "id": f"kafka-{release}-{_slug(check['id'])}",
        "resource": check["resource"],
        "configs": list(check["keys"]),
        "expr": check["expr"],
        "severity": "error" if enforced else "warning",
        "description": str(check.get("rule") or ""),
        "reference": _reference(doc_sources or {}, release, str(check.get("source") or "")),
    }


def _signature(entries: list[Entry]) -> tuple[Any, ...]:
    """What a release validates for one selection key, independent of ids and release names."""
    return tuple(
        sorted(repr((e.get("check"), e.get("expr"), e.get("severity"), tuple(e.get("configs") or ()))) for e in entries)
    )


def _check_release_known(release: str, mv_table: MetadataVersionTable, source: str) -> None:
    if not any(v.release == release for v in mv_table.levels):
        raise ConfigError(f"{source}: release {release} has no metadata.version level in the MV table")


def _release_groups(doc: Mapping[str, Any], release: str) -> dict[tuple[str, tuple[str, ...]], list[Entry]]:
    """Every generated constraint of one release, grouped by KIP-1294 selection key."""
    groups: dict[tuple[str, tuple[str, ...]], list[Entry]] = {}
    sources = doc.get("sources") or {}
    for resource in RESOURCES:
        for key in doc.get(resource) or []:
            groups.setdefault((resource, (key["name"],)), []).extend(_key_constraints(resource, key, release, sources))
    for check in doc.get("cross_field_checks") or []:
        if check.get("expr"):
            entry = _cross_constraint(check, release, sources)
            groups.setdefault((entry["resource"], tuple(sorted(entry["configs"]))), []).append(entry)
    return groups


def _retirement(
    selection: tuple[str, tuple[str, ...]], previous: list[Entry], release: str, doc: Mapping[str, Any]
) -> Entry:
    resource, keys = selection
    sources = doc.get("sources") or {}
    if previous and "config" in previous[0] and len(keys) == 1:
        return {
            "id": f"kafka-{release}-{resource}-{_slug(keys[0])}-removed",
            "resource": resource,
            "config": keys[0],
            "expr": "value is null",
            "severity": "warning",
            "description": f"{keys[0]} was removed in Kafka {release}: brokers ignore it; delete it",
            "reference": _reference(sources, release, f"{resource} ConfigDef no longer defines {keys[0]}"),
        }
    return {
        "id": f"kafka-{release}-{resource}-{_slug('+'.join(keys))}-retired",
        "resource": resource,
        "configs": list(previous[0].get("configs") or keys) if previous else list(keys),
        "expr": "true",
        "severity": "warning",
        "description": f"Kafka {release} no longer checks this; ends the earlier check",
        "reference": _reference(sources, release, "cross-field check no longer present"),
    }


def _mv_gate_entries(mv_gates: Any, name: str) -> list[Entry]:
    """The entries of ``conf/kafka_mv_gates.yaml``: Kafka's own MV validators, each with ``since`` and a
    ``reference`` naming its Kafka source."""
    if mv_gates is None:
        return []
    entries = mv_gates.get("constraints") if isinstance(mv_gates, Mapping) else None
    if not isinstance(entries, list):
        raise ConfigError(f"{name}: Kafka's MV-gated checks are a mapping with a `constraints:` list")
    for index, entry in enumerate(entries):
        where = f"{name}: constraint {entry.get('id', f'#{index + 1}') if isinstance(entry, Mapping) else index + 1}"
        if not isinstance(entry, Mapping) or entry.get("since") is None:
            raise ConfigError(f"{where}: a Kafka MV gate is an MV validator and needs `since`")
        if not str(entry.get("reference") or "").startswith("confluentinc/kafka "):
            raise ConfigError(f"{where}: `reference` must name the Kafka source (confluentinc/kafka <branch>: <file>)")
    return [dict(e) for e in entries]


def generate_default_catalog(
    documents: Sequence[tuple[str, Mapping[str, Any]]],
    mv_table: MetadataVersionTable,
    *,
    mv_gates: Any = None,
    mv_gates_name: str = "conf/kafka_mv_gates.yaml",
    source: str = DEFAULT_SOURCE,
) -> ConstraintCatalog:
    """The generated catalog (semantics in the module docstring), validated like a user catalog.

    ``mv_gates``: the parsed ``conf/kafka_mv_gates.yaml`` (Kafka's own MV-gated checks, added as MV validators),
    or None for none.

    Raises:
        ConfigError: a document without ``release``, a release without MV levels, an MV gate without ``since``
            or a Kafka ``reference``, or a generated entry that does not validate (naming the document and the id).
    """
    ordered = []
    for name, doc in documents:
        if not isinstance(doc, Mapping) or "release" not in doc:
            raise ConfigError(f"{name}: not a Kafka config catalog (no `release:`)")
        ordered.append((release_rank(str(doc["release"])), str(doc["release"]), name, doc))
    ordered.sort(key=lambda item: item[0])

    emitted: list[Entry] = []
    current: dict[tuple[str, tuple[str, ...]], tuple[tuple[Any, ...], list[Entry]]] = {}
    for _, release, name, doc in ordered:
        _check_release_known(release, mv_table, name)
        groups = _release_groups(doc, release)
        for selection, entries in groups.items():
            signature = _signature(entries)
            if selection in current and current[selection][0] == signature:
                continue
            current[selection] = (signature, entries)
            emitted.extend({**e, "release": release} for e in entries)
        for selection in [s for s in current if s not in groups]:
            retired = _retirement(selection, current[selection][1], release, doc)
            if current[selection][0] != ("retired",):
                emitted.append({**retired, "release": release})
                current[selection] = (("retired",), [retired])
    emitted.extend(_mv_gate_entries(mv_gates, mv_gates_name))
    return parse_catalog({"constraints": emitted}, source)


def constraint_count_by_release(catalog: ConstraintCatalog, mv_table: MetadataVersionTable) -> dict[str, int]:
    """How many generated constraints each release registered (for the run summary / review); MV validators
    (``since``) count under the release of their level, unbound base validators under ``base``."""
    counts: dict[str, int] = {}
    for constraint in catalog.constraints:
        level = int(constraint.since) if isinstance(constraint.since, int) else None
        release = constraint.release or (mv_table.release_of(level) if level is not None else None)
        counts[release or "base"] = counts.get(release or "base", 0) + 1
    return counts


def untranslated_validators(documents: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, list[str]]:
    """Per release, ``"<resource> <key>: <validator>"`` for every code validator (or part of one) that the
    generated catalog does not check (for review and the tests)."""
    out: dict[str, list[str]] = {}
    for _name, doc in documents:
        release = str(doc["release"])
        gaps = out.setdefault(release, [])
        for resource in RESOURCES:
            for key in doc.get(resource) or []:
                for part in [key.get("validator"), *(key.get("code_checks") or [])]:
                    for skipped in _translate(part, release)[1]:
                        gaps.append(f"{resource} {key['name']}: {skipped}")
    return out
