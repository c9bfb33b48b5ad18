"""What a record's ``data`` may hold, per record type: the fields Kafka's schemas define, and their kinds.

Redaction keeps only what is known to be safe. A decoded record from a text input can carry anything (an
``oldValue`` beside a ConfigRecord's ``value``, an object where a string belongs); the shapes here, compiled once
from ``schemas.record_schemas``, say which fields exist (over all versions) and whether each is a scalar, an
array of scalars, a struct or an array of structs. The names are also the vocabulary a quarantine excerpt may show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, TypeAlias

from schemas.record_schemas import CONTROL_RECORD_SCHEMAS, METADATA_RECORD_SCHEMAS, FieldSpec, json_key
from schemas.record_types import CLIENT_CONFIG_RECORD, CONTROL_RECORD_TYPES, METADATA_RECORD_TYPES


class Scalar(Enum):
    """A field holding one primitive, or an array of primitives."""

    ONE = "scalar"
    ARRAY = "array of scalars"


@dataclass(frozen=True, slots=True)
class Struct:
    """A struct field (``repeated``: an array of structs) and its members."""

    fields: Mapping[str, FieldShape]
    repeated: bool


FieldShape: TypeAlias = Scalar | Struct
Shape: TypeAlias = Mapping[str, FieldShape]

_INTEGER_TYPES: Final = frozenset({"int8", "int16", "int32", "int64", "uint16"})


def _shape(fields: Iterable[FieldSpec]) -> dict[str, FieldShape]:
    shape: dict[str, FieldShape] = {}
    for spec in fields:
        repeated = spec.type.startswith("[]")
        if spec.fields:
            shape[json_key(spec.name)] = Struct(_shape(spec.fields), repeated)
        else:
            shape[json_key(spec.name)] = Scalar.ARRAY if repeated else Scalar.ONE
    return shape


def _record_shapes() -> dict[str, Shape]:
    shapes: dict[str, Shape] = {METADATA_RECORD_TYPES[k]: _shape(m.fields) for k, m in METADATA_RECORD_SCHEMAS.items()}
    shapes.update({CONTROL_RECORD_TYPES[k]: _shape(m.fields) for k, m in CONTROL_RECORD_SCHEMAS.items()})
    # The seed KIP's client configs (JSON lines only, no binary schema): ClientQuotaRecord's entity, a string value.
    quota = shapes["CLIENT_QUOTA_RECORD"]
    shapes[CLIENT_CONFIG_RECORD] = {"entity": quota["entity"], "key": Scalar.ONE, "value": Scalar.ONE}
    return shapes


def _names(specs: Iterable[FieldSpec], integer: bool | None = None) -> Iterable[str]:
    """JSON keys of every field, nested ones too (``integer``: only integer-typed, or only the others)."""
    for spec in specs:
        if integer is None or (spec.type.removeprefix("[]") in _INTEGER_TYPES) == integer:
            yield json_key(spec.name)
        yield from _names(spec.fields, integer)


_ALL_SPECS: Final = [
    spec for m in (*METADATA_RECORD_SCHEMAS.values(), *CONTROL_RECORD_SCHEMAS.values()) for spec in m.fields
]

RECORD_SHAPES: Final[Mapping[str, Shape]] = _record_shapes()
"""Record type (UPPER_SNAKE) -> the fields its ``data`` may hold; a type not here is unknown."""

SCHEMA_FIELD_NAMES: Final = frozenset(_names(_ALL_SPECS)) | {"entity", "entityType", "entityName", "key", "value"}
"""Every field name of every record schema (JSON keys)."""

# Names that hold an integer wherever they appear (an offset, an epoch, an id): a number after one of them is
# structure, not a config value. ``value`` and ``key`` are never among them.
INTEGER_FIELD_NAMES: Final = frozenset(_names(_ALL_SPECS, integer=True)) - frozenset(_names(_ALL_SPECS, integer=False))
