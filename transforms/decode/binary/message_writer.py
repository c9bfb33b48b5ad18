"""Compile a record schema into a body writer that accepts the decoder's JSON shape.

The writer is the exact inverse of ``message_reader``: the same dict (lowerCamel keys, uuids as 22-char
URL-safe base64, bytes as base64 text) encodes back to the same bytes. Regular fields missing from the dict take
the schema default; a tagged field is written if and only if its key is present (that is also when the decoder
emits it); ``_unknownTaggedFields`` are written back in tag order. Keys the schema does not know at that version
are an error, so a typo in a generator never silently drops a field.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Callable
from typing import Any, Final

from schemas.record_schemas import FieldSpec
from transforms.decode.binary.fields import (
    FIXED_FORMATS,
    VARIABLE_PRIMITIVES,
    FieldPlan,
    default_value,
    resolve_fields,
)
from transforms.decode.binary.message_reader import UNKNOWN_TAGS_KEY
from transforms.decode.binary.varint import encode_uvarint

# writer(out, value): append one field's encoding.
ValueWriter = Callable[[bytearray, Any], None]
StructWriter = Callable[[bytearray, dict[str, Any]], None]

_INT16: Final = struct.Struct(">h")
_INT32: Final = struct.Struct(">i")
_MAX_STRING_BYTES: Final = 0x7FFF  # Kafka refuses to serialise longer strings


def uuid_from_json(value: str | bytes) -> bytes:
    """Parse a uuid given as Kafka's 22-char URL-safe base64 (or as 16 raw bytes).

    Args:
        value: The uuid.

    Returns:
        The 16 bytes.

    Raises:
        ValueError: Not a valid uuid.
    """
    raw = value if isinstance(value, bytes) else base64.urlsafe_b64decode(value + "==")
    if len(raw) != 16:
        raise ValueError("a uuid must be 16 bytes (22 base64 characters)")
    return raw


def _write_length(out: bytearray, n: int, flexible: bool, classic: struct.Struct) -> None:
    """Write a length prefix; ``n = -1`` writes null."""
    out += encode_uvarint(n + 1) if flexible else classic.pack(n)


def _fixed_writer(kind: str) -> ValueWriter:
    pack = struct.Struct(">" + FIXED_FORMATS[kind]).pack
    if kind == "uuid":

        def write_uuid(out: bytearray, value: Any) -> None:
            out += uuid_from_json(value)

        return write_uuid

    def write_fixed(out: bytearray, value: Any) -> None:
        out += pack(value)

    return write_fixed


def _string_writer(key: str, nullable: bool, flexible: bool, is_bytes: bool) -> ValueWriter:
    classic = _INT32 if is_bytes else _INT16

    def write(out: bytearray, value: Any) -> None:
        if value is None:
            if not nullable:
                raise ValueError(f"field {key} is not nullable")
            _write_length(out, -1, flexible, classic)
            return
        if is_bytes:
            raw = value if isinstance(value, bytes) else base64.b64decode(value, validate=True)
        else:
            raw = value.encode("utf-8")
            if len(raw) > _MAX_STRING_BYTES:
                raise ValueError(f"field {key} is longer than {_MAX_STRING_BYTES} bytes")
        _write_length(out, len(raw), flexible, classic)
        out += raw

    return write


def _value_writer(plan: FieldPlan, version: int, flexible: bool) -> ValueWriter:
    """The writer of one field value of any type."""
    if plan.is_array:
        element = plan.element_type
        write_element: ValueWriter
        if plan.is_struct:
            write_element = compile_struct_writer(plan.members, version, flexible)
        elif element in VARIABLE_PRIMITIVES:
            write_element = _string_writer(plan.key, False, flexible, element == "bytes")
        else:
            write_element = _fixed_writer(element)
        key, nullable = plan.key, plan.nullable

        def write_array(out: bytearray, value: Any) -> None:
            if value is None:
                if not nullable:
                    raise ValueError(f"array {key} is not nullable")
                _write_length(out, -1, flexible, _INT32)
                return
            _write_length(out, len(value), flexible, _INT32)
            for item in value:
                write_element(out, item)

        return write_array
    if plan.is_struct:
        return compile_struct_writer(plan.members, version, flexible)
    if plan.type in VARIABLE_PRIMITIVES:
        return _string_writer(plan.key, plan.nullable, flexible, plan.type == "bytes")
    return _fixed_writer(plan.type)


def _unknown_tags(data: dict[str, Any]) -> list[tuple[int, bytes]]:
    """The ``_unknownTaggedFields`` of a decoded dict as ``(tag, raw bytes)``."""
    unknown = data.get(UNKNOWN_TAGS_KEY) or {}
    try:
        return [(int(tag), base64.b64decode(raw, validate=True)) for tag, raw in unknown.items()]
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"bad {UNKNOWN_TAGS_KEY}: {exc}") from None


def compile_struct_writer(fields: tuple[FieldSpec, ...], version: int, flexible: bool) -> StructWriter:
    """Compile a writer for a struct (or a whole message body) at one version.

    Args:
        fields: The struct's field specs in wire order.
        version: The message version.
        flexible: Whether the version uses the flexible encoding.

    Returns:
        ``writer(out, data)`` appending the encoding of ``data`` to ``out``.
    """
    regular, tagged = resolve_fields(fields, version)
    known = {plan.key for plan in regular + tagged} | {UNKNOWN_TAGS_KEY}
    regular_writers = [
        (plan.key, default_value(plan, version), _value_writer(plan, version, flexible)) for plan in regular
    ]
    tagged_writers = [(plan.tag or 0, plan.key, _value_writer(plan, version, True)) for plan in tagged]

    def write(out: bytearray, data: dict[str, Any]) -> None:
        if not isinstance(data, dict):
            raise ValueError("a struct value must be a dict")
        unexpected = data.keys() - known
        if unexpected:
            raise ValueError(f"fields not in the schema at version {version}: {sorted(unexpected)}")
        for key, default, write_value in regular_writers:
            write_value(out, data.get(key, default))
        if not flexible:
            return
        sections = _unknown_tags(data)
        for tag, key, write_value in tagged_writers:
            if key in data:
                encoded = bytearray()
                write_value(encoded, data[key])
                sections.append((tag, bytes(encoded)))
        sections.sort()
        if len({tag for tag, _ in sections}) != len(sections):
            raise ValueError("duplicate tag in the tagged fields")
        out += encode_uvarint(len(sections))
        for tag, raw in sections:
            out += encode_uvarint(tag)
            out += encode_uvarint(len(raw))
            out += raw

    return write
