"""Quarantine excerpts that show the shape of a bad line and nothing of its values.

A line lands in quarantine because it could not be read, so nothing says which of its parts are values, and any
value may be a secret: a sensitive name can sit hundreds of characters after its value, or not be there at all
(``my.unknown.setting=...``). An excerpt therefore keeps only what is known to be safe:

* punctuation and blanks (the line's structure);
* known names: the words of kafka-dump-log's line grammar and of the JSON-lines contract, every record type and
  record schema field name, and the config names of the catalog;
* ``true``, ``false``, ``null`` and ``none``;
* an integer right after a name that only ever holds integers (``baseOffset: 12``, ``"leaderEpoch": 3``).

Every other token becomes ``…`` (``"…"`` when quoted). The scan covers a bounded prefix, so it is linear.
"""

from __future__ import annotations

import re
from typing import Final

from schemas.record_types import CLIENT_CONFIG_RECORD, CONTROL_RECORD_IDS, METADATA_RECORD_API_KEYS
from transforms.decode.record_shapes import INTEGER_FIELD_NAMES, SCHEMA_FIELD_NAMES

MASK: Final = "…"
# The words of kafka-dump-log lines (transforms.decode.text.dumplog) and the JSON-lines keys
# (transforms.decode.text.jsonlines).
GRAMMAR_WORDS: Final = frozenset(
    [
        "Dumping",
        "Log",
        "starting",
        "Starting",
        "offset",
        "Snapshot",
        "end",
        "epoch",
        "KRaft",
        "bootstrap",
        "snapshot",
        "baseOffset",
        "lastOffset",
        "count",
        "baseSequence",
        "lastSequence",
        "producerId",
        "producerEpoch",
        "partitionLeaderEpoch",
        "isTransactional",
        "isControl",
        "deleteHorizonMs",
        "position",
        "CreateTime",
        "LogAppendTime",
        "NoTimestampType",
        "size",
        "magic",
        "compresscodec",
        "crc",
        "isvalid",
        "keySize",
        "valueSize",
        "sequence",
        "headerKeys",
        "payload",
        "key",
        "isValid",
        "controlType",
        "endTxnMarker",
        "coordinatorEpoch",
        "LeaderChange",
        "SnapshotHeader",
        "SnapshotFooter",
        "KRaftVersion",
        "KRaftVoters",
        "Error",
        "at",
        "skipping",
        "Found",
        "invalid",
        "bytes",
        "the",
        "of",
        "type",
        "version",
        "data",
        "timestamp",
        "batchBaseOffset",
        "leaderEpoch",
        "gzip",
        "snappy",
        "lz4",
        "zstd",
    ]
)
_GRAMMAR_INTEGERS: Final = frozenset(
    [
        "offset",
        "epoch",
        "baseOffset",
        "lastOffset",
        "count",
        "baseSequence",
        "lastSequence",
        "producerId",
        "producerEpoch",
        "partitionLeaderEpoch",
        "deleteHorizonMs",
        "position",
        "CreateTime",
        "LogAppendTime",
        "size",
        "magic",
        "crc",
        "keySize",
        "valueSize",
        "sequence",
        "coordinatorEpoch",
        "version",
        "timestamp",
        "batchBaseOffset",
        "leaderEpoch",
        "at",
    ]
)
LITERALS: Final = frozenset({"true", "false", "null", "none"})
RECORD_TYPE_NAMES: Final = frozenset({*METADATA_RECORD_API_KEYS, *CONTROL_RECORD_IDS, CLIENT_CONFIG_RECORD})
BASE_NAMES: Final = GRAMMAR_WORDS | SCHEMA_FIELD_NAMES | RECORD_TYPE_NAMES
INTEGER_NAMES: Final = _GRAMMAR_INTEGERS | INTEGER_FIELD_NAMES

# A quoted string (possibly cut off), a bare word, a run of blanks, or one punctuation character.
_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"?|[^\s"{}\[\](),:=|]+|\s+|.', re.DOTALL)
_INTEGER: Final = re.compile(r"-?\d{1,20}")
_STRUCTURE: Final = frozenset('{}[](),:=|"')


def mask_excerpt(text: str, names: frozenset[str], limit: int) -> str:
    """The shape of ``text`` with every token not known to be safe replaced by ``…``.

    Args:
        text: A quarantined line (or the start of an unrecognised file).
        names: Extra names that are safe to show (config names of the catalog); ``BASE_NAMES`` always are.
        limit: The most characters returned.

    Returns:
        At most ``limit`` printable characters.
    """
    out: list[str] = []
    produced = 0
    integers_follow = False  # the last name holds integers: a number after it is structure
    for match in _TOKEN.finditer(text, 0, limit * 4):
        token = match.group()
        first = token[0]
        if first.isspace() or (len(token) == 1 and token in _STRUCTURE):
            piece = token
        else:
            quoted = first == '"'
            inner = token[1:-1] if quoted and len(token) > 1 and token.endswith('"') else token
            if inner in BASE_NAMES or inner in names:
                piece, integers_follow = token, inner in INTEGER_NAMES
            elif inner in LITERALS or (integers_follow and _INTEGER.fullmatch(inner)):
                piece = token
            else:
                piece, integers_follow = ('"…"' if quoted else MASK), False
        out.append(piece)
        produced += len(piece)
        if produced >= limit:
            break
    shown = "".join(out)[:limit]
    return "".join(ch if ch.isprintable() else "." for ch in shown)
