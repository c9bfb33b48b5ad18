"""How the session builder reads what a launcher decided (pure Python; the spark-submit runs are in
test_spark_submit.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jobs.runtime.session import _master_from_submit_args, _submitted_conf, class_archive


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
    monkeypatch.setenv("KRAFT_AUDIT_CLASS_ARCHIVE", "")  # none: the collector's tests see the options alone
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


def test_a_local_driver_jvm_maps_the_class_archive_when_there_is_one(
    recorded: _Recorded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from jobs.runtime.session import build_session

    archive = tmp_path / "classes.jsa"
    monkeypatch.setenv("KRAFT_AUDIT_CLASS_ARCHIVE", str(archive))
    build_session()  # absent: no option (a JVM told to map a missing archive says so on every start)
    assert "SharedArchiveFile" not in recorded.conf["spark.driver.extraJavaOptions"]
    archive.write_bytes(b"")
    build_session()
    options = recorded.conf["spark.driver.extraJavaOptions"].split()
    assert f"-XX:SharedArchiveFile={archive}" in options and "-Xshare:auto" in options
    assert "-XX:+UseParallelGC" in options and "-Duser.timezone=UTC" in options
    recorded.conf.clear()
    build_session(master="spark://10.0.0.1:7077")  # a cluster's driver: not a JVM of this machine's set-up
    assert "SharedArchiveFile" not in recorded.conf["spark.driver.extraJavaOptions"]


def test_driver_options_given_by_the_caller_keep_the_class_archive_and_the_zone(
    recorded: _Recorded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from jobs.runtime.session import build_session

    archive = tmp_path / "classes.jsa"
    archive.write_bytes(b"")
    monkeypatch.setenv("KRAFT_AUDIT_CLASS_ARCHIVE", str(archive))
    build_session(extra_conf={"spark.driver.extraJavaOptions": "-XX:+UseSerialGC -Xss4m"})
    options = recorded.conf["spark.driver.extraJavaOptions"].split()
    assert f"-XX:SharedArchiveFile={archive}" in options
    assert options[-3:] == ["-XX:+UseSerialGC", "-Xss4m", "-Duser.timezone=UTC"]
    assert "-XX:+UseParallelGC" not in options  # the caller chose the collector
    build_session(extra_conf={"spark.driver.extraJavaOptions": "-Duser.timezone=Europe/Paris"})
    assert recorded.conf["spark.driver.extraJavaOptions"].split()[-1] == "-Duser.timezone=Europe/Paris"
    monkeypatch.setenv("KRAFT_AUDIT_CLASS_ARCHIVE", "")  # none (what scripts/class_archive.py's own run sets)
    build_session(extra_conf={"spark.driver.extraJavaOptions": "-Xss4m"})
    assert recorded.conf["spark.driver.extraJavaOptions"] == "-Xss4m -Duser.timezone=UTC"


_LOADS = """
import sys
from jobs.runtime.session import build_session
spark = build_session(app_name="class-archive")
spark.range(3).write.format("delta").save(sys.argv[1])
assert spark.read.format("delta").load(sys.argv[1]).count() == 3
"""


@pytest.mark.integration
def test_a_session_started_by_the_builder_loads_spark_and_delta_from_the_archive_setup_wrote(tmp_path: Path) -> None:
    # make setup writes it (scripts/class_archive.py); HotSpot logs where each class came from
    archive = class_archive()
    assert archive is not None and archive.is_file(), "make setup writes the class-data archive"
    log = tmp_path / "classes.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KRAFT_AUDIT_CLASS")}
    env["JDK_JAVA_OPTIONS"] = f"-Xlog:class+load=info:file={log}"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", _LOADS, str(tmp_path / "t")], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    sources = {}
    for line in log.read_text().splitlines():
        name, _, source = line.partition(" source: ")
        sources[name.rsplit(" ", 1)[-1]] = source
    assert sources["org.apache.spark.sql.Dataset"] == "shared objects file (top)"
    assert sources["org.apache.spark.sql.delta.DeltaLog"] == "shared objects file (top)"
