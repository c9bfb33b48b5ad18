"""Hypothesis strategies that draw record bodies in kafka-dump-log's JSON shape from the schema table.

Written independently of the codec: versions are checked here with their own tiny parser, and values are drawn
per wire type, so a codec bug in version handling or value rendering shows up as a round-trip failure.
"""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import strategies as st

from schemas.record_schemas import FieldSpec

_INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint16": (0, 2**16 - 1),
}


def in_range(spec: str, version: int) -> bool:
    """Kafka version-range membership ("0+", "1-3", "2", "none")."""
    if spec == "none":
        return False
    if spec.endswith("+"):
        return version >= int(spec[:-1])
    low, _, high = spec.partition("-")
    return int(low) <= version <= int(high or low)


def camel(name: str) -> str:
    """kafka-dump-log's JSON key: first letter lower-cased."""
    return name[0].lower() + name[1:]


uuids = st.binary(min_size=16, max_size=16).map(lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("="))
texts = st.text(max_size=12)  # includes non-ASCII; surrogates are excluded by default
base64_bytes = st.binary(max_size=12).map(lambda raw: base64.b64encode(raw).decode())


def _primitive(kind: str) -> st.SearchStrategy[Any]:
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        return st.integers(low, high)
    if kind == "float64":
        return st.floats(allow_nan=False)
    if kind == "bool":
        return st.booleans()
    if kind == "uuid":
        return uuids
    if kind == "string":
        return texts
    if kind == "bytes":
        return base64_bytes
    raise AssertionError(f"no strategy for {kind}")


def value_strategy(spec: FieldSpec, version: int) -> st.SearchStrategy[Any]:
    """Values of one field at one version (None included when the field is nullable)."""
    if spec.type.startswith("[]"):
        element = body_strategy(spec.fields, version) if spec.fields else _primitive(spec.type[2:])
        values: st.SearchStrategy[Any] = st.lists(element, max_size=3)
    elif spec.fields:
        values = body_strategy(spec.fields, version)
    else:
        values = _primitive(spec.type)
    if in_range(spec.nullable_versions, version):
        values = st.none() | values
    return values


def body_strategy(fields: tuple[FieldSpec, ...], version: int) -> st.SearchStrategy[dict[str, Any]]:
    """Whole bodies: every regular field present, each tagged field present or absent."""
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for spec in fields:
        if not in_range(spec.versions, version):
            continue
        tagged = spec.tag is not None and in_range(spec.tagged_versions, version)
        (optional if tagged else required)[camel(spec.name)] = value_strategy(spec, version)
    return st.fixed_dictionaries(required, optional=optional)
