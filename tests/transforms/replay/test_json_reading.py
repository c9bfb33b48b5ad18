"""The replay pass reads payloads as Spark does: its typed fields against ``from_json`` and its normal form against
``to_json(try_parse_json(...))``, on the same texts, in one Spark query each (Spark is the reference here, not the
code under test)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from schemas.replay import PAYLOAD_DDL
from transforms.replay.json_reading import java_double, normal_form, parse, read_fields, type_spec

_DDL = (
    "i int, l long, d double, b boolean, s string, a array<int>, "
    "st array<struct<name: string, v: int>>, o struct<x: int, y: string>"
)

# Texts chosen for the rules in transforms.replay.json_reading's docstring.
_TEXTS = [
    '{"i":1,"l":2,"d":3,"b":true,"s":"x","a":[1,2],"st":[{"name":"n","v":1}],"o":{"x":1,"y":"z"}}',
    '{"i":"1","l":"2","d":"3","b":"true","s":1,"a":"x","st":{"name":"n"},"o":[1]}',
    '{"i":1.0,"l":1e2,"d":1.5,"b":1,"s":1.50,"a":[1,"x"],"st":[{"name":1,"v":"x"}],"o":{"x":"1","y":2}}',
    '{"i":2147483648,"l":9223372036854775808,"d":"NaN","b":null,"s":true,"a":[1,null],"st":[null,{"v":2}]}',
    '{"i":1,"i":"x","s":{"z":1,"a":[1e2,"\\u0001\\u001f\\"\\\\\\n"]},"d":"Infinity","a":[1.5]}',
    '{"i":1,"i":2,"s":1e400,"d":1e400,"a":[2147483648]}',
    '{"s":12345678901234567890123}',
    '{"s":123.4560}',
    '{"s":-0.0}',
    '{"s":1E7}',
    '{"s":0.001}',
    '{"s":0.0001}',
    '{"s":1234567.0}',
    '{"s":12345678.0}',
    '{"s":false}',
    '{"s":[1,2.50,{"b":2,"a":1,"b":3}]}',
    "not json",
    "",
    '[{"i":1}]',
    '{"i":1} trailing',
    '  {"i":2}',
    '{"i":-0,"d":"-Infinity","s":"é\\u2028"}',
    '{"st":[{"name":"a","v":1.5}]}',
    '{"st":[1]}',
    '{"i": 5, "s": null}',
    "{}",
    '{"st":[{"name":"a","v":1,"name":"b"}]}',
    '{"d":"INF","s":"\\u001f"}',
    '{"d":"+INF"}',
    '{"d":" 1"}',
    '{"d":""}',
    '{"i":""}',
    '{"s":""}',
    '{"a":[]}',
    '{"d":-12345678901234567890123}',
    '{"l":-9223372036854775808,"i":-2147483648}',
    '{"_raw":"00ff"}',
]

_NORMAL_TEXTS = [
    *_TEXTS,
    '{"b":1,"a":2}',
    '{"a":1.0}',
    '{"a":1.50}',
    '{"a":1e2}',
    '{"a":1E-7}',
    '{"a":12345678901234567890}',
    '{"a":123456789012345678901234567890123456789012}',
    '{"a":0.1}',
    '{"a":-0}',
    '{"a":-0.0}',
    '{"a":1.0e0}',
    '{"a":"x\\u0001y\\n\\u2028é/"}',
    '{"a":[1,{"c":null,"b":true}]}',
    '{"a":1,"a":2}',
    '{"a":{"b":1,"b":2}}',
    "[1,2]",
    '"s"',
    '{"a":NaN}',
    '{"a":1} x',
    ' {"a" : 1 } ',
    '{"a":3.14159265358979323846264338327950288}',
    '{"a":31415926535897932384626433832795028841.5}',
    '{"a":0.000000000000000000000000000000000000001}',
    '{"a":1e400}',
    '{"a":-1e400}',
    '{"a":0.000001}',
    '{"a":100000000000000000000.5}',
    '{"a":9223372036854775807}',
    '{"a":9223372036854775808}',
    '{"a":-9223372036854775809}',
    '{"a":1.0E+2}',
    "{'a':1}",
    '{"a":123.4560}',
    '{"é":1,"z":2,"Z":3,"a":4,"\\u00e9t":5}',
    '{"name":"orders","topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}',
]


def _same(ours: Any, spark: Any) -> bool:
    if isinstance(ours, float) and isinstance(spark, float) and math.isnan(ours) and math.isnan(spark):
        return True
    if isinstance(ours, dict) and isinstance(spark, dict):
        return ours.keys() == spark.keys() and all(_same(ours[k], spark[k]) for k in ours)
    if isinstance(ours, list) and isinstance(spark, list):
        return len(ours) == len(spark) and all(_same(a, b) for a, b in zip(ours, spark, strict=True))
    return type(ours) is type(spark) and ours == spark


@pytest.mark.spark
def test_typed_fields_are_what_from_json_reads(spark: SparkSession) -> None:
    rows = (
        spark.createDataFrame([(t,) for t in _TEXTS], "t string")
        .select("t", F.from_json("t", _DDL, {"mode": "PERMISSIVE"}).alias("p"))
        .collect()
    )
    spec = type_spec(_DDL)
    differ = {}
    for row in rows:
        expected = row["p"].asDict(recursive=True) if row["p"] is not None else dict.fromkeys(n for n, _ in spec)
        ours = read_fields(parse(row["t"]), spec)
        if not _same(ours, expected):
            differ[row["t"]] = (ours, expected)
    assert differ == {}


@pytest.mark.spark
def test_normal_form_is_sparks(spark: SparkSession) -> None:
    rows = (
        spark.createDataFrame([(t,) for t in _NORMAL_TEXTS], "t string")
        .select("t", F.coalesce(F.to_json(F.try_parse_json("t")), F.col("t")).alias("n"))
        .collect()
    )
    differ = {row["t"]: (normal_form(row["t"]), row["n"]) for row in rows if normal_form(row["t"]) != row["n"]}
    assert differ == {}


@pytest.mark.spark
def test_doubles_print_as_spark_casts_them(spark: SparkSession) -> None:
    values = [0.0, -0.0, 1.0, 1e7, 9999999.0, 0.001, 0.00099, 1.5e-4, 123456789.0, 1048576.0, 0.1, 1e21, 2.5e-10, -3.25]
    rows = spark.createDataFrame([(v,) for v in values], "v double").select("v", F.col("v").cast("string")).collect()
    assert {row[0]: java_double(row[0]) for row in rows} == {row[0]: row[1] for row in rows}


def test_every_payload_ddl_is_read() -> None:
    for record_type, ddl in PAYLOAD_DDL.items():
        names = [name for name, _ in type_spec(ddl)]
        assert names == [part.strip().split(" ")[0] for part in _top_level_parts(ddl)], record_type


def _top_level_parts(ddl: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in ddl:
        depth += char == "<"
        depth -= char == ">"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]
