"""Assemble the catalog document of one release: entries, hand-checked fixes, dynamic scopes, synonyms, checks.

Everything the extractor could not resolve, and every inconsistency between the parts (a synonym naming an unknown
key, a dynamic set naming a key the ConfigDef lacks, ...), is collected in ``unresolved``.
"""

from __future__ import annotations

from typing import Any

from tools.kafka_configs.checks import cross_field_checks
from tools.kafka_configs.dynamic import dynamic_sets, scope_of
from tools.kafka_configs.entries import collect
from tools.kafka_configs.facts import Facts
from tools.kafka_configs.facts.models import ConstantRef
from tools.kafka_configs.git import SourceTree
from tools.kafka_configs.release import Release
from tools.kafka_configs.resolver import Resolver
from tools.kafka_configs.validators import ValidatorParser

__all__ = ["RESOURCES", "build"]

RESOURCES = ("broker", "topic", "group", "client_metrics")

Entry = dict[str, Any]


def build(
    release: Release,
    repo: str,
    tree: SourceTree,
    ref: str,
    commit: str,
    facts: Facts,
    previous: dict[str, Any] | None,
) -> dict[str, Any]:
    """The catalog document of ``release`` (see ``conf/kafka/README.md``).

    Args:
        release: the release; must be one the facts describe.
        repo: ``owner/name`` recorded in ``sources``.
        tree: the release's sources.
        ref: the ref read, recorded in ``sources``.
        commit: the commit the ref resolved to.
        facts: the hand-checked facts.
        previous: the previous release's document (for ``removed_since``), or None.

    Returns:
        The document, keys in output order.

    Raises:
        KeyError: when the facts do not describe ``release``.
    """
    spec = facts.releases.releases[release]
    r = Resolver(
        tree,
        synonym_source=_location(spec.topic_synonyms),
        compression_default_levels={c.codec: c.level for c in facts.constants.compression_default_levels},
        jvm_defaults={j.call: j.value for j in facts.constants.jvm_defaults},
    )
    vp = ValidatorParser(r, spec.kip1161, facts.validators.known, facts.validators.descriptions)
    problems: list[str] = []

    res: dict[str, list[Entry]] = {
        "broker": collect(r, vp, spec.broker, problems),
        "topic": collect(r, vp, spec.topic, problems),
        "group": collect(r, vp, spec.group, problems),
        "client_metrics": collect(r, vp, spec.client_metrics, problems),
    }
    broker_names = {e["name"] for e in res["broker"]}
    for e in collect(r, vp, spec.broker_dynamic_only, problems):
        if e["name"] not in broker_names:
            e["dynamic_only"] = True
            res["broker"].append(e)

    _apply_entry_fixes(release, facts, res, problems)
    _set_dynamic_scopes(release, r, facts, res["broker"], problems)

    # synonyms
    syn = r.topic_synonyms()
    topic_names = [e["name"] for e in res["topic"]]
    all_broker_names = {e["name"] for e in res["broker"]}
    topic_synonyms = {k: [{"name": s.name, "converter": s.converter} for s in v] for k, v in syn.items()}
    for k, v in topic_synonyms.items():
        if k not in topic_names:
            problems.append(f"synonym for unknown topic key {k}")
        for s in v:
            if s["name"] not in all_broker_names:
                problems.append(f"topic synonym {s['name']} is not a broker key")
    without_default = sorted(n for n in topic_names if n not in syn)
    group_names = {e["name"] for e in res["group"]}
    group_synonyms = _group_synonyms(release, r, facts, spec.group_synonyms, problems)
    for k, gv in group_synonyms.items():
        if k not in group_names:
            problems.append(f"group synonym for unknown group key {k}")
        if gv is not None and gv not in broker_names:
            problems.append(f"group synonym target {gv} is not a broker key")

    # single-key checks done in code
    for e in res["client_metrics"]:
        code_checks = facts.checks.client_metrics_code_checks.get(e["name"])
        if code_checks:
            e["code_checks"] = [c.model_dump(mode="json", exclude_none=True) for c in code_checks]
    cfc = cross_field_checks(release, r, facts.checks, spec.must_be_checks, broker_names, group_names)
    known = broker_names | set(topic_names) | group_names
    for c in cfc:
        missing = [k for k in c["keys"] if k not in known]
        if missing:
            problems.append(f"cross-field check {c['id']} names unknown keys {missing}")

    # problems left in entries
    for resource, entries in res.items():
        for e in entries:
            for pr in e.pop("_problems", []) or []:
                problems.append(f"{resource} {e['name']}: {pr}")
            if "UNRESOLVED" in repr(e):
                problems.append(f"{resource} {e['name']}: unresolved value left")
            if "UNDESCRIBED" in repr(e):
                problems.append(f"{resource} {e['name']}: custom validator without a description")

    files_read = sorted(
        {e["_source"].rsplit(":", 1)[0] for es in res.values() for e in es}
        | {spec.topic_synonyms.file, facts.dynamic.dynamic[release].file}
        | {c["source"].split(":")[0] for c in cfc}
        | ({spec.group_synonyms.file} if spec.group_synonyms is not None else set())
    )
    for es in res.values():
        for e in es:
            e["source"] = e.pop("_source")
        es.sort(key=lambda e: e["name"])

    group_note = facts.synonyms.group_synonyms_note
    return {
        "release": str(release),
        "sources": {"repo": repo, "ref": ref, "commit": commit, "files_read": files_read},
        "counts": {k: len(v) for k, v in res.items()},
        "list_validation": facts.releases.list_validation_for(spec.kip1161).model_dump(mode="json"),
        "broker": res["broker"],
        "topic": res["topic"],
        "group": res["group"],
        "client_metrics": res["client_metrics"],
        "topic_synonyms": topic_synonyms,
        "broker_synonym_groups": [
            g.model_dump(mode="json", exclude_none=True) for g in facts.synonyms.broker_synonym_groups
        ],
        "group_synonyms": group_synonyms,
        "group_synonyms_note": group_note.text if group_note.applies_to(release) else None,
        "topic_configs_without_server_default": without_default,
        "removed_since": _removed_since(previous, res),
        "cross_field_checks": cfc,
        "notes": [n.text for n in facts.manual.notes if n.applies_to(release)],
        "unresolved": sorted(set(problems)),
    }


def _location(ref: ConstantRef) -> tuple[str, str, str]:
    return ref.file, ref.class_name, ref.constant


def _apply_entry_fixes(release: Release, facts: Facts, res: dict[str, list[Entry]], problems: list[str]) -> None:
    for fix in facts.manual.entry_fixes:
        if not fix.applies_to(release):
            continue
        by_name = {e["name"]: e for e in res[fix.resource]}
        if fix.key not in by_name:
            problems.append(f"MANUAL fix for unknown {fix.resource} key {fix.key}")
            continue
        e = by_name[fix.key]
        e.update(fix.values.model_dump(mode="json", exclude_unset=True))
        e.pop("_problems", None)  # the fix replaces what could not be resolved
        e["hand_checked"] = True


def _set_dynamic_scopes(release: Release, r: Resolver, facts: Facts, broker: list[Entry], problems: list[str]) -> None:
    sets = dynamic_sets(r, facts.dynamic.dynamic[release], problems)
    for e in broker:
        # dynamic-only keys (replication throttles) are always cluster-wide
        e["dynamic"] = "cluster-wide" if e.get("dynamic_only") else scope_of(e["name"], sets)
        if e["name"] in sets.security:
            e["listener_prefix_required"] = True
    unknown = sorted((sets.all_dynamic | sets.per_broker) - {e["name"] for e in broker})
    if unknown:
        problems.append(f"dynamic names not in the broker ConfigDef: {unknown}")


def _group_synonyms(
    release: Release, r: Resolver, facts: Facts, source: ConstantRef | None, problems: list[str]
) -> dict[str, str | None]:
    if source is None:
        # no synonym table in the release: the hand-read mapping (empty before 4.0)
        return {g.key: g.broker_key for g in facts.synonyms.group_synonyms if g.applies_to(release)}
    f = r.file(source.file)
    gs = r.const_value(f, f.classes[source.class_name], source.constant)
    if not isinstance(gs, dict):
        problems.append(f"group synonyms did not evaluate: {gs!r}")
        return {}
    return dict(gs)


def _removed_since(previous: dict[str, Any] | None, res: dict[str, list[Entry]]) -> dict[str, Any] | None:
    if previous is None:
        return None
    removed: dict[str, list[str]] = {}
    for resource in RESOURCES:
        before = {e["name"] for e in previous.get(resource) or []}
        gone = sorted(before - {e["name"] for e in res[resource]})
        if gone:
            removed[resource] = gone
    return {"previous_release": previous["release"], "keys": removed}
