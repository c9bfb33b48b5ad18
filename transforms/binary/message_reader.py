"""Compile a record schema into a fast body reader producing kafka-dump-log's JSON shape.

A reader is compiled once per ``(schema, version)``: a list of *steps*, each reading one field (or one run of
consecutive fixed-width fields, with a single ``struct.unpack_from``) into the output dict. Steps read a
``bytes`` buffer that holds exactly one record body, so running past the end raises ``IndexError`` /
``struct.error`` or is caught by explicit length checks; the caller turns any of these into a quarantined record.

Body encoding (Kafka's flexible versions): regular fields in declaration order; compact strings, bytes and
arrays carry ``uvarint(length + 1)`` with 0 meaning null; every struct, and the message itself, ends with a
tagged-field section ``uvarint count, (uvarint tag, uvarint size, bytes)*``. Unknown tags are kept, base64
encoded, under ``_unknownTaggedFields``.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable
from typing import Any, Final

from schemas.record_schemas import FieldSpec, json_key
from transforms.binary.fields import FIXED_FORMATS, VARIABLE_PRIMITIVES, FieldPlan, fixed_struct, resolve_fields
from transforms.binary.varint import read_uvarint

UNKNOWN_TAGS_KEY: Final = "_unknownTaggedFields"

# step(buf, pos, out) -> new pos: reads one field (or a run of fixed fields) into ``out``.
Step = Callable[[bytes, int, dict[str, Any]], int]
# struct reader(buf, pos) -> (dict, new pos)
StructReader = Callable[[bytes, int], tuple[dict[str, Any], int]]

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_b64 = base64.b64encode
_urlsafe_b64 = base64.urlsafe_b64encode


class BodyError(ValueError):
    """A record body does not match its schema. Messages name fields, never their values."""


def uuid_to_json(raw: bytes) -> str:
    """Render 16 uuid bytes the way Kafka's ``Uuid.toString`` does: URL-safe base64 without padding.

    Args:
        raw: The 16 bytes.

    Returns:
        The 22-character string.
    """
    return _urlsafe_b64(raw)[:22].decode("ascii")


def _read_length(buf: bytes, pos: int, flexible: bool, classic: struct.Struct) -> tuple[int, int]:
    """Read a length prefix: compact ``uvarint(n + 1)`` or classic int16/int32; -1 means null."""
    if flexible:
        b = buf[pos]
        if b < 0x80:
            return b - 1, pos + 1
        n, pos = read_uvarint(buf, pos)
        return n - 1, pos
    (n,) = classic.unpack_from(buf, pos)
    return n, pos + classic.size


def _fixed_run_step(plans: list[FieldPlan]) -> Step:
    """One step for consecutive fixed-width fields: a single unpack, then uuid rendering."""
    compiled = fixed_struct([plan.type for plan in plans])
    unpack, size = compiled.unpack_from, compiled.size
    keys = tuple(plan.key for plan in plans)
    uuid_keys = tuple(plan.key for plan in plans if plan.type == "uuid")

    def step(buf: bytes, pos: int, out: dict[str, Any]) -> int:
        out.update(zip(keys, unpack(buf, pos), strict=True))
        for key in uuid_keys:
            out[key] = uuid_to_json(out[key])
        return pos + size

    return step


def _string_step(key: str, nullable: bool, flexible: bool, is_bytes: bool) -> Step:
    """A step for a string (UTF-8 text) or bytes (base64 text) field."""
    classic = _INT32 if is_bytes else _INT16

    def step(buf: bytes, pos: int, out: dict[str, Any]) -> int:
        n, pos = _read_length(buf, pos, flexible, classic)
        if n < 0:
            if not nullable:
                raise BodyError(f"non-nullable field {key} is null")
            out[key] = None
            return pos
        end = pos + n
        if end > len(buf):
            raise BodyError(f"field {key} runs past the end of the record")
        raw = buf[pos:end]
        # Java decodes invalid UTF-8 with replacement characters; so does kafka-dump-log.
        out[key] = _b64(raw).decode("ascii") if is_bytes else raw.decode("utf-8", "replace")
        return end

    return step


def _array_step(plan: FieldPlan, version: int, flexible: bool) -> Step:
    """A step for an array of fixed primitives, strings/bytes, or structs."""
    key, nullable, element = plan.key, plan.nullable, plan.element_type
    read_element: Callable[[bytes, int], tuple[Any, int]] | None = None
    if plan.is_struct:
        read_element = compile_struct_reader(plan.members, version, flexible)
    elif element in VARIABLE_PRIMITIVES:
        read_string = _string_step("", False, flexible, element == "bytes")

        def read_variable(buf: bytes, pos: int) -> tuple[Any, int]:
            holder: dict[str, Any] = {}
            pos = read_string(buf, pos, holder)
            return holder[""], pos

        read_element = read_variable
    elif element not in FIXED_FORMATS:
        raise ValueError(f"unsupported array element type {element}")
    fixed_format = "" if read_element else FIXED_FORMATS[element]
    width = struct.calcsize(">" + fixed_format) if fixed_format else 0
    is_uuid = element == "uuid"

    def step(buf: bytes, pos: int, out: dict[str, Any]) -> int:
        n, pos = _read_length(buf, pos, flexible, _INT32)
        if n < 0:
            if not nullable:
                raise BodyError(f"non-nullable array {key} is null")
            out[key] = None
            return pos
        # Every element takes at least one byte: a bogus count cannot make us loop for long.
        if n > len(buf) - pos:
            raise BodyError(f"array {key} has more elements than bytes left")
        if fixed_format:
            end = pos + n * width
            if end > len(buf):
                raise BodyError(f"array {key} runs past the end of the record")
            if is_uuid:
                out[key] = [uuid_to_json(buf[p : p + 16]) for p in range(pos, end, 16)]
            else:
                out[key] = list(struct.unpack_from(f">{n}{fixed_format}", buf, pos))
            return end
        assert read_element is not None  # set whenever the element is not fixed-width
        items = []
        for _ in range(n):
            item, pos = read_element(buf, pos)
            items.append(item)
        out[key] = items
        return pos

    return step


def _struct_step(plan: FieldPlan, version: int, flexible: bool) -> Step:
    """A step for a plain (non-array, non-nullable) struct field."""
    key = plan.key
    read = compile_struct_reader(plan.members, version, flexible)

    def step(buf: bytes, pos: int, out: dict[str, Any]) -> int:
        out[key], pos = read(buf, pos)
        return pos

    return step


def _field_step(plan: FieldPlan, version: int, flexible: bool) -> Step:
    """The step reading one non-fixed field."""
    if plan.is_array:
        return _array_step(plan, version, flexible)
    if plan.is_struct:
        return _struct_step(plan, version, flexible)
    if plan.type in VARIABLE_PRIMITIVES:
        return _string_step(plan.key, plan.nullable, flexible, plan.type == "bytes")
    if plan.type in FIXED_FORMATS:
        return _fixed_run_step([plan])
    raise ValueError(f"unsupported field type {plan.type}")


def _tagged_section_reader(tagged: list[FieldPlan], version: int) -> Callable[[bytes, int, dict[str, Any]], int]:
    """Read a tagged-field section whose count byte is not zero (the zero case is inlined by the caller)."""
    by_tag = {plan.tag: _field_step(plan, version, True) for plan in tagged}

    def read_tags(buf: bytes, pos: int, out: dict[str, Any]) -> int:
        count, pos = read_uvarint(buf, pos)
        for _ in range(count):
            tag, pos = read_uvarint(buf, pos)
            size, pos = read_uvarint(buf, pos)
            end = pos + size
            if end > len(buf):
                raise BodyError(f"tagged field {tag} runs past the end of the record")
            step = by_tag.get(tag)
            if step is None:
                out.setdefault(UNKNOWN_TAGS_KEY, {})[str(tag)] = _b64(buf[pos:end]).decode("ascii")
            elif step(buf, pos, out) != end:
                raise BodyError(f"tagged field {tag} does not fill its declared size")
            pos = end
        return pos

    return read_tags


def compile_struct_reader(fields: tuple[FieldSpec, ...], version: int, flexible: bool) -> StructReader:
    """Compile a reader for a struct (or a whole message body) at one version.

    Args:
        fields: The struct's field specs in wire order.
        version: The message version.
        flexible: Whether the version uses the flexible encoding.

    Returns:
        ``reader(buf, pos) -> (dict, pos)`` producing kafka-dump-log's JSON shape.
    """
    regular, tagged = resolve_fields(fields, version)
    steps: list[Step] = []
    run: list[FieldPlan] = []
    for plan in regular:
        if plan.type in FIXED_FORMATS:
            run.append(plan)
            continue
        if run:
            steps.append(_fixed_run_step(run))
            run = []
        steps.append(_field_step(plan, version, flexible))
    if run:
        steps.append(_fixed_run_step(run))
    read_tags = _tagged_section_reader(tagged, version)
    # Kafka's JSON lists fields in declaration order, tagged ones included (PartitionRecord declares its tagged
    # LeaderRecoveryState between Leader and LeaderEpoch), while the wire puts every tagged field last.
    declared = [json_key(spec.name) for spec in fields]
    wire = [plan.key for plan in regular + tagged]
    order = (*(key for key in declared if key in wire), UNKNOWN_TAGS_KEY)
    reorder = [key for key in declared if key in wire] != wire

    def read(buf: bytes, pos: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        for step in steps:
            pos = step(buf, pos, out)
        if flexible:
            if buf[pos] == 0:  # no tagged fields: the common case
                pos += 1
            else:
                pos = read_tags(buf, pos, out)
                if reorder:
                    out = {key: out[key] for key in order if key in out}
        return out, pos

    return read


def has_unknown_tags(value: Any) -> bool:
    """Tell whether a decoded body, or any struct nested in it, kept unknown tagged fields.

    Args:
        value: A decoded dict (or a list / scalar inside one).

    Returns:
        True when some dict holds ``_unknownTaggedFields``.
    """
    if isinstance(value, dict):
        return UNKNOWN_TAGS_KEY in value or any(has_unknown_tags(v) for v in value.values())
    if isinstance(value, list):
        return any(has_unknown_tags(v) for v in value)
    return False
