"""JVM options of the short JVMs the tests start (spark-submit children, a standalone cluster's daemons, the
notebook's kernel): the JIT's first tier only and the parallel collector. Such a JVM runs one pipeline at most, not
long enough to repay C2's compile time; the suite's own session JVMs live for minutes and keep both tiers
(tests/conftest.py)."""

FAST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseParallelGC"
