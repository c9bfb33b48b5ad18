"""KIP-1294 validator selection (``mvValidators`` + ``floorEntry``), pure Python.

``compile_catalog(catalogs, mv_table)`` turns the loaded catalogs into a ``CompiledCatalog``
(``schemas.constraints``); ``active_at(rules, level)`` lists the validators selected at one feature level.

Semantics (docs/contract.md §5.4), two kinds of rules (KIP-1294's ``define(..., validator, mvValidators)``):

* **base validators** — constraints without ``since``. One bound to a Kafka ``release`` (the generated default
  catalog's ConfigDef checks) judges a broker whose binaries at level ``L`` are that release:
  ``max(the release it runs now, the release of L)``, since an MV upgrade to ``L`` needs ``L``'s binaries. Per
  selection key the release-bound rules of a release hold until a later release registers the key again
  (``[release_from, release_to)`` over release ranks). A base validator without ``release`` applies at every
  level. No MV validator removes a base validator;
* **MV validators** — constraints with ``since``, evaluated *in addition* to the base validators: per selection
  key — ``(resource, sorted keys)``, so a single-key ``check`` on ``k`` and an ``expr`` over
  ``configs: [k]`` share one map, while ``configs: [a, b]`` has its own — the constraints with ``since`` form
  a map level → validators; for a target level ``L`` only those registered at the greatest level ``≤ L`` apply
  (all constraints sharing that level), and none when no level ``≤ L`` exists.

Each compiled constraint carries the half-open level interval ``[active_from, active_to)`` over which it
applies (``active_to`` None = unbounded; base validators start at 0) and, when release-bound, the release interval
``[release_from, release_to)``, so every level can be evaluated in one pass: constraint ``c`` applies at ``L`` for
brokers of release rank ``r`` iff ``active_from <= L < active_to`` and (when bound) ``release_from <= max(r,
release of L) < release_to``. ``origin`` says which kind of rule it is and whether Kafka or the user wrote it
(``schemas.violations.CONSTRAINT_ORIGINS``).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence

from schemas.constraints import CompiledCatalog, CompiledConstraint, Constraint, ConstraintCatalog, ensure_unique_ids
from schemas.errors import AuditError, ConfigError
from schemas.kafka_catalog import release_rank
from schemas.metadata_version import MetadataVersionTable
from transforms.configdef.expr_fixes import derive_fix
from transforms.configdef.expressions import rewrite_casts
from transforms.configdef.generate import DEFAULT_SOURCE
from transforms.kit.metadata_version import parse_metadata_version

__all__ = ["active_at", "compile_catalog"]


def _since_level(constraint: Constraint, source: str, mv_table: MetadataVersionTable) -> tuple[int, str]:
    try:
        mv = parse_metadata_version(str(constraint.since), mv_table)
    except AuditError as exc:
        raise ConfigError(f"{source}: constraint {constraint.id}: since: {exc}") from None
    return mv.level, mv.name


def compile_catalog(catalogs: Sequence[ConstraintCatalog], mv_table: MetadataVersionTable) -> CompiledCatalog:
    """Resolve ``since`` levels and KIP-1294 intervals for all loaded catalogs.

    Expression *syntax and fields* are not checked here (that needs Spark's parser): call
    ``transforms.configdef.expressions.validate_expressions`` on the result before evaluating.

    Raises:
        ConfigError: a duplicate id across files, or a ``since`` that names no known metadata.version.
    """
    ensure_unique_ids(catalogs)
    entries: list[tuple[Constraint, str, int | None, str | None]] = []
    for catalog in catalogs:
        for constraint in catalog.constraints:
            if constraint.since is None:
                entries.append((constraint, catalog.source, None, None))
            else:
                since_level, name = _since_level(constraint, catalog.source, mv_table)
                entries.append((constraint, catalog.source, since_level, name))

    levels_by_key: dict[tuple[str, tuple[str, ...]], set[int]] = defaultdict(set)
    releases_by_key: dict[tuple[str, tuple[str, ...]], set[int]] = defaultdict(set)
    for constraint, _, registered, _ in entries:
        if registered is not None:
            levels_by_key[constraint.selection_key].add(registered)
        if constraint.release is not None:
            releases_by_key[constraint.selection_key].add(release_rank(constraint.release))

    rules = []
    for idx, (constraint, source, level, since_mv) in enumerate(entries):
        expr_sql = rewrite_casts(constraint.expr) if constraint.expr is not None else None
        active_from: int = 0
        active_to: int | None = None
        if level is not None:
            later = [lv for lv in levels_by_key[constraint.selection_key] if lv > level]
            active_from, active_to = level, (min(later) if later else None)
        release_from: int | None = None
        release_to: int | None = None
        if constraint.release is not None:
            release_from = release_rank(constraint.release)
            later = [r for r in releases_by_key[constraint.selection_key] if r > release_from]
            release_to = min(later) if later else None
        rules.append(
            CompiledConstraint(
                rule_idx=idx,
                constraint=constraint,
                source=source,
                level=level,
                since_mv=since_mv,
                active_from=active_from,
                active_to=active_to,
                release_from=release_from,
                release_to=release_to,
                origin=_origin(constraint, source),
                expr_sql=expr_sql,
                expr_fix=derive_fix(expr_sql, constraint.keys[0]) if expr_sql is not None else None,
            )
        )
    digest = hashlib.sha256()
    for rule in rules:
        digest.update(rule.source.encode())
        digest.update(rule.constraint.model_dump_json().encode())
    return CompiledCatalog(
        sources=tuple(c.source for c in catalogs),
        rules=tuple(rules),
        max_level=len(mv_table.levels),
        level_release_ranks=tuple(release_rank(v.release) for v in mv_table.levels),
        fingerprint=digest.hexdigest(),
    )


def _origin(constraint: Constraint, source: str) -> str:
    """``kafka_base`` / ``kafka_mv`` for the generated default catalog's base and MV validators, ``user_base`` /
    ``user_mv`` for the rules of the user's catalogs (``schemas.violations.CONSTRAINT_ORIGINS``)."""
    author = "kafka" if source == DEFAULT_SOURCE else "user"
    return f"{author}_{'mv' if constraint.rule_kind == 'mv' else 'base'}"


def active_at(
    rules: CompiledCatalog, level: int, *, running_release: str | None = None
) -> tuple[CompiledConstraint, ...]:
    """The validators KIP-1294 selects for a target feature level (base validators included), for brokers that run
    ``running_release`` now (at ``level`` they run ``max(running_release, the release of level)``). Without
    ``running_release`` they run the release of the level."""
    ranks = [release_rank(running_release)] if running_release else []
    if 1 <= level <= len(rules.level_release_ranks):
        ranks.append(rules.level_release_ranks[level - 1])
    elif rules.level_release_ranks:
        ranks.append(rules.level_release_ranks[-1])
    effective = max(ranks) if ranks else None
    return tuple(r for r in rules.rules if r.applies_at(level, effective))
