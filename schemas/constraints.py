"""The constraint catalog (docs/contract.md §5) as validated, frozen models.

A catalog file looks like::

    constraints:
      - id: broker-log-segment-bytes-3mib
        resource: broker                 # broker | topic | group | client_metrics | client | controller_topic
        config: log.segment.bytes        # single-key rule (or `configs: [...]` for an expression)
        since: 4.4-IV1                   # optional; MV name, IBP name, release or feature level (MV validator)
        check: {min: 3145728}            # exactly one of `check` / `expr`
        severity: error                  # error (default) | warning
        sources: [DYNAMIC_BROKER_CONFIG] # optional; judge only values from these layers
        description: Minimum segment size raised for 4.4-IV1
        reference: KIP-1294
        remediation: Raise the segment size; 3 MiB is the floor.   # optional hint appended to the fix

Jobs read the file and call :func:`load_catalog_text`; everything here is pure. ``compile_catalog`` turns the loaded
catalogs into a :class:`CompiledCatalog` (below), the input of every evaluation function. ``since`` stays as written:
resolving it to a feature level needs the metadata.version table and happens in
``transforms.configdef.selection.compile_catalog``. Expression syntax and field names are checked there too
(they need Spark's parser), so a catalog that loads here may still be rejected at compile time.

Check kinds (exactly one per ``check``):

* ``min: x`` / ``max: x`` / ``between: [a, b]`` — inclusive, compared as doubles like Kafka's ``Range``;
  a null value fails, a value that does not parse as the key's type fails ("not a number"), NaN passes.
* ``in: [...]`` — allowed values (case-sensitive, trimmed); on a LIST key every element; an empty list passes.
* ``not_in: [...]`` — forbidden values (on a LIST key: no element may be one of them); null passes.
* ``regex: pattern`` — Java regex that must match the whole trimmed value (every element of a LIST key).
* ``type: int|long|short|double|boolean|list|string|password|class`` — the value parses as that type.
* ``not_null: true``; ``non_empty_list: true``, ``no_duplicates: true``, ``no_empty_elements: true`` split the
  value as a LIST whatever its type; NULL passes these three (add ``not_null`` to forbid it, as KIP-1161's
  ``isNullAllowed=false`` does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from schemas.errors import ConfigError, validation_problems
from schemas.kafka_vocabulary import ConfigSource, ResourceType
from schemas.yaml_text import load_user_yaml

# the YAML spelling of a ResourceType (its `kind`); a Literal so pydantic lists the choices in its messages
# (`controller_topic`: a topic's keys as the active controller enforces them, docs/contract.md §4.8)
ResourceKind = Literal["broker", "topic", "group", "client_metrics", "client", "controller_topic"]
Severity = Literal["error", "warning"]
RuleKind = Literal["base", "release", "mv"]
TypeName = Literal["int", "long", "short", "double", "boolean", "list", "string", "password", "class"]

CHECK_KINDS: Final = (
    "min",
    "max",
    "between",
    "in",
    "not_in",
    "regex",
    "type",
    "not_null",
    "non_empty_list",
    "no_duplicates",
    "no_empty_elements",
)

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
_RELEASE = re.compile(r"^[0-9]+\.[0-9]+$")
_FLAG_KINDS: Final = ("not_null", "non_empty_list", "no_duplicates", "no_empty_elements")


def _as_text(item: Any) -> str:
    """YAML scalars as Kafka would compare them: booleans lower-case, numbers as written."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, str | int | float):
        return str(item)
    raise ValueError(f"allowed values must be scalars, got {type(item).__name__}")


class Check(BaseModel):
    """One single-key check; exactly one kind is set."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    min: float | None = None
    max: float | None = None
    between: tuple[float, float] | None = None
    in_: tuple[str, ...] | None = Field(default=None, alias="in")
    not_in: tuple[str, ...] | None = None
    regex: str | None = None
    type: TypeName | None = None
    not_null: Literal[True] | None = None
    non_empty_list: Literal[True] | None = None
    no_duplicates: Literal[True] | None = None
    no_empty_elements: Literal[True] | None = None

    @field_validator("in_", "not_in", mode="before")
    @classmethod
    def _values_as_text(cls, value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, str) or not isinstance(value, Iterable):
            raise ValueError("must be a list of values")
        return tuple(_as_text(v) for v in value)

    @field_validator("min", "max", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be a number, not a boolean")
        return value

    @field_validator("regex")
    @classmethod
    def _regex_compiles(cls, value: str | None) -> str | None:
        # Python's re is a close approximation of java.util.regex; compile_catalog re-checks with Java.
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"regex does not compile: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _exactly_one_kind(self) -> Check:
        kinds = self.kinds()
        if len(kinds) != 1:
            found = ", ".join(kinds) or "none"
            raise ValueError(
                f"a check has exactly one kind ({', '.join(CHECK_KINDS)}); found {found}"
                + ("; use between: [a, b] for a range" if set(kinds) == {"min", "max"} else "")
            )
        if self.between is not None and self.between[0] > self.between[1]:
            raise ValueError(f"between: [{self.between[0]}, {self.between[1]}] has its bounds reversed")
        return self

    def kinds(self) -> list[str]:
        """The check kinds that are set (exactly one on a valid check)."""
        values = {
            "min": self.min,
            "max": self.max,
            "between": self.between,
            "in": self.in_,
            "not_in": self.not_in,
            "regex": self.regex,
            "type": self.type,
            **{k: getattr(self, k) for k in _FLAG_KINDS},
        }
        return [k for k in CHECK_KINDS if values[k] is not None]

    @property
    def kind(self) -> str:
        """The one check kind."""
        return self.kinds()[0]


class Constraint(BaseModel):
    """One catalog entry: a single-key ``check`` or a boolean Spark SQL ``expr``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    resource: ResourceKind
    config: str | None = None
    configs: tuple[str, ...] | None = None
    since: str | int | None = None
    # A base validator bound to a Kafka release (the ConfigDef of that release): it judges brokers running that
    # release until a later release's base rules of the same key take over. Exclusive with `since`.
    release: str | None = None
    check: Check | None = None
    expr: str | None = None
    severity: Severity = "error"
    description: str = ""
    reference: str | None = None
    remediation: str | None = None  # free-text hint appended to the generated remediation
    # judge only values from these layers (ConfigSource names, e.g. DYNAMIC_BROKER_CONFIG for per-broker values);
    # None = every layer. For an expression, the layer of its first key.
    sources: tuple[ConfigSource, ...] | None = None

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError("id must start with a letter or digit and use only letters, digits, . _ : -")
        return value

    @field_validator("since", mode="before")
    @classmethod
    def _since_scalar(cls, value: Any) -> Any:
        if isinstance(value, float):
            # YAML reads `since: 4.10` as the float 4.1: make the user say what they mean.
            raise ValueError(f"since: {value} is a YAML number; quote a release (since: '{value}') or use a level")
        if isinstance(value, bool):
            raise ValueError("since must be an MV name (e.g. 4.4-IV1), a release or a feature level")
        return value

    @model_validator(mode="after")
    def _shape(self) -> Constraint:
        if (self.config is None) == (self.configs is None):
            raise ValueError("set exactly one of `config` (one key) or `configs` (the keys an expression reads)")
        if self.configs is not None:
            if not self.configs:
                raise ValueError("`configs` must name at least one key")
            if len(set(self.configs)) != len(self.configs):
                raise ValueError("`configs` lists a key twice")
        if any(not k.strip() for k in self.keys):
            raise ValueError("config names must not be blank")
        if (self.check is None) == (self.expr is None):
            raise ValueError("set exactly one of `check` or `expr`")
        if self.check is not None and self.configs is not None:
            raise ValueError("a `check` validates one key: use `config`, or write an `expr` for several keys")
        if self.expr is not None and not self.expr.strip():
            raise ValueError("`expr` is empty")
        if self.since is not None and self.release is not None:
            raise ValueError(
                "set at most one of `since` (an MV validator) or `release` (a base validator of a Kafka release)"
            )
        if self.sources is not None and not self.sources:
            raise ValueError("`sources` must name at least one ConfigSource (or be omitted)")
        if self.release is not None and not _RELEASE.match(self.release):
            raise ValueError(f"release: {self.release!r} is not a Kafka release such as '4.2'")
        return self

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys the constraint validates or reads, in catalog order (the first one is reported)."""
        return self.configs if self.configs is not None else (self.config or "",)

    @property
    def resource_type(self) -> ResourceType:
        """The EFFECTIVE_CONFIGS resource_type, e.g. ``BROKER``."""
        return ResourceType(self.resource.upper())

    @property
    def rule_kind(self) -> RuleKind:
        """``mv`` for an MV validator (``since``), ``release`` for a base validator bound to a Kafka release,
        ``base`` for a base validator of every release."""
        if self.since is not None:
            return "mv"
        return "release" if self.release is not None else "base"

    @property
    def selection_key(self) -> tuple[str, tuple[str, ...]]:
        """The KIP-1294 floorEntry map key: (resource, sorted keys)."""
        return (self.resource, tuple(sorted(self.keys)))


class ConstraintCatalog(BaseModel):
    """The constraints of one catalog file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str  # file name (or "<default>") used in error messages
    constraints: tuple[Constraint, ...] = ()


class _CatalogFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    constraints: tuple[Any, ...] = ()


def _entry_id(entry: Any, index: int) -> str:
    if isinstance(entry, Mapping) and isinstance(entry.get("id"), str | int):
        return str(entry["id"])
    return f"#{index + 1}"


def parse_catalog(data: Any, source: str) -> ConstraintCatalog:
    """Validate already-parsed catalog YAML.

    Args:
        data: what :func:`load_user_yaml` returned (a mapping with a ``constraints`` list; None means empty).
        source: the file name, used in every error message.

    Raises:
        ConfigError: ``"<source>: constraint <id>: <problem>"`` for the first invalid entry, or a message
            naming the file when the top level is malformed or an id repeats.
    """
    if data is None:
        return ConstraintCatalog(source=source)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: a constraint catalog is a mapping with a `constraints:` list")
    try:
        raw = _CatalogFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {validation_problems(exc)}") from None
    constraints = []
    for index, entry in enumerate(raw.constraints):
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{source}: constraint #{index + 1}: an entry must be a mapping")
        try:
            constraints.append(Constraint.model_validate(entry))
        except ValidationError as exc:
            raise ConfigError(f"{source}: constraint {_entry_id(entry, index)}: {validation_problems(exc)}") from None
    catalog = ConstraintCatalog(source=source, constraints=tuple(constraints))
    ensure_unique_ids([catalog])
    return catalog


def load_catalog_text(text: str, source: str) -> ConstraintCatalog:
    """Parse and validate the text of one catalog file (:func:`load_user_yaml` + :func:`parse_catalog`).

    Raises:
        ConfigError: the YAML does not parse or exceeds a limit of user YAML, or :func:`parse_catalog` rejects it.
    """
    return parse_catalog(load_user_yaml(text, source), source)


def ensure_unique_ids(catalogs: Iterable[ConstraintCatalog]) -> None:
    """Constraint ids are unique across every loaded catalog.

    Raises:
        ConfigError: naming the id and the files (or file) that define it twice.
    """
    seen: dict[str, str] = {}
    for catalog in catalogs:
        for constraint in catalog.constraints:
            if constraint.id in seen:
                first = seen[constraint.id]
                where = catalog.source if first == catalog.source else f"{first} and {catalog.source}"
                raise ConfigError(f"{where}: constraint {constraint.id}: id is defined twice")
            seen[constraint.id] = catalog.source


# --- The compiled catalog (built by transforms.configdef.selection.compile_catalog) ---------------------


class ExprFix(BaseModel):
    """The structured fix of an expression constraint: the key to set and the Spark SQL expression giving its value
    (derived from the expression text by ``transforms.configdef.expr_fixes.derive_fix``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    value_sql: str


class CompiledConstraint(BaseModel):
    """A constraint with its ``since`` resolved and the level interval over which it applies."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_idx: int  # position in the compiled catalog (stable for one catalog)
    constraint: Constraint
    source: str  # the catalog file it came from
    level: int | None  # the feature level of `since`; None for a base validator
    since_mv: str | None  # the MV name of that level, e.g. "4.4-IV1"
    active_from: int  # inclusive
    active_to: int | None  # exclusive; None = no later level replaces it
    # release-bound base validators: the release ranks (major * 1000 + minor) of the releases whose brokers it
    # judges, [release_from, release_to); both None for other rules
    release_from: int | None = None
    release_to: int | None = None
    origin: str = ""  # constraint_origin (schemas.violations.CONSTRAINT_ORIGINS)
    expr_sql: str | None  # the expression as evaluated (casts rewritten to try_cast)
    expr_fix: ExprFix | None = None  # the structured fix derived from the expression, if any

    def applies_at(self, level: int, release_rank: int | None = None) -> bool:
        """Whether the validator is selected for a target feature level, for brokers whose release at that level
        has rank ``release_rank`` (``max(the release they run, the release of the level)``; None: any release,
        so a release-bound rule counts as selected)."""
        in_levels = self.active_from <= level and (self.active_to is None or level < self.active_to)
        if self.release_from is None or release_rank is None:
            return in_levels
        in_releases = self.release_from <= release_rank and (self.release_to is None or release_rank < self.release_to)
        return in_levels and in_releases


class CompiledCatalog(BaseModel):
    """Every loaded constraint, selection resolved; what the evaluation functions take."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sources: tuple[str, ...]
    rules: tuple[CompiledConstraint, ...]
    max_level: int  # the highest level of the metadata.version table used to compile
    # release rank of every level 1..max_level (index level - 1): the binaries an MV upgrade to that level needs
    level_release_ranks: tuple[int, ...] = ()
    fingerprint: str  # sha256 over the validated catalog (for audit_runs)

    @property
    def checks(self) -> tuple[CompiledConstraint, ...]:
        """The single-key ``check`` rules."""
        return tuple(r for r in self.rules if r.constraint.check is not None)

    @property
    def expressions(self) -> tuple[CompiledConstraint, ...]:
        """The ``expr`` rules."""
        return tuple(r for r in self.rules if r.constraint.expr is not None)
