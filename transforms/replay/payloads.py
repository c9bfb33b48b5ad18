"""Typed views of record payloads: one ``from_json`` schema per record type replay reads.

Payloads are the JSON ``data`` objects kafka-dump-log prints (lowerCamel field names). ``from_json`` runs in
PERMISSIVE mode: a field of the wrong JSON type, a missing field or an undecodable payload (``{"_raw": ...}``)
parses to NULL, so every state transform filters on its key fields being non-NULL instead of failing.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from schemas.replay import PAYLOAD_DDL

_JSON_OPTIONS: Final = {"mode": "PERMISSIVE"}


def parsed(record_type: str) -> Column:
    """The payload of a ``record_type`` row as a struct (fields NULL when absent or of the wrong type)."""
    return F.from_json(F.col("payload"), PAYLOAD_DDL[record_type], _JSON_OPTIONS)


def filter_parsed(applied_df: DataFrame, record_type: str) -> DataFrame:
    """Applied records of one type with their parsed payload as column ``p`` (APPLIED_RECORDS columns kept)."""
    return applied_df.where(F.col("record_type") == record_type).select("*", parsed(record_type).alias("p"))
