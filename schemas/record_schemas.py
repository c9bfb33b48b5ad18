"""Declarative schemas of every KRaft metadata record and Raft control record body.

Data only: the binary codec in ``transforms/binary`` compiles these specs into readers and writers once per
``(apiKey, version)``. Field lists, versions, tags and defaults are facts taken from Kafka's message JSON files
(``metadata/src/main/resources/common/metadata/*.json`` and
``clients/src/main/resources/common/message/{LeaderChangeMessage,SnapshotHeaderRecord,...}.json``, CCS master),
plus RegisterBrokerRecord v5 ``StaticConfigs`` from the KIP-1294 seed.

Conventions (the same as Kafka's JSON schemas):

* ``versions`` / ``nullable_versions`` / ``tagged_versions`` are Kafka version ranges: ``"0+"``, ``"2+"``,
  ``"0-2"``, ``"3"`` or ``"none"``.
* ``type`` is a primitive (``int8 int16 int32 int64 uint16 float64 bool uuid string bytes``), an array ``[]X``
  of a primitive or of a struct, or a struct name. Struct and struct-array fields list their ``fields``.
* ``default`` is Kafka's JSON default literal (``"-1"``, ``"true"``, ``"null"``); ``None`` means the type's zero
  value (0, false, empty string, empty array, the all-zero uuid).
* Field order is wire order. Tagged fields are written only in the tagged-field section of their struct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a message or struct, as declared in Kafka's JSON schema."""

    name: str  # schema name in PascalCase; the JSON key is json_key(name)
    type: str
    versions: str = "0+"
    nullable_versions: str = "none"
    tag: int | None = None
    tagged_versions: str = "none"
    default: str | None = None
    fields: tuple[FieldSpec, ...] = ()  # members of a struct or of the elements of a struct array


@dataclass(frozen=True, slots=True)
class MessageSpec:
    """A whole record body: its schema name, supported versions and top-level fields."""

    name: str
    valid_versions: str
    fields: tuple[FieldSpec, ...]
    flexible_versions: str = "0+"  # every metadata record and KRaft control body is flexible from v0


def json_key(name: str) -> str:
    """Return the JSON key kafka-dump-log prints for a schema field name.

    Kafka's JSON converters lower-case only the first letter: ``ResourceType`` → ``resourceType``,
    ``KRaftVersion`` → ``kRaftVersion``.

    Args:
        name: The PascalCase field name from the schema.

    Returns:
        The name with its first character lower-cased.
    """
    return name[:1].lower() + name[1:]


def _f(
    name: str,
    type_: str,
    versions: str = "0+",
    *,
    nullable: str = "none",
    tag: int | None = None,
    tagged: str = "none",
    default: str | None = None,
    fields: tuple[FieldSpec, ...] = (),
) -> FieldSpec:
    """Shorthand constructor that keeps the tables below one field per line."""
    return FieldSpec(name, type_, versions, nullable, tag, tagged, default, fields)


# Broker and controller endpoints / features share one shape in RegisterBroker and RegisterController.
_ENDPOINT: Final = (
    _f("Name", "string"),  # mapKey
    _f("Host", "string"),
    _f("Port", "uint16"),
    _f("SecurityProtocol", "int16"),  # 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL
)
_FEATURE: Final = (
    _f("Name", "string"),  # mapKey
    _f("MinSupportedVersion", "int16"),
    _f("MaxSupportedVersion", "int16"),
)

METADATA_RECORD_SCHEMAS: Final[dict[int, MessageSpec]] = {
    0: MessageSpec(
        "RegisterBrokerRecord",
        "0-5",
        (
            _f("BrokerId", "int32"),
            _f("IsMigratingZkBroker", "bool", "2+", default="false"),
            _f("IncarnationId", "uuid"),
            _f("BrokerEpoch", "int64"),
            _f("EndPoints", "[]BrokerEndpoint", fields=_ENDPOINT),
            _f("Features", "[]BrokerFeature", fields=_FEATURE),
            _f("Rack", "string", nullable="0+"),
            _f("Fenced", "bool", default="true"),
            _f("InControlledShutdown", "bool", "1+", default="false"),
            _f("LogDirs", "[]uuid", "3+", tag=0, tagged="3+"),
            _f("CordonedLogDirs", "[]uuid", "4+", nullable="4+", tag=1, tagged="4+", default="null"),
            # KIP-1294 seed: the broker's static server.properties values (and defaults) at registration.
            _f(
                "StaticConfigs",
                "[]StaticConfig",
                "5+",
                tag=2,
                tagged="5+",
                fields=(_f("Name", "string"), _f("Value", "string", nullable="0+")),
            ),
        ),
    ),
    1: MessageSpec("UnregisterBrokerRecord", "0", (_f("BrokerId", "int32"), _f("BrokerEpoch", "int64"))),
    2: MessageSpec("TopicRecord", "0", (_f("Name", "string"), _f("TopicId", "uuid"))),
    3: MessageSpec(
        "PartitionRecord",
        "0-2",
        (
            _f("PartitionId", "int32", default="-1"),
            _f("TopicId", "uuid"),
            _f("Replicas", "[]int32"),
            _f("Isr", "[]int32"),
            _f("RemovingReplicas", "[]int32"),
            _f("AddingReplicas", "[]int32"),
            _f("Leader", "int32", default="-1"),
            # 0 RECOVERED, 1 RECOVERING; tagged, so absent from the wire (and the JSON) when 0.
            _f("LeaderRecoveryState", "int8", tag=0, tagged="0+", default="0"),
            _f("LeaderEpoch", "int32", default="-1"),
            _f("PartitionEpoch", "int32", default="-1"),
            _f("Directories", "[]uuid", "1+"),
            _f("EligibleLeaderReplicas", "[]int32", "2+", nullable="2+", tag=1, tagged="2+", default="null"),
            _f("LastKnownElr", "[]int32", "2+", nullable="2+", tag=2, tagged="2+", default="null"),
        ),
    ),
    4: MessageSpec(
        "ConfigRecord",
        "0",
        (
            _f("ResourceType", "int8"),  # 2 TOPIC, 4 BROKER, 16 CLIENT_METRICS, 32 GROUP
            _f("ResourceName", "string"),  # "" with BROKER = cluster-wide default
            _f("Name", "string"),
            _f("Value", "string", nullable="0+"),  # null deletes the key
        ),
    ),
    5: MessageSpec(
        "PartitionChangeRecord",
        "0-2",
        (
            _f("PartitionId", "int32", default="-1"),
            _f("TopicId", "uuid"),
            # Absent tagged fields mean "no change".
            _f("Isr", "[]int32", nullable="0+", tag=0, tagged="0+", default="null"),
            _f("Leader", "int32", tag=1, tagged="0+", default="-2"),  # -2 unchanged, -1 no leader
            _f("Replicas", "[]int32", nullable="0+", tag=2, tagged="0+", default="null"),
            _f("RemovingReplicas", "[]int32", nullable="0+", tag=3, tagged="0+", default="null"),
            _f("AddingReplicas", "[]int32", nullable="0+", tag=4, tagged="0+", default="null"),
            _f("LeaderRecoveryState", "int8", tag=5, tagged="0+", default="-1"),
            _f("Directories", "[]uuid", "1+", nullable="1+", tag=8, tagged="1+", default="null"),
            _f("EligibleLeaderReplicas", "[]int32", "2+", nullable="2+", tag=6, tagged="2+", default="null"),
            _f("LastKnownElr", "[]int32", "2+", nullable="2+", tag=7, tagged="2+", default="null"),
        ),
    ),
    # Fence/Unfence were replaced by BrokerRegistrationChangeRecord at MV 3.3-IV2.
    7: MessageSpec("FenceBrokerRecord", "0", (_f("Id", "int32"), _f("Epoch", "int64"))),
    8: MessageSpec("UnfenceBrokerRecord", "0", (_f("Id", "int32"), _f("Epoch", "int64"))),
    9: MessageSpec("RemoveTopicRecord", "0", (_f("TopicId", "uuid"),)),
    10: MessageSpec(
        "DelegationTokenRecord",
        "0",
        (
            _f("Owner", "string"),
            _f("Requester", "string"),
            _f("Renewers", "[]string"),
            _f("IssueTimestamp", "int64"),
            _f("MaxTimestamp", "int64"),
            _f("ExpirationTimestamp", "int64"),
            _f("TokenId", "string"),
        ),
    ),
    11: MessageSpec(
        "UserScramCredentialRecord",
        "0",
        (
            _f("Name", "string"),
            _f("Mechanism", "int8"),  # 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
            _f("Salt", "bytes"),
            _f("StoredKey", "bytes"),
            _f("ServerKey", "bytes"),
            _f("Iterations", "int32"),
        ),
    ),
    # The version of FeatureLevelRecord can never advance beyond 0 (it says which MV is needed to read the log).
    12: MessageSpec("FeatureLevelRecord", "0", (_f("Name", "string"), _f("FeatureLevel", "int16"))),
    14: MessageSpec(
        "ClientQuotaRecord",
        "0",
        (
            _f(
                "Entity",
                "[]EntityData",
                # EntityType user / client-id / ip; a null EntityName is the default entity.
                fields=(_f("EntityType", "string"), _f("EntityName", "string", nullable="0+")),
            ),
            _f("Key", "string"),
            _f("Value", "float64"),
            _f("Remove", "bool"),
        ),
    ),
    15: MessageSpec(
        "ProducerIdsRecord",
        "0",
        (_f("BrokerId", "int32"), _f("BrokerEpoch", "int64", default="-1"), _f("NextProducerId", "int64")),
    ),
    17: MessageSpec(
        "BrokerRegistrationChangeRecord",
        "0-3",
        (
            _f("BrokerId", "int32"),
            _f("BrokerEpoch", "int64"),
            _f("Fenced", "int8", tag=0, tagged="0+"),  # -1 unfenced, 0 no change, 1 fenced
            _f("InControlledShutdown", "int8", "1+", tag=1, tagged="1+"),  # 0 no change, 1 shutting down
            _f("LogDirs", "[]uuid", "2+", tag=2, tagged="2+"),
            _f("CordonedLogDirs", "[]uuid", "3+", nullable="3+", tag=3, tagged="3+", default="null"),
        ),
    ),
    18: MessageSpec(
        "AccessControlEntryRecord",
        "0",
        (
            _f("Id", "uuid"),
            _f("ResourceType", "int8"),
            _f("ResourceName", "string"),
            _f("PatternType", "int8"),
            _f("Principal", "string"),
            _f("Host", "string"),
            _f("Operation", "int8"),
            _f("PermissionType", "int8"),
        ),
    ),
    19: MessageSpec("RemoveAccessControlEntryRecord", "0", (_f("Id", "uuid"),)),
    20: MessageSpec("NoOpRecord", "0", ()),
    # Declared in ZkMigrationRecord.json. 3.5+: 0 None, 1 Migration, 2 PreMigration, 3 PostMigration.
    21: MessageSpec("ZkMigrationStateRecord", "0", (_f("ZkMigrationState", "int8"),)),
    22: MessageSpec("RemoveUserScramCredentialRecord", "0", (_f("Name", "string"), _f("Mechanism", "int8"))),
    # Metadata transactions (MV >= 3.6-IV1): records between Begin and End apply atomically.
    23: MessageSpec(
        "BeginTransactionRecord",
        "0",
        (_f("Name", "string", nullable="0+", tag=0, tagged="0+", default="null"),),
    ),
    24: MessageSpec("EndTransactionRecord", "0", ()),
    25: MessageSpec(
        "AbortTransactionRecord",
        "0",
        (_f("Reason", "string", nullable="0+", tag=0, tagged="0+", default="null"),),
    ),
    26: MessageSpec("RemoveDelegationTokenRecord", "0", (_f("TokenId", "string"),)),
    27: MessageSpec(
        "RegisterControllerRecord",
        "0",
        (
            _f("ControllerId", "int32"),
            _f("IncarnationId", "uuid"),
            _f("ZkMigrationReady", "bool"),
            _f("EndPoints", "[]ControllerEndpoint", fields=_ENDPOINT),
            _f("Features", "[]ControllerFeature", fields=_FEATURE),
        ),
    ),
    28: MessageSpec("ClearElrRecord", "0", (_f("TopicName", "string"),)),  # "" = all topics
    29: MessageSpec("UnregisterControllerRecord", "0", (_f("ControllerId", "int32"),)),
}

# LeaderChangeMessage's commonStruct Voter, used by both of its voter lists.
_VOTER: Final = (_f("VoterId", "int32"), _f("VoterDirectoryId", "uuid", "1+"))

# Control record bodies, keyed by the control type in the record key. The value is the bare body (no frame);
# its first field is an int16 Version. Kafka's ControlRecordUtils serialises and parses every body at schema
# version 0, so the Version field, not the wire, tells the body's version.
CONTROL_RECORD_SCHEMAS: Final[dict[int, MessageSpec]] = {
    # ABORT / COMMIT markers of client transactions (EndTxnMarker, not flexible); never in metadata logs.
    0: MessageSpec("EndTxnMarker", "0", (_f("Version", "int16"), _f("CoordinatorEpoch", "int32")), "none"),
    1: MessageSpec("EndTxnMarker", "0", (_f("Version", "int16"), _f("CoordinatorEpoch", "int32")), "none"),
    2: MessageSpec(
        "LeaderChangeMessage",
        "0-1",
        (
            _f("Version", "int16"),
            _f("LeaderId", "int32"),
            _f("Voters", "[]Voter", fields=_VOTER),
            _f("GrantingVoters", "[]Voter", fields=_VOTER),
        ),
    ),
    3: MessageSpec("SnapshotHeaderRecord", "0", (_f("Version", "int16"), _f("LastContainedLogTimestamp", "int64"))),
    4: MessageSpec("SnapshotFooterRecord", "0", (_f("Version", "int16"),)),
    5: MessageSpec("KRaftVersionRecord", "0", (_f("Version", "int16"), _f("KRaftVersion", "int16"))),
    6: MessageSpec(
        "VotersRecord",
        "0",
        (
            _f("Version", "int16"),
            _f(
                "Voters",
                "[]Voter",
                fields=(
                    _f("VoterId", "int32"),
                    _f("VoterDirectoryId", "uuid"),
                    _f(
                        "Endpoints",
                        "[]Endpoint",
                        fields=(_f("Name", "string"), _f("Host", "string"), _f("Port", "uint16")),
                    ),
                    _f(
                        "KRaftVersionFeature",
                        "KRaftVersionFeature",  # a plain (non-array) struct
                        fields=(_f("MinSupportedVersion", "int16"), _f("MaxSupportedVersion", "int16")),
                    ),
                ),
            ),
        ),
    ),
}
