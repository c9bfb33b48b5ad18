"""Broker dynamic scopes: which keys DynamicBrokerConfig lets change at runtime, cluster-wide or per broker.

The composition of the sets comes from the facts (``dynamic.yaml``); their members are evaluated from the source.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tools.kafka_configs.defines import find_defines
from tools.kafka_configs.facts.models import DefinesTerm, DynamicLogConfigTerm, DynamicSpec, DynamicTerm
from tools.kafka_configs.resolver import Resolver

__all__ = ["DynamicSets", "dynamic_sets", "scope_of"]


class DynamicSets(NamedTuple):
    """The evaluated sets of one release."""

    all_dynamic: set[str]  # every key that can change at runtime
    per_broker: set[str]  # keys that can be set only per broker (not at the cluster default)
    security: set[str]  # keys settable dynamically only with a listener.name.<listener>. prefix


def dynamic_sets(r: Resolver, spec: DynamicSpec, problems: list[str]) -> DynamicSets:
    """Evaluate a release's dynamic-config sets.

    Args:
        r: the resolver (its topic synonyms give DynamicLogConfig's set).
        spec: the release's composition.
        problems: gets a line for every term that does not evaluate to names.

    Returns:
        The sets; per-broker = (security | listener | per_broker_extra) - cluster-level listener configs.
    """
    all_dyn: set[str] = set()
    for t in spec.all_dynamic:
        all_dyn.update(_names(r, spec, t, problems))
    security = set(_names(r, spec, spec.security, problems))
    listener = set(_names(r, spec, spec.listener, problems))
    cluster_level = set(_names(r, spec, spec.cluster_level_listener, problems))
    extra: set[str] = set()
    for t in spec.per_broker_extra:
        extra.update(_names(r, spec, t, problems))
    return DynamicSets(all_dyn, (security | listener | extra) - cluster_level, security)


def scope_of(name: str, sets: DynamicSets) -> str:
    """The catalog's ``dynamic`` value of a broker key in the ConfigDef: read-only, per-broker or cluster-wide."""
    if name in sets.per_broker:
        return "per-broker"
    if name in sets.all_dynamic:
        return "cluster-wide"
    return "read-only"


def _names(r: Resolver, spec: DynamicSpec, term: DynamicTerm, problems: list[str]) -> list[str]:
    if isinstance(term, DynamicLogConfigTerm):
        # DynamicLogConfig.ReconfigurableConfigs: the primary broker synonym of every topic config
        excluded = set(term.dynamic_log_config_except)
        return [syns[0].name for key, syns in r.topic_synonyms().items() if key not in excluded]
    if isinstance(term, DefinesTerm):
        ref = term.names_defined_by
        sf = r.file(ref.file)
        names: list[Any] = [r.eval(sf, *d.args[0]) for d in find_defines(sf) if d.owner == ref.owner]
        return _strings(term, names, problems)
    v = r.eval_text(spec.file, term)
    if isinstance(v, str):
        return [v]
    return _strings(term, v, problems)


def _strings(term: DynamicTerm, v: Any, problems: list[str]) -> list[str]:
    if not isinstance(v, list) or any(not isinstance(x, str) for x in v):
        problems.append(f"dynamic set {term!r} did not evaluate: {v!r}")
        return []
    return v
