"""The driver's JVM view keeps the classes and static methods it looked up (jobs.runtime.jvm_handles), nothing else."""

from __future__ import annotations

import pytest
from py4j.protocol import Py4JError
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.runtime.jvm_handles import cache_jvm_lookups


def test_classes_and_static_methods_are_looked_up_once(spark: SparkSession) -> None:
    cache_jvm_lookups(spark)  # the session builder did it already: calling again changes nothing
    jvm = spark.sparkContext._jvm
    client = spark.sparkContext._gateway._gateway_client
    jvm.functions.col  # noqa: B018 (looked up, then kept)
    jvm.java.util.ArrayList  # noqa: B018
    jvm.java.lang.Integer  # noqa: B018
    sent: list[str] = []
    original = client.send_command

    def counting(command: str, *args: object, **kwargs: object) -> object:
        sent.append(command.split("\n", 1)[0])
        return original(command, *args, **kwargs)

    client.send_command = counting
    try:
        assert jvm.functions is jvm.functions
        assert jvm.functions.col is jvm.functions.col
        assert jvm.java.util.ArrayList is jvm.java.util.ArrayList
        assert sent == []  # no round trip for any of them
        assert jvm.functions.col("x").toString() == "x"  # a kept method still calls the JVM, without a lookup
        assert "c" in sent and "r" not in sent  # c: call, r: reflection (a lookup)
        sent.clear()
        # a static field is read each time (its value may change), and a missing name fails each time
        assert jvm.java.lang.Integer.MAX_VALUE == 2**31 - 1
        assert jvm.java.lang.Integer.MAX_VALUE == 2**31 - 1
        assert sent.count("r") == 2
        for _ in range(2):
            with pytest.raises(Py4JError):
                jvm.java.lang.Integer.noSuchMember  # noqa: B018
    finally:
        del client.send_command
    assert str(F.col("a").alias("b")._jc.toString()) == "a AS b"


def _commands(spark: SparkSession, send: object) -> list[str]:
    """The py4j commands ``send()`` makes (their kind and target)."""
    client = spark.sparkContext._gateway._gateway_client
    sent: list[str] = []
    original = client.send_command

    def counting(command: str, *args: object, **kwargs: object) -> object:
        sent.append(" ".join(command.split("\n")[:3]))
        return original(command, *args, **kwargs)

    client.send_command = counting
    try:
        send()  # type: ignore[operator]
    finally:
        del client.send_command
    return sent


@pytest.mark.parametrize("size", [1, 2, 10, 11, 25])
def test_a_list_reaches_the_jvm_in_one_call_per_ten_elements_and_equal_to_py4js_own(
    spark: SparkSession, size: int
) -> None:
    jvm = spark.sparkContext._jvm
    values = [f"v{i}" for i in range(size)]
    own = jvm.java.util.ArrayList()  # py4j's own conversion, one add per element, for comparison
    for value in values:
        own.add(value)
    copied: list[object] = []
    sent = _commands(spark, lambda: copied.append(jvm.java.util.ArrayList(values)))
    assert list(copied[0]) == values  # type: ignore[call-overload]
    assert own.equals(copied[0])
    # the list: one call up to ten elements; above, an ArrayList filled ten a call (List.of, addAll); then the copy
    expected = 2 if size <= 10 else 2 + 2 * -(-size // 10)
    assert len(sent) == expected, sent
    assert not [c for c in sent if c.endswith(" add")]


def test_lists_with_none_tuples_and_nested_lists_arrive_as_py4j_sends_them(spark: SparkSession) -> None:
    copy = spark.sparkContext._jvm.java.util.ArrayList
    assert list(copy(["a", None, "b"])) == ["a", None, "b"]  # a None: py4j's own conversion
    assert list(copy(("x", 2, True))) == ["x", 2, True]
    assert [list(inner) for inner in copy([["a", "b"], [1]])] == [["a", "b"], [1]]
    assert list(copy([])) == []
    # what PySpark builds from lists: structs, selects, isin
    df = spark.createDataFrame([("k", 1)], "a string, b int")
    row = df.select(F.struct("a", "b").alias("s"), F.col("a").isin("k", "z").alias("i"), *[F.lit(n) for n in range(12)])
    assert row.first() == (("k", 1), True, *range(12))
