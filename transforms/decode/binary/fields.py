"""Schema helpers shared by the body reader and writer: version ranges, field selection, type kinds, defaults.

Everything here runs once per ``(schema, version)`` when a codec is compiled, never per record.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Final

from schemas.record_schemas import FieldSpec, MessageSpec, json_key

# Fixed-width primitives: struct format character and byte width (big-endian, like Kafka's ByteBuffer).
FIXED_FORMATS: Final[dict[str, str]] = {
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint16": "H",
    "float64": "d",
    "bool": "?",  # Kafka reads a bool as "byte != 0"
    "uuid": "16s",  # most-significant long then least-significant long = 16 raw bytes
}
VARIABLE_PRIMITIVES: Final = frozenset({"string", "bytes"})
ZERO_UUID_JSON: Final = "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid.ZERO_UUID as kafka-dump-log prints it


def in_versions(spec: str, version: int) -> bool:
    """Tell whether ``version`` is inside a Kafka version range (``"0+"``, ``"1-3"``, ``"2"``, ``"none"``).

    Args:
        spec: The range as written in Kafka's JSON schemas.
        version: The message version.

    Returns:
        True when the version is in the range.
    """
    if spec == "none":
        return False
    if spec.endswith("+"):
        return version >= int(spec[:-1])
    low, _, high = spec.partition("-")
    return int(low) <= version <= int(high or low)


def version_bounds(spec: str) -> tuple[int, int]:
    """Return the lowest and highest version of a closed range such as ``validVersions`` ``"0-5"``.

    Args:
        spec: A closed range (``"0"`` or ``"0-5"``).

    Returns:
        ``(low, high)``.
    """
    low, _, high = spec.partition("-")
    return int(low), int(high or low)


@dataclass(frozen=True, slots=True)
class FieldPlan:
    """A field resolved for one message version: what the reader and writer need to know."""

    key: str  # JSON key
    type: str
    nullable: bool
    tag: int | None  # None = a regular (positional) field
    default: str | None
    members: tuple[FieldSpec, ...]  # struct members (unresolved: structs resolve at the same version)

    @property
    def is_array(self) -> bool:
        """True for ``[]X`` types."""
        return self.type.startswith("[]")

    @property
    def element_type(self) -> str:
        """The element type of an array (``[]int32`` → ``int32``)."""
        return self.type[2:]

    @property
    def is_struct(self) -> bool:
        """True for a struct or an array of structs."""
        return bool(self.members)


def resolve_fields(fields: tuple[FieldSpec, ...], version: int) -> tuple[list[FieldPlan], list[FieldPlan]]:
    """Select the fields present at ``version`` and split them into regular and tagged fields.

    Args:
        fields: The struct's field specs in wire order.
        version: The message version (nested structs share it).

    Returns:
        ``(regular, tagged)``: regular fields in wire order, tagged fields sorted by tag.
    """
    regular: list[FieldPlan] = []
    tagged: list[FieldPlan] = []
    for spec in fields:
        if not in_versions(spec.versions, version):
            continue
        is_tagged = spec.tag is not None and in_versions(spec.tagged_versions, version)
        plan = FieldPlan(
            key=json_key(spec.name),
            type=spec.type,
            nullable=in_versions(spec.nullable_versions, version),
            tag=spec.tag if is_tagged else None,
            default=spec.default,
            members=spec.fields,
        )
        (tagged if is_tagged else regular).append(plan)
    tagged.sort(key=lambda p: p.tag if p.tag is not None else -1)
    return regular, tagged


def is_flexible(message: MessageSpec, version: int) -> bool:
    """Tell whether a message version uses the flexible (compact + tagged fields) encoding."""
    return in_versions(message.flexible_versions, version)


def default_value(plan: FieldPlan, version: int) -> Any:
    """Return the field's default in the JSON shape (what the writer uses for a missing regular field).

    Args:
        plan: The resolved field.
        version: The message version (for nested struct defaults).

    Returns:
        The default: a number, bool, string, list, dict or None.
    """
    if plan.default == "null":
        return None
    if plan.is_array:
        return []
    if plan.is_struct:
        regular, _ = resolve_fields(plan.members, version)
        return {member.key: default_value(member, version) for member in regular}
    kind = plan.type
    if kind == "bool":
        return plan.default == "true"
    if kind == "float64":
        return float(plan.default or 0)
    if kind in ("int8", "int16", "int32", "int64", "uint16"):
        return int(plan.default, 0) if plan.default else 0
    if kind == "uuid":
        return ZERO_UUID_JSON
    return plan.default or ""  # string and bytes


def fixed_struct(kinds: list[str]) -> struct.Struct:
    """Compile one ``struct.Struct`` for a run of consecutive fixed-width fields.

    Args:
        kinds: The fields' primitive types, in wire order.

    Returns:
        A big-endian struct reading all of them in one call.
    """
    return struct.Struct(">" + "".join(FIXED_FORMATS[kind] for kind in kinds))
