"""The replay state machine in plain Python (no Spark): one cluster's record columns in, its outputs out.

The Spark tests (``test_replay_ordering``, ``test_replay_state``) hold the whole replay to Kafka's rules; these
check the pass's own pieces where a Spark round trip is not needed, each expectation worked out by hand from the
rules in ``transforms.replay.ordering``.
"""

from __future__ import annotations

import json
from typing import Any

from transforms.replay.cluster_pass import PASS_ROWS
from transforms.replay.machine import OUTPUTS, PASS_INPUT, replay_cluster

LOG = "/in/a/__cluster_metadata-0/00000000000000000000.log"
REPLICA = "/in/b/__cluster_metadata-0/00000000000000000000.log"


def _columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """PASS_INPUT columns of log records; each row gives ``offset``, ``record_type`` and ``payload`` (a dict or a
    text) and may override any other column."""
    defaults = {
        "input_kind": "LOG_SEGMENT",
        "source_file": LOG,
        "snapshot_end_offset": None,
        "is_control": False,
        "record_version": 0,
        "is_unknown": False,
        "leader_epoch": 1,
    }
    full = []
    for row in rows:
        payload = row["payload"]
        full.append(
            {
                **defaults,
                "timestamp_us": (1_700_000_000_000 + row["offset"] * 1000) * 1000,
                **row,
                "payload": payload if isinstance(payload, str) else json.dumps(payload),
            }
        )
    return {name: [row[name] for row in full] for name in PASS_INPUT}


def _config(offset: int, name: str, value: str | None, **extra: Any) -> dict[str, Any]:
    payload = {"resourceType": 4, "resourceName": "", "name": name, "value": value}
    return {"offset": offset, "record_type": "CONFIG_RECORD", "payload": payload, **extra}


def _marker(offset: int, record_type: str) -> dict[str, Any]:
    return {"offset": offset, "record_type": record_type, "payload": {}}


def _replay(rows: list[dict[str, Any]], **bounds: Any) -> dict[str, list[tuple[Any, ...]]]:
    return replay_cluster(_columns(rows), as_of_offset=bounds.get("as_of_offset"), as_of_time_us=bounds.get("time"))


def _configs(outputs: dict[str, list[tuple[Any, ...]]]) -> dict[str, str]:
    return {row[2]: row[3] for row in outputs["dynamic_config"]}


def test_every_output_has_the_spark_fields_of_its_rows() -> None:
    assert {name: tuple(PASS_ROWS[name].dataType.fieldNames()) for name in OUTPUTS} == dict(OUTPUTS)


def test_copies_spelled_differently_are_one_record_and_copies_that_differ_are_a_conflict() -> None:
    spelled = '{"name": "a", "resourceName": "", "resourceType": 4.0e0, "value": "1"}'  # 4.0e0 is 4.0, not 4
    outputs = _replay(
        [
            _config(0, "a", "1"),
            {**_config(0, "a", "1"), "source_file": REPLICA, "payload": json.dumps(_config(0, "a", "1")["payload"])},
            _config(1, "b", "x"),
            {**_config(1, "b", "y"), "source_file": REPLICA, "leader_epoch": 2},
            _config(2, "c", "1"),
            {**_config(2, "c", "1"), "source_file": REPLICA, "payload": spelled},
        ]
    )
    # offset 1: the copies differ, the higher leader epoch (the replica's "y") applies; offset 2: 4.0e0 is a double
    # in Spark's normal form, 4 an integer, so those copies differ too, and the first file's (epochs equal) applies
    assert _configs(outputs) == {"a": "1", "b": "y", "c": "1"}
    conflicts = [row for row in outputs["finding"] if row[2] == "REPLICA_CONFLICT"]
    assert [(row[5], row[6]) for row in conflicts] == [(1, True), (2, True)]
    assert conflicts[0][4] == (
        f"2 copies of offset 1 differ (files: {LOG}, {REPLICA}); applied the CONFIG_RECORD from {REPLICA} "
        "(highest leader epoch, then first file name)"
    )
    assert outputs["cluster"][0][6] == 3  # three positions in the stream


def test_a_transaction_applies_on_end_and_not_on_abort_or_without_end() -> None:
    outputs = _replay(
        [
            _marker(0, "BEGIN_TRANSACTION_RECORD"),
            _config(1, "committed", "1"),
            _marker(2, "END_TRANSACTION_RECORD"),
            _marker(3, "BEGIN_TRANSACTION_RECORD"),
            _config(4, "aborted", "1"),
            _marker(5, "ABORT_TRANSACTION_RECORD"),
            _config(6, "outside", "1"),
            _marker(7, "BEGIN_TRANSACTION_RECORD"),
            _config(8, "open", "1"),
            _config(9, "open", "2"),
        ]
    )
    assert _configs(outputs) == {"committed": "1", "outside": "1"}
    assert [(row[2], row[5]) for row in outputs["finding"]] == [("UNTERMINATED_TRANSACTION", 7)]
    assert "its 2 records were not applied" in outputs["finding"][0][4]
    # records applied: 1, 6 (markers never count); the last applied log record is offset 6
    cluster = dict(zip(OUTPUTS["cluster"], outputs["cluster"][0], strict=True))
    assert (cluster["records_applied"], cluster["last_offset"], cluster["stream_records"]) == (2, 6, 10)


def test_as_of_time_stops_at_the_first_later_record_and_as_of_offset_is_inclusive() -> None:
    rows = [_config(0, "a", "0"), _config(1, "a", "1"), _config(2, "a", "2"), _config(3, "a", "3")]
    rows[1]["timestamp_us"] = None  # an untimed record never stops the replay
    stop_at_2 = (1_700_000_000_000 + 1_500) * 1000  # after offset 1's stamp, before offset 2's
    assert _configs(_replay(rows, time=stop_at_2)) == {"a": "1"}
    assert _configs(_replay(rows, as_of_offset=2)) == {"a": "2"}
    assert _configs(_replay(rows, as_of_offset=2, time=stop_at_2)) == {"a": "1"}


def test_a_payload_replay_cannot_read_is_skipped_and_an_undecoded_one_reported() -> None:
    outputs = _replay(
        [
            {"offset": 0, "record_type": "CONFIG_RECORD", "payload": "not json"},
            {"offset": 1, "record_type": "CONFIG_RECORD", "payload": {"resourceType": "4", "name": "a", "value": "1"}},
            {"offset": 2, "record_type": "UNKNOWN_77", "payload": {"_raw": "00ff"}, "is_unknown": True},
            _config(3, "b", "1"),
        ]
    )
    assert _configs(outputs) == {"b": "1"}
    assert [(row[2], row[5]) for row in outputs["finding"]] == [("UNDECODED_RECORD", 2)]
