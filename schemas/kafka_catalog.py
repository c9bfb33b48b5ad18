"""What replay and effective-config resolution need from Kafka's config definitions, per release.

The full catalog (types, defaults, validators, dynamic scope, synonyms) lives in ``conf/kafka/<release>.yaml``;
jobs load those files with ``yaml.safe_load`` and turn each document into a :class:`ReleaseCatalog` with
:func:`release_catalog_from_document`. Transforms never read files: ``transforms.effective.catalog_frames``
turns a :class:`KafkaCatalog` into the small lookup DataFrames whose shapes are the ``CATALOG_*`` constants here.

Kafka facts that the per-release files do not carry (they are code, not ConfigDef data) are constants here, each
with its source in Kafka.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
)

from schemas.errors import ConfigError
from schemas.kafka_vocabulary import CONFIG_RESOURCE_TYPES

DynamicScope = Literal["read-only", "per-broker", "cluster-wide"]
Converter = Literal["NONE", "HOURS_TO_MS", "MINUTES_TO_MS"]

# Keys whose effective value maps any negative number to -1 (unlimited):
# AbstractKafkaConfig.logRetentionTimeMillis (broker) and the LogConfig a topic inherits from it.
NEGATIVE_MEANS_UNLIMITED: Final = frozenset({"log.retention.ms", "retention.ms"})

# DynamicListenerConfig.ClusterLevelListenerConfigs: the only listener-prefixed configs allowed at the
# cluster-default level; every other listener.name.<l>.<config> key is per-broker only.
CLUSTER_LEVEL_LISTENER_CONFIGS: Final = frozenset(
    {"max.connections", "max.connection.creation.rate", "num.network.threads"}
)

# DynamicBrokerConfig.ListenerConfigRegex
LISTENER_CONFIG_PATTERN: Final = r"^listener\.name\.[^.]+\.(.+)$"

_RELEASE = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?(?:[-.].*)?$")


def release_rank(release: str) -> int:
    """Sortable number of a Kafka release ``"4.2"`` or version ``"4.2.1"``: ``major * 1000 + minor``.

    Raises:
        ConfigError: when the text is not a release.
    """
    match = _RELEASE.match(release.strip())
    if match is None:
        raise ConfigError(f"not a Kafka release: {release!r} (expected e.g. 4.2 or 4.2.1)")
    return int(match.group(1)) * 1000 + int(match.group(2))


def applied_rank(catalog_ranks: Collection[int], rank: int) -> int:
    """The rank of the catalog release a broker running the release of ``rank`` applies: the newest one not newer
    than it, else the catalog's oldest (a broker older than every catalog release). The rule of
    ``transforms.effective.common.with_catalog_release``, for decisions made in the driver.

    Raises:
        ValueError: when ``catalog_ranks`` is empty.
    """
    return max((r for r in catalog_ranks if r <= rank), default=min(catalog_ranks))


def normalize_release(version: str) -> str:
    """``"4.2.1"`` → ``"4.2"`` (ConfigDef defaults change only between minor releases)."""
    rank = release_rank(version)
    return f"{rank // 1000}.{rank % 1000}"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ConfigKey(_Frozen):
    """One ConfigDef key as resolution needs it."""

    name: str
    type: str | None = None  # INT, LONG, LIST, PASSWORD, ... (upper case)
    default: str | None = None  # rendered the way DescribeConfigs prints it; None = no default / null
    sensitive: bool = False  # PASSWORD type or a Kafka sensitive rule
    internal: bool = False  # internal keys are not described unless set
    dynamic: DynamicScope = "read-only"  # broker keys only; topic/group/client-metrics keys ignore it
    listener_prefix_required: bool = False  # broker: dynamic only as listener.name.<listener>.<key>
    # a LIST whose validator is a KIP-1161 ValidList (4.2+): ConfigDef.parseValue removes repeated elements
    # (KAFKA-19875)
    deduplicates: bool = False

    @field_validator("type")
    @classmethod
    def _upper(cls, value: str | None) -> str | None:
        return value.upper() if value else value


class Synonym(_Frozen):
    """A broker key that feeds another key, with the converter to the target's unit."""

    name: str
    converter: Converter = "NONE"


class TopicSynonyms(_Frozen):
    """ServerTopicConfigSynonyms: a topic key and its broker synonyms, earlier ones win."""

    topic_config: str
    synonyms: tuple[Synonym, ...]


class BrokerSynonymGroup(_Frozen):
    """A broker synonym group; ``members[0]`` is the primary key, order is KafkaConfig's getter priority."""

    members: tuple[Synonym, ...] = Field(min_length=2)

    @property
    def primary(self) -> str:
        return self.members[0].name


class GroupSynonym(_Frozen):
    """GroupConfig: a group key that inherits the broker key ``broker_config`` unless set on the group."""

    group_config: str
    broker_config: str


class ReleaseCatalog(_Frozen):
    """The config definitions of one Kafka release (``"4.2"``)."""

    release: str
    broker: tuple[ConfigKey, ...] = ()
    topic: tuple[ConfigKey, ...] = ()
    group: tuple[ConfigKey, ...] = ()
    client_metrics: tuple[ConfigKey, ...] = ()
    topic_synonyms: tuple[TopicSynonyms, ...] = ()
    broker_synonym_groups: tuple[BrokerSynonymGroup, ...] = ()
    group_synonyms: tuple[GroupSynonym, ...] = ()
    topic_configs_without_server_default: tuple[str, ...] = ()

    @field_validator("release")
    @classmethod
    def _release(cls, value: str) -> str:
        try:
            return normalize_release(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from exc

    @model_validator(mode="after")
    def _unique_names(self) -> ReleaseCatalog:
        for kind in (t.kind for t in CONFIG_RESOURCE_TYPES):
            names = [key.name for key in getattr(self, kind)]
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise ValueError(f"release {self.release}: duplicate {kind} keys {duplicates}")
        return self


class KafkaCatalog(_Frozen):
    """All releases known to the run; every release at most once."""

    releases: tuple[ReleaseCatalog, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_releases(self) -> KafkaCatalog:
        names = [r.release for r in self.releases]
        if len(names) != len(set(names)):
            raise ValueError(f"a release appears twice: {sorted(names)}")
        return self

    def release(self, name: str) -> ReleaseCatalog | None:
        """The catalog of one release, or None."""
        wanted = normalize_release(name)
        return next((r for r in self.releases if r.release == wanted), None)


_CONVERTERS: Final[dict[str | None, Converter]] = {
    None: "NONE",
    "none": "NONE",
    "hours_to_ms": "HOURS_TO_MS",
    "minutes_to_ms": "MINUTES_TO_MS",
}
_UNITS: Final[dict[str, Converter]] = {"ms": "NONE", "minutes": "MINUTES_TO_MS", "hours": "HOURS_TO_MS"}
_KEY_FIELDS: Final = ("name", "type", "default", "sensitive", "internal", "dynamic", "listener_prefix_required")


def _keys(entries: Any) -> list[dict[str, Any]]:
    return [
        {k: entry[k] for k in _KEY_FIELDS if k in entry} | {"deduplicates": _deduplicates(entry)}
        for entry in entries or ()
    ]


def _deduplicates(entry: Mapping[str, Any]) -> bool:
    validator = entry.get("validator")
    return isinstance(validator, Mapping) and validator.get("kip1161") is True


def _document_to_model(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The reduced view of a ``conf/kafka/<release>.yaml`` document (format: ``conf/kafka/README.md``)."""
    topic_synonyms = [
        {
            "topic_config": topic,
            "synonyms": [{"name": s["name"], "converter": _CONVERTERS[s.get("converter")]} for s in synonyms],
        }
        for topic, synonyms in (doc.get("topic_synonyms") or {}).items()
    ]
    groups = []
    for group in doc.get("broker_synonym_groups") or ():
        members = sorted(group["members"], key=lambda m: m["name"] != group["primary"])
        groups.append({"members": [{"name": m["name"], "converter": _UNITS[m["unit"]]} for m in members]})
    group_synonyms = [
        {"group_config": key, "broker_config": broker}
        for key, broker in (doc.get("group_synonyms") or {}).items()
        if broker is not None
    ]
    return {
        "release": str(doc["release"]),
        **{t.kind: _keys(doc.get(t.kind)) for t in CONFIG_RESOURCE_TYPES},
        "topic_synonyms": topic_synonyms,
        "broker_synonym_groups": groups,
        "group_synonyms": group_synonyms,
        "topic_configs_without_server_default": list(doc.get("topic_configs_without_server_default") or ()),
    }


def release_catalog_from_document(doc: Mapping[str, Any], *, source: str) -> ReleaseCatalog:
    """Build a :class:`ReleaseCatalog` from one loaded ``conf/kafka/<release>.yaml`` document.

    Maps the file format (``conf/kafka/README.md``) to this reduced view: entries keep name, type, default,
    sensitive, internal, dynamic and listener_prefix_required; ``topic_synonyms`` converters ``null`` /
    ``hours_to_ms`` / ``minutes_to_ms`` become ``NONE`` / ``HOURS_TO_MS`` / ``MINUTES_TO_MS``; a synonym
    group's members are ordered primary first (file order otherwise) with the unit as converter to ms;
    ``group_synonyms`` entries without a broker key are dropped. Other top-level keys are ignored.

    Args:
        doc: the ``yaml.safe_load`` result.
        source: the file name, for error messages.

    Raises:
        ConfigError: naming ``source`` and the problem when the document does not fit.
    """
    try:
        return ReleaseCatalog.model_validate(_document_to_model(doc))
    except (ValidationError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{source}: not a Kafka config catalog ({type(exc).__name__}: {exc})") from exc


# --- Spark lookup frames (built by transforms.effective.catalog_frames) -----------------------------------

# One row per (release, resource type, key).
CATALOG_CONFIG_KEYS: Final = StructType(
    [
        StructField("release", StringType(), False),
        StructField("resource_type", StringType(), False),  # BROKER, TOPIC, GROUP, CLIENT_METRICS
        StructField("name", StringType(), False),
        StructField("config_type", StringType(), True),
        StructField("default_value", StringType(), True),
        StructField("is_sensitive", BooleanType(), False),
        StructField("is_internal", BooleanType(), False),
        StructField("dynamic_scope", StringType(), True),  # BROKER keys: read-only, per-broker, cluster-wide
        StructField("listener_prefix_required", BooleanType(), False),  # BROKER: dynamic only with the prefix
    ]
)

# Which key feeds which: BROKER rows are synonym groups (config_name = the group's primary key), TOPIC rows
# are ServerTopicConfigSynonyms, GROUP rows are GroupConfig synonyms. priority 0 wins.
CATALOG_SYNONYMS: Final = StructType(
    [
        StructField("release", StringType(), False),
        StructField("resource_type", StringType(), False),  # the resource of config_name
        StructField("config_name", StringType(), False),
        StructField("synonym", StringType(), False),  # a broker key
        StructField("priority", IntegerType(), False),
        StructField("converter", StringType(), False),  # NONE, HOURS_TO_MS, MINUTES_TO_MS
        StructField("negative_means_unlimited", BooleanType(), False),  # any negative result becomes -1
    ]
)

# Releases of the catalog with a sortable rank (major * 1000 + minor).
CATALOG_RELEASES: Final = StructType(
    [
        StructField("release", StringType(), False),
        StructField("release_rank", IntegerType(), False),
    ]
)

# One row per single-key check a release's ConfigDef parse makes (``transforms.effective.catalog_frames``): the
# rule columns of ``schemas.evaluation.CHECK_RULES_DDL`` keyed by release instead of a KIP-1294 interval.
CATALOG_KEY_CHECKS: Final = StructType(
    [
        StructField("release", StringType(), False),
        StructField("resource_type", StringType(), False),
        StructField("config_name", StringType(), False),
        StructField("rule_kind", StringType(), False),
        StructField("rule_num_a", DoubleType(), True),
        StructField("rule_num_b", DoubleType(), True),
        StructField("rule_values", ArrayType(StringType(), True), False),
        StructField("rule_values_num", ArrayType(DoubleType(), True), False),
        StructField("rule_pattern", StringType(), True),
        StructField("rule_type", StringType(), True),
        StructField("rule_id", StringType(), False),  # the default catalog's constraint id, e.g. kafka-4.0-broker-...
        # texts for messages, as in schemas.evaluation.RULE_INFO_DDL
        StructField("rule_bound_a", StringType(), True),
        StructField("rule_bound_b", StringType(), True),
        StructField("rule_values_text", StringType(), True),
        StructField("rule_pattern_text", StringType(), True),
        StructField("rule_type_text", StringType(), True),
    ]
)
