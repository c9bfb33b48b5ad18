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
