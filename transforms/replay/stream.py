"""The replay stream of one cluster: which of its bronze records replay applies, and in what order.

The rules of ``transforms.replay.ordering``, on the cluster's record columns (``machine.PASS_INPUT``): the as-of
bounds and the snapshot replay starts from (``choose_bounds``), the one copy applied at each snapshot or log position
(``replay_stream``) and each entry's metadata transaction state (``transaction_states``). ``transforms.replay.machine``
then applies the stream in order; keeping the choice of records apart from their effect keeps each part small.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from transforms.replay.json_reading import normal_form, parse, read_fields, type_spec
from transforms.replay.ordering import ABORT, BEGIN, END, LOG_KINDS, SNAPSHOT_KINDS, TXN_MARKERS

_SNAPSHOT_EPOCH: Final = re.compile(r"[0-9]{20}-([0-9]{10})\.checkpoint$")
_HEADER_SPEC: Final = type_spec("lastContainedLogTimestamp string")
_LONG_TEXT: Final = re.compile(r"[+-]?[0-9]+")
_LONG_RANGE: Final = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class Bounds:
    """Where one cluster's replay starts and stops (``REPLAY_BOUNDS`` of ``transforms.replay.ordering``)."""

    snapshot_end_offset: int | None
    snapshot_kind: str | None
    snapshot_timestamp_us: int | None
    snapshot_epoch: int | None
    upper_offset: int | None

    @property
    def snapshot_last_offset(self) -> int | None:
        """The log offset the snapshot's records stand at (end - 1); None for a bootstrap snapshot or none."""
        if self.snapshot_kind == "SNAPSHOT" and self.snapshot_end_offset is not None:
            return self.snapshot_end_offset - 1
        return None


@functools.lru_cache(maxsize=4096)
def _snapshot_epoch(source_file: str) -> int:
    match = _SNAPSHOT_EPOCH.search(source_file)
    return int(match.group(1)) if match else -1


def _snapshot_end(kind: str, end: int | None) -> int | None:
    return 0 if kind == "BOOTSTRAP_SNAPSHOT" else end


def _header_timestamp_us(payload: str) -> int | None:
    """``timestamp_millis(get_json_object(payload, '$.lastContainedLogTimestamp').try_cast('long'))`` in µs."""
    text = read_fields(parse(payload), _HEADER_SPEC)["lastContainedLogTimestamp"]
    if text is None or not _LONG_TEXT.fullmatch(text.strip()):
        return None
    millis = int(text.strip())
    return millis * 1000 if _LONG_RANGE[0] <= millis <= _LONG_RANGE[1] else None


def _max(a: Any, b: Any) -> Any:
    return b if a is None else a if b is None else max(a, b)


def choose_bounds(
    columns: Mapping[str, Sequence[Any]], *, as_of_offset: int | None, as_of_time_us: int | None
) -> Bounds:
    """The snapshot replay starts from and the last log offset it applies."""
    groups: dict[tuple[str, int | None, int], list[Any]] = {}  # (kind, end, epoch) -> [header max, record ts max]
    stop: int | None = None
    for kind, source_file, offset, end, ts, record_type, payload in zip(
        columns["input_kind"],
        columns["source_file"],
        columns["offset"],
        columns["snapshot_end_offset"],
        columns["timestamp_us"],
        columns["record_type"],
        columns["payload"],
        strict=True,
    ):
        if kind in SNAPSHOT_KINDS:
            group = groups.setdefault((kind, _snapshot_end(kind, end), _snapshot_epoch(source_file)), [None, None])
            if record_type == "SNAPSHOT_HEADER":
                group[0] = _max(group[0], _header_timestamp_us(payload))
            group[1] = _max(group[1], ts)
        elif as_of_time_us is not None and kind in LOG_KINDS and ts is not None and ts > as_of_time_us:
            stop = offset if stop is None else min(stop, offset)
    upper = as_of_offset
    if as_of_time_us is not None and stop is not None:
        upper = stop - 1 if upper is None else min(upper, stop - 1)
    best: tuple[Any, ...] | None = None
    chosen = Bounds(None, None, None, None, upper)
    for (kind, end, epoch), (header_ts, record_ts) in groups.items():
        snapshot_ts = header_ts if header_ts is not None else record_ts
        if end is None or (upper is not None and end - 1 > upper):
            continue
        if as_of_time_us is not None and snapshot_ts is not None and snapshot_ts > as_of_time_us:
            continue
        # A snapshot's id is (end offset, epoch); a real snapshot wins a tie against a bootstrap one (ordering)
        key = (end, kind == "SNAPSHOT", epoch)
        if best is None or key > best:
            best = key
            chosen = Bounds(end, kind, snapshot_ts, epoch, upper)
    return chosen


class StreamEntry(NamedTuple):
    """One position of the stream: its kept copy and what replay decided (a tuple: a stream holds one per applied
    record, and a tuple is built in a third of a frozen dataclass's time)."""

    from_snapshot: bool
    file_offset: int
    offset: int | None
    timestamp_us: int | None
    record_type: str
    record_version: int | None
    payload: str
    is_unknown: bool
    source_file: str
    copies: int
    conflict_files: tuple[str, ...] | None


def _none_last(value: Any) -> tuple[bool, Any]:
    return (value is None, value if value is not None else 0)


def _kept_copy(copies: list[int], columns: Mapping[str, Sequence[Any]]) -> tuple[int, tuple[str, ...] | None]:
    """The copy (its row) applied at one position, and the sorted files of a conflict (None when the copies agree).

    The highest leader epoch wins, then the first file name, then the smallest normal form; copies equal in all of
    that are one file's repeated lines, and the first by their own columns is taken, so the choice does not depend
    on the input's order."""
    if len(copies) == 1:
        return copies[0], None
    types, payloads, files = columns["record_type"], columns["payload"], columns["source_file"]
    first = copies[0]
    if all(types[i] == types[first] and payloads[i] == payloads[first] for i in copies):
        normals = {i: payloads[i] for i in copies}
    else:
        normals = {i: normal_form(payloads[i]) for i in copies}
    epochs, stamps, versions = columns["leader_epoch"], columns["timestamp_us"], columns["record_version"]
    kept = min(
        copies,
        key=lambda i: (
            epochs[i] is None,
            -(epochs[i] or 0),
            files[i],
            normals[i],
            _none_last(stamps[i]),
            _none_last(versions[i]),
            types[i],
            payloads[i],
        ),
    )
    identities = {(types[i], normals[i]) for i in copies}
    conflict = tuple(sorted({files[i] for i in copies})) if len(identities) > 1 else None
    return kept, conflict


def replay_stream(columns: Mapping[str, Sequence[Any]], bounds: Bounds) -> list[StreamEntry]:
    """The de-duplicated data records inside the bounds, in replay order (snapshot first, then the log)."""
    positions: dict[tuple[bool, int], list[int]] = {}
    kinds = columns["input_kind"]
    files = columns["source_file"]
    offsets = columns["offset"]
    ends = columns["snapshot_end_offset"]
    controls = columns["is_control"]
    snapshot_key = (bounds.snapshot_kind, bounds.snapshot_end_offset, bounds.snapshot_epoch)
    low = bounds.snapshot_end_offset
    high = bounds.upper_offset
    for index, kind in enumerate(kinds):
        if controls[index]:
            continue
        offset = offsets[index]
        if kind in LOG_KINDS:
            if (low is not None and offset < low) or (high is not None and offset > high):
                continue
            key = (False, offset)
        elif kind in SNAPSHOT_KINDS:
            if bounds.snapshot_kind is None:
                continue
            if (kind, _snapshot_end(kind, ends[index]), _snapshot_epoch(files[index])) != snapshot_key:
                continue
            key = (True, offset)
        else:
            continue
        copies = positions.get(key)
        if copies is None:
            positions[key] = [index]
        else:
            copies.append(index)
    snapshot_position = bounds.snapshot_last_offset
    stamps, types, versions, payloads, unknown = (
        columns["timestamp_us"],
        columns["record_type"],
        columns["record_version"],
        columns["payload"],
        columns["is_unknown"],
    )
    stream = []
    for from_snapshot, file_offset in sorted(positions, key=lambda p: (not p[0], p[1])):
        copies = positions[(from_snapshot, file_offset)]
        i, conflict = _kept_copy(copies, columns)
        stream.append(
            StreamEntry(
                from_snapshot,
                file_offset,
                snapshot_position if from_snapshot else file_offset,
                None if from_snapshot else stamps[i],
                types[i],
                versions[i],
                payloads[i],
                bool(unknown[i]),
                files[i],
                len(copies),
                conflict,
            )
        )
    return stream


def transaction_states(stream: Sequence[StreamEntry]) -> list[tuple[str, int | None]]:
    """Per stream entry: its transaction state (NONE, COMMITTED, ABORTED, UNTERMINATED) and the file offset of
    its transaction's BEGIN (None outside a transaction)."""
    # the next marker after each entry, read from the end
    next_marker: list[str | None] = [None] * len(stream)
    following: str | None = None
    for i in range(len(stream) - 1, -1, -1):
        next_marker[i] = following
        if stream[i].record_type in TXN_MARKERS:
            following = stream[i].record_type
    states: list[tuple[str, int | None]] = []
    last_marker: str | None = None
    begin_offset: int | None = None
    for i, entry in enumerate(stream):
        if entry.record_type in TXN_MARKERS:
            last_marker = entry.record_type
            if entry.record_type == BEGIN:
                begin_offset = entry.file_offset
        if last_marker != BEGIN:
            states.append(("NONE", None))
            continue
        closer = next_marker[i]
        state = "COMMITTED" if closer == END else "ABORTED" if closer == ABORT else "UNTERMINATED"
        states.append((state, begin_offset))
    return states
