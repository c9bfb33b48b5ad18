"""Compile a record schema into a fast body reader producing kafka-dump-log's JSON shape.

Body encoding (Kafka's flexible versions): regular fields in declaration order; compact strings, bytes and
arrays carry ``uvarint(length + 1)`` with 0 meaning null; every struct, and the message itself, ends with a
tagged-field section ``uvarint count, (uvarint tag, uvarint size, bytes)*``. Unknown tags are kept, base64
encoded, under ``_unknownTaggedFields``. Non-flexible versions (only the EndTxnMarker control body) use int16
string and int32 bytes/array lengths with -1 for null, and have no tagged sections.

Speed: the reader of each ``(schema, version)`` is generated once as straight-line Python source (one
``struct.unpack_from`` per run of fixed-width fields, inlined one-byte length prefixes) and compiled with
``exec``, so decoding a record is one function call per struct instead of one per field. The generated source
stays readable as ``reader.__globals__["__source__"]``. Readers get a ``bytes`` buffer whose end is the end of
the body, so overruns raise ``IndexError`` / ``struct.error`` or fail the explicit length checks; callers turn
any of these into a quarantined record.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Callable
from typing import Any, Final

from schemas.record_schemas import FieldSpec, json_key
from transforms.decode.binary.fields import FIXED_FORMATS, VARIABLE_PRIMITIVES, FieldPlan, fixed_struct, resolve_fields
from transforms.decode.binary.varint import read_uvarint

UNKNOWN_TAGS_KEY: Final = "_unknownTaggedFields"

# struct reader(buf, pos) -> (dict, new pos)
StructReader = Callable[[bytes, int], tuple[dict[str, Any], int]]
# field step(buf, pos, out) -> new pos: reads one tagged field into ``out``.
Step = Callable[[bytes, int, dict[str, Any]], int]

_b64 = base64.b64encode
_b2a = binascii.b2a_base64
_URLSAFE: Final = bytes.maketrans(b"+/", b"-_")
_UUID_CACHE_SIZE: Final = 65_536
_UUID_TEXT: dict[bytes, str] = {}


class BodyError(ValueError):
    """A record body does not match its schema. Messages name fields, never their values."""


def uuid_to_json(raw: bytes) -> str:
    """Render 16 uuid bytes the way Kafka's ``Uuid.toString`` does: URL-safe base64 without padding.

    Args:
        raw: The 16 bytes.

    Returns:
        The 22-character string.
    """
    text = _UUID_TEXT.get(raw)
    if text is None:
        text = _b2a(raw, newline=False).translate(_URLSAFE)[:22].decode("ascii")
        # Topic and directory ids repeat across thousands of partition records: remember a bounded number.
        if len(_UUID_TEXT) < _UUID_CACHE_SIZE:
            _UUID_TEXT[bytes(raw)] = text
    return text


def _bytes_to_json(raw: bytes) -> str:
    """Kafka's JSON prints ``bytes`` fields as standard base64."""
    return _b64(raw).decode("ascii")


class _Source:
    """Accumulates generated source lines and the objects they reference."""

    def __init__(self, flexible: bool) -> None:
        self.flexible = flexible
        self.lines: list[str] = []
        self.env: dict[str, Any] = {
            "BodyError": BodyError,
            "read_uvarint": read_uvarint,
            "uuid_to_json": uuid_to_json,
            "bytes_to_json": _bytes_to_json,
            "INT16": struct.Struct(">h"),
            "INT32": struct.Struct(">i"),
        }

    def name(self, prefix: str, value: Any) -> str:
        """Bind ``value`` in the generated code's globals under a fresh name."""
        name = f"{prefix}{len(self.env)}"
        self.env[name] = value
        return name

    def emit(self, indent: int, *lines: str) -> None:
        self.lines.extend("    " * indent + line for line in lines)

    def length(self, indent: int, classic: str) -> None:
        """Leave ``n`` = length + 1 (0 = null) and ``pos`` after the prefix."""
        if self.flexible:
            # One-byte compact lengths (< 127 elements or bytes) are the common case: no call.
            self.emit(
                indent, "n = buf[pos]", "if n < 0x80:", "    pos += 1", "else:", "    n, pos = read_uvarint(buf, pos)"
            )
        else:
            self.emit(
                indent,
                f"n = {classic}.unpack_from(buf, pos)[0] + 1",
                f"pos += {classic}.size",
                "if n < 0:",
                "    raise BodyError('negative length prefix')",
            )

    def field(self, indent: int, plan: FieldPlan, version: int, target: str) -> None:
        """Emit code reading one field (not part of a fixed run) into the assignment target ``target``."""
        key = plan.key
        if plan.is_struct and not plan.is_array:
            reader = self.name("struct_", compile_struct_reader(plan.members, version, self.flexible))
            self.emit(indent, f"{target}, pos = {reader}(buf, pos)")
            return
        if plan.type in FIXED_FORMATS:
            self.fixed_run(indent, [plan], [target])
            return
        is_array = plan.is_array
        self.length(indent, "INT32" if is_array or plan.type == "bytes" else "INT16")
        kind = "array" if is_array else "field"
        if plan.nullable:
            self.emit(indent, "if n == 0:", f"    {target} = None", "else:")
        else:
            self.emit(indent, "if n == 0:", f"    raise BodyError('non-nullable {kind} {key} is null')", "else:")
        body = indent + 1
        if is_array:
            self.array_elements(body, plan, version, target)
            return
        convert = "bytes_to_json" if plan.type == "bytes" else ""
        self.emit(
            body,
            "end = pos + n - 1",
            "if end > len(buf):",
            f"    raise BodyError('field {key} runs past the end of the record')",
            # Java decodes invalid UTF-8 with replacement characters, and so does kafka-dump-log.
            f"{target} = {convert}(buf[pos:end])" if convert else f"{target} = buf[pos:end].decode('utf-8', 'replace')",
            "pos = end",
        )

    def array_elements(self, indent: int, plan: FieldPlan, version: int, target: str) -> None:
        key, element = plan.key, plan.element_type
        # Every element takes at least one byte, so a bogus count cannot make the loop run long.
        self.emit(
            indent,
            "if n - 1 > len(buf) - pos:",
            f"    raise BodyError('array {key} has more elements than bytes left')",
        )
        if element == "uuid":
            self.emit(
                indent,
                "end = pos + (n - 1) * 16",
                "if end > len(buf):",
                f"    raise BodyError('array {key} runs past the end of the record')",
                f"{target} = [uuid_to_json(buf[p:p + 16]) for p in range(pos, end, 16)]",
                "pos = end",
            )
        elif element in FIXED_FORMATS:
            fmt = FIXED_FORMATS[element]
            width = struct.calcsize(">" + fmt)
            cache = self.name("counts_", {})  # one compiled struct per element count
            self.emit(
                indent,
                f"unpack = {cache}.get(n)",
                "if unpack is None:",
                f"    unpack = STRUCT('>' + str(n - 1) + {fmt!r}).unpack_from",
                "    if n < 256:",
                f"        {cache}[n] = unpack",
                f"{target} = list(unpack(buf, pos))",
                f"pos += (n - 1) * {width}",
            )
            self.env["STRUCT"] = struct.Struct
        else:
            member = FieldPlan("", element, False, None, None, plan.members)
            reader = self.name("element_", _compile_value_reader(member, version, self.flexible))
            self.emit(
                indent,
                "items = []",
                "for _ in range(n - 1):",
                f"    item, pos = {reader}(buf, pos)",
                "    items.append(item)",
                f"{target} = items",
            )

    def fixed_run(self, indent: int, plans: list[FieldPlan], targets: list[str]) -> None:
        """One ``unpack_from`` for consecutive fixed-width fields."""
        compiled = fixed_struct([plan.type for plan in plans])
        unpack = self.name("fixed_", compiled.unpack_from)
        has_uuid = any(plan.type == "uuid" for plan in plans)
        if not has_uuid:
            self.emit(indent, f"{', '.join(targets)}, = {unpack}(buf, pos)")
        else:
            names = [f"v{i}" for i in range(len(plans))]
            self.emit(indent, f"{', '.join(names)}, = {unpack}(buf, pos)")
            for plan, target, name in zip(plans, targets, names, strict=True):
                self.emit(indent, f"{target} = uuid_to_json({name})" if plan.type == "uuid" else f"{target} = {name}")
        self.emit(indent, f"pos += {compiled.size}")

    def build(self, name: str, signature: str) -> Callable[..., Any]:
        source = f"def {name}({signature}):\n" + "\n".join(self.lines) + "\n"
        # The source is built from the schema table only; never from input bytes.
        self.env["__source__"] = source  # readable later as reader.__globals__["__source__"]
        exec(compile(source, f"<kraft-audit {name}>", "exec"), self.env)
        function: Callable[..., Any] = self.env[name]
        return function


def _compile_value_reader(plan: FieldPlan, version: int, flexible: bool) -> Callable[[bytes, int], tuple[Any, int]]:
    """``reader(buf, pos) -> (value, pos)`` for one array element (string, bytes or struct)."""
    if plan.is_struct:
        return compile_struct_reader(plan.members, version, flexible)
    if plan.type not in VARIABLE_PRIMITIVES:
        raise ValueError(f"unsupported array element type {plan.type}")
    source = _Source(flexible)
    source.field(1, plan, version, "value")
    source.emit(1, "return value, pos")
    return source.build("read_element", "buf, pos")


def _compile_tagged_step(plan: FieldPlan, version: int) -> Step:
    """``step(buf, pos, out) -> pos`` reading one tagged field (tagged fields exist only in flexible versions)."""
    source = _Source(True)
    source.field(1, plan, version, f"out[{plan.key!r}]")
    source.emit(1, "return pos")
    return source.build("read_tagged", "buf, pos, out")


def _tagged_section_reader(tagged: list[FieldPlan], version: int) -> Step:
    """Read a tagged-field section whose count byte is not zero (the zero case is inlined by the caller)."""
    by_tag = {plan.tag: _compile_tagged_step(plan, version) for plan in tagged}

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
                out.setdefault(UNKNOWN_TAGS_KEY, {})[str(tag)] = _bytes_to_json(buf[pos:end])
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
    source = _Source(flexible)
    source.emit(1, "out = {}")
    run: list[FieldPlan] = []
    for plan in [*regular, None]:
        if plan is not None and plan.type in FIXED_FORMATS:
            run.append(plan)
            continue
        if run:
            source.fixed_run(1, run, [f"out[{p.key!r}]" for p in run])
            run = []
        if plan is not None:
            source.field(1, plan, version, f"out[{plan.key!r}]")
    if flexible:
        source.env["read_tags"] = _tagged_section_reader(tagged, version)
        # Kafka's JSON lists fields in declaration order, tagged ones included (PartitionRecord declares its
        # tagged LeaderRecoveryState between Leader and LeaderEpoch), while the wire puts tagged fields last.
        wire = [plan.key for plan in regular + tagged]
        declared = [key for key in (json_key(spec.name) for spec in fields) if key in wire]
        source.emit(1, "if buf[pos] == 0:", "    pos += 1", "else:", "    pos = read_tags(buf, pos, out)")
        if declared != wire:
            source.env["ORDER"] = (*declared, UNKNOWN_TAGS_KEY)
            source.emit(2, "out = {key: out[key] for key in ORDER if key in out}")
    source.emit(1, "return out, pos")
    reader: StructReader = source.build("read_struct", "buf, pos")
    return reader


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
