"""Redaction of secrets at ingest (docs/contract.md §6).

Kafka stores PASSWORD-type configs in plaintext in KRaft (``PasswordEncoder.NOOP``) and only redacts them in its
own log output; Kafka also treats a config name it does not know as sensitive (``KafkaConfigSchema.isSensitive``).
kraft-audit therefore redacts before anything is written: the value becomes ``[redacted]`` and a keyed hash
(HMAC-SHA256, truncated) is kept next to it so equality and drift checks still work. SCRAM credentials and
delegation-token identifiers are never stored at all.

Rule of thumb: anything not known to be safe is redacted. A name the catalog does not know, on any resource type
(or on a resource type this build does not know), is sensitive. A record of an unknown type keeps only the
length and keyed hash of its data; raw bytes (an undecodable body, unknown tagged fields) likewise; a field its
record type's schema does not define (``transforms.decode.record_shapes``), or a value of the wrong kind for its field,
becomes ``[redacted]``. Quarantine excerpts show the shape of a line, never its values (``transforms.decode.excerpts``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from schemas.kafka_vocabulary import CONFIG_RESOURCE_IDS, ResourceType
from transforms.decode.excerpts import mask_excerpt
from transforms.decode.record_shapes import RECORD_SHAPES, Scalar, Shape, Struct

REDACTED = "[redacted]"
EXCERPT_LIMIT: Final = 120  # characters of a quarantined input kept as its excerpt (redact_text)

# Name patterns that are sensitive whatever the catalog says (custom plugins, listener-prefixed secrets).
# Case-insensitive; also used by the data-quality checks (as a Java regex with ``(?i)``).
SENSITIVE_NAME_PATTERN = r"(password|secret|jaas|credential|private\.key|\.key$|token)"
_SENSITIVE_NAME = re.compile(SENSITIVE_NAME_PATTERN, re.IGNORECASE)
_CONFIG_NAME = re.compile(r"[A-Za-z0-9._\-]{1,256}")
# listener.name.<listener>.[<sasl mechanism>.]<config> overrides a base config for one listener.
_LISTENER_PREFIX = re.compile(
    r"^listener\.name\.[^.]+\.(?:(?:plain|scram-sha-256|scram-sha-512|gssapi|oauthbearer)\.)?"
)

# ConfigRecord resourceType byte -> the catalog resource it is validated against.
RESOURCE_BY_CODE = {code: rtype.kind for rtype, code in CONFIG_RESOURCE_IDS.items()}


@dataclass(frozen=True)
class SensitivityRules:
    """Which config names are sensitive.

    ``password_keys``: names whose ConfigDef type is PASSWORD in any known release. ``known_keys``: per resource
    (broker, topic, group, client_metrics, client) the names any known release defines; a name outside that set
    is unknown and therefore sensitive, as in Kafka. With no ``known_keys`` only the patterns and password keys
    apply (to a resource type that is known).
    """

    password_keys: frozenset[str] = frozenset()
    known_keys: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def is_sensitive(self, name: object, resource: str | None = None) -> bool:
        """Whether a value of config ``name`` on ``resource`` must be redacted.

        ``resource`` None is a resource type this build does not know (e.g. ConfigRecord resourceType 8 or 99):
        nothing about its names is known, so every value is sensitive. A missing or non-text name is too.
        """
        if not name or not isinstance(name, str) or resource is None:
            return True
        base = _LISTENER_PREFIX.sub("", name)
        if name in self.password_keys or base in self.password_keys:
            return True
        if _SENSITIVE_NAME.search(name) or base == "sasl.jaas.config":
            return True
        if not self.known_keys:
            return False  # no catalog: patterns and password keys only
        # A resource type the catalog does not cover (client configs today): every name on it is unknown.
        known = self.known_keys.get(resource, frozenset())
        return name not in known and base not in known

    @cached_property
    def config_names(self) -> frozenset[str]:
        """Every config name the catalog knows (public names: safe to show in a quarantine excerpt)."""
        return self.password_keys.union(*self.known_keys.values())


def keyed_hash(value: str, key: bytes) -> str:
    """A stable keyed hash of a secret: equal values give equal hashes, and without the key nothing is learnt."""
    # surrogatepass: a lone surrogate must not make hashing fail (decoders reject them, this is the backstop).
    digest = hmac.new(key, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    return "hmac-sha256:" + digest[:32]


def keyed_hash_bytes(value: bytes | memoryview, key: bytes) -> str:
    """``keyed_hash`` of raw bytes."""
    return "hmac-sha256:" + hmac.new(key, value, hashlib.sha256).hexdigest()[:32]


def safe_config_name(name: str, key: bytes) -> str:
    """``name`` when it is shaped like a config name (letters, digits, ``.``, ``_``, ``-``), else its keyed hash.

    A malformed line can turn a value into a name: ``password="x";`` after a jaas line that lost its trailing
    backslash is a key for ``Properties.load``, and ``ssl.key.password\\=x`` escapes the separator. No Kafka config
    name has quotes, blanks, ``=`` or ``;``, so such a name is not known to be safe.
    """
    return name if _CONFIG_NAME.fullmatch(name) else f"{REDACTED} {keyed_hash(name, key)}"


def redact_value(
    name: object, value: Any, resource: str | None, rules: SensitivityRules, key: bytes
) -> tuple[Any, str | None]:
    """``(value, hash)``: the value itself when not sensitive, else ``[redacted]`` and its keyed hash."""
    if value is None or not rules.is_sensitive(name, resource):
        return value, None
    return REDACTED, keyed_hash(str(value), key)


# Record types whose fields may carry a secret or a config value (the branches of redact_record).
_MAY_HOLD_SECRETS: Final = frozenset(
    {
        "CONFIG_RECORD",
        "CLIENT_CONFIG_RECORD",
        "REGISTER_BROKER_RECORD",
        "USER_SCRAM_CREDENTIAL_RECORD",
        "DELEGATION_TOKEN_RECORD",
        "REMOVE_DELEGATION_TOKEN_RECORD",
    }
)


RAW_KEY: Final = "_raw"  # an undecodable body, base64 (binary decoder)
UNKNOWN_TAGS_KEY: Final = "_unknownTaggedFields"  # tag -> base64 (binary decoder), at any struct level
_SCALARS: Final = (str, int, float, bool)
_PLAIN: Final = frozenset({str, int, float, bool, type(None)})  # exact types json.loads and the decoders produce
_OPAQUE_JSON: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, check_circular=False)


def redact_record(
    record_type: str, data: dict[str, Any], rules: SensitivityRules, key: bytes, *, trusted_shape: bool = False
) -> dict[str, Any]:
    """A decoded record's data with every secret replaced (see module docstring); ``data`` itself is not changed
    (a copy is returned when something may be replaced, ``data`` when its type holds nothing to redact).

    Config values get ``value: "[redacted]"`` plus ``valueHash``; SCRAM salts and keys and delegation-token ids
    are dropped. Unknown record types keep ``{"_redacted", "_length", "_hash"}``; raw bytes become
    ``_rawLength``/``_rawHash`` and unknown tags ``{"length", "hash"}``; fields (or kinds of value) the record
    type's schema does not define become ``[redacted]``.

    Args:
        record_type: The record's type (UPPER_SNAKE).
        data: The record's data as decoded.
        rules: Which config names are sensitive.
        key: The redaction key of the keyed hashes.
        trusted_shape: ``data`` holds only schema fields with values of the schema's kinds and no raw bytes (a
            record the binary decoder read with a known schema and no unknown tags): the field walk is skipped.
    """
    if trusted_shape:
        if record_type not in _MAY_HOLD_SECRETS:
            return data  # most records (partitions, topics, no-ops, ...): nothing to copy or look at
        out = dict(data)
    else:
        shape = RECORD_SHAPES.get(record_type)
        if shape is None and not set(data) <= {RAW_KEY}:
            return _opaque(data, key)  # an unknown record type: nothing in it is known to be safe
        out = _clean(data, shape or {}, key)
    if record_type == "CONFIG_RECORD":
        code = out.get("resourceType")
        resource = RESOURCE_BY_CODE.get(code) if isinstance(code, int) else None
        _redact_pair(out, "name", "value", resource, rules, key)
    elif record_type == "CLIENT_CONFIG_RECORD":
        _redact_pair(out, "key", "value", ResourceType.CLIENT.kind, rules, key)
    elif record_type == "REGISTER_BROKER_RECORD" and isinstance(out.get("staticConfigs"), list):
        configs = []
        for item in out["staticConfigs"]:
            entry = dict(item) if isinstance(item, Mapping) else {"name": None, "value": None}
            _redact_pair(entry, "name", "value", ResourceType.BROKER.kind, rules, key)
            configs.append(entry)
        out["staticConfigs"] = configs
    elif record_type == "USER_SCRAM_CREDENTIAL_RECORD":
        for secret in ("salt", "storedKey", "serverKey"):
            if secret in out:
                out[secret] = None
    elif record_type in ("DELEGATION_TOKEN_RECORD", "REMOVE_DELEGATION_TOKEN_RECORD") and out.get("tokenId"):
        out["tokenId"] = keyed_hash(str(out["tokenId"]), key)
    return out


def _redact_pair(
    entry: dict[str, Any], name_key: str, value_key: str, resource: str | None, rules: SensitivityRules, key: bytes
) -> None:
    name = entry.get(name_key)
    if isinstance(name, str) and not _CONFIG_NAME.fullmatch(name):
        entry[name_key] = safe_config_name(name, key)
    if value_key not in entry:
        return  # nothing to redact (and no key to add: an undecodable body has only its fingerprint)
    value, digest = redact_value(name, entry[value_key], resource, rules, key)
    entry[value_key] = value
    if digest is not None:
        entry["valueHash"] = digest


def _opaque(data: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    text = _OPAQUE_JSON.encode(data).encode("utf-8", "surrogatepass")
    return {"_redacted": "unknown record type: content not stored", "_length": len(text), "_hash": _hash(text, key)}


def _hash(raw: bytes, key: bytes) -> str:
    return keyed_hash_bytes(raw, key)


def _fingerprint(raw: object, key: bytes) -> dict[str, Any]:
    """Length and keyed hash of base64 raw bytes (of its text when it is not base64)."""
    text = raw if isinstance(raw, str) else _OPAQUE_JSON.encode(raw)
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        data = text.encode("utf-8", "surrogatepass")
    return {"length": len(data), "hash": _hash(data, key)}


def _clean(data: Mapping[str, Any], shape: Shape, key: bytes) -> dict[str, Any]:
    """A copy of ``data`` keeping the fields ``shape`` defines (with values of their kind) and fingerprints of raw
    bytes; every other field's value becomes ``[redacted]``."""
    out: dict[str, Any] = {}
    for name, value in data.items():
        kind = shape.get(name)
        # Hot path first (every text record walks here): a plain scalar in a scalar field.
        if kind is Scalar.ONE and type(value) in _PLAIN:
            out[name] = value
        elif kind is Scalar.ARRAY and type(value) is list and _PLAIN.issuperset(map(type, value)):
            out[name] = value  # replicas, isr, directories...: checked in C
        elif name == RAW_KEY:
            fingerprint = _fingerprint(value, key)
            out["_rawLength"], out["_rawHash"] = fingerprint["length"], fingerprint["hash"]
        elif name == UNKNOWN_TAGS_KEY and isinstance(value, Mapping):
            out[name] = {str(tag): _fingerprint(raw, key) for tag, raw in value.items()}
        else:
            out[name] = _clean_value(value, kind, key)
    return out


def _clean_value(value: Any, field_shape: Scalar | Struct | None, key: bytes) -> Any:
    if value is None:
        return None
    if field_shape is Scalar.ONE:
        return value if isinstance(value, _SCALARS) else REDACTED
    if field_shape is Scalar.ARRAY:
        ok = type(value) is list and all(type(item) in _PLAIN or isinstance(item, _SCALARS) for item in value)
        return value if ok else REDACTED
    if isinstance(field_shape, Struct):
        if not field_shape.repeated:
            return _clean(value, field_shape.fields, key) if isinstance(value, Mapping) else REDACTED
        if not isinstance(value, list):
            return REDACTED
        return [_clean(item, field_shape.fields, key) if isinstance(item, Mapping) else REDACTED for item in value]
    return REDACTED  # a field the schema does not define


def redact_text(text: str, rules: SensitivityRules, *, limit: int = EXCERPT_LIMIT) -> str:
    """A short excerpt of a bad input line that cannot leak a secret: its shape, never its values.

    Punctuation, known names (dump-log and JSON-lines grammar, schema fields, the catalog's config names),
    ``true``/``false``/``null`` and integers after integer-only names are kept; everything else becomes ``…``
    (see ``transforms.decode.excerpts``). The result is at most ``limit`` printable characters.
    """
    return mask_excerpt(text, rules.config_names, limit)
