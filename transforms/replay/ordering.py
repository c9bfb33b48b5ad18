"""Which bronze records replay applies, and in which order (docs/contract.md §4, docs/kafka-semantics.md §2.1, §2.7).

Per cluster:

1. **As-of bound.** ``as_of_offset`` N keeps log records with offset ≤ N. ``as_of_time`` T stops replay at the
   first log record (in offset order, control records included) whose timestamp is after T: every log record
   before it applies, including records without a timestamp. Both may be given; the tighter bound wins.
2. **Snapshot.** The newest snapshot (``SNAPSHOT`` or ``BOOTSTRAP_SNAPSHOT`` rows; a bootstrap snapshot counts as
   end offset 0 and loses a tie against a real snapshot) whose state is inside the bound: ``end - 1 ≤ N`` and,
   with T, its ``SNAPSHOT_HEADER`` ``lastContainedLogTimestamp`` (else its newest record timestamp, if any) ≤ T.
   Its data records apply first, in file order. Without a qualifying snapshot replay starts at the log's start.
3. **Log.** ``LOG_SEGMENT`` / ``DUMP_LOG_TEXT`` / ``JSON_LINES`` data records with offset ≥ the snapshot's end
   offset and inside the bound, in offset order. Control records never change state and are left out.
4. **Replica copies.** Copies of one position, (cluster, offset) in the log or (cluster, snapshot, offset in the
   file) in the snapshot, are applied once. Copies are identical when record type and payload are equal after
   JSON normalisation (key order, whitespace and number spelling do not matter). When copies differ the position
   is a conflict: the copy with the highest leader epoch is applied (Raft truncates a follower's diverging
   uncommitted tail to the leader's log), ties broken by the lexicographically first ``source_file`` and then
   by the smallest normalised payload, so the choice is deterministic; every conflict becomes a
   ``REPLICA_CONFLICT`` finding (``transforms.replay.findings``).
5. **Metadata transactions.** A data record after a ``BEGIN_TRANSACTION_RECORD`` applies only if the next
   transaction marker after it is an ``END_TRANSACTION_RECORD``; an ``ABORT_TRANSACTION_RECORD`` discards it;
   a transaction still open at the end of the replayed stream (or followed by another BEGIN) is not applied and
   is reported (``UNTERMINATED_TRANSACTION``). Followed in replay order by ``transforms.replay.machine``.

Records with ``is_unknown`` stay in the stream; replay skips payloads it cannot read (their key fields read as
NULL) and reports them (``transforms.replay.findings``). The rules are applied per cluster in one ordered pass,
``transforms.replay.machine``.
"""

from __future__ import annotations

from typing import Final

SNAPSHOT_KINDS: Final = ("SNAPSHOT", "BOOTSTRAP_SNAPSHOT")
LOG_KINDS: Final = ("LOG_SEGMENT", "DUMP_LOG_TEXT", "JSON_LINES")
BEGIN: Final = "BEGIN_TRANSACTION_RECORD"
END: Final = "END_TRANSACTION_RECORD"
ABORT: Final = "ABORT_TRANSACTION_RECORD"
TXN_MARKERS: Final = (BEGIN, END, ABORT)
