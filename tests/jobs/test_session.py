"""How the session builder reads what a launcher decided (pure Python; the spark-submit runs are in
test_spark_submit.py)."""

from __future__ import annotations

import pytest

from jobs.session import _master_from_submit_args, _submitted_conf


@pytest.mark.parametrize(
    ("args", "master"),
    [
        ("--master spark://10.0.0.1:7077 --conf spark.x=1 pyspark-shell", "spark://10.0.0.1:7077"),
        ("--conf spark.x=1 --master=yarn pyspark-shell", "yarn"),
        ("--master 'local[3]' pyspark-shell", "local[3]"),
        ("--driver-memory 2g pyspark-shell", None),
        ("", None),
    ],
    ids=["spaced", "equals", "quoted", "no-master", "unset"],
)
def test_the_master_of_pyspark_submit_args_is_found(
    monkeypatch: pytest.MonkeyPatch, args: str, master: str | None
) -> None:
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", args)
    assert _master_from_submit_args() == master


def test_nothing_counts_as_submitted_without_a_launcher(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    assert _submitted_conf() == {}
