"""Redaction of secrets at ingest (CONTRACT §6).

Kafka stores PASSWORD-type configs in plaintext in KRaft (``PasswordEncoder.NOOP``) and only redacts them in its
own log output; Kafka also treats a config name it does not know as sensitive (``KafkaConfigSchema.isSensitive``).
kraft-audit therefore redacts before anything is written: the value becomes ``[redacted]`` and a keyed hash
(HMAC-SHA256, truncated) is kept next to it so equality and drift checks still work. SCRAM credentials and
delegation-token identifiers are never stored at all.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from schemas.kafka_vocabulary import CONFIG_RESOURCE_IDS, ResourceType

REDACTED = "[redacted]"
EXCERPT_LIMIT: Final = 120  # characters of a quarantined input kept as its excerpt (redact_text)

# Name patterns that are sensitive whatever the catalog says (custom plugins, listener-prefixed secrets).
# Case-insensitive; also used by the data-quality checks (as a Java regex with ``(?i)``).
SENSITIVE_NAME_PATTERN = r"(password|secret|jaas|credential|private\.key|\.key$|token)"
_SENSITIVE_NAME = re.compile(SENSITIVE_NAME_PATTERN, re.IGNORECASE)
_SENSITIVE_BYTES = re.compile(rb"(?i)(password|secret|jaas|credential|private\.key|token)")
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
    apply.
    """

    password_keys: frozenset[str] = frozenset()
    known_keys: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def is_sensitive(self, name: str | None, resource: str | None = None) -> bool:
        """Whether a value of config ``name`` on ``resource`` must be redacted."""
        if not name:
            return False
        base = _LISTENER_PREFIX.sub("", name)
        if name in self.password_keys or base in self.password_keys:
            return True
        if _SENSITIVE_NAME.search(name) or base == "sasl.jaas.config":
            return True
        known = self.known_keys.get(resource or "")
        return known is not None and bool(known) and name not in known and base not in known


def keyed_hash(value: str, key: bytes) -> str:
    """A stable keyed hash of a secret: equal values give equal hashes, and without the key nothing is learnt."""
    digest = hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()
    return "hmac-sha256:" + digest[:32]


def redact_value(
    name: str | None, value: Any, resource: str | None, rules: SensitivityRules, key: bytes
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


def redact_record(record_type: str, data: dict[str, Any], rules: SensitivityRules, key: bytes) -> dict[str, Any]:
    """A decoded record's data with every secret replaced (see module docstring); ``data`` itself is not changed
    (a copy is returned when something may be replaced, ``data`` when its type holds nothing to redact).

    Config values get ``value: "[redacted]"`` plus ``valueHash``; SCRAM salts and keys and delegation-token ids
    are dropped; raw bytes of unknown records or tags are kept unless they mention a sensitive-looking name.
    """
    if record_type not in _MAY_HOLD_SECRETS and "_raw" not in data and "_unknownTaggedFields" not in data:
        return data  # most records (partitions, topics, no-ops, ...): nothing to copy or look at
    out = dict(data)
    if isinstance(out.get("_raw"), str) and _raw_may_hold_secret(out["_raw"]):
        out["_raw"] = None
        out["_rawDropped"] = "raw body mentions a sensitive name; not stored"
    if isinstance(out.get("_unknownTaggedFields"), Mapping):
        out["_unknownTaggedFields"] = {
            tag: (None if isinstance(raw, str) and _raw_may_hold_secret(raw) else raw)
            for tag, raw in out["_unknownTaggedFields"].items()
        }
    if record_type == "CONFIG_RECORD":
        resource = RESOURCE_BY_CODE.get(out.get("resourceType") or -1)
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
    value, digest = redact_value(entry.get(name_key), entry.get(value_key), resource, rules, key)
    entry[value_key] = value
    if digest is not None:
        entry["valueHash"] = digest


def redact_text(text: str, rules: SensitivityRules, *, limit: int = EXCERPT_LIMIT) -> str:
    """A short excerpt of a bad input line that cannot leak a secret.

    If the text mentions a sensitive-looking name anywhere, every quoted string and every ``=value`` after the
    first sensitive name is masked; the result is cut to ``limit`` characters.
    """
    short = text[: limit * 2]
    if _SENSITIVE_NAME.search(short) or any(k in short for k in _sample(rules.password_keys)):
        short = re.sub(r'"(?:[^"\\]|\\.)*"', '"…"', short)
        short = re.sub(r"([=:]\s*)[^\s,}]+", r"\1" + REDACTED, short)
    printable = "".join(ch if ch.isprintable() else "." for ch in short)
    return printable[:limit]


def _raw_may_hold_secret(b64: str) -> bool:
    try:
        raw = base64.b64decode(b64, validate=False)
    except (ValueError, TypeError):
        return True
    return bool(_SENSITIVE_BYTES.search(raw))


def _sample(keys: Iterable[str]) -> Iterable[str]:
    return (k for k in keys if len(k) > 6)
