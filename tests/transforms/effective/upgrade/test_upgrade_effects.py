"""The upgrade's own side effects (transforms.effective.upgrade_effects), expectations worked out from Kafka's source.

confluentinc/kafka 4.1 (same on 4.2, 4.3, 4.4, master):
* tools/.../FeatureCommand.java ``handleUpgradeOrDowngrade``: ``upgrade --release-version X`` sends every production
  feature at ``Feature.defaultLevel(X)`` when > 0; ``--metadata X`` sends metadata.version only;
* server-common/.../EligibleLeaderReplicasVersion.java: ELRV_1's bootstrap MV is IBP_4_1_IV0 (level 26), so the
  request carries eligible.leader.replicas.version=1 from 4.1-IV0 on, not at 4.0-IV3 (level 25);
* metadata/.../ConfigurationControlManager.java ``updateFeatures`` → ``maybeGenerateElrSafetyRecords``: a
  cluster-level min.insync.replicas = ``getStaticallyConfiguredMinInsyncReplicas(staticConfig)`` when the cluster
  has none (``Integer.toString`` of ``ConfigDef.parseType(INT)`` of the controller's server.properties value, else
  LogConfig's default 1), and a delete for every broker id with a per-broker value.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from schemas.bronze import STATIC_CONFIGS
from schemas.kafka_catalog import CATALOG_CONFIG_KEYS
from schemas.metadata_version import MetadataVersionTable
from schemas.silver import BROKERS, CLUSTER_STATE, CONTROLLERS, DYNAMIC_CONFIGS, FEATURES
from schemas.upgrade_effects import UPGRADE_EFFECTS, UpgradeWith
from transforms.effective.upgrade_effects import (
    ELR_ENABLING_MV,
    apply_upgrade_effects,
    to_upgrade_effect_findings,
    to_upgrade_effects,
    with_elr_after_upgrade,
)

pytestmark = pytest.mark.usefixtures("interpreted_spark")

C = "c1"
TS = datetime(2026, 1, 1, tzinfo=UTC)


def dyn(resource_name: str, value: str, offset: int) -> tuple[Any, ...]:
    return (C, "BROKER", resource_name, "min.insync.replicas", value, None, offset, None, False)


def static(node: int, name: str, value: str, path: str | None = None) -> tuple[Any, ...]:
    return (C, node, path or f"/etc/kafka/{node}.properties", "0" * 64, name, value, None, "i", TS)


def effects(
    spark: SparkSession,
    mv_table: MetadataVersionTable,
    *,
    target: str = "4.2-IV1",
    current_level: int | None = 21,
    elr: int | None = None,
    dynamic: list[tuple[Any, ...]] = (),  # type: ignore[assignment]
    statics: list[tuple[Any, ...]] = (),  # type: ignore[assignment]
    controllers: list[int] = (),  # type: ignore[assignment]
    brokers: list[int] = (1, 2),  # type: ignore[assignment]
    upgrade_with: UpgradeWith = UpgradeWith.RELEASE_VERSION,
) -> tuple[DataFrame, DataFrame]:
    """(effects, dynamic configs) of one cluster."""
    dynamic_df = spark.createDataFrame(list(dynamic), DYNAMIC_CONFIGS)
    brokers_df = spark.createDataFrame(
        [(C, b, None, 1, None, False, False, 7, 26, "4.1", ["4.1"], 2, False, 0) for b in brokers], BROKERS
    )
    elr_rows = [(C, "eligible.leader.replicas.version", elr, 3)] if elr is not None else []
    mv_rows = [(C, "metadata.version", current_level, 1)] if current_level is not None else []
    target_mv = next(v for v in mv_table.levels if v.name == target)
    out = to_upgrade_effects(
        dynamic_configs_df=dynamic_df,
        features_df=spark.createDataFrame(elr_rows + mv_rows, FEATURES),
        cluster_state_df=spark.createDataFrame([(C, current_level, "4.1", 2, 1, 0, None, 10, None, 10)], CLUSTER_STATE),
        brokers_df=brokers_df,
        controllers_df=spark.createDataFrame([(C, c, None, 7, 26, 0) for c in controllers], CONTROLLERS),
        static_configs_df=spark.createDataFrame(list(statics), STATIC_CONFIGS),
        target_keys_df=spark.createDataFrame(
            [("4.2", "BROKER", "min.insync.replicas", "INT", "1", False, False, "cluster-wide", False)],
            CATALOG_CONFIG_KEYS,
        ),
        target=target_mv,
        elr_level=next(v.level for v in mv_table.levels if v.name == ELR_ENABLING_MV),
        upgrade_with=upgrade_with,
    )
    return out, dynamic_df


def rows(df: DataFrame) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["resource_name"], r["operation"]): r.asDict() for r in df.collect()}


def min_isr(df: DataFrame) -> dict[str, str]:
    return {r["resource_name"]: r["value"] for r in df.where("name = 'min.insync.replicas'").collect()}


def test_no_cluster_value_no_controller_file_sets_the_default_and_is_assumed(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    out, dynamic_df = effects(spark, mv_table)
    got = rows(out)
    assert list(got) == [("", "SET")]
    row = got[("", "SET")]
    assert (row["value_before"], row["value_after"], row["value_origin"], row["is_assumed"]) == (
        None,
        "1",
        "DEFAULT_CONFIG",
        True,
    )
    assert (row["feature"], row["feature_level_before"], row["feature_level_after"]) == (
        "eligible.leader.replicas.version",
        0,
        1,
    )
    assert row["command"].endswith("upgrade --release-version 4.2-IV1")
    assert "ConfigurationControlManager.java" in row["reference"] and "confluentinc/kafka" in row["reference"]
    assert "no --static-config of a controller node" in row["message"]
    assert out.schema.fieldNames() == UPGRADE_EFFECTS.fieldNames()
    findings = to_upgrade_effect_findings(out).collect()
    assert [(f["kind"], f["resource_name"], f["config_name"], f["is_blocking"]) for f in findings] == [
        ("ASSUMED_UPGRADE_EFFECT", "", "min.insync.replicas", False)
    ]
    after = apply_upgrade_effects(dynamic_df, out)
    assert min_isr(after) == {"": "1"}
    generated = after.collect()[0]
    assert (generated["source_offset"], generated["from_snapshot"]) == (None, False)


def test_an_existing_cluster_value_is_kept_and_per_broker_values_are_deleted(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    dynamic = [dyn("", "2", 5), dyn("1", "3", 6), dyn("2", "1", 7)]
    out, dynamic_df = effects(spark, mv_table, dynamic=dynamic)
    got = rows(out)
    assert sorted(got) == [("1", "DELETE"), ("2", "DELETE")]
    assert (got[("1", "DELETE")]["value_before"], got[("1", "DELETE")]["value_after"]) == ("3", None)
    assert got[("2", "DELETE")]["source_offset_before"] == 7
    assert not any(r["is_assumed"] for r in got.values())
    assert to_upgrade_effect_findings(out).count() == 0
    assert min_isr(apply_upgrade_effects(dynamic_df, out)) == {"": "2"}


def test_no_cluster_value_with_per_broker_values_takes_the_controllers_static_value(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    # " 02 ": ConfigDef.parseType(INT) trims and Integer.parseInt gives 2; Integer.toString writes "2".
    statics = [
        static(3000, "process.roles", "controller"),
        static(3000, "min.insync.replicas", " 02 "),
        static(1, "process.roles", "broker"),
        static(1, "min.insync.replicas", "3"),  # a broker's file: not the controller's value
    ]
    out, dynamic_df = effects(spark, mv_table, dynamic=[dyn("1", "3", 6)], statics=statics, brokers=[1])
    got = rows(out)
    assert sorted(got) == [("", "SET"), ("1", "DELETE")]
    generated = got[("", "SET")]
    assert (generated["value_after"], generated["value_origin"], generated["controller_node_id"]) == (
        "2",
        "STATIC_BROKER_CONFIG",
        3000,
    )
    assert generated["is_assumed"] is False
    assert "controller 3000's server.properties" in generated["message"]
    assert to_upgrade_effect_findings(out).count() == 0
    assert min_isr(apply_upgrade_effects(dynamic_df, out)) == {"": "2"}


def test_a_controller_file_without_the_key_gives_the_known_default(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    statics = [static(3000, "process.roles", "controller"), static(3000, "node.id", "3000")]
    got = rows(effects(spark, mv_table, statics=statics)[0])
    row = got[("", "SET")]
    assert (row["value_after"], row["value_origin"], row["controller_node_id"], row["is_assumed"]) == (
        "1",
        "DEFAULT_CONFIG",
        3000,
        False,
    )


def test_controllers_that_disagree_make_the_value_assumed(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    # no process.roles and not a registered broker: controller-only files (docs/contract.md §3.4)
    statics = [static(3001, "min.insync.replicas", "3"), static(3000, "min.insync.replicas", "2")]
    out = effects(spark, mv_table, statics=statics)[0]
    row = rows(out)[("", "SET")]
    assert (row["value_after"], row["controller_node_id"], row["is_assumed"]) == ("2", 3000, True)
    assert "disagree" in row["message"] and "3000=2, 3001=3" in row["message"]
    assert to_upgrade_effect_findings(out).count() == 1


def test_a_registered_controller_without_a_file_makes_the_value_assumed(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    statics = [static(3000, "process.roles", "controller"), static(3000, "min.insync.replicas", "2")]
    row = rows(effects(spark, mv_table, statics=statics, controllers=[3000, 3001])[0])[("", "SET")]
    assert (row["value_after"], row["is_assumed"]) == ("2", True)
    assert "3001 have no --static-config" in row["message"]


def test_upgrade_with_metadata_predicts_nothing(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    out, _ = effects(spark, mv_table, dynamic=[dyn("1", "3", 6)], upgrade_with=UpgradeWith.METADATA)
    assert out.count() == 0


@pytest.mark.parametrize(
    ("target", "expected"),
    [("4.0-IV3", []), ("4.1-IV0", [("", "SET"), ("1", "DELETE")]), ("4.4-IV1", [("", "SET"), ("1", "DELETE")])],
    ids=["below-4.1-IV0-no-elr", "at-4.1-IV0-elr-default-1", "4.4-IV1"],
)
def test_the_effect_starts_at_the_elr_enabling_level(
    spark: SparkSession, mv_table: MetadataVersionTable, target: str, expected: list[tuple[str, str]]
) -> None:
    out, _ = effects(spark, mv_table, target=target, dynamic=[dyn("1", "3", 6)])
    assert sorted(rows(out)) == expected


def test_a_cluster_already_at_elr_1_has_nothing_to_change(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    # ELR on: the bootstrap (ActivationRecordsGenerator) or the enabling update wrote the cluster value, and
    # validateAlterConfig rejects per-broker values while ELR is enabled, so the request finds nothing to do
    out, _ = effects(spark, mv_table, current_level=27, elr=1, dynamic=[dyn("", "2", 2)])
    assert out.count() == 0


def test_a_downgrade_target_predicts_nothing(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    out, _ = effects(spark, mv_table, target="4.1-IV1", current_level=29, dynamic=[dyn("1", "3", 6)])
    assert out.count() == 0


def test_an_unknown_current_level_is_treated_as_an_upgrade(spark: SparkSession, mv_table: MetadataVersionTable) -> None:
    out, _ = effects(spark, mv_table, current_level=None, dynamic=[dyn("", "2", 5), dyn("2", "1", 7)])
    assert sorted(rows(out)) == [("2", "DELETE")]


def test_an_invalid_controller_value_falls_back_to_the_default_assumed(
    spark: SparkSession, mv_table: MetadataVersionTable
) -> None:
    statics = [static(3000, "process.roles", "broker, controller"), static(3000, "min.insync.replicas", "two")]
    row = rows(effects(spark, mv_table, statics=statics, brokers=[1])[0])[("", "SET")]
    assert (row["value_after"], row["value_origin"], row["is_assumed"]) == ("1", "DEFAULT_CONFIG", True)
    assert "not an integer" in row["message"]


@pytest.mark.parametrize(
    ("upgrade_with", "expected"),
    [
        (UpgradeWith.RELEASE_VERSION, {"off": 1, "on": 1, "none": 1}),
        (UpgradeWith.METADATA, {"off": 0, "on": 1, "none": 0}),
    ],
    ids=["release-version", "metadata"],
)
def test_the_elr_level_after_the_upgrade_command(
    spark: SparkSession, upgrade_with: UpgradeWith, expected: dict[str, int]
) -> None:
    # --release-version raises every production feature to its default at the target (ELR 1 from 4.1-IV0);
    # --metadata moves only metadata.version (Kafka 4.2.0 / 4.4.0: ELR stayed 0, oracle elr-metadata-only-upgrade)
    clusters = spark.createDataFrame(
        [(c, 29, "4.2", 1, 1, 0, None, 10, None, 10) for c in ("off", "on", "none")], CLUSTER_STATE
    )
    features = spark.createDataFrame(
        [
            ("off", "eligible.leader.replicas.version", 0, 3),
            ("on", "eligible.leader.replicas.version", 1, 3),
            ("none", "metadata.version", 29, 1),
        ],
        FEATURES,
    )
    rows = with_elr_after_upgrade(clusters, features, upgrade_with).collect()
    assert {r["cluster_id"]: r["elr_level"] for r in rows} == expected
    assert len(rows) == 3
