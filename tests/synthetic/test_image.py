"""The snapshot holds the state of the log before its end offset."""

from __future__ import annotations

from tests.synthetic.fleets import fleet
from tests.synthetic.independent_replay import final_state, nonempty, replay


def test_snapshot_holds_the_state_of_the_log_before_its_end_offset() -> None:
    with_snapshot = fleet(segment_records=1000)
    without = fleet(segment_records=1000, snapshot=False)
    for snapped, full in zip(with_snapshot, without, strict=True):
        assert full.snapshot() is None
        snapshot = snapped.snapshot()
        assert snapshot is not None
        end_offset, _, snapshot_records = snapshot
        log = [r for _, records in full.segments() for r in records]
        from_snapshot = replay(snapshot_records)
        from_log = replay(log, below=end_offset)
        assert nonempty(from_snapshot.configs) == nonempty(from_log.configs)
        assert from_snapshot.topics == from_log.topics
        assert from_snapshot.brokers == from_log.brokers
        assert from_snapshot.features == from_log.features
        assert {k: (p["leader"], p["isr"]) for k, p in from_snapshot.partitions.items()} == {
            k: (p["leader"], p["isr"]) for k, p in from_log.partitions.items()
        }
        # and the snapshot + the log after it reach the same end state as the whole log
        assert nonempty(final_state(snapped).configs) == nonempty(replay(log).configs)
        assert final_state(snapped).topics == replay(log).topics
