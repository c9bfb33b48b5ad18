"""Body codecs for every metadata record and control record version, compiled once from the schema table.

``METADATA_BODIES[(api_key, version)]`` and ``CONTROL_BODIES[(control_type, version)]`` hold a ``BodyCodec``
that reads a whole body buffer into kafka-dump-log's JSON dict and writes such a dict back to bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from schemas.record_schemas import CONTROL_RECORD_SCHEMAS, METADATA_RECORD_SCHEMAS, FieldSpec, MessageSpec
from transforms.decode.binary.fields import is_flexible, version_bounds
from transforms.decode.binary.message_reader import BodyError, compile_struct_reader, has_unknown_tags
from transforms.decode.binary.message_writer import compile_struct_writer

__all__ = ["CONTROL_BODIES", "METADATA_BODIES", "BodyCodec", "BodyError"]


@dataclass(frozen=True, slots=True)
class BodyCodec:
    """Reader and writer of one message version."""

    name: str  # schema name, e.g. ConfigRecord
    version: int
    read_struct: Callable[[bytes, int], tuple[dict[str, Any], int]]
    write_struct: Callable[[bytearray, dict[str, Any]], None]
    nested: bool  # has struct fields: unknown tags may hide below the top level

    def read(self, body: bytes, start: int = 0) -> tuple[dict[str, Any], bool]:
        """Decode a body that runs from ``start`` to the end of ``body``.

        Args:
            body: A buffer whose tail (from ``start``) is exactly the body, e.g. a framed record value.
            start: Where the body begins.

        Returns:
            ``(data, has_unknown_tags)``.

        Raises:
            BodyError: Truncated body, bytes left over, or a value the schema forbids.
        """
        try:
            data, pos = self.read_struct(body, start)
        except (IndexError, struct.error):
            raise BodyError(f"{self.name} v{self.version} body is truncated") from None
        except ValueError as exc:  # BodyError, or an over-long varint
            raise BodyError(f"{self.name} v{self.version}: {exc}") from None
        if pos != len(body):
            # Kafka's serde rejects the record the same way ("Found N byte(s) of garbage").
            raise BodyError(f"{self.name} v{self.version}: {len(body) - pos} byte(s) of garbage after the body")
        unknown = "_unknownTaggedFields" in data or (self.nested and has_unknown_tags(data))
        return data, unknown

    def write(self, data: dict[str, Any]) -> bytes:
        """Encode a body from the decoder's dict shape.

        Args:
            data: The body as a JSON-shaped dict.

        Returns:
            The body bytes.

        Raises:
            ValueError: A field is missing its type, out of range, unknown or null where not allowed.
        """
        out = bytearray()
        try:
            self.write_struct(out, data)
        except (struct.error, TypeError, AttributeError) as exc:
            raise ValueError(f"cannot encode {self.name} v{self.version}: {exc}") from None
        return bytes(out)


def _has_structs(fields: tuple[FieldSpec, ...]) -> bool:
    return any(spec.fields for spec in fields)


def _compile_all(schemas: dict[int, MessageSpec]) -> dict[tuple[int, int], BodyCodec]:
    codecs: dict[tuple[int, int], BodyCodec] = {}
    for key, message in schemas.items():
        low, high = version_bounds(message.valid_versions)
        for version in range(low, high + 1):
            flexible = is_flexible(message, version)
            codecs[(key, version)] = BodyCodec(
                message.name,
                version,
                compile_struct_reader(message.fields, version, flexible),
                compile_struct_writer(message.fields, version, flexible),
                _has_structs(message.fields),
            )
    return codecs


METADATA_BODIES: Final = _compile_all(METADATA_RECORD_SCHEMAS)
CONTROL_BODIES: Final = _compile_all(CONTROL_RECORD_SCHEMAS)
