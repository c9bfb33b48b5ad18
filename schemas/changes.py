"""The ``simulate --changes`` file (docs/contract.md §7) as validated, frozen models.

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
        note: edit server.properties of broker 1, then restart it (rolling restart)   # optional, for people
        ops: [{op: SET, key: log.retention.hours, value: "168"}]

``audit`` emits each remediation as one SET or DELETE in this shape (``VIOLATIONS.remediation_change``);
:func:`changes_from_remediations` groups them into a :class:`ChangeSet` and :func:`dump_changes` writes YAML.
Fixes of read-only broker keys stay in the plan as ``layer: static`` changes with a ``note``: ``simulate`` models
them on the static layer (exactly like a changed server.properties after the restart); applying them is a file
edit plus a rolling restart, not a ``kafka-configs.sh`` call.

``SIMULATIONS`` is the table ``simulate`` appends to: per changed resource (and broker view), the keys whose
re-resolved value or source changed, before and after, and the violations cleared and introduced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator
from pyspark.sql.types import (
    ArrayType,
    IntegerType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from schemas.errors import ConfigError, validation_problems
from schemas.kafka_vocabulary import AlterConfigOpType, ResourceType
from schemas.yaml_text import load_user_yaml

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

    # enum fields hold the plain string, so models compare, hash and dump (YAML) exactly as the text they came from
    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=True)

    op: AlterConfigOpType
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
        if self.op == AlterConfigOpType.DELETE and self.value is not None:
            raise ValueError(f"DELETE {self.key} takes no value")
        if self.op != AlterConfigOpType.DELETE and self.value is None:
            raise ValueError(f"{self.op} {self.key} needs a value")
        return self


class ResourceChange(BaseModel):
    """The change of one resource at one layer: either ``ops`` (incremental) or ``replace`` (legacy)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=True)

    resource_type: ResourceType
    resource_name: str
    cluster_id: str | None = None
    layer: Layer = "dynamic"
    note: str | None = None  # free text for the people applying the change (not used by simulate)
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
        if self.resource_type == ResourceType.CONTROLLER_TOPIC:
            raise ValueError(
                "CONTROLLER_TOPIC is the controller's view of a topic, not a resource: change the TOPIC (an override)"
                " or the controller's BROKER config"
            )
        is_broker = self.resource_type == ResourceType.BROKER
        if self.layer == "static" and not is_broker:
            raise ValueError("layer: static (server.properties) exists only for BROKER resources")
        if is_broker and self.resource_name != "" and not self.resource_name.isdigit():
            raise ValueError('a BROKER resource_name is a node id, or "" for the cluster-wide default')
        if not is_broker and not self.resource_name:
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
            raise ConfigError(f"{source}: {where}: {validation_problems(exc)}") from None
    try:
        return ChangeSet(changes=tuple(parsed))
    except ValidationError as exc:
        raise ConfigError(f"{source}: {validation_problems(exc)}") from None


def load_changes_text(text: str, source: str) -> ChangeSet:
    """Parse and validate the text of a changes file (:func:`load_user_yaml` + :func:`parse_changes`)."""
    return parse_changes(load_user_yaml(text, source), source)


def static_change_note(resource_name: str) -> str:
    """The note of a server.properties change (``layer: static``) of broker ``resource_name`` ("" = every one)."""
    where = "every broker" if resource_name == "" else f"broker {resource_name}"
    return (
        f"read-only key: edit server.properties of {where}, then restart it (rolling restart); "
        "not a kafka-configs.sh change"
    )


_OP_PREFERENCE: Final[dict[str, int]] = {AlterConfigOpType.SET: 1, AlterConfigOpType.DELETE: 0}


def changes_from_remediations(rows: Iterable[Mapping[str, Any]]) -> ChangeSet:
    """Group remediation changes (VIOLATIONS ``remediation_change`` fields plus ``cluster_id`` and
    ``constraint_level``) into one ChangeSet.

    When several violations propose different operations on the same key of the same resource and layer, the
    proposal of the validator with the highest ``constraint_level`` wins (the target MV's rule is the most
    specific; base validators count as level 0); at equal levels a SET wins over a DELETE (the SET's value passes
    for every row it came from, a DELETE was only proven for some: e.g. deleting a cluster-wide default whose
    fallback fails on one broker); remaining ties keep the first proposal. Static-layer changes get the
    :func:`static_change_note`.
    """
    chosen: dict[tuple[Any, ...], tuple[int, int, str, str | None]] = {}
    for row in rows:
        ident = (row.get("cluster_id"), row["resource_type"], row["resource_name"], row.get("layer") or "dynamic")
        slot = (*ident, row["key"])
        op: str = row.get("op") or AlterConfigOpType.SET
        rank = (row.get("constraint_level") or 0, _OP_PREFERENCE.get(op, 0))
        if slot not in chosen or rank > chosen[slot][:2]:
            chosen[slot] = (*rank, op, row.get("value") if op != AlterConfigOpType.DELETE else None)
    grouped: dict[tuple[Any, ...], list[ConfigOp]] = {}
    for (cluster_id, rtype, name, layer, key), (_, _, op, value) in chosen.items():
        grouped.setdefault((cluster_id, rtype, name, layer), []).append(
            ConfigOp.model_validate({"op": op, "key": key, "value": value})
        )
    return ChangeSet(
        changes=tuple(
            ResourceChange(
                cluster_id=cluster_id,
                resource_type=rtype,
                resource_name=name,
                layer=layer,
                note=static_change_note(name) if layer == "static" else None,
                ops=tuple(ops),
            )
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


# The re-resolved value of one key: what `configs_before` / `configs_after` hold per key.
RESOLVED_VALUE: Final = StructType(
    [
        StructField("value", StringType(), True),  # "[redacted]" for sensitive keys
        StructField("source", StringType(), True),  # DYNAMIC_BROKER_CONFIG, STATIC_BROKER_CONFIG, ...
        StructField("synonym", StringType(), True),  # the key the value was read from
    ]
)

# `simulate` results: one row per changed resource and broker view.
SIMULATIONS: Final = StructType(
    [
        StructField("run_id", StringType(), False),
        StructField("run_ts", TimestampType(), False),
        StructField("cluster_id", StringType(), False),
        StructField("target_mv", StringType(), False),
        StructField("resource_type", StringType(), False),
        StructField("resource_name", StringType(), False),
        StructField("node_id", IntegerType(), True),  # the broker view of a topic / group row; null when shared
        # keys whose value, source or synonym changed, plus the keys of changed violations; a key missing on one
        # side did not resolve there (e.g. a topic row split into per-broker views)
        StructField("configs_before", MapType(StringType(), RESOLVED_VALUE, True), False),
        StructField("configs_after", MapType(StringType(), RESOLVED_VALUE, True), False),
        StructField("violations_cleared", ArrayType(StringType(), False), False),  # "constraint_id on key"
        StructField("violations_introduced", ArrayType(StringType(), False), False),
    ]
)
