"""Mutations of seed inputs: small edits that keep line structure (so every other line's expectation holds) and
hostile tokens from issue #16 (huge numbers, lone surrogates, line separators, deep nesting, regex traps)."""

from __future__ import annotations

import random
from collections.abc import Callable

# Text that has broken a decoder before, or could: each is inserted whole at a random place.
HOSTILE_TOKENS = (
    "\\ud800",
    "\\udfff",
    '"\\ud83d\\ude00"',
    "\u2028",
    "\u2029",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x00",
    "\ufeff",
    "9223372036854775808",
    "-9223372036854775809",
    "4294967296",
    "99999999999",
    "1" * 30,
    "10000000000000000",
    "1e400",
    "NaN",
    "-Infinity",
    "[" * 40,
    "{" * 40,
    '"',
    "\\",
    "\\u",
    ":",
    "=",
    ",",
    "}",
    "]",
    " payload: ",
    "| offset: 1 ",
    "baseOffset: ",
    "kafka-dump-log ",
    " --files ",
    "isvalid: false",
    "Error at 5, skipping. ",
    "null",
    "true",
)
# Whole lines that replace a line (its expectation becomes "no record").
HOSTILE_LINES = (
    "[" * 1500 + "]" * 1500,
    '{"offset": 1, "type": "NO_OP_RECORD", "data": ' + "[" * 1500 + "]" * 1500 + "}",
    "kafka-dump-log " * 2000,
    "baseOffset: 0 " + "a" * 20000,
    "| offset: 99999999999999999999 CreateTime: 0 keySize: -1 valueSize: 1 sequence: -1 headerKeys: [] payload: {}",
    "Snapshot end offset: 99999999999999999999, epoch: 1",
    "Found 99999999999999999999 invalid bytes at the end of x.log",
    "baseOffset: 0 lastOffset: 0 partitionLeaderEpoch: 4294967296 position: 0 CreateTime: 0 size: 1",
    "\\u",
    "a=\\",
    "",
    " ",
)


def _insert(line: str, rng: random.Random) -> str:
    at = rng.randint(0, len(line))
    return line[:at] + rng.choice(HOSTILE_TOKENS) + line[at:]


def _delete(line: str, rng: random.Random) -> str:
    at = rng.randint(0, len(line))
    return line[:at] + line[at + rng.randint(1, 8) :]


def _flip(line: str, rng: random.Random) -> str:
    if not line:
        return line
    at = rng.randrange(len(line))
    return (
        line[:at]
        + chr(rng.choice([ord(line[at]) ^ (1 << rng.randrange(7)), rng.randrange(0x20, 0x7F)]))
        + line[at + 1 :]
    )


def _truncate(line: str, rng: random.Random) -> str:
    return line[: rng.randint(0, len(line))]


def _digits(line: str, rng: random.Random) -> str:
    positions = [i for i, ch in enumerate(line) if ch.isdigit()]
    if not positions:
        return line
    at = rng.choice(positions)
    return line[:at] + rng.choice(["9223372036854775808", "4294967296", "99999999999", "1" * 25]) + line[at + 1 :]


TEXT_EDITS: tuple[Callable[[str, random.Random], str], ...] = (_insert, _insert, _delete, _flip, _truncate, _digits)


def mutate_lines(lines: list[str], expected: list[object], rng: random.Random, *, edits: int) -> None:
    """Edit ``edits`` random lines in place; an edited line's expectation becomes None (no record promised).

    Edits never insert a line end (``\\n`` or ``\\r``), so every other line keeps its number and its expectation.
    """
    for _ in range(edits):
        if not lines:
            return
        index = rng.randrange(len(lines))
        if rng.random() < 0.1:
            lines[index] = rng.choice(HOSTILE_LINES)
        else:
            lines[index] = rng.choice(TEXT_EDITS)(lines[index], rng).replace("\n", "").replace("\r", "")
        expected[index] = None


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, list[tuple[int, int]]]:
    """One binary mutation: ``(new data, touched ranges of the old data)`` (an empty range: an insertion point).

    Kinds: flip bits, overwrite a run, insert garbage, cut the head, cut the tail.
    """
    kind = rng.choice(["flip", "flip", "overwrite", "insert", "head", "tail"])
    size = len(data)
    if kind == "flip":
        out = bytearray(data)
        touched = []
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(size)
            out[at] ^= 1 << rng.randrange(8)
            touched.append((at, at + 1))
        return bytes(out), touched
    if kind == "overwrite":
        at, run = rng.randrange(size), rng.randint(1, 64)
        garbage = rng.randbytes(run)
        out = data[:at] + garbage + data[at + run :]
        return out[:size], [(at, min(size, at + run))]
    if kind == "insert":
        at, garbage = rng.randint(0, size), rng.randbytes(rng.randint(1, 200))
        return data[:at] + garbage + data[at:], [(at, at)]
    if kind == "head":
        cut = rng.randint(1, size)
        return data[cut:], [(0, cut)]
    cut = rng.randint(0, size - 1)
    return data[:cut], [(cut, size)]
