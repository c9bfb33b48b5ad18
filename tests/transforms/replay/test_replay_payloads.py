"""Parsed payloads: every applied record's payload parsed once, by the schema of its own record type."""

from __future__ import annotations

import pytest
from pyspark.sql import DataFrame, SparkSession

from schemas.replay import APPLIED_RECORDS, PAYLOAD_DDL
from transforms.replay.payloads import filter_parsed, payload_column, with_parsed_payloads

pytestmark = pytest.mark.spark

_ROWS = [
    # (seq, record_type, payload)
    (1, "TOPIC_RECORD", '{"name":"orders","topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}'),
    (2, "FEATURE_LEVEL_RECORD", '{"name":"metadata.version","featureLevel":"high"}'),  # a string where an int is
    (3, "NO_OP_RECORD", "{}"),  # a type replay does not read
    (4, "TOPIC_RECORD", '{"_raw":"00ff"}'),  # undecodable: no field of the schema
]


def _applied(spark: SparkSession) -> DataFrame:
    """``APPLIED_RECORDS`` rows of ``_ROWS`` (cluster c1, log records, offset = seq)."""
    return spark.createDataFrame(
        [("c1", seq, False, seq, None, record_type, 0, payload, False) for seq, record_type, payload in _ROWS],
        APPLIED_RECORDS,
    )


@pytest.fixture(scope="module")
def parsed_rows(interpreted_spark: SparkSession) -> dict[int, dict[str, object]]:
    parsed_df = with_parsed_payloads(_applied(interpreted_spark))
    return {row["seq"]: row.asDict(recursive=True) for row in parsed_df.collect()}


def test_one_column_per_record_type_and_no_raw_payload(parsed_rows: dict[int, dict[str, object]]) -> None:
    columns = set(parsed_rows[1])
    assert "payload" not in columns
    assert {payload_column(t) for t in PAYLOAD_DDL} <= columns
    assert len(columns) == len(APPLIED_RECORDS.fieldNames()) - 1 + len(PAYLOAD_DDL)


def test_a_payload_is_parsed_only_in_the_column_of_its_own_type(parsed_rows: dict[int, dict[str, object]]) -> None:
    row = parsed_rows[1]
    assert row[payload_column("TOPIC_RECORD")] == {"name": "orders", "topicId": "AAAAAAAAAAAAAAAAAAAAAQ"}
    others = [t for t in PAYLOAD_DDL if t != "TOPIC_RECORD"]
    assert all(row[payload_column(t)] is None for t in others)
    assert all(parsed_rows[3][payload_column(t)] is None for t in PAYLOAD_DDL)  # NO_OP_RECORD: nothing to parse


def test_fields_of_the_wrong_json_type_or_missing_parse_to_null(parsed_rows: dict[int, dict[str, object]]) -> None:
    assert parsed_rows[2][payload_column("FEATURE_LEVEL_RECORD")] == {"name": "metadata.version", "featureLevel": None}
    assert parsed_rows[4][payload_column("TOPIC_RECORD")] == {"name": None, "topicId": None}


def test_filter_parsed_reads_the_parsed_struct_of_its_type(interpreted_spark: SparkSession) -> None:
    rows = filter_parsed(with_parsed_payloads(_applied(interpreted_spark)), "TOPIC_RECORD").orderBy("seq").collect()
    assert [(r.seq, r.p.name) for r in rows] == [(1, "orders"), (4, None)]
    assert "payload" not in rows[0].asDict()
