"""Which kind of KRaft input a file is, from its name and the first bytes of its content.

Names follow Kafka's own conventions (``raft/.../snapshot/Snapshots.java``, ``UnifiedLog`` suffixes,
``BootstrapDirectory``): ``NNNNNNNNNNNNNNNNNNNN.log`` segments, ``OOOOOOOOOOOOOOOOOOOO-EEEEEEEEEE.checkpoint``
snapshots (20-digit exclusive end offset, 10-digit epoch) and ``bootstrap.checkpoint``. Everything else in a
``__cluster_metadata-0`` directory (indexes, ``quorum-state``, temporary or deleted snapshots, properties) is
known and ignored. Text exports are recognised by content so that any file name works.
"""

from __future__ import annotations

import posixpath
import re
from typing import Final

from schemas.decoded import InputKind
from transforms.decode.text.lines import split_lines
from transforms.kit.bounds import INT32_MAX, INT64_MAX

_LOG_SEGMENT_NAME: Final = re.compile(r"(\d{20})\.log")
_SNAPSHOT_NAME: Final = re.compile(r"(\d{20})-(\d{10})\.checkpoint")
_BOOTSTRAP_NAME: Final = "bootstrap.checkpoint"

# Files Kafka keeps beside the metadata log that hold nothing to decode.
_IGNORED_NAMES: Final = frozenset(
    {
        "quorum-state",
        "leader-epoch-checkpoint",
        "partition.metadata",
        "meta.properties",
        "cleaner-offset-checkpoint",
        "manifest.json",  # the fleet description `kraft-audit synth` writes next to its clusters
    }
)
_IGNORED_SUFFIXES: Final = (
    ".index",
    ".timeindex",
    ".txnindex",
    ".snapshot",  # producer-state snapshots of data partitions
    ".checkpoint.part",  # snapshot being written
    ".checkpoint.deleted",  # snapshot scheduled for deletion
    ".deleted",
    ".cleaned",
    ".swap",
    ".properties",  # server.properties comes through --static-config, never through --input
)
_JSON_SUFFIXES: Final = (".jsonl", ".json")

# kafka-dump-log line starts that identify its output; see dumplog.py for the full grammar.
_DUMP_MARKERS: Final = re.compile(
    r"(Dumping \S|Log starting offset: \d|Starting offset: \d|Snapshot end offset: \d"
    r"|KRaft bootstrap snapshot|baseOffset: \d|\| ?offset: \d|\s*\| ?payload: | payload: )"
)
_HEAD_LINES_SCANNED: Final = 20


def _basename(path: str) -> str:
    return posixpath.basename(path.replace("\\", "/").rstrip("/"))


def is_ignored_file(path: str) -> bool:
    """Tell whether a file is one Kafka keeps beside the metadata log but that holds nothing to decode.

    Args:
        path: A local path or URI; only its last component is looked at.

    Returns:
        True for index files, ``quorum-state``, ``leader-epoch-checkpoint``, ``partition.metadata``,
        ``meta.properties``, temporary (``.checkpoint.part``) or deleted snapshots and ``*.properties``.
        A caller can report files for which ``detect_input_kind`` returns None and this returns False
        as unrecognised.
    """
    name = _basename(path)
    return name in _IGNORED_NAMES or name.endswith(_IGNORED_SUFFIXES)


def detect_input_kind(path: str, head: bytes) -> InputKind | None:
    """Classify an input file by its name, then by the start of its content.

    Names win over content: a file named like a segment or snapshot is binary whatever it holds, and the
    known side files are ignored even if their content looks like text input.

    Args:
        path: A local path or URI; only its last component is looked at.
        head: The first bytes of the file (a few KiB are plenty; may be empty).

    Returns:
        ``LOG_SEGMENT``, ``SNAPSHOT``, ``BOOTSTRAP_SNAPSHOT``, ``JSON_LINES`` or ``DUMP_LOG_TEXT``; None for
        a file to ignore (see ``is_ignored_file``) or whose content is not recognised.
    """
    name = _basename(path)
    if _LOG_SEGMENT_NAME.fullmatch(name):
        return "LOG_SEGMENT"
    if _SNAPSHOT_NAME.fullmatch(name):
        return "SNAPSHOT"
    if name == _BOOTSTRAP_NAME:
        return "BOOTSTRAP_SNAPSHOT"
    if is_ignored_file(name):
        return None
    if name.endswith(_JSON_SUFFIXES):
        return "JSON_LINES"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    if text.lstrip().startswith("{"):
        return "JSON_LINES"
    # Look past a few leading lines: exports often start with the command line that produced them.
    for line in split_lines(text)[:_HEAD_LINES_SCANNED]:
        if _DUMP_MARKERS.match(line):
            return "DUMP_LOG_TEXT"
    return None


def base_offset_from_name(path: str) -> int | None:
    """The base offset a log segment's name announces.

    Args:
        path: A local path or URI.

    Returns:
        The 20-digit number of ``NNNNNNNNNNNNNNNNNNNN.log``, or None for any other name and for a number above
        2^63-1 (no Kafka offset; no bronze column holds it).
    """
    match = _LOG_SEGMENT_NAME.fullmatch(_basename(path))
    return _at_most(int(match.group(1)), INT64_MAX) if match else None


def snapshot_end_offset_from_name(path: str) -> int | None:
    """The exclusive end offset a snapshot's name announces (the snapshot holds offsets up to end - 1).

    Args:
        path: A local path or URI.

    Returns:
        The 20-digit offset of ``OOOOOOOOOOOOOOOOOOOO-EEEEEEEEEE.checkpoint``, or None for any other name
        (including ``bootstrap.checkpoint`` and ``.checkpoint.part`` files) and for an offset above 2^63-1.
    """
    match = _SNAPSHOT_NAME.fullmatch(_basename(path))
    return _at_most(int(match.group(1)), INT64_MAX) if match else None


def snapshot_epoch_from_name(path: str) -> int | None:
    """The leader epoch a snapshot's name announces.

    Args:
        path: A local path or URI.

    Returns:
        The 10-digit epoch of ``OOOOOOOOOOOOOOOOOOOO-EEEEEEEEEE.checkpoint``, or None for any other name and
        for an epoch above 2^31-1.
    """
    match = _SNAPSHOT_NAME.fullmatch(_basename(path))
    return _at_most(int(match.group(2)), INT32_MAX) if match else None


def _at_most(value: int, highest: int) -> int | None:
    return value if value <= highest else None
