"""Which records a synthetic cluster writes, and in which layout: apiKeys, ConfigRecord resource types, the
``metadata.version`` levels at which record versions change, finalized and supported features, and the bootstrap
records ``kafka-storage format`` writes."""

from __future__ import annotations

from typing import Any, Final

from synthetic.plan import ClusterPlan
from synthetic.spec import RELEASES
from transforms.decode.binary.encode import MetadataRecordSpec

__all__ = [
    "ABORT_TRANSACTION",
    "BEGIN_TRANSACTION",
    "BROKER_REGISTRATION_CHANGE",
    "CLEAR_ELR",
    "CLIENT_QUOTA",
    "CONFIG",
    "END_TRANSACTION",
    "FEATURE_LEVEL",
    "MV_3_4_IV0",
    "MV_3_7_IV0",
    "MV_3_7_IV2",
    "MV_4_0_IV0",
    "MV_4_0_IV1",
    "MV_4_1_IV0",
    "MV_4_3_IV0",
    "NO_OP",
    "PARTITION",
    "PARTITION_CHANGE",
    "PRODUCER_IDS",
    "REGISTER_BROKER",
    "REGISTER_CONTROLLER",
    "REMOVE_TOPIC",
    "RESOURCE_TYPE_NAMES",
    "RT_BROKER",
    "RT_CLIENT_METRICS",
    "RT_GROUP",
    "RT_TOPIC",
    "STATIC_CONFIGS_VERSION",
    "TOPIC",
    "UNREGISTER_BROKER",
    "ZK_MIGRATION_STATE",
    "bootstrap_records",
    "finalized_features",
    "partition_record_version",
    "register_broker_version",
    "registration_change_version",
    "supported_features",
]

# apiKeys of the records the generator writes (schemas/record_types.py).
REGISTER_BROKER: Final = 0
UNREGISTER_BROKER: Final = 1
TOPIC: Final = 2
PARTITION: Final = 3
CONFIG: Final = 4
PARTITION_CHANGE: Final = 5
REMOVE_TOPIC: Final = 9
FEATURE_LEVEL: Final = 12
CLIENT_QUOTA: Final = 14
PRODUCER_IDS: Final = 15
BROKER_REGISTRATION_CHANGE: Final = 17
NO_OP: Final = 20
ZK_MIGRATION_STATE: Final = 21
BEGIN_TRANSACTION: Final = 23
END_TRANSACTION: Final = 24
ABORT_TRANSACTION: Final = 25
REGISTER_CONTROLLER: Final = 27
CLEAR_ELR: Final = 28

# ConfigRecord resource types.
RT_TOPIC: Final = 2
RT_BROKER: Final = 4
RT_CLIENT_METRICS: Final = 16
RT_GROUP: Final = 32
RESOURCE_TYPE_NAMES: Final = {
    RT_TOPIC: "TOPIC",
    RT_BROKER: "BROKER",
    RT_CLIENT_METRICS: "CLIENT_METRICS",
    RT_GROUP: "GROUP",
}

# Feature levels at which record layouts change (docs/kafka-semantics.md §4).
MV_3_4_IV0: Final = 8
MV_3_7_IV0: Final = 15  # RegisterControllerRecord
MV_3_7_IV2: Final = 17  # JBOD: RegisterBrokerRecord v3, PartitionRecord v1, BRCR v2
MV_4_0_IV0: Final = 22  # ZK migration gone from bootstrap
MV_4_0_IV1: Final = 23  # PartitionRecord v2, ClearElrRecord
MV_4_1_IV0: Final = 26  # ELR on by default
MV_4_3_IV0: Final = 30  # RegisterBrokerRecord v4, BRCR v3
STATIC_CONFIGS_VERSION: Final = 5  # RegisterBrokerRecord v5 carries StaticConfigs (KIP-1294 seed)


# Record versions by metadata.version level (docs/kafka-semantics.md §4).
def register_broker_version(level: int) -> int:
    """RegisterBrokerRecord version a controller at ``level`` writes."""
    return 4 if level >= MV_4_3_IV0 else 3 if level >= MV_3_7_IV2 else 2 if level >= MV_3_4_IV0 else 1


def partition_record_version(level: int) -> int:
    """PartitionRecord / PartitionChangeRecord version at ``level``."""
    return 2 if level >= MV_4_0_IV1 else 1 if level >= MV_3_7_IV2 else 0


def registration_change_version(level: int) -> int:
    """BrokerRegistrationChangeRecord version at ``level``."""
    return 3 if level >= MV_4_3_IV0 else 2 if level >= MV_3_7_IV2 else 1


def finalized_features(release: str) -> list[tuple[str, int]]:
    """Non-MV features ``kafka-storage format`` finalizes by default for a release (4.x)."""
    major_minor = tuple(int(p) for p in release.split("."))
    features: list[tuple[str, int]] = []
    if major_minor >= (4, 0):
        features += [("group.version", 1), ("transaction.version", 2)]
    if major_minor >= (4, 1):
        features.append(("eligible.leader.replicas.version", 1))
    if major_minor >= (4, 2):
        features += [("share.version", 1), ("streams.version", 1)]
    return features


def supported_features(release: str, level: int) -> list[dict[str, Any]]:
    """Features a node of ``release`` registers as supported (min .. max)."""
    major_minor = tuple(int(p) for p in release.split("."))
    out = [
        {
            "name": "metadata.version",
            "minSupportedVersion": 7 if major_minor >= (4, 0) else 1,
            "maxSupportedVersion": level,
        }
    ]
    if major_minor >= (3, 9):
        out.append({"name": "kraft.version", "minSupportedVersion": 0, "maxSupportedVersion": 1})
    out += [
        {"name": name, "minSupportedVersion": 0, "maxSupportedVersion": top}
        for name, top in finalized_features(release)
    ]
    return out


def bootstrap_records(plan: ClusterPlan) -> list[MetadataRecordSpec]:
    """What ``bootstrap.checkpoint`` holds: the finalized features the cluster was formatted with."""
    release = _release_of_level(plan)
    records: list[MetadataRecordSpec] = [
        (FEATURE_LEVEL, 0, {"name": "metadata.version", "featureLevel": plan.bootstrap_level})
    ]
    records += [(FEATURE_LEVEL, 0, {"name": n, "featureLevel": v}) for n, v in finalized_features(release)]
    return records


def _release_of_level(plan: ClusterPlan) -> str:
    """The release whose features the cluster was formatted with (the previous one when its MV lags)."""
    if plan.bootstrap_level == plan.level:
        return plan.release
    return RELEASES[RELEASES.index(plan.release) - 1]
