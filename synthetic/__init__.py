"""Synthetic KRaft fleets: per cluster, the metadata records its controllers would have written, as log files.

Deterministic: everything follows from ``FleetSpec.seed`` (no clock). Split by phase, each module feeding the next:

* ``spec``: ``FleetSpec``, the one settings model (what to generate, where and how to write it);
* ``plan``: each cluster's fixed facts, drawn from ``(seed, index)`` alone;
* ``pools``, ``records``, ``planted``: what values, record types and layouts a cluster uses, and what it plants;
* ``state`` → ``churn`` → ``history``: ``ClusterSynth``, the records of one cluster in log order, produced lazily;
  ``image`` keeps the state the snapshot holds;
* ``files``: records into ``meta.properties``, ``bootstrap.checkpoint``, ``.log`` segments and the snapshot, encoded
  segment by segment (through ``transforms.decode.binary.encode_fast``), so millions of records never sit in memory;
* ``manifest``, ``fleet``: the fleet on disk, in parallel processes if asked, with its ``manifest.json``.

Dependencies point one way: this package uses ``schemas`` and ``transforms.decode.binary``; ``jobs`` and ``benchmarks``
use it; ``transforms`` never does.
"""

__all__: list[str] = []
