"""Fixtures for the constraint tests: the MV table, catalog compilation and tiny effective-config rows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from pyspark.sql import functions as F

from schemas.constraints import CompiledCatalog, load_catalog_text
from schemas.gold import EFFECTIVE_CONFIGS
from schemas.metadata_version import MetadataVersionTable
from transforms.configdef.selection import compile_catalog

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def analysed_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The validation tests here see Spark analyse every catalog they give (no remembered validation)."""
    monkeypatch.setenv("KRAFT_AUDIT_VALIDATION_CACHE", "")


@pytest.fixture(scope="session")
def mv_table() -> MetadataVersionTable:
    """The real metadata.version table of conf/."""
    return MetadataVersionTable.model_validate(yaml.safe_load((ROOT / "conf" / "metadata_versions.yaml").read_text()))


@pytest.fixture(scope="session")
def compile_yaml(mv_table: MetadataVersionTable) -> Callable[..., CompiledCatalog]:
    """Compile catalog texts given as ``name=text`` keyword arguments (or one positional text)."""

    def build(*texts: str, **named: str) -> CompiledCatalog:
        sources = [(f"test-{i}.yaml", t) for i, t in enumerate(texts)] + list(named.items())
        return compile_catalog([load_catalog_text(t, name) for name, t in sources], mv_table)

    return build


def effective_row(**fields: Any) -> tuple[Any, ...]:
    """One EFFECTIVE_CONFIGS row: a static broker INT value on node 1 of cluster c1 unless overridden."""
    row: dict[str, Any] = {
        "cluster_id": "c1",
        "resource_type": "BROKER",
        "resource_name": "1",
        "node_id": None,
        "config_name": "x",
        "value": None,
        "value_hash": None,
        "is_sensitive": False,
        "config_type": "INT",
        "source": "STATIC_BROKER_CONFIG",
        "synonym": None,
        "source_offset": None,
        "source_timestamp": None,
        "kafka_release": "4.1",
        "value_set": None,
        "is_assumed": False,
    }
    unknown = set(fields) - set(row)
    assert not unknown, f"not EFFECTIVE_CONFIGS columns: {unknown}"
    row.update(fields)
    return tuple(row[f.name] for f in EFFECTIVE_CONFIGS.fields)


@pytest.fixture(scope="session")
def effective_df_of(spark: Any) -> Callable[..., Any]:
    """Build an EFFECTIVE_CONFIGS DataFrame from keyword dicts (see ``effective_row``)."""

    def build(*rows: dict[str, Any]) -> Any:
        return spark.createDataFrame([effective_row(**r) for r in rows], EFFECTIVE_CONFIGS)

    return build


@pytest.fixture(scope="session")
def topics_df_of(spark: Any) -> Callable[..., Any]:
    """TOPICS rows from (name, partitions, replication_factor, replica_nodes[, internal]) tuples in cluster c1."""
    from schemas.silver import TOPICS

    def build(*topics: tuple[Any, ...]) -> Any:
        rows = []
        for i, t in enumerate(topics):
            name, partitions, rf, nodes = t[:4]
            internal = t[4] if len(t) > 4 else False
            rows.append(("c1", f"id{i:020d}", name, partitions, rf, internal, list(nodes), 0))
        return spark.createDataFrame(rows, TOPICS)

    return build


@pytest.fixture(scope="session")
def cluster_df_of(spark: Any) -> Callable[..., Any]:
    """CLUSTER_STATE of cluster c1 with a current level, live broker and rack counts."""
    from schemas.silver import CLUSTER_STATE

    def build(
        current_level: int | None = 27,
        broker_count: int = 3,
        rack_count: int = 1,
        kafka_release: str | None = None,
        elr_level: int | None = None,
    ) -> Any:
        row = ("c1", current_level, kafka_release, broker_count, rack_count, 0, None, None, None, 0)
        df = spark.createDataFrame([row], CLUSTER_STATE)
        # elr_level: eligible.leader.replicas.version after the upgrade (transforms.effective.upgrade_effects); None:
        # not known
        return df if elr_level is None else df.withColumn("elr_level", F.lit(elr_level))

    return build


@pytest.fixture(scope="session")
def outcomes_of(spark: Any) -> Callable[..., dict[str, int]]:
    """``outcomes_of(rules, cfg, topic=None)``: each expression rule's outcome (``OUTCOME_*``) on one context row
    of the rules' resource type, decoded from the generated mask columns as the evaluation reads them (built with
    ANSI off, run with the session's setting)."""
    from transforms.configdef.expressions import ansi_disabled, expression_mask_columns, expression_slots

    def outcomes(rules: CompiledCatalog, cfg: dict[str, str], topic: tuple[Any, ...] | None = None) -> dict[str, int]:
        slots = expression_slots(rules.expressions)
        rtype = str(rules.expressions[0].constraint.resource_type)
        context_df = spark.createDataFrame(
            [(rtype, cfg, topic, None)],
            "resource_type string, cfg map<string,string>, "
            "topic struct<partitions:int,replication_factor:int,internal:boolean>, "
            "cluster struct<broker_count:int,rack_count:int,elr_level:int>",
        )
        with ansi_disabled(spark):  # built as the evaluation builds it; run with the session's setting (ANSI on)
            masks_df = context_df.select(*expression_mask_columns(slots))
        row = masks_df.collect()[0]
        result = {}
        for rule in rules.expressions:
            chunk, position = slots.slot_of[rule.rule_idx]
            result[rule.constraint.id] = (row[chunk] >> (2 * position)) & 3
        return result

    return outcomes
