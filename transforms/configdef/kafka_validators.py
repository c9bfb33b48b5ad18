"""Kafka's code validators (``kind: custom`` in ``conf/kafka/<release>.yaml``) as catalog checks and expressions.

``translate_custom(validator, release)`` gives ``([(id suffix, {"check": {...}} | {"expr": "..."}), ...], what
stays untranslated)`` for one validator of one release.

ConfigDef only knows its declarative validators; these are Java classes and lambdas. Their logic was read in the
Kafka sources of the commits the catalogs come from (``sources.commit`` of each ``conf/kafka`` file:
apache/kafka 3.3–3.8 branch heads, confluentinc/kafka 3.9–4.4) and is restated here as facts:

* ``ThrottledReplicaListValidator`` (topic ``leader/follower.replication.throttled.replicas``, all releases):
  the LIST value is valid when every element, trimmed, matches ``([0-9]+:[0-9]+)?`` or when the elements joined
  without separator equal ``*``. → an expression over the LIST elements.
* ``MetadataVersionValidator`` (``inter.broker.protocol.version``, ``log.message.format.version``, topic
  ``message.format.version``; 3.3–3.9): ``MetadataVersion.fromVersionString(value)`` must succeed: the value is
  split on ``.`` (trailing empty parts dropped); the key is the value itself when it has at most N parts, else
  its first N parts (N = 3 for values starting ``0.``, else 2); the key must be an IBP version string of the
  release's enum (``0.8.0`` … ``3.3-IV3`` …) or the short version of a release (``2.8``, ``3.3``), 3.7+ only of
  production releases. → a ``regex`` over the release's version list (``IBP_VERSIONS`` below).
* ``RaftConfig/QuorumConfig.ControllerQuorumVotersValidator`` (``controller.quorum.voters``): not null; every
  element splits on ``@`` (trailing empty parts dropped) into exactly ``{id}`` and ``{host}:{port}``; ``id`` parses
  with ``Integer.parseInt``; the address matches ``Utils.HOST_PORT_PATTERN`` — before 3.8 and in Confluent's 3.9
  ``.*?\\[?([0-9a-zA-Z\\-%._:]*)\\]?:([0-9]+)``, from 3.8 (Apache) and 4.0
  ``^(?:[0-9a-zA-Z\\-%._]*://)?\\[?([0-9a-zA-Z\\-%._:]*)]?:([0-9]+)`` — and the port is 0–65535 (``InetSocketAddress``
  rejects others). → ``not_null`` + a per-element ``regex``.
* ``QuorumConfig.ControllerQuorumBootstrapServersValidator`` (``controller.quorum.bootstrap.servers``, 3.8+): not
  null; every element matches ``HOST_PORT_PATTERN`` with a port 0–65535. → ``not_null`` + a per-element ``regex``.
* ``RemoteLogManagerConfig.REMOTE_LOG_MANAGER_THREAD_POOL_SIZE_VALIDATOR`` (3.9 ``remote.log.manager.copier/
  expiration.thread.pool.size``): ``-1`` or ``>= 1``. → ``min: -1`` + ``not_in: [0]``.
* ``ShareGroupAutoOffsetResetStrategy.Validator`` (group ``share.auto.offset.reset``, 4.0+): exactly ``earliest``
  or ``latest`` (lower case: ``Utils.enumOptions`` lists the lower-case names and the match is exact; ``none`` is
  refused for share groups), or ``by_duration:`` + a ``java.time.Duration.parse`` text (``PnDTnHnMn.nS``, letters
  in any case, signed parts, at least one part, a ``T`` only with a time part) that is not negative. → a
  ``regex`` for the grammar + an expression for the sign.
* ``ClientMetricsConfigs.parseMatchingPatterns`` (client-metrics ``match``, 3.7+, a ``code_check``): every element
  splits on ``=`` (trailing empty parts dropped) into exactly two parts, the first (trimmed) one of
  ``client_instance_id, client_id, client_software_name, client_software_version, client_source_address,
  client_source_port``, the second (trimmed) a regex that compiles. → a per-element ``regex`` for the shape.

Not translated (listed in the generated rules' descriptions): whether a ``match`` pattern compiles as a Java regex
(Spark fails the whole job on an invalid pattern instead of returning a value, so no check can ask it). Known
approximations: ``Integer.parseInt`` overflow of a voter id or port is exact, but ``Duration.parse`` overflow
(more seconds than a long holds) is accepted, and a lower-case ``t`` without a time part is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["translate_custom"]

Rule = dict[str, Any]

# MetadataVersion enum constants up to 4.0-IV1 as "<release>" / "<release>-IV<n>" (ibpVersion), in order.
_OLD_IBPS: Final = [
    "0.8.0",
    "0.8.1",
    "0.8.2",
    "0.9.0",
    "0.10.0-IV0",
    "0.10.0-IV1",
    "0.10.1-IV0",
    "0.10.1-IV1",
    "0.10.1-IV2",
    "0.10.2-IV0",
    "0.11.0-IV0",
    "0.11.0-IV1",
    "0.11.0-IV2",
    "1.0-IV0",
    "1.1-IV0",
    "2.0-IV0",
    "2.0-IV1",
    "2.1-IV0",
    "2.1-IV1",
    "2.1-IV2",
    "2.2-IV0",
    "2.2-IV1",
    "2.3-IV0",
    "2.3-IV1",
    "2.4-IV0",
    "2.4-IV1",
    "2.5-IV0",
    "2.6-IV0",
    "2.7-IV0",
    "2.7-IV1",
    "2.7-IV2",
    "2.8-IV0",
    "2.8-IV1",
    "3.0-IV0",
    "3.0-IV1",
    "3.1-IV0",
    "3.2-IV0",
    "3.3-IV0",
    "3.3-IV1",
    "3.3-IV2",
    "3.3-IV3",
    "3.4-IV0",
    "3.5-IV0",
    "3.5-IV1",
    "3.5-IV2",
    "3.6-IV0",
    "3.6-IV1",
    "3.6-IV2",
    "3.7-IV0",
    "3.7-IV1",
    "3.7-IV2",
    "3.7-IV3",
    "3.7-IV4",
    "3.8-IV0",
    "3.9-IV0",
    "4.0-IV0",
    "4.0-IV1",
]
# Per catalog release: (last enum constant, last production constant or None when every constant counts).
_ENUM_RANGE: Final = {
    "3.3": ("3.3-IV3", None),
    "3.4": ("3.4-IV0", None),
    "3.5": ("3.5-IV2", None),
    "3.6": ("3.6-IV2", None),
    "3.7": ("3.8-IV0", "3.7-IV4"),
    "3.8": ("3.9-IV0", "3.8-IV0"),
    "3.9": ("4.0-IV1", "3.9-IV0"),
}
_JAVA_INT: Final = (
    r"(?:-0*2147483648|[+-]?0*(?:[0-9]{1,9}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}"
    r"|2147[0-3][0-9]{5}|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]"
    r"|214748364[0-7]))"
)
_PORT: Final = r"0*(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
_OLD_ADDRESS: Final = rf"[^@]*:{_PORT}"  # `.*?\[?([…]*)\]?:([0-9]+)` matches anything ending in :digits
_NEW_ADDRESS: Final = rf"(?:[0-9a-zA-Z\-%._]*://)?\[?[0-9a-zA-Z\-%._:]*\]?:{_PORT}"
_OLD_PATTERN_RELEASES: Final = frozenset({"3.3", "3.4", "3.5", "3.6", "3.7", "3.9"})
_MATCH_PARAMS: Final = (
    "client_instance_id",
    "client_id",
    "client_software_name",
    "client_software_version",
    "client_source_address",
    "client_source_port",
)
_TRIM: Final = r"regexp_replace(value, '^[\\x00-\\x20]+|[\\x00-\\x20]+$', '')"
_LIST: Final = (
    f"transform(case when {_TRIM} = '' then array() else split({_TRIM}, '\\\\s*,\\\\s*', -1) end, "
    "e -> regexp_replace(e, '^[\\\\x00-\\\\x20]+|[\\\\x00-\\\\x20]+$', ''))"
)
_DURATION: Final = (
    r"[-+]?[Pp](?=.*[0-9])(?:([-+]?[0-9]+)[Dd])?"
    r"(?:[Tt](?=[-+]?[0-9])(?:([-+]?[0-9]+)[Hh])?(?:([-+]?[0-9]+)[Mm])?(?:([-+]?[0-9]+(?:[.,][0-9]{0,9})?)[Ss])?)?"
)


def _version_keys(release: str) -> list[str]:
    last, production = _ENUM_RANGE[release]
    versions = _OLD_IBPS[: _OLD_IBPS.index(last) + 1]
    shorts = versions[: _OLD_IBPS.index(production) + 1] if production else versions
    return sorted({*versions, *(v.split("-")[0] for v in shorts)}, key=lambda v: (-len(v), v))


def _metadata_version_regex(release: str) -> str:
    keys = "|".join(k.replace(".", r"\.") for k in _version_keys(release))
    return rf"(?:{keys})(?:\..*[^.].*)?"


def _duration_sign_expr() -> str:
    """Holds unless the value is ``by_duration:<negative Duration>`` (the grammar is a separate regex rule)."""
    grammar = "^by_duration:" + _DURATION.replace("\\", "\\\\") + "$"

    def part(group: int) -> str:
        text = f"replace(regexp_extract({_TRIM}, '{grammar}', {group}), ',', '.')"
        return f"coalesce(cast({text} as decimal(38, 9)), 0)"

    sign = f"case when {_TRIM} rlike '^by_duration:-' then -1 else 1 end"
    seconds = f"{part(1)} * 86400 + {part(2)} * 3600 + {part(3)} * 60 + {part(4)}"
    return f"value is null or ({sign}) * ({seconds}) >= 0"


def translate_custom(validator: Mapping[str, Any], release: str) -> tuple[list[tuple[str, Rule]], list[str]]:
    """The checks / expressions equivalent to one ``custom`` validator of ``release`` (module docstring), and the
    names of what could not be translated (empty when fully translated)."""
    name = str(validator.get("name") or "")
    if name == "ThrottledReplicaListValidator":
        expr = f"value is null or array_join({_LIST}, '') = '*' or forall({_LIST}, e -> e rlike '^([0-9]+:[0-9]+)?$')"
        return [("throttled-replicas", {"expr": expr})], []
    if name == "MetadataVersionValidator" and release in _ENUM_RANGE:
        return [("metadata-version", {"check": {"regex": _metadata_version_regex(release)}})], []
    if name.endswith("ControllerQuorumVotersValidator"):
        address = _OLD_ADDRESS if release in _OLD_PATTERN_RELEASES else _NEW_ADDRESS
        voter = rf"{_JAVA_INT}@{address}@*"
        return [("not-null", {"check": {"not_null": True}}), ("voters", {"check": {"regex": voter}})], []
    if name.endswith("ControllerQuorumBootstrapServersValidator"):
        address = rf".*:{_PORT}" if release in _OLD_PATTERN_RELEASES else _NEW_ADDRESS
        return [("not-null", {"check": {"not_null": True}}), ("bootstrap-servers", {"check": {"regex": address}})], []
    if name.endswith("REMOTE_LOG_MANAGER_THREAD_POOL_SIZE_VALIDATOR"):
        return [("min", {"check": {"min": -1}}), ("not-zero", {"check": {"not_in": ["0"]}})], []
    if name == "ShareGroupAutoOffsetResetStrategy.Validator":
        grammar = f"earliest|latest|by_duration:{_DURATION}"
        return [
            ("strategy", {"check": {"regex": grammar}}),
            ("duration-not-negative", {"expr": _duration_sign_expr()}),
        ], []
    if name == "ClientMetricsConfigs.parseMatchingPatterns":
        params = "|".join(_MATCH_PARAMS)
        shape = rf"[\x00-\x20]*(?:{params})[\x00-\x20]*=[^=]+=*"
        return [("match-shape", {"check": {"regex": shape}})], [f"{name} (whether the pattern compiles)"]
    return [], [name or "custom"]
