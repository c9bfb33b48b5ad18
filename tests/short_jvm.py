"""JVM options of the short JVMs the tests start (spark-submit children, a standalone cluster's daemons, the
notebook's kernel): the JIT's first tier only, room for its code, and the parallel collector. Such a JVM runs one
pipeline at most, not long enough to repay C2's compile time; the suite's own session JVMs live for minutes and keep
both tiers (tests/conftest.py).

With the first tier only, the JVM reserves 48 MiB for compiled code (240 MiB with both tiers). One pipeline fills
that about 34 s in ("CodeCache is full. Compiler has been disabled."), and the rest of the run is interpreted. The
e2e spark-submit run in local mode, user + system CPU (s): 51.7 and 55.2 with 48 MiB, 44.7 and 47.0 with 256 MiB
(runs alternating); both tiers with 256 MiB: 70.5 and 72.1.
"""

FAST_JVM = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m -XX:+UseParallelGC"
