"""Typed views of record payloads: one ``from_json`` schema per record type replay reads.

Payloads are the JSON ``data`` objects kafka-dump-log prints (lowerCamel field names). ``from_json`` runs in
PERMISSIVE mode: a field of the wrong JSON type, a missing field or an undecodable payload (``{"_raw": ...}``)
parses to NULL, so every state transform filters on its key fields being non-NULL instead of failing.

Every payload is parsed once, by ``with_parsed_payloads``: the silver frames read the parsed structs of that frame
(``filter_parsed``), and the replay holds it (``transforms.replay.state``). Parsing in each silver frame instead
cost a parse of every record of the stream per silver frame: a filter on a parsed field is pushed below the
projection that parses, into the scan's condition, and Spark evaluates the ``from_json`` shared by the conjuncts
for every row before the record-type test can skip it (at L, 1.1 M applied records, about 12 s of CPU per frame).
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.replay import APPLIED_RECORDS, PAYLOAD_DDL

_JSON_OPTIONS: Final = {"mode": "PERMISSIVE"}
_RECORD_COLUMNS: Final = tuple(name for name in APPLIED_RECORDS.fieldNames() if name != "payload")


def parsed(record_type: str) -> Column:
    """The payload of a ``record_type`` row as a struct (fields NULL when absent or of the wrong type)."""
    return F.from_json(F.col("payload"), PAYLOAD_DDL[record_type], _JSON_OPTIONS)


def payload_column(record_type: str) -> str:
    """The column of ``with_parsed_payloads`` holding the parsed payloads of ``record_type``."""
    return f"payload_{record_type.lower()}"


def with_parsed_payloads(applied_df: DataFrame) -> DataFrame:
    """``APPLIED_RECORDS`` without ``payload``, plus one struct column per record type of ``PAYLOAD_DDL``
    (``payload_column``): the parsed payload on the rows of that type, NULL on the others. Each payload is parsed
    once, with the schema of its own type."""
    record_type = F.col("record_type")
    return applied_df.select(
        *_RECORD_COLUMNS,
        *[F.when(record_type == name, parsed(name)).alias(payload_column(name)) for name in PAYLOAD_DDL],
    )


def filter_parsed(parsed_df: DataFrame, record_type: str) -> DataFrame:
    """The records of one type of ``with_parsed_payloads``, with their parsed payload as column ``p``
    (``APPLIED_RECORDS`` columns kept but ``payload``)."""
    return parsed_df.where(F.col("record_type") == record_type).select(
        *_RECORD_COLUMNS, F.col(payload_column(record_type)).alias("p")
    )
