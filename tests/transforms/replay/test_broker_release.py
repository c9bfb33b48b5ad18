"""The release a broker runs, read from every feature range of its registration, and the production MV names a
release accepts (conf/metadata_versions.yaml ``releases``).

Expectations come from each confluentinc/kafka release branch: ``MetadataVersion.LATEST_PRODUCTION`` and each
feature's ``LATEST_PRODUCTION`` in server-common/src/main/java/org/apache/kafka/server/common/, registered by
``BrokerFeatures.defaultSupportedFeatures`` only when above 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pyspark.sql import functions as F

from schemas.errors import UsageError
from schemas.metadata_version import MetadataVersionTable
from transforms.kit.metadata_version import parse_metadata_version
from transforms.replay.brokers import release_candidates

ROOT = Path(__file__).resolve().parents[3]
FEATURES_DDL = "features array<struct<name:string,minSupportedVersion:int,maxSupportedVersion:int>>"


@pytest.fixture(scope="module")
def mv_table() -> MetadataVersionTable:
    return MetadataVersionTable.model_validate(yaml.safe_load((ROOT / "conf" / "metadata_versions.yaml").read_text()))


def _f(name: str, top: int, low: int = 0) -> tuple[str, int, int]:
    return (name, low, top)


COMMON_4X = [_f("kraft.version", 1), _f("transaction.version", 2), _f("group.version", 1)]
ELR = _f("eligible.leader.replicas.version", 1)


@pytest.mark.spark
@pytest.mark.parametrize(
    ("features", "expected"),
    [
        # 4.3: metadata.version up to IBP_4_3_IV0 (30), share.version SV_1, streams.version SV_1
        ([_f("metadata.version", 30, 7), *COMMON_4X, ELR, _f("share.version", 1), _f("streams.version", 1)], ["4.3"]),
        # 4.4.0 as released (Kafka itself, oracle/ scenario "upgrade"): metadata.version up to 4.4-IV2 (33),
        # share.version 2, streams.version 1
        ([_f("metadata.version", 33, 7), *COMMON_4X, ELR, _f("share.version", 2), _f("streams.version", 1)], ["4.4"]),
        # the share.version of 4.4 beside the metadata.version of 4.3: no release registers that pair
        ([_f("metadata.version", 30, 7), *COMMON_4X, ELR, _f("share.version", 2), _f("streams.version", 1)], []),
        # 4.1: IBP_4_1_IV1 (27); StreamsVersion.LATEST_PRODUCTION = SV_0, so streams.version is not registered
        ([_f("metadata.version", 27, 7), *COMMON_4X, ELR, _f("share.version", 1)], ["4.1"]),
        # 3.9: IBP_3_9_IV0 (21) and kraft.version 1 (group/transaction.version default to 0 at 3.9-IV0)
        ([_f("metadata.version", 21, 1), _f("kraft.version", 1)], ["3.9"]),
        # only the metadata.version range: 20 is what 3.8 registers, and 3.9 registers kraft.version 1 besides
        ([_f("metadata.version", 20, 7)], ["3.8"]),
        # unstable feature versions enabled (a level above every release's production one): no release registers it
        ([_f("metadata.version", 34, 7), *COMMON_4X], []),
    ],
    ids=["4.3", "4.4", "4.3-mv-with-4.4-share", "4.1", "3.9", "3.8-mv-only", "unstable-none"],
)
def test_release_candidates_compare_every_registered_feature(
    spark: Any, mv_table: MetadataVersionTable, features: list[tuple[str, int, int]], expected: list[str]
) -> None:
    df = spark.createDataFrame([(features,)], FEATURES_DDL)
    row = df.select(release_candidates(F.col("features"), mv_table).alias("c")).first()
    assert row is not None and row.c == expected


@pytest.mark.spark
@pytest.mark.parametrize(
    "features", [None, [], [_f("kraft.version", 1)]], ids=["null", "empty", "no-metadata-version-range"]
)
def test_a_registration_without_a_metadata_version_range_gives_no_candidates(
    spark: Any, mv_table: MetadataVersionTable, features: Any
) -> None:
    # brokers before 3.3 register no metadata.version range: nothing to compare, not "every release fits"
    df = spark.createDataFrame([(features,)], FEATURES_DDL)
    row = df.select(release_candidates(F.col("features"), mv_table).alias("c")).first()
    assert row is not None and row.c is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("4.2", "4.2-IV1"),
        ("4.3", "4.3-IV0"),
        ("4.4", "4.4-IV2"),
        ("4.1", "4.1-IV1"),
        ("3.7", "3.7-IV4"),
        ("4.4-IV1", "4.4-IV1"),
    ],
    ids=["4.2-latest-production", "4.3", "4.4-as-released", "4.1", "3.7-LATEST_PRODUCTION-is-IV4", "named-level"],
)
def test_a_bare_release_names_its_newest_production_level(mv_table: MetadataVersionTable, text: str, name: str) -> None:
    assert parse_metadata_version(text, mv_table).name == name


def test_a_release_accepting_none_of_its_own_levels_is_refused(mv_table: MetadataVersionTable) -> None:
    # a release branch read before its release (confluentinc/kafka 4.4 in 2026-08: LATEST_PRODUCTION = IBP_4_3_IV0):
    # fromVersionString("4.4") fails there, so the audit refuses the bare release and names the level it accepts
    early = [
        r.model_copy(update={"latest_production_mv": "4.3-IV0"}) if r.release == "4.4" else r for r in mv_table.releases
    ]
    table = mv_table.model_copy(update={"releases": tuple(early)})
    with pytest.raises(UsageError, match=r"Kafka 4.4 accepts none of 4.4-IV0, 4.4-IV1, 4.4-IV2 as production"):
        parse_metadata_version("4.4", table)


def test_production_levels_of_a_release_end_at_its_latest_production(mv_table: MetadataVersionTable) -> None:
    levels = mv_table.production_levels("4.4")
    assert levels is not None and levels[-1].name == "4.4-IV2"  # Kafka 4.4.0 finalizes level 33 (oracle/)
    levels = mv_table.production_levels("4.3")
    assert levels is not None and levels[-1].name == "4.3-IV0"
    assert mv_table.production_levels("2.8") is None
