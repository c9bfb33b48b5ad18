"""The checks of a broker's reconfigurable components, which refuse a dynamic layer as a whole (``layer_validity``).

When a dynamic layer changes the broker's config, ``DynamicBrokerConfig.processReconfiguration`` asks every
registered reconfigurable whose keys changed to validate the new config against the *current* one; one refusal
fails the whole update ("Invalid dynamic configuration"; on the metadata path the broker logs it and keeps its
previous config, every key of the layer included). confluentinc/kafka 3.3–4.4:

* ``DynamicThreadPool`` (``num.io.threads``, ``num.replica.fetchers``, ``num.recovery.threads.per.data.dir``,
  ``background.threads``; 4.4: server/src/main/java/org/apache/kafka/server/DynamicThreadPool.java, before that
  core/.../DynamicBrokerConfig.scala): a changed value must be at least 1, at least half (Java int division) and at
  most double the current value.
* ``LogCleaner.validateReconfiguration`` (``log.cleaner.threads``; 4.4 storage/.../log/LogCleaner.java, 3.x
  core/.../log/LogCleaner.scala): the same bounds around the current thread count.
* ``SocketServer``'s data-plane acceptors (``num.network.threads``; 3.3–4.4 core/.../network/SocketServer.scala,
  ``DataPlaneAcceptor.validateReconfiguration``, "Dynamic thread count update validation failed"): the same bounds
  around the acceptor's current processor count. A listener-prefixed count is not read.
* ``DynamicLogConfig.validateReconfiguration`` (any log config changed; core/.../DynamicBrokerConfig.scala):
  ``log.local.retention.ms`` / ``.bytes`` must not be -1, nor above ``log.retention.ms`` / ``.bytes``, when the
  total retention is bounded and the local one is not -2 — tiered storage on or off.

"Current" is what the broker runs when the layer arrives. kraft-audit judges the state after a restart (the
binary upgrade an MV change needs rolls every broker): the broker starts on server.properties, then applies the
cluster-default layer (current: the static view), then its per-broker layer (current: the cluster-default view if
that was applied, else the static view). Kafka 3.9.1, 4.2.0 and 4.4.0 refuse these layers so (oracle scenarios
``reconfigurable-refuses-layer``, ``log-cleaner-per-broker``, ``local-retention-above-total``,
``network-threads-refuse-layer``) — except, from 4.1, a
layer held in the snapshot the broker restarts from, applied before any reconfigurable exists
(``layer_validity._preloaded``).
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column
from pyspark.sql import functions as F

THREAD_POOL_KEYS: Final = (
    "num.io.threads",
    "num.replica.fetchers",
    "num.recovery.threads.per.data.dir",
    "background.threads",
)
CLEANER_THREADS: Final = "log.cleaner.threads"
NETWORK_THREADS: Final = "num.network.threads"
# (local key, total key) of DynamicLogConfig's retention checks
LOCAL_RETENTION: Final = (
    ("log.local.retention.ms", "log.retention.ms"),
    ("log.local.retention.bytes", "log.retention.bytes"),
)


def reconfigurable_keys() -> set[str]:
    """Every broker key these checks read."""
    return {*THREAD_POOL_KEYS, CLEANER_THREADS, NETWORK_THREADS, *(k for pair in LOCAL_RETENTION for k in pair)}


def _thread_count(key: str, component: str, current: Column, new: Column) -> Column:
    old = F.try_element_at(current, F.lit(key)).try_cast("int")
    value = F.try_element_at(new, F.lit(key)).try_cast("int")
    refused = (value != old) & ((value < 1) | (value < F.floor(old / 2)) | (value > old * 2))
    text = F.concat(
        F.lit(f"reconfigurable-{key} ({component}: {key}="),
        value.cast("string"),
        F.lit(" is outside [half, double] of the current value "),
        old.cast("string"),
        F.lit(")"),
    )
    return F.when(F.coalesce(refused, F.lit(False)), text)


def _local_retention(local_key: str, total_key: str, current: Column, new: Column) -> Column:
    local = F.try_element_at(new, F.lit(local_key)).try_cast("long")
    total = F.try_element_at(new, F.lit(total_key)).try_cast("long")
    # DynamicLogConfig validates when the update changes a log config: here, any key of the pair
    changed = F.lit(False)
    for key in (local_key, total_key):
        changed = changed | ~F.try_element_at(current, F.lit(key)).eqNullSafe(F.try_element_at(new, F.lit(key)))
    bounded = (total > -1) if total_key.endswith("bytes") else (total != -1)
    refused = changed & bounded & (local != -2) & ((local == -1) | (local > total))
    text = F.concat(
        F.lit(f"reconfigurable-{local_key} (DynamicLogConfig: {local_key}="),
        local.cast("string"),
        F.lit(f" must be neither -1 nor more than {total_key}="),
        total.cast("string"),
        F.lit(")"),
    )
    return F.when(F.coalesce(refused, F.lit(False)), text)


def refused_by_reconfigurables(current: Column, new: Column) -> Column:
    """``array<string>``: the ``id (reason)`` of every reconfigurable check refusing the change from the values
    ``current`` to ``new`` (maps of a broker's effective values by key); empty when none refuses."""
    checks = [_thread_count(k, "DynamicThreadPool", current, new) for k in THREAD_POOL_KEYS]
    checks.append(_thread_count(CLEANER_THREADS, "LogCleaner", current, new))
    checks.append(_thread_count(NETWORK_THREADS, "SocketServer", current, new))
    checks += [_local_retention(local, total, current, new) for local, total in LOCAL_RETENTION]
    return F.filter(F.array(*checks), lambda failed: failed.isNotNull())
