"""Parse JSON-lines metadata exports (docs/contract.md §3) into decoded records.

One JSON object per line::

    {"offset": 42, "timestamp": 1732150000000, "type": "CONFIG_RECORD", "version": 0,
     "data": {"resourceType": 4, "resourceName": "", "name": "log.segment.bytes", "value": "4194304"}}

Rules (decided here, tested in ``tests/transforms/decode/text``):

* ``offset`` is required: an integer in 0..2^63-1. ``timestamp`` (ms up to the year 9999; a negative one, Kafka's
  "no timestamp", becomes None), ``version`` (0..32767), ``batchBaseOffset`` (0..2^63-1), ``leaderEpoch``
  (a 32-bit integer) and ``isControl`` (boolean) are optional; ``null`` means absent. These ranges are the
  bronze columns' (``transforms.kit.bounds``): a value outside them quarantines the line, never the file.
  ``type`` (string) and ``data`` (object) are required. Other top-level keys are ignored.
* ``type`` is a metadata record type of ``schemas.record_types``, ``CLIENT_CONFIG_RECORD`` (the seed KIP's
  client configs, no apiKey) or a Raft control type (``LEADER_CHANGE``, ``SNAPSHOT_HEADER``, ...; also
  accepted in kafka-dump-log's spelling, e.g. ``SnapshotHeader``), which makes the record a control record.
  ``isControl`` must agree with the type when given.
* An unknown ``type`` is **kept** as a record with ``is_unknown=True`` and ``api_key=None`` (never dropped,
  never replayed): an export from a newer Kafka may carry record types this build does not know.
* ``data`` is checked lightly for what replay needs (e.g. a ``CONFIG_RECORD`` needs ``resourceType``,
  ``resourceName``, ``name`` and ``value``, the latter a string or null); other fields pass through untouched.
* A line is JSON nested at most ``safejson.MAX_DEPTH`` levels whose strings all have a UTF-8 form (no lone
  ``\\ud800`` surrogate escape).
* Blank lines are skipped. Anything else that fails a rule becomes a ``QuarantineItem`` with the line number,
  a reason, a machine-readable ``extra["code"]`` and a short excerpt. A reason never quotes a value of the
  line (it may hold a secret); the excerpt is raw here and redacted by the ingest transform.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Final

from schemas.decoded import DecodedRecord, QuarantineItem
from schemas.record_types import CLIENT_CONFIG_RECORD, CONTROL_RECORD_IDS, METADATA_RECORD_API_KEYS
from transforms.decode.text.safejson import load_json
from transforms.kit.bounds import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, VERSION_MAX

EXCERPT_CHARS: Final = 120
_JSON_BLANKS: Final = " \t\r"  # JSON's whitespace within a line; U+2028, U+0085, ... are not blank
_LOAD_CODES: Final = {"invalid": "JSON_INVALID", "too_deep": "JSON_TOO_DEEP", "lone_surrogate": "JSON_BAD_TEXT"}
# Optional top-level integers: name -> (lowest, highest) value the bronze column takes.
_OPTIONAL_INTS: Final = (
    ("timestamp", INT64_MIN, INT64_MAX),  # negative: no timestamp; above TIMESTAMP_MS_MAX: checked below
    ("version", 0, VERSION_MAX),
    ("batchBaseOffset", 0, INT64_MAX),
    ("leaderEpoch", INT32_MIN, INT32_MAX),
)

# kafka-dump-log prints control records under these labels; accept them as aliases of the UPPER_SNAKE names.
_CONTROL_ALIASES: Final[dict[str, str]] = {
    "LeaderChange": "LEADER_CHANGE",
    "SnapshotHeader": "SNAPSHOT_HEADER",
    "SnapshotFooter": "SNAPSHOT_FOOTER",
    "KRaftVersion": "KRAFT_VERSION",
    "KRaftVoters": "KRAFT_VOTERS",
}

Check = Callable[[Any], bool]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_optional_str(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_int_list(value: object) -> bool:
    return isinstance(value, list) and all(_is_int(item) for item in value)


def _entity_check(entity_types: frozenset[str]) -> Check:
    def check(value: object) -> bool:
        return (
            isinstance(value, list)
            and len(value) > 0
            and all(
                isinstance(item, dict)
                and item.get("entityType") in entity_types
                and "entityName" in item
                and _is_optional_str(item["entityName"])
                for item in value
            )
        )

    return check


def _is_static_configs(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict) and _is_str(item.get("name")) and "value" in item and _is_optional_str(item["value"])
        for item in value
    )


_CLIENT_ENTITY: Final = _entity_check(frozenset({"user", "client-id"}))
_QUOTA_ENTITY: Final = _entity_check(frozenset({"user", "client-id", "ip"}))

# Fields replay reads, per record type: name -> (required, check of the value, what the check expects).
_FIELD_RULES: Final[Mapping[str, Mapping[str, tuple[bool, Check, str]]]] = {
    "CONFIG_RECORD": {
        "resourceType": (True, _is_int, "an integer"),
        "resourceName": (True, _is_str, "a string"),
        "name": (True, _is_str, "a string"),
        "value": (True, _is_optional_str, "a string or null"),
    },
    CLIENT_CONFIG_RECORD: {
        "entity": (
            True,
            _CLIENT_ENTITY,
            'a non-empty list of {"entityType": "user"|"client-id", "entityName"}',
        ),
        "key": (True, _is_str, "a string"),
        "value": (True, _is_optional_str, "a string or null"),
    },
    "CLIENT_QUOTA_RECORD": {
        "entity": (
            True,
            _QUOTA_ENTITY,
            'a non-empty list of {"entityType": "user"|"client-id"|"ip", "entityName"}',
        ),
        "key": (True, _is_str, "a string"),
        "value": (True, _is_number, "a number"),
        "remove": (True, _is_bool, "a boolean"),
    },
    "TOPIC_RECORD": {"name": (True, _is_str, "a string"), "topicId": (True, _is_str, "a string")},
    "REMOVE_TOPIC_RECORD": {"topicId": (True, _is_str, "a string")},
    "PARTITION_RECORD": {
        "partitionId": (True, _is_int, "an integer"),
        "topicId": (True, _is_str, "a string"),
        "replicas": (True, _is_int_list, "a list of integers"),
    },
    "PARTITION_CHANGE_RECORD": {
        "partitionId": (True, _is_int, "an integer"),
        "topicId": (True, _is_str, "a string"),
        "replicas": (False, lambda v: v is None or _is_int_list(v), "a list of integers or null"),
    },
    "REGISTER_BROKER_RECORD": {
        "brokerId": (True, _is_int, "an integer"),
        "brokerEpoch": (True, _is_int, "an integer"),
        "features": (False, lambda v: isinstance(v, list), "a list"),
        "staticConfigs": (False, _is_static_configs, 'a list of {"name": string, "value": string|null}'),
    },
    "UNREGISTER_BROKER_RECORD": {"brokerId": (True, _is_int, "an integer")},
    "BROKER_REGISTRATION_CHANGE_RECORD": {"brokerId": (True, _is_int, "an integer")},
    "FENCE_BROKER_RECORD": {"id": (True, _is_int, "an integer")},
    "UNFENCE_BROKER_RECORD": {"id": (True, _is_int, "an integer")},
    "FEATURE_LEVEL_RECORD": {
        "name": (True, _is_str, "a string"),
        "featureLevel": (True, _is_int, "an integer"),
    },
    "REGISTER_CONTROLLER_RECORD": {"controllerId": (True, _is_int, "an integer")},
    "UNREGISTER_CONTROLLER_RECORD": {"controllerId": (True, _is_int, "an integer")},
}


def data_problems(record_type: str, data: Mapping[str, Any]) -> list[str]:
    """List what a record's ``data`` lacks for replay.

    Args:
        record_type: UPPER_SNAKE record type, e.g. ``CONFIG_RECORD``.
        data: The record body with lower-camel-case field names.

    Returns:
        Human-readable problems (missing fields, wrong value types); empty when the record is usable or its
        type has no rules (control records, records replay does not read).
    """
    missing: list[str] = []
    wrong: list[str] = []
    for name, (required, check, expected) in _FIELD_RULES.get(record_type, {}).items():
        if name not in data:
            if required:
                missing.append(name)
        elif not check(data[name]):
            wrong.append(f"'{name}' must be {expected}")
    problems = [f"missing field(s) {', '.join(missing)}"] if missing else []
    return problems + wrong


def _quarantine(line_number: int, line: str, code: str, reason: str, offset: int | None = None) -> QuarantineItem:
    return QuarantineItem(
        reason=reason,
        excerpt=line[:EXCERPT_CHARS],
        line_number=line_number,
        offset=offset,
        extra={"code": code},
    )


def _optional_int(obj: Mapping[str, Any], key: str, low: int, high: int) -> tuple[int | None, str | None]:
    value = obj.get(key)
    if value is None:
        return None, None
    if not _is_int(value) or not low <= value <= high:
        # Name the kind of value, never the value: the line may carry a secret where a number belongs.
        got = "an integer out of range" if _is_int(value) else f"a JSON {_json_kind(value)}"
        return None, f"'{key}' must be an integer in {low}..{high} or absent, got {got}"
    return value, None


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    kinds: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return kinds.get(type(value), type(value).__name__)


def _control_mismatch(
    line_number: int, line: str, record_type: str, is_control_flag: bool, offset: int
) -> QuarantineItem:
    """The item for an ``isControl`` flag that contradicts the type (a rare line, kept out of ``_parse_object``)."""
    if is_control_flag:
        reason = f"'isControl' is true but {record_type} is a metadata record type"
    else:
        reason = f"'isControl' is false but {record_type} is a control type"
    return _quarantine(line_number, line, "JSON_CONTROL_MISMATCH", reason, offset)


def _parse_object(line_number: int, line: str, obj: dict[str, Any]) -> DecodedRecord | QuarantineItem:
    if "offset" not in obj or obj["offset"] is None:
        return _quarantine(line_number, line, "JSON_MISSING_OFFSET", "required field 'offset' is missing")
    offset = obj["offset"]
    if not _is_int(offset) or not 0 <= offset <= INT64_MAX:
        return _quarantine(line_number, line, "JSON_BAD_OFFSET", f"'offset' must be an integer in 0..{INT64_MAX}")
    record_type = obj.get("type")
    if not isinstance(record_type, str) or not record_type:
        return _quarantine(line_number, line, "JSON_BAD_TYPE", "'type' must be a non-empty string", offset)
    data = obj.get("data")
    if not isinstance(data, dict):
        return _quarantine(line_number, line, "JSON_BAD_DATA", "'data' must be a JSON object", offset)

    values: dict[str, int | None] = {}
    for key, low, high in _OPTIONAL_INTS:
        values[key], problem = _optional_int(obj, key, low, high)
        if problem:
            return _quarantine(line_number, line, "JSON_BAD_FIELD", problem, offset)
    timestamp = values["timestamp"]
    if timestamp is not None and timestamp > TIMESTAMP_MS_MAX:
        return _quarantine(
            line_number, line, "JSON_BAD_FIELD", f"'timestamp' is after the year 9999 (> {TIMESTAMP_MS_MAX} ms)", offset
        )
    version = values["version"]
    is_control_flag = obj.get("isControl")
    if is_control_flag is not None and not isinstance(is_control_flag, bool):
        return _quarantine(line_number, line, "JSON_BAD_FIELD", "'isControl' must be a boolean or absent", offset)

    control_type = _CONTROL_ALIASES.get(record_type, record_type)
    is_control_type = control_type in CONTROL_RECORD_IDS
    is_metadata_type = record_type in METADATA_RECORD_API_KEYS or record_type == CLIENT_CONFIG_RECORD
    if (is_control_flag is False and is_control_type) or (is_control_flag is True and is_metadata_type):
        return _control_mismatch(line_number, line, record_type, is_control_flag, offset)
    problems = data_problems(record_type, data)
    if problems:
        return _quarantine(
            line_number, line, "JSON_BAD_RECORD_DATA", f"{record_type} data: {'; '.join(problems)}", offset
        )
    is_control = is_control_type or is_control_flag is True
    if is_control:
        api_key = CONTROL_RECORD_IDS.get(control_type)
        record_type = control_type
    else:
        api_key = METADATA_RECORD_API_KEYS.get(record_type)
    return DecodedRecord(
        offset=offset,
        record_type=record_type,
        api_key=api_key,
        record_version=version,
        data=data,
        is_control=is_control,
        is_unknown=not (is_control_type or is_metadata_type),
        batch_base_offset=values["batchBaseOffset"],
        leader_epoch=values["leaderEpoch"],
        timestamp_ms=timestamp if timestamp is not None and timestamp >= 0 else None,
        line_number=line_number,
    )


def parse_json_lines(lines: Iterable[str]) -> Iterator[DecodedRecord | QuarantineItem]:
    """Parse a JSON-lines export, one record object per line.

    Args:
        lines: The file's lines, with or without line terminators, in order.

    Yields:
        A ``DecodedRecord`` per valid line (unknown types with ``is_unknown=True``) and a ``QuarantineItem``
        per invalid one (invalid JSON, not an object, missing or bad ``offset``, bad ``type``, ``data`` or
        optional fields, ``isControl`` contradicting the type, ``data`` lacking what replay needs), each with
        its 1-based line number. Blank lines yield nothing.
    """
    for line_number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if line_number == 1:
            line = line.lstrip("\ufeff")
        if not line.strip(_JSON_BLANKS):
            continue
        obj, problem, reason = load_json(line)
        if problem is not None:
            yield _quarantine(line_number, line, _LOAD_CODES[problem], f"line is not usable JSON: {reason}")
            continue
        if not isinstance(obj, dict):
            yield _quarantine(line_number, line, "JSON_NOT_OBJECT", "line is JSON but not an object")
            continue
        yield _parse_object(line_number, line, obj)
