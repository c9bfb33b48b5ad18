"""Stage boundaries of a job: which intermediate frames are computed once and read back instead of re-planned.

Transforms are pure plans; where their plan reuses a frame they pass it through a ``Keep``
(``transforms.kit.checkpoints``). ``Checkpoints`` is the jobs' ``Keep``: each named frame is computed once and later
plans read its rows instead of carrying its lineage. A job holds a frame in one of two ways:

* a **local checkpoint** (executor storage, memory spilling to disk), the default, for any size;
* a **local relation** (the rows held by the driver), when the job knows its input is small (``local_rows_for``) and
  the frame has at most ``local_rows`` rows. Small audits are dominated by fixed costs, not rows. A local relation
  is planned like a ``VALUES`` list: the optimizer folds filters and projections over it while planning, and no
  later plan goes back to a checkpoint's blocks. Broadcasting one is still a Spark job, a cheap one (a broadcast
  join of two held frames plus an aggregate: 3 jobs a query, about 17 ms each once warm); ``small_plans`` therefore
  plans a small input's joins without broadcasts. A frame over the limit falls back to a local
  checkpoint (its rows up to the limit were computed once for nothing: the limit is far above what a small input
  gives).

Why hold at all (rather than ``persist``): replay and resolution reuse the same frames many times (every silver
table reads the replay pass, every effective resource type reads the brokers and their layers). Without a cut in
the lineage Spark expands each reuse into a copy of the whole upstream plan: on a 17,000-record real log the
effective-config plan ran the 1 GiB driver out of memory while being planned (also with ``persist``).

Either way the frame is computed when it is held: a local relation by one job for its final stage, a checkpoint by
one job over all its partitions (``eager=True``), after which Spark drops the frame's lineage. Held lazily instead,
the checkpoint would be computed by the first query that reads it and its lineage dropped when that query's first
job ends (``RDD.doCheckpoint``, ``LocalRDDCheckpointData``), while adaptive execution may still be running other
stages of the query whose tasks carry the frame's plan. Their metrics then reach the driver after it has garbage
collected the plan's accumulators, and Spark's scheduler logs an error with a stack trace for each one ("Failed to
update accumulator ... attempted to access non-existent accumulator", ``DAGScheduler.updateAccumulators``): 42 of
them in a demo run whose driver was made to collect garbage every 0.2 s. The results are the same either way; only
the lost metrics and the log differ, and holding when held costs one job per checkpoint and no measurable time
(docs/performance-history.md). Keeping the source frame alive beside a lazy checkpoint also ends the errors (its plan
holds the accumulators), but it would keep every held frame's shuffle files and broadcasts for as long as the frame.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.conf import RuntimeConfig

from transforms.kit.checkpoints import Plan, planned

__all__ = [
    "INTERPRETED",
    "INTERPRETED_RECORDS",
    "LOCAL_ROWS",
    "ONE_JOB",
    "SINGLE_PARTITION",
    "SMALL_INPUT_BYTES",
    "SMALL_INPUT_RECORDS",
    "SMALL_INPUT_SETTINGS",
    "Checkpoints",
    "held_locally",
    "held_rows",
    "interpreted",
    "interpreted_input",
    "local_rows_for",
    "no_rows",
    "one_job",
    "plans_for",
    "row_count",
    "session_settings",
    "small_input",
    "small_plans",
    "truncated",
]

# An input of at most this many bronze records is small: its kept frames are held as local relations when they
# have at most LOCAL_ROWS rows, and as local checkpoints above. The limit is set by planning, not memory: every
# analysis of a plan that reads a local relation walks the relation's row list (Catalyst maps each argument of every
# node when it rewrites expressions, and the row list is one: PreReadCheck, the collation casts, reference
# resolution), so each later select or join over a held frame costs in proportion to its rows (300 self-joins of a
# held frame: 1.6 s analysed with 100 rows, 39.5 s with 100,000). Below a few thousand rows a checkpoint's jobs cost
# more than the planning they save. A small input's frames are mostly far below the limit; a fleet of many small
# clusters has a few above it (docs/performance-history.md, "What a held local relation costs the planner").
SMALL_INPUT_RECORDS = 20_000
LOCAL_ROWS = 10_000
# The same line for an ingest, which decides before it has decoded anything: input files of at most this many bytes
# in all. JSON lines run about 215 bytes a record (tests/data/e2e), so 20,000 records of JSON are about 4.3 MB; the
# binary and text forms of as many records are smaller and larger.
SMALL_INPUT_BYTES = 4 << 20


def small_input(records: int) -> bool:
    """Whether ``records`` bronze records are a small input (``SMALL_INPUT_RECORDS``)."""
    return records <= SMALL_INPUT_RECORDS


def local_rows_for(records: int) -> int:
    """The ``local_rows`` limit for a job reading ``records`` bronze records: ``LOCAL_ROWS`` for a small input,
    else 0 (every frame a local checkpoint: at scale, collecting to the driver would be the bottleneck)."""
    return LOCAL_ROWS if small_input(records) else 0


# Spark's settings for evaluating every operator and expression without generated code. Spark otherwise generates
# Java source for each query's stages and for its projections, predicates and orderings, and compiles it in the
# driver (Janino) before running it. On a small input the queries run in milliseconds, so compiling is most of their
# cost: the end-to-end gate (25 records, test settings, second in one session) ran 30.4 s with code generation and
# 22.9 s without (one run each, same machine); the whole-stage switch alone gave 29.8 s, the expression factory is
# what counts. Results do not depend on it: Spark's interpreted and generated evaluation are the same semantics
# (the test suite's integration tier runs interpreted throughout).
INTERPRETED = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}
# A mid-size input (more than SMALL_INPUT_RECORDS, at most INTERPRETED_RECORDS) is evaluated without generated code
# too, but keeps adaptive execution and its partitions. Each of an audit's few hundred distinct queries is compiled
# once per process and its generated classes start in the JVM's interpreter, so below some size the compiling costs
# more than the generated code saves. Measured (audits without the data-quality stage, one per process, the two ways
# in turn, copies of one warehouse; README, Performance): benchmark M (134,829 records) 60.3-61.3 s generated,
# 48.2-51.4 s interpreted; the first 12 clusters of benchmark L (219,062 records) 64.1-70.6 s against 52.1-60.4 s;
# its first 25 (456,271 records) 77.7-80.7 s against 72.8-78.4 s; all of L (1.8 M records) 120.5-121.7 s against
# 141.2-142.7 s.
INTERPRETED_RECORDS = 300_000
# And how a small input's queries are planned: one shuffle partition, sort-merge joins instead of broadcasts, no
# adaptive execution. Each broadcast is a Spark job of its own and so is each adaptive query stage; without them an
# action is one job. The e2e gate (25 records, fourth in one test-settings session, the suite's JIT): 345 -> 67 Spark
# jobs, 15-16 s -> 14.9 s. (Adaptive execution off alone: 232 jobs; off with broadcasts off but the shuffles at two
# partitions: 100 jobs, 22.9 s.) Hints are only advice to the planner (``F.broadcast`` on the catalog frames): results
# do not depend on them, nor on the number of partitions. A held frame is collected with a limit (``held_locally``),
# and Spark runs a limited collect one partition first, then a second job for the rest when the first falls short
# (always, since the limit is far above the rows): a frame whose last stage reads a two-partition local relation
# took two jobs. Trying every partition at once makes it one (the warm e2e gate: 71 -> 66 Spark jobs).
SINGLE_PARTITION = {
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.autoBroadcastJoinThreshold": "-1",
    "spark.sql.optimizer.disableHints": "true",
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.limit.initialNumPartitions": str(1 << 20),
}
SMALL_INPUT_SETTINGS = {**INTERPRETED, **SINGLE_PARTITION}
# An aggregate whose few rows the driver collects (per cluster, per input file) needs no adaptive execution: with
# it, Spark runs the shuffle's map side as a job of its own and the final stage as a second; without, one job. The
# partial aggregation before the shuffle keeps it to a few rows per task at any input size.
ONE_JOB = {"spark.sql.adaptive.enabled": "false"}


@contextmanager
def session_settings(spark: SparkSession, settings: Mapping[str, str | None]) -> Iterator[None]:
    """Inside, the session runs with ``settings`` (None: unset); on leaving, each one is back to what it was (unset
    again if it was unset), so a shared session (a notebook, the tests) keeps its own."""
    conf = spark.conf
    saved = {key: conf.get(key, None) for key in settings}
    try:
        _apply(conf, settings)
        yield
    finally:
        _apply(conf, saved)


def _apply(conf: RuntimeConfig, settings: Mapping[str, str | None]) -> None:
    for key, value in settings.items():
        if value is None:
            conf.unset(key)
        else:
            conf.set(key, value)


def interpreted_input(records: int) -> bool:
    """Whether an input of ``records`` bronze records is evaluated without generated code (``INTERPRETED_RECORDS``;
    a small input is too)."""
    return records <= INTERPRETED_RECORDS


def plans_for(spark: SparkSession, records: int) -> AbstractContextManager[None]:
    """``session_settings`` for the queries over ``records`` bronze records: ``SMALL_INPUT_SETTINGS`` for a small
    input, ``INTERPRETED`` for a mid-size one (``interpreted_input``), else nothing."""
    if small_input(records):
        return session_settings(spark, SMALL_INPUT_SETTINGS)
    return interpreted(spark, when=interpreted_input(records))


def interpreted(spark: SparkSession, *, when: bool = True) -> AbstractContextManager[None]:
    """``session_settings`` with ``INTERPRETED`` if ``when``, else nothing: the session evaluates without generated
    code inside."""
    return session_settings(spark, INTERPRETED if when else {})


def one_job(spark: SparkSession) -> AbstractContextManager[None]:
    """``session_settings`` with ``ONE_JOB``: inside, a collected aggregate is one Spark job."""
    return session_settings(spark, ONE_JOB)


def small_plans(spark: SparkSession, *, when: bool = True) -> AbstractContextManager[None]:
    """``session_settings`` with ``SMALL_INPUT_SETTINGS`` if ``when``, else nothing: inside, the session evaluates
    without generated code and plans every query in one partition, without broadcasts or adaptive stages."""
    return session_settings(spark, SMALL_INPUT_SETTINGS if when else {})


def held_locally(df: DataFrame, limit: int) -> DataFrame | None:
    """``df``'s rows as a local relation when it has at most ``limit`` rows, else None.

    The rows stay in the driver's JVM (collected and re-created there, never converted to Python objects).
    """
    session = df.sparkSession
    rows = df._jdf.limit(limit + 1).collectAsList()
    if rows.size() > limit:
        return None
    return DataFrame(session._jsparkSession.createDataFrame(rows, df._jdf.schema()), session)


# Operators whose output has exactly as many rows as their input (a Window keeps every row and adds columns).
_SAME_ROWS = frozenset({"Project", "Window", "Sort", "Repartition", "RepartitionByExpression"})


def held_rows(df: DataFrame) -> int | None:
    """The number of rows of ``df`` when the optimiser folded it into one local relation (a held frame, and
    projections and filters over it), under operators that keep every row (a data-quality flag's window): read
    from the plan, no Spark job. None otherwise."""
    plan = df._jdf.queryExecution().optimizedPlan()
    while str(plan.nodeName()) in _SAME_ROWS:
        plan = plan.children().apply(0)
    return int(plan.data().size()) if str(plan.nodeName()) == "LocalRelation" else None


def no_rows(df: DataFrame) -> bool:
    """Whether ``df``'s plan, as analysed, is a local relation without rows under projections, filters and
    repartitions (``local_frame`` of no rows, columns selected, coalesced): known without optimising the plan or
    running a Spark job. False for any other plan, empty or not."""
    plan = df._jdf.queryExecution().analyzed()
    while str(plan.nodeName()) in ("Project", "Filter", "Repartition", "RepartitionByExpression"):
        plan = plan.children().apply(0)
    return str(plan.nodeName()) == "LocalRelation" and int(plan.data().size()) == 0


def row_count(df: DataFrame) -> int:
    """``df.count()``, without a Spark job for a held frame (``held_rows``)."""
    held = held_rows(df)
    return df.count() if held is None else held


def truncated(df: DataFrame, *, local_rows: int = 0) -> DataFrame:
    """``df`` with its lineage cut (see the module docstring): a local relation if ``local_rows`` > 0 and it has at
    most that many rows, else a local checkpoint, computed now."""
    if local_rows > 0:
        held = held_locally(df, local_rows)
        if held is not None:
            return held
    return df.localCheckpoint(eager=True, storageLevel=StorageLevel.MEMORY_AND_DISK)


def by_cluster(df: DataFrame, *, local_rows: int) -> DataFrame:
    """``df`` gathered by cluster for a write partitioned by ``cluster_id``: a large input's frame
    (``local_rows`` 0) is shuffled on ``cluster_id``, so each writer task holds whole clusters and writes one file
    per cluster. Spark's writer opens a file per partition value a task holds, and a held frame's tasks hold rows of
    most clusters: benchmark L's effective configurations (5.75 M rows, 100 clusters) were written as 895 files,
    and as 2,800 from 28 mixed partitions, which took 49-60 s to write and 24 s to scan, against 17-20 s and 7 s by
    cluster (100 files). A small input's frames are held in the driver as local relations, which Spark scans in as
    many slices as cores: they are written by one task (``coalesce(1)``, no shuffle), a file per cluster.
    """
    return df.coalesce(1) if local_rows > 0 else df.repartition("cluster_id")


class Checkpoints:
    """A ``Keep`` that holds each named frame once (``truncated``): asked again for the same name, it returns the
    frame it kept (so two plans over the same inputs, e.g. the effective configurations and the resolution findings
    of one state, share their intermediates). Use one instance per set of inputs.

    Args:
        only: the names to hold (others are returned as planned); None = every name.
        local_rows: as for ``truncated`` (0: local checkpoints only).
    """

    def __init__(self, only: Collection[str] | None = None, *, local_rows: int = 0) -> None:
        """Nothing kept yet."""
        self._only = None if only is None else frozenset(only)
        self._local_rows = local_rows
        self.kept: dict[str, DataFrame] = {}

    def __call__(self, name: str, plan: Plan, /) -> DataFrame:
        """The held frame of ``plan``; the one kept before under ``name``, if any (``plan`` is then not built)."""
        if name in self.kept:
            return self.kept[name]
        if self._only is not None and name not in self._only:
            return planned(plan)
        self.kept[name] = truncated(planned(plan), local_rows=self._local_rows)
        return self.kept[name]
