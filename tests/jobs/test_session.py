"""How the session builder reads what a launcher decided (pure Python; the spark-submit runs are in
test_spark_submit.py)."""

from __future__ import annotations

import pytest

from jobs.runtime.session import _master_from_submit_args, _submitted_conf


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


class _Recorded:
    """A stand-in for ``SparkSession.builder`` that records the settings ``build_session`` gives it."""

    def __init__(self) -> None:
        self.conf: dict[str, str] = {}
        self.sparkContext = self
        self.master = "local[*]"

    def config(self, key: str, value: str) -> _Recorded:
        self.conf[key] = value
        return self

    def getOrCreate(self) -> _Recorded:
        return self

    def setLogLevel(self, level: str) -> None:
        pass


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> _Recorded:
    import jobs.runtime.session as session

    builder = _Recorded()
    monkeypatch.setattr(session, "SparkSession", type("FakeSession", (), {"builder": builder}))
    monkeypatch.setattr(session, "cache_jvm_lookups", lambda spark: None)
    for name in (
        "PYSPARK_GATEWAY_PORT",
        "PYSPARK_SUBMIT_ARGS",
        "KRAFT_AUDIT_DRIVER_GC",
        *session._JVM_OPTION_VARIABLES,
    ):
        monkeypatch.delenv(name, raising=False)
    return builder


def test_a_local_driver_jvm_gets_the_parallel_collector_and_utc(recorded: _Recorded) -> None:
    from jobs.runtime.session import build_session

    build_session()
    assert recorded.conf["spark.driver.extraJavaOptions"] == "-XX:+UseParallelGC -Duser.timezone=UTC"
    assert recorded.conf["spark.executor.extraJavaOptions"] == "-Duser.timezone=UTC"


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("KRAFT_AUDIT_DRIVER_GC", "-XX:+UseSerialGC", "-XX:+UseSerialGC -Duser.timezone=UTC"),
        ("KRAFT_AUDIT_DRIVER_GC", "", "-Duser.timezone=UTC"),
        ("JAVA_TOOL_OPTIONS", "-Xss4m -XX:+UseG1GC", "-Duser.timezone=UTC"),
        ("_JAVA_OPTIONS", "-XX:+UseZGC", "-Duser.timezone=UTC"),
        ("JDK_JAVA_OPTIONS", "-XX:+UseShenandoahGC", "-Duser.timezone=UTC"),
        ("JAVA_TOOL_OPTIONS", "-Xss4m", "-XX:+UseParallelGC -Duser.timezone=UTC"),
    ],
    ids=["replaced", "turned-off", "tool-options-choose", "java-options-choose", "jdk-options-choose", "no-choice"],
)
def test_the_collector_option_yields_to_the_user_and_to_the_jvm_environment(
    recorded: _Recorded, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected: str
) -> None:
    from jobs.runtime.session import build_session

    monkeypatch.setenv(variable, value)
    build_session()
    assert recorded.conf["spark.driver.extraJavaOptions"] == expected


def test_a_cluster_master_gets_no_collector(recorded: _Recorded) -> None:
    from jobs.runtime.session import build_session

    build_session(master="spark://10.0.0.1:7077")
    assert recorded.conf["spark.driver.extraJavaOptions"] == "-Duser.timezone=UTC"
