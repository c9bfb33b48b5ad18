"""Shared fixtures and the test tiers.

Tiers (markers, set here so nobody has to remember them):

* ``unit``: every test that does not use the ``spark`` fixture. It must not start Spark either (checked: a unit
  test that leaves a SparkContext behind fails), so ``make test-unit`` runs in seconds.
* ``integration``: tests on the one shared SparkSession below.
* ``system``: marked by hand (``pytestmark = pytest.mark.system``): spark-submit, a standalone cluster, the notebook,
  a browser, the real-metadata corpus, the benchmark harness; each pays its setup once.

A plain ``pytest`` runs unit tests first, then integration, then system, so a broken invariant shows up in the first
seconds; ``make test`` (two workers) starts the longest tier first so neither worker ends alone on a long module.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REAL_METADATA = Path(__file__).resolve().parent.parent.parent / "shared" / "real-metadata"
REAL_METADATA = Path(os.environ.get("KRAFT_AUDIT_REAL_METADATA", str(REAL_METADATA)))


def real_metadata_dir() -> Path:
    """The shared real KRaft files, or skip the calling test with the reason."""
    if not REAL_METADATA.is_dir():
        pytest.skip(f"real KRaft metadata not present at {REAL_METADATA} (set KRAFT_AUDIT_REAL_METADATA)")
    return REAL_METADATA


# Test inputs are tiny and plans deep: compiling generated Java for every new query costs more than running it
# (about 3x on the replay tests). The integration tier evaluates without code generation, as the jobs themselves do
# for a small input (jobs.runtime.holding.interpreted: so the spark-submit runs and the notebook's audits, all small,
# run interpreted too). The in-process system tests on the real-metadata corpus run with it, so replay and resolution
# are still exercised through generated code. The benchmark harness's smoke test runs in process on tiny data:
# interpreted. KRAFT_AUDIT_TEST_CODEGEN=1 runs the integration tier with code generation too.
from jobs.runtime.holding import INTERPRETED, session_settings  # noqa: E402  (INTERPRETED: what the jobs use for a small input)

GENERATED = {"spark.sql.codegen.wholeStage": "true", "spark.sql.codegen.factoryMode": "FALLBACK"}  # Spark's defaults

_TIER_ORDER = {"unit": 0, "integration": 1, "system": 2}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier and run the tiers in order (stable within a tier)."""
    for item in items:
        if item.get_closest_marker("system") is None:
            uses_spark = "spark" in getattr(item, "fixturenames", ())
            item.add_marker(pytest.mark.integration if uses_spark else pytest.mark.unit)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Under `make test` (xdist, --dist loadfile --no-loadscope-reorder) the longest modules go first, so the
        # short ones fill the gaps at the end instead of one worker finishing a pipeline alone.
        items.sort(key=lambda item: -_TIER_ORDER[_tier(item)])
    else:
        items.sort(key=lambda item: _TIER_ORDER[_tier(item)])


def _tier(item: pytest.Item) -> str:
    return next(name for name in ("system", "integration", "unit") if item.get_closest_marker(name) is not None)


@pytest.fixture(autouse=True)
def _unit_tests_do_not_start_spark(request: pytest.FixtureRequest) -> Iterator[None]:
    """A unit test must not start a SparkContext (it would make the unit tier as slow as the rest)."""
    from pyspark import SparkContext

    before = SparkContext._active_spark_context
    yield
    if request.node.get_closest_marker("unit") is not None and before is None:
        assert SparkContext._active_spark_context is None, (
            "this test started Spark: request the `spark` fixture (integration) or mark it `system`"
        )


@pytest.fixture(autouse=True)
def _system_tests_generate_code(request: pytest.FixtureRequest) -> Iterator[None]:
    """In-process system tests (the real-metadata corpus) run with Spark's code generation: their inputs are real
    sizes, where generated code is what production runs and interpreted evaluation is slower. A test marked
    ``interpreted`` keeps the integration tier's setting: the benchmark harness's smoke test on its tiny XS size ran
    226 s with code generation and 187 s without (one run each, same machine)."""
    node = request.node
    in_process = "spark" in request.fixturenames
    if node.get_closest_marker("system") is None or node.get_closest_marker("interpreted") or not in_process:
        yield
        return
    with session_settings(request.getfixturevalue("spark"), GENERATED):
        yield


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """One local[2] session: few shuffle partitions, UI off, UTC."""
    from jobs.runtime.session import build_session

    session = build_session(
        master="local[2]",
        app_name="kraft-audit-tests",
        shuffle_partitions=2,
        extra_conf={
            "spark.ui.enabled": "false",
            "spark.sql.adaptive.coalescePartitions.initialPartitionNum": "2",
            "spark.default.parallelism": "2",
            # one session per worker runs hundreds of modules' plans and local checkpoints. (Workers' JVMs were
            # lost late in CI runs: full GCs back to back, the block manager full of broadcasts' 64 MiB Tungsten
            # pages; build_session now sets 2 MiB pages, see jobs/runtime/session.py.)
            "spark.driver.memory": "4g",
            "spark.sql.warehouse.dir": str(Path(os.environ.get("TMPDIR", "/tmp")) / "kraft-audit-test-wh"),
            **({} if os.environ.get("KRAFT_AUDIT_TEST_CODEGEN") else INTERPRETED),
            # The JIT's full tiers (C1, then C2): a worker's session runs Spark's planner over and over for ten
            # minutes, long enough to repay C2's compile time. The e2e gate six times in one session (driver JVM
            # CPU, s): C1 only 33.1, 22.5, 21.4, 21.7, 21.3, 21.5 (141.5 in all); both tiers 50.7, 25.0, 19.4, 16.2,
            # 15.7, 14.2 (141.2), a third less from the fourth gate on. (Short JVMs, the spark-submit children and
            # the notebook's kernel, stay on C1 only.) The parallel collector: the same gate three times in a
            # session, twice each way alternating, used 7% less JVM CPU than with G1 (100 s vs 108 s in all); the
            # two workers share two cores, so CPU is what the suite's time is.
            "spark.driver.extraJavaOptions": "-XX:+UseParallelGC -Duser.timezone=UTC",
            # KRAFT_AUDIT_TEST_SPARK_CONF="key=value,key=value" overrides any of these for one run (experiments)
            **dict(kv.split("=", 1) for kv in os.environ.get("KRAFT_AUDIT_TEST_SPARK_CONF", "").split(",") if kv),
        },
    )
    yield session
    session.stop()


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """An empty warehouse directory for one test."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


# Spark hands timestamps to Python in the process time zone; pin it so rows compare the same everywhere.
os.environ["TZ"] = "UTC"
time.tzset()
