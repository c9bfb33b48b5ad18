"""Kafka's code validators translated into catalog rules: accepted and rejected values, evaluated by Spark.

The values and verdicts come from reading the validators in Kafka's source (see kafka_validators' docstring), not
from running the translation. One evaluation per target release covers all keys of that release.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import yaml

from jobs.runtime.expression_check import validate_with_spark
from schemas.metadata_version import MetadataVersionTable
from transforms.configdef.generate import generate_default_catalog, untranslated_validators
from transforms.constraints import compile_catalog, evaluate_constraints
from transforms.kit.metadata_version import parse_metadata_version

from .conftest import ROOT

pytestmark = pytest.mark.spark
KAFKA_DOCS = sorted((ROOT / "conf" / "kafka").glob("*.yaml"))
VOTERS, BOOTSTRAP = "controller.quorum.voters", "controller.quorum.bootstrap.servers"
THROTTLED = "leader.replication.throttled.replicas"
SOURCES = {
    "TOPIC": "DYNAMIC_TOPIC_CONFIG",
    "GROUP": "DYNAMIC_GROUP_CONFIG",
    "CLIENT_METRICS": "DYNAMIC_CLIENT_METRICS_CONFIG",
    "BROKER": "STATIC_BROKER_CONFIG",
}

# (target MV, resource type, key, config type, value, violates)
CASES: list[tuple[str, str, str, str, str, bool]] = [
    ("4.4-IV1", "TOPIC", THROTTLED, "LIST", "0:1, 1:2", False),
    ("4.4-IV1", "TOPIC", THROTTLED, "LIST", "*", False),
    ("4.4-IV1", "TOPIC", THROTTLED, "LIST", "0:1,,1:2", False),  # empty elements match ([0-9]+:[0-9]+)?
    ("4.4-IV1", "TOPIC", THROTTLED, "LIST", "*,0:1", True),
    ("4.4-IV1", "TOPIC", THROTTLED, "LIST", "0-1", True),
    ("4.4-IV1", "BROKER", VOTERS, "LIST", "1@localhost:9092,2@[::1]:9093", False),
    ("4.4-IV1", "BROKER", VOTERS, "LIST", "", False),
    ("4.4-IV1", "BROKER", VOTERS, "LIST", "x@localhost:9092", True),  # id not an int
    ("4.4-IV1", "BROKER", VOTERS, "LIST", "1@localhost:99999", True),  # port out of range
    ("4.4-IV1", "BROKER", VOTERS, "LIST", "1@host name:9092", True),  # space: not in HOST_PORT_PATTERN (4.x)
    ("4.4-IV1", "BROKER", VOTERS, "LIST", "1@a@b:9092", True),
    ("4.4-IV1", "BROKER", BOOTSTRAP, "LIST", "b1:9092,b2:9092", False),
    ("4.4-IV1", "BROKER", BOOTSTRAP, "LIST", "b1", True),
    ("4.4-IV1", "GROUP", "share.auto.offset.reset", "STRING", "earliest", False),
    ("4.4-IV1", "GROUP", "share.auto.offset.reset", "STRING", "by_duration:PT1H30M", False),
    ("4.4-IV1", "GROUP", "share.auto.offset.reset", "STRING", "by_duration:-PT1H", True),
    ("4.4-IV1", "GROUP", "share.auto.offset.reset", "STRING", "by_duration:PT-1H2M", True),
    ("4.4-IV1", "GROUP", "share.auto.offset.reset", "STRING", "by_duration:P", True),
    ("4.4-IV1", "GROUP", "share.auto.offset.reset", "STRING", "EARLIEST", True),
    ("4.4-IV1", "GROUP", "share.auto.offset.reset", "STRING", "none", True),
    ("4.4-IV1", "CLIENT_METRICS", "match", "LIST", "client_id=app.*, client_software_name = java", False),
    ("4.4-IV1", "CLIENT_METRICS", "match", "LIST", "client_idx=app", True),
    ("4.4-IV1", "CLIENT_METRICS", "match", "LIST", "client_id=a=b", True),
    ("3.9-IV0", "BROKER", "remote.log.manager.copier.thread.pool.size", "INT", "-1", False),
    ("3.9-IV0", "BROKER", "remote.log.manager.copier.thread.pool.size", "INT", "0", True),
    ("3.9-IV0", "BROKER", "remote.log.manager.copier.thread.pool.size", "INT", "-2", True),
    ("3.9-IV0", "BROKER", "inter.broker.protocol.version", "STRING", "3.9", False),
    ("3.9-IV0", "BROKER", "inter.broker.protocol.version", "STRING", "3.9-IV0", False),
    ("3.9-IV0", "BROKER", "inter.broker.protocol.version", "STRING", "2.8.1", False),  # key "2.8"
    ("3.9-IV0", "BROKER", "inter.broker.protocol.version", "STRING", "4.0-IV1", False),  # in the 3.9 enum
    ("3.9-IV0", "BROKER", "inter.broker.protocol.version", "STRING", "4.0", True),  # not a production release
    ("3.9-IV0", "BROKER", "inter.broker.protocol.version", "STRING", "3.3..", True),
    ("3.9-IV0", "TOPIC", "message.format.version", "STRING", "0.10.0.1", False),  # key "0.10.0"
    ("3.9-IV0", "TOPIC", "message.format.version", "STRING", "0.10", True),
    ("3.9-IV0", "BROKER", VOTERS, "LIST", "1@host name:9092", False),  # 3.9 still has the lenient pattern
    ("3.3-IV3", "BROKER", "inter.broker.protocol.version", "STRING", "3.4", True),  # not in 3.3's enum
]


@pytest.fixture(scope="module")
def verdicts(
    spark: Any,
    mv_table: MetadataVersionTable,
    effective_df_of: Callable[..., Any],
    topics_df_of: Callable[..., Any],
    cluster_df_of: Any,
) -> dict[int, bool]:
    docs = [(p.name, yaml.safe_load(p.read_text())) for p in KAFKA_DOCS]
    catalog = generate_default_catalog(docs, mv_table)
    keys = {key for _, _, key, _, _, _ in CASES}
    chosen = tuple(c for c in catalog.constraints if c.config in keys and not c.id.endswith("-type"))
    rules = compile_catalog([catalog.model_copy(update={"constraints": chosen})], mv_table)
    validate_with_spark(rules, spark)
    out: dict[int, bool] = {}
    for target in sorted({c[0] for c in CASES}):
        cases = [(i, c) for i, c in enumerate(CASES) if c[0] == target]
        effective_df = effective_df_of(
            *[
                {
                    "resource_type": rtype,
                    "resource_name": f"case{i}",
                    "config_name": key,
                    "config_type": ctype,
                    "value": value,
                    "source": SOURCES[rtype],
                }
                for i, (_, rtype, key, ctype, value, _) in cases
            ]
        )
        topics_df = topics_df_of()
        rows = evaluate_constraints(
            effective_df,
            topics_df,
            cluster_df_of(27),
            rules,
            target=parse_metadata_version(target, mv_table),
            run_id="r",
            run_ts=datetime(2026, 1, 1, tzinfo=UTC),
        ).collect()
        failing = {int(r.resource_name.removeprefix("case")) for r in rows}
        out.update({i: i in failing for i, _ in cases})
    return out


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c[0]}-{c[2]}={c[4] or 'empty'}" for c in CASES])
def test_translated_validator_accepts_what_kafka_accepts(verdicts: dict[int, bool], index: int) -> None:
    assert verdicts[index] == CASES[index][5]


def test_only_the_match_pattern_compilation_stays_untranslated() -> None:
    docs = [(p.name, yaml.safe_load(p.read_text())) for p in KAFKA_DOCS]
    gaps = untranslated_validators(docs)
    assert {release for release, items in gaps.items() if items} == {
        "3.7",
        "3.8",
        "3.9",
        "4.0",
        "4.1",
        "4.2",
        "4.3",
        "4.4",
    }
    assert {item for items in gaps.values() for item in items} == {
        "client_metrics match: ClientMetricsConfigs.parseMatchingPatterns (whether the pattern compiles)"
    }
