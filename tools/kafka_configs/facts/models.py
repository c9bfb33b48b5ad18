"""Pydantic models of the hand-checked facts in ``tools/kafka_configs/facts/*.yaml``.

Every model is frozen and refuses unknown fields, so a typo in a data file fails at load time. Releases are
written as quoted strings (``"4.2"``); an unquoted ``4.10`` would be the float 4.1 and is refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator, model_validator

from tools.kafka_configs.release import Release

__all__ = [
    "AtLeast",
    "Between",
    "BetweenCodeCheck",
    "BrokerSynonymGroup",
    "CheckResource",
    "ChecksFacts",
    "CodeCheck",
    "CompressionLevel",
    "ConfigDefRef",
    "ConstantRef",
    "ConstantsFacts",
    "CrossFieldCheck",
    "CustomCodeCheck",
    "CustomDescription",
    "CustomValidator",
    "DefinesTerm",
    "DynamicFacts",
    "DynamicLogConfigTerm",
    "DynamicSpec",
    "DynamicTerm",
    "EntryFix",
    "EntryValues",
    "Frozen",
    "GroupSynonym",
    "InValues",
    "JvmDefault",
    "KnownValidator",
    "ListValidation",
    "ManualFacts",
    "MergedConfigDefs",
    "MustBeSource",
    "Note",
    "ReleaseField",
    "ReleaseRange",
    "ReleaseSpec",
    "ReleasesFacts",
    "Resource",
    "SourceVariant",
    "SynonymMember",
    "SynonymsFacts",
    "ValidatorForm",
    "ValidatorsFacts",
]

Resource = Literal["broker", "topic", "group", "client_metrics"]
CheckResource = Literal["broker", "topic", "group"]


def _release(value: Any) -> Release:
    if isinstance(value, Release):
        return value
    if not isinstance(value, str):
        raise ValueError(f"a release must be a quoted string such as '4.2', got {value!r}")
    return Release.parse(value)


ReleaseField = Annotated[Release, PlainValidator(_release), PlainSerializer(str)]


class Frozen(BaseModel):
    """Base: immutable, unknown fields are errors."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ReleaseRange(Frozen):
    """The releases a fact applies to: ``since`` (inclusive) up to ``until`` (exclusive); open when absent."""

    since: ReleaseField | None = None
    until: ReleaseField | None = None

    @model_validator(mode="after")
    def _ordered(self) -> ReleaseRange:
        if self.since is not None and self.until is not None and not self.since < self.until:
            raise ValueError(f"empty release range: since {self.since} is not before until {self.until}")
        return self

    def applies_to(self, release: Release) -> bool:
        """Whether ``release`` is in the range."""
        return (self.since is None or self.since <= release) and (self.until is None or release < self.until)


class Note(ReleaseRange):
    """A text written into the catalogs of the releases in range."""

    text: str


# ---- validator forms (conf/kafka/README.md); only the forms hand-checked facts use


class AtLeast(Frozen):
    """``ConfigDef.Range.atLeast(min)``."""

    kind: Literal["at_least"]
    min: int | float


class Between(Frozen):
    """``ConfigDef.Range.between(min, max)`` (inclusive)."""

    kind: Literal["between"]
    min: int | float
    max: int | float


class InValues(Frozen):
    """``ValidString.in`` / ``CaseInsensitiveValidString.in``, or an exact equivalent of a code validator."""

    kind: Literal["in"]
    values: tuple[str | int, ...]
    case_insensitive: bool


class CustomValidator(Frozen):
    """A validator that is code; ``description`` says what it checks."""

    kind: Literal["custom"]
    name: str
    description: str


ValidatorForm = Annotated[AtLeast | Between | InValues | CustomValidator, Field(discriminator="kind")]


class BetweenCodeCheck(Between):
    """A range check done in code (not by ConfigDef)."""

    source: str
    note: str | None = None


class CustomCodeCheck(CustomValidator):
    """A code check that has no structured form."""

    source: str
    note: str | None = None


CodeCheck = Annotated[BetweenCodeCheck | CustomCodeCheck, Field(discriminator="kind")]


# ---- releases.yaml


class ConfigDefRef(Frozen):
    """A ConfigDef named by file and owner (see :mod:`tools.kafka_configs.defines`)."""

    file: str
    owner: str


class MergedConfigDefs(Frozen):
    """The ConfigDefs listed in ``constant = Utils.mergeConfigs(List.of(...))`` of ``file`` (read from source)."""

    file: str
    merge_configs: str


class ConstantRef(Frozen):
    """A constant ``class_name.constant`` defined in ``file``."""

    file: str
    class_name: str
    constant: str


class MustBeSource(Frozen):
    """Where to read ``"<key> must be <comparison> <key>"`` checks from exception messages."""

    file: str
    resource: Literal["broker", "group"]
    method: str | None = None  # only inside this method; None: the whole file


class ReleaseSpec(Frozen):
    """What makes up one release's catalog (read by hand from the release's merge code)."""

    note: str  # where the composition was read
    broker: tuple[ConfigDefRef | MergedConfigDefs, ...]
    topic: tuple[ConfigDefRef, ...]
    group: tuple[ConfigDefRef, ...]
    client_metrics: tuple[ConfigDefRef, ...]
    broker_dynamic_only: tuple[ConfigDefRef, ...]
    kip1161: bool
    topic_synonyms: ConstantRef
    group_synonyms: ConstantRef | None  # None: no synonym table in the release (see synonyms.yaml)
    must_be_checks: tuple[MustBeSource, ...]


class ListValidation(Frozen):
    """How LIST values are parsed and validated (the catalog's ``list_validation``)."""

    kip1161: bool
    parse: str
    dedup_before_validate: bool
    rules: str


class ReleasesFacts(Frozen):
    """releases.yaml."""

    releases: dict[ReleaseField, ReleaseSpec]
    list_validation: tuple[ListValidation, ...]

    @model_validator(mode="after")
    def _one_list_validation_per_mode(self) -> ReleasesFacts:
        modes = [lv.kip1161 for lv in self.list_validation]
        if sorted(modes) != [False, True]:
            raise ValueError("list_validation needs exactly one entry with kip1161: false and one with true")
        return self

    def list_validation_for(self, kip1161: bool) -> ListValidation:
        """The list-validation description of a release with or without KIP-1161 validators."""
        return next(lv for lv in self.list_validation if lv.kip1161 == kip1161)


# ---- dynamic.yaml


class DynamicLogConfigTerm(Frozen):
    """DynamicLogConfig's set: the primary broker synonym of every topic config, minus the listed topic keys."""

    dynamic_log_config_except: tuple[str, ...]


class DefinesTerm(Frozen):
    """The names a ConfigDef defines (e.g. ``QuotaConfig.brokerQuotaConfigs().names()``)."""

    names_defined_by: ConfigDefRef
    note: str


# a plain string is a Java/Scala expression evaluated in the context of DynamicSpec.file
DynamicTerm = str | DynamicLogConfigTerm | DefinesTerm


class DynamicSpec(Frozen):
    """The sets DynamicBrokerConfig unions in one release (composition read by hand; members extracted)."""

    file: str
    all_dynamic: tuple[DynamicTerm, ...]  # AllDynamicConfigs / ALL_DYNAMIC_CONFIGS
    security: str  # DynamicSecurityConfigs: settable only with a listener.name.<l>. prefix
    listener: str  # DynamicListenerConfig.ReconfigurableConfigs
    cluster_level_listener: str  # the listener configs that may also be set cluster-wide
    per_broker_extra: tuple[str, ...] = ()


class DynamicFacts(Frozen):
    """dynamic.yaml."""

    dynamic: dict[ReleaseField, DynamicSpec]


# ---- validators.yaml


class KnownValidator(Frozen):
    """A code validator whose behaviour is exactly a structured form (checked by reading its code)."""

    expression: str  # as written in define(...), whitespace removed; a trailing "()" is optional
    validator: ValidatorForm
    note: str


class CustomDescription(Frozen):
    """What a code validator checks; ``name`` is its class, ``Outer.Inner`` class or constant."""

    name: str
    description: str


class ValidatorsFacts(Frozen):
    """validators.yaml."""

    known: tuple[KnownValidator, ...]
    descriptions: tuple[CustomDescription, ...]


# ---- constants.yaml


class CompressionLevel(Frozen):
    """``CompressionType.<codec>.defaultLevel()``."""

    codec: str
    level: int
    source: str


class JvmDefault(Frozen):
    """The value of a JVM call a default is computed with."""

    call: str
    value: str
    note: str


class ConstantsFacts(Frozen):
    """constants.yaml: values the evaluator cannot read from Kafka's source."""

    compression_default_levels: tuple[CompressionLevel, ...]
    jvm_defaults: tuple[JvmDefault, ...]


# ---- manual.yaml


class EntryValues(Frozen):
    """Values that replace extracted ones (only the fields written are replaced)."""

    default: str | None = None
    validator: ValidatorForm | None = None


class EntryFix(ReleaseRange):
    """A hand-checked correction of one catalog entry."""

    resource: Resource
    key: str
    values: EntryValues
    why: str


class ManualFacts(Frozen):
    """manual.yaml."""

    entry_fixes: tuple[EntryFix, ...]
    notes: tuple[Note, ...]


# ---- synonyms.yaml


class SynonymMember(Frozen):
    """One broker key of a synonym group and its unit."""

    name: str
    unit: Literal["ms", "minutes", "hours"]


class BrokerSynonymGroup(Frozen):
    """Broker keys that set the same thing (DynamicBrokerConfig.brokerConfigSynonyms)."""

    primary: str
    members: tuple[SynonymMember, ...]
    note: str | None = None


class GroupSynonym(ReleaseRange):
    """A group key and the broker key it takes its value from, in releases without a synonym table."""

    key: str
    broker_key: str | None


class SynonymsFacts(Frozen):
    """synonyms.yaml."""

    broker_synonym_groups: tuple[BrokerSynonymGroup, ...]
    group_synonyms: tuple[GroupSynonym, ...]
    group_synonyms_note: Note


# ---- checks.yaml


class SourceVariant(ReleaseRange):
    """Where a check is, for the releases in range."""

    at: str


class CrossFieldCheck(ReleaseRange):
    """A hand-written cross-field check (catalog ``cross_field_checks`` form, plus its release range)."""

    id: str
    resource: CheckResource
    keys: tuple[str, ...]
    rule: str
    expr: str | None
    source: str | tuple[SourceVariant, ...]
    kafka_effect: str | None = None  # None: ChecksFacts.kafka_effects[resource]
    note: str | None = None
    # the rule names keys that only some releases define; each catalog lists the ones its release has
    only_defined_keys: bool = False

    def source_for(self, release: Release) -> str:
        """The ``source`` of the check in ``release``.

        Raises:
            ValueError: when no source variant covers the release.
        """
        if isinstance(self.source, str):
            return self.source
        for variant in self.source:
            if variant.applies_to(release):
                return variant.at
        raise ValueError(f"check {self.id}: no source for {release}")


class ChecksFacts(Frozen):
    """checks.yaml."""

    kafka_effects: dict[CheckResource, str]
    checks: tuple[CrossFieldCheck, ...]
    client_metrics_code_checks: dict[str, tuple[CodeCheck, ...]]

    @model_validator(mode="after")
    def _ids_unique_per_release(self) -> ChecksFacts:
        # a catalog keeps the first check of an id; two variants of one id must not both apply to a release
        for i, a in enumerate(self.checks):
            for b in self.checks[i + 1 :]:
                if a.id == b.id and _overlap(a, b):
                    raise ValueError(f"check {a.id}: two variants apply to the same release")
        if set(self.kafka_effects) != {"broker", "topic", "group"}:
            raise ValueError("kafka_effects needs broker, topic and group")
        return self


def _overlap(a: ReleaseRange, b: ReleaseRange) -> bool:
    a_before_b = a.until is not None and b.since is not None and a.until <= b.since
    b_before_a = b.until is not None and a.since is not None and b.until <= a.since
    return not (a_before_b or b_before_a)
