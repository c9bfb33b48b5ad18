"""One fuzz input per call, per target, checked against the oracles; a campaign runs many and counts failures.

Targets: ``json_lines``, ``dump_log``, ``properties``, ``segment`` (binary) and ``rows`` (``decode_files``' Arrow
conversion of hostile rows, and whole hostile files through ``decode_rows``); issue 58's attack classes:
``resync`` (crafted plausible-header regions in front of or inside a segment), ``bomb`` (compressed batches of
very many records, under default and tight budgets) and ``cr_lines`` (JSON lines and dump-log text whose lines end
with a lone CR). Every input is derived from ``(seed, index)`` alone, so any failure is replayed with
``python -m tests.fuzz --seed S --start I --count 1``. Each input's CPU time is measured: over ``SLOW_SECONDS`` is a
failure (``slow``).
"""

from __future__ import annotations

import random
import re
import struct
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pyspark.sql.pandas.types import to_arrow_schema

from jobs.conf_loader import sensitivity_rules
from schemas.bronze import DECODED_ROWS
from schemas.decoded import DecodedRecord, QuarantineItem
from transforms.decode.binary.budget import DecodeBudget
from transforms.decode.binary.crc_ranges import shift
from transforms.decode.binary.decode import decode_file
from transforms.decode.binary.encode import encode_log_segment
from transforms.decode.files import FileDescriptor, Row, decode_rows, to_batch
from transforms.decode.redaction import SensitivityRules, redact_text, redact_value, safe_config_name
from transforms.decode.text.dumplog import parse_dump_log
from transforms.decode.text.jsonlines import parse_json_lines
from transforms.decode.text.lines import split_lines
from transforms.decode.text.properties import parse_server_properties

from .hostile import STYLES, noop_bomb, plausible_headers
from .markers import leaks
from .mutate import mutate_bytes, mutate_lines
from .rows import fits, random_row
from .seeds import BinarySeed, dump_log_seed, json_lines_seed, properties_seed, segment_seed

KEY = b"fuzz-redaction-key-0123456789abc"
SCHEMA = to_arrow_schema(DECODED_ROWS, timezone="UTC")
FAILURE_KINDS = ("crash", "leak", "lost", "unaccounted", "over_budget", "slow")
SLOW_SECONDS = 1.0  # CPU seconds one input may take
CONFIG_NAME_SHAPE = re.compile(r"[A-Za-z0-9._\-]+|\[redacted\] hmac-sha256:[0-9a-f]{32}")


@cache
def rules() -> SensitivityRules:
    """The production sensitivity rules (the shipped catalog): unknown names are sensitive, as at ingest."""
    return sensitivity_rules()


@dataclass
class Report:
    """What a campaign tried and found."""

    inputs: Counter[str] = field(default_factory=Counter)
    failures: Counter[tuple[str, str]] = field(default_factory=Counter)  # (target, kind) -> inputs
    examples: list[str] = field(default_factory=list)  # the first few failures, replayable
    slowest: dict[str, tuple[float, int]] = field(default_factory=dict)  # target -> (CPU seconds, input index)

    def count(self, kind: str) -> int:
        """Inputs that failed this way, over all targets."""
        return sum(n for (_target, found), n in self.failures.items() if found == kind)

    @property
    def ok(self) -> bool:
        """No failure of any kind."""
        return not self.failures


def _rows(kind: str, content: bytes, budget: DecodeBudget | None = None) -> list[Row]:
    descriptors = {"f": FileDescriptor("f", "/fuzz/f", "fuzz", kind, "sha")}
    rows = list(decode_rows("f", content, descriptors, rules(), KEY, budget))
    batch = to_batch(rows, SCHEMA)
    assert batch.num_rows == len(rows)
    return rows


def _join(lines: list[str], rng: random.Random, newline: str | None = None) -> bytes:
    newline = newline or rng.choice(["\n", "\r\n", "\r"])  # a lone CR ends lines too (issue 58)
    return (newline.join(lines) + rng.choice(["", newline])).encode("utf-8", "surrogatepass")


def _per_line(items: Iterable[DecodedRecord | QuarantineItem]) -> dict[int, list[DecodedRecord | QuarantineItem]]:
    found: dict[int, list[DecodedRecord | QuarantineItem]] = {}
    for item in items:
        found.setdefault(item.line_number or 0, []).append(item)
    return found


def json_lines_input(rng: random.Random, newline: str | None = None) -> list[str]:
    """One mutated JSON-lines export, checked; returns the failure kinds found."""
    seed = json_lines_seed(rng)
    mutate_lines(seed.lines, seed.expected, rng, edits=rng.randint(0, 3))
    content = _join(seed.lines, rng, newline)
    items = list(parse_json_lines(split_lines(content.decode("utf-8", "replace"))))
    by_line = _per_line(items)
    problems: list[str] = []
    lines = split_lines(content.decode("utf-8", "replace"))
    for number, line in enumerate(lines, start=1):
        blank = not line.rstrip("\r\n").lstrip("\ufeff" if number == 1 else "").strip(" \t\r")
        if len(by_line.get(number, [])) != (0 if blank else 1):
            problems.append("unaccounted")
    for index, offset in enumerate(seed.expected):
        if offset is not None and not any(
            isinstance(i, DecodedRecord) and i.offset == offset for i in by_line.get(index + 1, [])
        ):
            problems.append("lost")
    rows = _rows("JSON_LINES", content)
    if len(rows) != len(items):
        problems.append("unaccounted")
    if leaks(rows, seed.markers):
        problems.append("leak")
    return problems


def dump_log_input(rng: random.Random, newline: str | None = None) -> list[str]:
    """One mutated kafka-dump-log text, checked."""
    seed = dump_log_seed(rng)
    mutate_lines(seed.lines, seed.expected, rng, edits=rng.randint(0, 3))
    content = _join(seed.lines, rng, newline)
    items = list(parse_dump_log(split_lines(content.decode("utf-8", "replace"))))
    by_line = _per_line(items)
    problems: list[str] = []
    if any(len(found) > 1 for found in by_line.values()):
        problems.append("unaccounted")
    for index, offset in enumerate(seed.expected):
        found = by_line.get(index + 1, [])
        kept = any(isinstance(i, DecodedRecord) and i.offset == offset for i in found)
        # A mutated batch line before it may legitimately say isvalid: false (Kafka truncates at such a batch).
        invalidated = any(isinstance(i, QuarantineItem) and i.extra.get("code") == "DUMP_INVALID_BATCH" for i in found)
        if offset is not None and not (kept or invalidated):
            problems.append("lost")
    rows = _rows("DUMP_LOG_TEXT", content)
    if len(rows) != len(items):
        problems.append("unaccounted")
    if leaks(rows, seed.markers):
        problems.append("leak")
    return problems


def properties_input(rng: random.Random) -> list[str]:
    """One mutated server.properties, checked (rows as the ingest job builds them: redacted values, excerpts)."""
    seed = properties_seed(rng)
    mutate_lines(seed.lines, seed.expected, rng, edits=rng.randint(0, 3))
    text = _join(seed.lines, rng).decode("utf-8")
    properties, quarantined = parse_server_properties(text)
    problems: list[str] = []
    for index, expected in enumerate(seed.expected):
        if expected is None or (index and seed.lines[index - 1].endswith("\\")):
            continue  # Properties.load joins a line to one that ends in a backslash
        if any(expected[0] in line for i, line in enumerate(seed.lines) if i != index):
            continue  # another (mutated) line may define the same key later
        if properties.get(expected[0]) != expected[1]:
            problems.append("lost")
    natural_lines = text.count("\n") + text.count("\r") + 1
    if any(not 1 <= (q.line_number or 0) <= natural_lines for q in quarantined):
        problems.append("unaccounted")
    # As the ingest job builds static_configs rows: values redacted, a name shown only when shaped like a config
    # name. A mutation that deletes a separator glues the value to its key: the parser then sees a name, and a
    # name shaped like a config name is shown by design, so a marker inside such a name is not counted.
    shown_names = [safe_config_name(name, KEY) for name in properties]
    rows: list[tuple[Any, ...]] = [redact_value(name, v, "broker", rules(), KEY) for name, v in properties.items()]
    rows += [(q.reason, redact_text(q.excerpt, rules())) for q in quarantined]
    if leaks(rows, seed.markers) or not all(CONFIG_NAME_SHAPE.fullmatch(name) for name in shown_names):
        problems.append("leak")
    return problems


def _surviving(seed: BinarySeed, touched: Sequence[tuple[int, int]]) -> list[Any]:
    """Records of the batches no mutation touched (they must all be decoded, in order): a touched range overlaps
    the batch, or an insertion point falls strictly inside it."""
    records: list[Any] = []
    for position, size, batch_records in seed.batches:
        end = position + size
        if not any(
            start < end and position < stop if stop > start else position < start < end for start, stop in touched
        ):
            records += batch_records
    return records


def _tiles(data: bytes, items: list[DecodedRecord | QuarantineItem]) -> bool:
    """Decoded batches and batch-level quarantined regions cover every byte exactly once."""
    regions: set[tuple[int, int]] = set()
    for item in items:
        if isinstance(item, DecodedRecord) or item.extra.get("region") == "record":
            assert item.position is not None
            regions.add((item.position, struct.unpack_from(">i", data, item.position + 8)[0] + 12))
        elif item.extra.get("region") == "batch":
            regions.add((item.position or 0, item.length or 0))
    cursor = 0
    for position, length in sorted(regions):
        if position != cursor or length <= 0:
            return False
        cursor += length
    return cursor == len(data)


def segment_input(rng: random.Random) -> list[str]:
    """One mutated log segment (sometimes cut right at a planted value), checked."""
    seed = segment_seed(rng)
    marker_at = next((seed.data.find(m.encode()) for m in seed.markers if m.encode() in seed.data), -1)
    if marker_at > 0 and rng.random() < 0.15:
        data, touched = seed.data[marker_at:], [(0, marker_at)]  # a head cut right at the secret
    else:
        data, touched = mutate_bytes(seed.data, rng)
    items = list(decode_file(data, kind="LOG_SEGMENT"))
    problems: list[str] = []
    if not _tiles(data, items):
        problems.append("unaccounted")
    decoded = [(i.offset, i.record_type, i.data) for i in items if isinstance(i, DecodedRecord)]
    expected = _surviving(seed, touched)
    iterator = iter(decoded)
    if not all(record in iterator for record in expected):  # a subsequence, in order
        problems.append("lost")
    rows = _rows(rng.choice(["LOG_SEGMENT", "SNAPSHOT"]), data)
    if leaks(rows, seed.markers):
        problems.append("leak")
    return problems


def cr_lines_input(rng: random.Random) -> list[str]:
    """A JSON-lines export or a dump-log text whose lines all end with a lone CR (issue 58), checked as above."""
    return rng.choice([json_lines_input, dump_log_input])(rng, "\r")


def resync_input(rng: random.Random) -> list[str]:
    """A segment with a crafted region of plausible batch headers in front of it, between two of its batches or
    inside one; every batch the region does not touch must be decoded, in order."""
    seed = segment_seed(rng)
    where = rng.choice(["prefix", "boundary", "inside"])
    if where == "prefix":
        at = 0
    elif where == "boundary":
        at = rng.choice([position for position, _size, _records in seed.batches])
    else:
        at = rng.randrange(len(seed.data))
    size = rng.choice([64, 256, 1024, 4096, 8192])
    style = rng.choice(STYLES)
    garbage = plausible_headers(size, at=at, file_size=len(seed.data) + size, style=style, rng=rng)
    data = seed.data[:at] + garbage + seed.data[at:]
    items = list(decode_file(data, kind="LOG_SEGMENT"))
    problems: list[str] = []
    if not _tiles(data, items):
        problems.append("unaccounted")
    decoded = [(i.offset, i.record_type, i.data) for i in items if isinstance(i, DecodedRecord)]
    iterator = iter(decoded)
    if not all(record in iterator for record in _surviving(seed, [(at, at)])):
        problems.append("lost")
    if any(isinstance(i, QuarantineItem) and not i.reason for i in items):
        problems.append("unaccounted")
    if leaks(_rows(rng.choice(["LOG_SEGMENT", "SNAPSHOT"]), data), seed.markers):
        problems.append("leak")
    return problems


_BOMB_COUNTS = (150_000, 600_000, 1_400_000)  # rows: a 1.4 million one is under the 16 MiB per-batch cap
_ROW_ALLOWANCE = 1000  # the documented cap: a row per input byte plus 1,000 (transforms/decode/binary/budget.py)


def bomb_input(rng: random.Random) -> list[str]:
    """Good batches (uncompressed, and small compressed ones) mixed with compressed batches of up to 1.4 million
    records, decoded under the default budget or a tight one; the rows stay within the budget and every good
    record is decoded or lies in a region quarantined for a budget."""
    parts: list[tuple[bytes, list[int], bool]] = []  # (batch bytes, offsets it holds if good, compressed)
    offset = rng.randrange(1 << 20)
    other_codec = False  # a gzip or lz4 bomb is kilobytes (zstd: hundreds of bytes): at most one, of 100,000 rows
    for _ in range(rng.randint(2, 6)):
        roll = rng.random()
        if roll < 0.4:
            codec = 4 if other_codec else rng.choice([1, 3, 4, 4])
            other_codec = other_codec or codec != 4
            batch = noop_bomb(rng.choice(_BOMB_COUNTS) if codec == 4 else 100_000, codec)
            parts.append((batch, [], True))
        elif roll < 0.5:
            parts.append((noop_bomb(rng.choice([1, 20, 300]), 4), [], True))  # small and legitimate
        else:
            count = rng.randint(1, 3)
            batch = encode_log_segment([(20, 0, {})] * count, base_offset=offset, records_per_batch=count)
            parts.append((batch, list(range(offset, offset + count)), False))
            offset += count
    data = b"".join(batch for batch, _offsets, _compressed in parts)
    which, value = rng.randrange(3), rng.randint(0, 400)

    def fresh() -> DecodeBudget | None:  # decoding spends a budget: each decode gets its own
        return [None, DecodeBudget(records=value), DecodeBudget(decompressed_bytes=value * 500)][which]

    limit = value if which == 1 else None
    items = list(decode_file(data, kind="LOG_SEGMENT", budget=fresh()))
    problems: list[str] = []
    if not _tiles(data, items):
        problems.append("unaccounted")
    rows = sum(1 for i in items if isinstance(i, DecodedRecord) or i.extra.get("region") == "record")
    if rows > len(data) + _ROW_ALLOWANCE or (limit is not None and rows > limit):
        problems.append("over_budget")
    budget_regions = [
        (i.position or 0, (i.position or 0) + (i.length or 0), i.extra["budget"])
        for i in items
        if isinstance(i, QuarantineItem) and "budget" in i.extra
    ]
    if any(i.offset is None for i in items if isinstance(i, QuarantineItem) and "budget" in i.extra):
        problems.append("unaccounted")  # a budget region without the offset where it starts
    decoded = {i.offset for i in items if isinstance(i, DecodedRecord)}
    position = 0
    for batch, offsets, compressed in parts:
        inside = [kind for start, stop, kind in budget_regions if start <= position and position + len(batch) <= stop]
        allowed = {"records", "decompressed"} if compressed else {"records"}
        if offsets and not set(offsets) <= decoded and not set(inside) & allowed:
            problems.append("lost")
        position += len(batch)
    _rows("LOG_SEGMENT", data, fresh())  # the whole per-file path: must not raise
    return problems


def rows_input(rng: random.Random) -> list[str]:
    """Hostile rows through the Arrow conversion, and a hostile file of a random kind through ``decode_rows``."""
    rows = [random_row(rng) for _ in range(rng.randint(1, 12))]
    batch = to_batch(rows, SCHEMA)
    problems: list[str] = []
    if batch.num_rows != len(rows):
        problems.append("lost")
    as_ints = batch.set_column(12, "timestamp", batch.column(12).cast("int64")).to_pylist()
    for row, out in zip(rows, as_ints, strict=True):
        if fits(row) and tuple(out.values()) != row:
            problems.append("lost")
        elif not fits(row) and row[0] == "RECORD" and out["row_kind"] != "QUARANTINE":
            problems.append("unaccounted")
    kind = rng.choice(["JSON_LINES", "DUMP_LOG_TEXT", "LOG_SEGMENT", "SNAPSHOT", "BOOTSTRAP_SNAPSHOT"])
    _rows(kind, rng.randbytes(rng.randint(0, 400)))
    return problems


TARGETS: dict[str, Callable[[random.Random], list[str]]] = {
    "json_lines": json_lines_input,
    "dump_log": dump_log_input,
    "properties": properties_input,
    "segment": segment_input,
    "rows": rows_input,
    "resync": resync_input,
    "bomb": bomb_input,
    "cr_lines": cr_lines_input,
}


def _warm_up() -> None:
    """Build what the harness caches (the shipped rules, the bomb batches, the CRC shift tables) before inputs are
    timed: an input's time is the decoders' work on it."""
    rules()
    for count in _BOMB_COUNTS:
        noop_bomb(count, 4)
    for codec in (1, 3):
        noop_bomb(100_000, codec)
    for count in (1, 20, 300):
        noop_bomb(count, 4)
    shift(1, 1)
    for kind in ("JSON_LINES", "DUMP_LOG_TEXT", "LOG_SEGMENT"):
        _rows(kind, b"")  # the decoders' lazy imports


def run_campaign(
    count: int, seed: int, *, start: int = 0, targets: Sequence[str] = tuple(TARGETS), examples: int = 10
) -> Report:
    """Run inputs ``start .. start + count - 1`` of every target; input ``i`` of target ``t`` uses its own RNG.

    Args:
        count: Inputs per target.
        seed: The campaign seed.
        start: The first input index (to replay one input: its index and ``count=1``).
        targets: Which targets (all by default).
        examples: How many failures to describe in the report.

    Returns:
        Inputs tried and failures found, per target and kind.
    """
    report = Report()
    _warm_up()
    for target in targets:
        check = TARGETS[target]
        for index in range(start, start + count):
            rng = random.Random(f"{seed}:{target}:{index}")
            report.inputs[target] += 1
            started = time.process_time()
            try:
                found = sorted(set(check(rng)))
            except Exception as error:  # the oracle under test: nothing may escape
                found = ["crash"]
                detail = f"{type(error).__name__}: {str(error)[:200]}"
            else:
                detail = ""
            spent = time.process_time() - started
            if spent > report.slowest.get(target, (0.0, 0))[0]:
                report.slowest[target] = (spent, index)
            if spent > SLOW_SECONDS:
                found.append("slow")
                detail = f"{detail} {spent:.2f} s".strip()
            for kind in found:
                report.failures[(target, kind)] += 1
            if found and len(report.examples) < examples:
                report.examples.append(f"{target} --seed {seed} --start {index}: {', '.join(found)} {detail}".strip())
    return report
