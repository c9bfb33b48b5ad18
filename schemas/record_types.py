"""Names and ids of KRaft metadata record types and Raft control record types.

Facts from Kafka's ``metadata/src/main/resources/common/metadata/*.json`` (apiKeys) and
``clients/.../record/ControlRecordType.java`` (control types). The printed name is the schema name in
UPPER_SNAKE_CASE, exactly as ``kafka-dump-log.sh --cluster-metadata-decoder`` prints it.
"""

from __future__ import annotations

from typing import Final

# apiKey -> printed record type. Gaps (6, 13, 16) are ids Kafka retired.
METADATA_RECORD_TYPES: Final[dict[int, str]] = {
    0: "REGISTER_BROKER_RECORD",
    1: "UNREGISTER_BROKER_RECORD",
    2: "TOPIC_RECORD",
    3: "PARTITION_RECORD",
    4: "CONFIG_RECORD",
    5: "PARTITION_CHANGE_RECORD",
    7: "FENCE_BROKER_RECORD",
    8: "UNFENCE_BROKER_RECORD",
    9: "REMOVE_TOPIC_RECORD",
    10: "DELEGATION_TOKEN_RECORD",
    11: "USER_SCRAM_CREDENTIAL_RECORD",
    12: "FEATURE_LEVEL_RECORD",
    14: "CLIENT_QUOTA_RECORD",
    15: "PRODUCER_IDS_RECORD",
    17: "BROKER_REGISTRATION_CHANGE_RECORD",
    18: "ACCESS_CONTROL_ENTRY_RECORD",
    19: "REMOVE_ACCESS_CONTROL_ENTRY_RECORD",
    20: "NO_OP_RECORD",
    21: "ZK_MIGRATION_STATE_RECORD",
    22: "REMOVE_USER_SCRAM_CREDENTIAL_RECORD",
    23: "BEGIN_TRANSACTION_RECORD",
    24: "END_TRANSACTION_RECORD",
    25: "ABORT_TRANSACTION_RECORD",
    26: "REMOVE_DELEGATION_TOKEN_RECORD",
    27: "REGISTER_CONTROLLER_RECORD",
    28: "CLEAR_ELR_RECORD",
    29: "UNREGISTER_CONTROLLER_RECORD",
}

# The seed KIP's dynamic client configs: same entity shape as CLIENT_QUOTA_RECORD, string value.
# It has no binary apiKey in any Kafka release; it only arrives through JSON lines.
CLIENT_CONFIG_RECORD: Final = "CLIENT_CONFIG_RECORD"

METADATA_RECORD_API_KEYS: Final[dict[str, int]] = {name: key for key, name in METADATA_RECORD_TYPES.items()}

# Raft control record type (int16 in the control record key) -> printed name.
CONTROL_RECORD_TYPES: Final[dict[int, str]] = {
    0: "ABORT",
    1: "COMMIT",
    2: "LEADER_CHANGE",
    3: "SNAPSHOT_HEADER",
    4: "SNAPSHOT_FOOTER",
    5: "KRAFT_VERSION",
    6: "KRAFT_VOTERS",
}

CONTROL_RECORD_IDS: Final[dict[str, int]] = {name: key for key, name in CONTROL_RECORD_TYPES.items()}

UNKNOWN_RECORD: Final = "UNKNOWN"
