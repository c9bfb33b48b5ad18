"""The ``simulate --changes`` file (CONTRACT §7) as validated, frozen models.

Two forms per resource, mirroring Kafka's Admin API::

    changes:
      # IncrementalAlterConfigs: operations on single keys
      - resource_type: TOPIC                 # BROKER | TOPIC | GROUP | CLIENT_METRICS | CLIENT
        resource_name: orders                # BROKER: node id, or "" for the cluster-wide default
        cluster_id: prod-eu                  # optional; omitted = every cluster that has the resource
        ops:
          - {op: SET, key: segment.bytes, value: "3145728"}
          - {op: DELETE, key: retention.ms}
          - {op: APPEND, key: cleanup.policy, value: compact}      # LIST keys only
          - {op: SUBTRACT, key: cleanup.policy, value: delete}
      # legacy AlterConfigs: full replacement of the resource's dynamic configs (missing keys are deleted)
      - resource_type: GROUP
        resource_name: payments
        replace: {consumer.session.timeout.ms: "45000"}
      # a server.properties change (read-only broker keys): layer static, needs a rolling restart
      - resource_type: BROKER
        resource_name: "1"
        layer: static
        ops: [{op: SET, key: log.retention.hours, value: "168"}]

``audit`` emits each remediation as one SET in this shape (``VIOLATIONS.remediation_change``);
:func:`changes_from_remediations` groups them into a :class:`ChangeSet` and :func:`dump_changes` writes YAML.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from schemas.errors import ConfigError

ResourceType = Literal["BROKER", "TOPIC", "GROUP", "CLIENT_METRICS", "CLIENT"]
OpType = Literal["SET", "DELETE", "APPEND", "SUBTRACT"]
Layer = Literal["dynamic", "static"]


def _text(value: Any) -> Any:
    """YAML scalars as config values: booleans lower-case, numbers as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


class ConfigOp(BaseModel):
    """One IncrementalAlterConfigs operation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    op: OpType
    key: str
    value: str | None = None

    @field_validator("op", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("value", mode="before")
    @classmethod
    def _value_text(cls, value: Any) -> Any:
        return _text(value)

    @model_validator(mode="after")
    def _value_presence(self) -> ConfigOp:
        if not self.key.strip():
            raise ValueError("key must not be blank")
        if self.op == "DELETE" and self.value is not None:
            raise ValueError(f"DELETE {self.key} takes no value")
        if self.op != "DELETE" and self.value is None:
            raise ValueError(f"{self.op} {self.key} needs a value")
        return self


class ResourceChange(BaseModel):
    """The change of one resource at one layer: either ``ops`` (incremental) or ``replace`` (legacy)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    resource_type: ResourceType
    resource_name: str
    cluster_id: str | None = None
    layer: Layer = "dynamic"
    ops: tuple[ConfigOp, ...] | None = None
    replace: dict[str, str] | None = None

    @field_validator("resource_type", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("resource_name", mode="before")
    @classmethod
    def _name_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("replace", mode="before")
    @classmethod
    def _replace_text(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {str(k): _text(v) for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _shape(self) -> ResourceChange:
        if (self.ops is None) == (self.replace is None):
            raise ValueError("set exactly one of `ops` (IncrementalAlterConfigs) or `replace` (legacy AlterConfigs)")
        if self.ops is not None:
            keys = [o.key for o in self.ops]
            twice = sorted({k for k in keys if keys.count(k) > 1})
            if twice:
                raise ValueError(f"a key appears in more than one operation: {', '.join(twice)}")
        if self.layer == "static" and self.resource_type != "BROKER":
            raise ValueError("layer: static (server.properties) exists only for BROKER resources")
        if self.resource_type == "BROKER" and self.resource_name != "" and not self.resource_name.isdigit():
            raise ValueError('a BROKER resource_name is a node id, or "" for the cluster-wide default')
        if self.resource_type != "BROKER" and not self.resource_name:
            raise ValueError("resource_name must not be empty")
        return self


class ChangeSet(BaseModel):
    """All proposed changes; at most one entry per (cluster, resource, layer)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    changes: tuple[ResourceChange, ...] = ()

    @model_validator(mode="after")
    def _unique_resources(self) -> ChangeSet:
        seen = set()
        for c in self.changes:
            ident = (c.cluster_id, c.resource_type, c.resource_name, c.layer)
            if ident in seen:
                raise ValueError(
                    f"{c.resource_type} {c.resource_name!r} ({c.layer}) appears twice; merge its operations"
                )
            seen.add(ident)
        return self


def _problems(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def parse_changes(data: Any, source: str) -> ChangeSet:
    """Validate an already-parsed changes file.

    Raises:
        ConfigError: naming ``source``, the entry (``#n resource_type resource_name``) and the problem.
    """
    if data is None:
        return ChangeSet()
    if not isinstance(data, Mapping) or set(data) - {"changes"}:
        raise ConfigError(f"{source}: a changes file is a mapping with a single `changes:` list")
    entries = data.get("changes") or []
    if not isinstance(entries, list):
        raise ConfigError(f"{source}: `changes` must be a list")
    parsed = []
    for index, entry in enumerate(entries):
        where = f"change #{index + 1}"
        if isinstance(entry, Mapping):
            where += f" {entry.get('resource_type', '?')} {entry.get('resource_name', '?')!r}"
        try:
            parsed.append(ResourceChange.model_validate(entry))
        except ValidationError as exc:
            raise ConfigError(f"{source}: {where}: {_problems(exc)}") from None
    try:
        return ChangeSet(changes=tuple(parsed))
    except ValidationError as exc:
        raise ConfigError(f"{source}: {_problems(exc)}") from None


def load_changes_text(text: str, source: str) -> ChangeSet:
    """Parse and validate the text of a changes file (``yaml.safe_load`` + :func:`parse_changes`)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None
    return parse_changes(data, source)


def changes_from_remediations(rows: Iterable[Mapping[str, Any]]) -> ChangeSet:
    """Group remediation changes (VIOLATIONS ``remediation_change`` fields plus ``cluster_id`` and
    ``constraint_level``) into one ChangeSet.

    When several violations propose different values for the same key of the same resource, the proposal of
    the validator with the highest ``constraint_level`` wins (the target MV's rule is the most specific; base
    validators count as level 0); ties keep the first proposal.
    """
    chosen: dict[tuple[Any, ...], tuple[int, Any, str | None]] = {}
    for row in rows:
        ident = (row.get("cluster_id"), row["resource_type"], row["resource_name"], row.get("layer") or "dynamic")
        slot = (*ident, row["key"])
        level = row.get("constraint_level") or 0
        if slot not in chosen or level > chosen[slot][0]:
            chosen[slot] = (level, row.get("op") or "SET", row.get("value"))
    grouped: dict[tuple[Any, ...], list[ConfigOp]] = {}
    for (cluster_id, rtype, name, layer, key), (_, op, value) in chosen.items():
        grouped.setdefault((cluster_id, rtype, name, layer), []).append(ConfigOp(op=op, key=key, value=value))
    return ChangeSet(
        changes=tuple(
            ResourceChange(cluster_id=cluster_id, resource_type=rtype, resource_name=name, layer=layer, ops=tuple(ops))
            for (cluster_id, rtype, name, layer), ops in grouped.items()
        )
    )


def dump_changes(changes: ChangeSet) -> str:
    """The YAML text of a ChangeSet (loads back with :func:`load_changes_text`)."""
    doc = {"changes": [c.model_dump(exclude_none=True) for c in changes.changes]}
    for entry in doc["changes"]:
        if entry.get("layer") == "dynamic":
            del entry["layer"]
        for op in entry.get("ops", []):
            if op.get("value") is None:
                op.pop("value", None)
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
