"""kraft-audit's per-release catalogs (conf/kafka/) against what each released Kafka runtime defines (issue #60).

The dumps under tests/data/kafka-oracle/configdefs/ were printed by oracle/java/ConfigDefs.java from the jars of
each release (``make kafka-configdefs``); the comparison needs no Kafka. The live test re-dumps every release
fetched here and checks the committed dump is still what its jars say.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle.configdefs import FIXTURES, catalog, compare, dump, feature_line
from oracle.runtime import available

DUMPS = sorted(FIXTURES.glob("*.json"))

# Differences that are patch-level facts, not catalog errors: a catalog describes an X.Y branch.
PATCH_LEVEL = {
    # KAFKA-19026 (confluentinc/kafka 3.9, commit 85a2d1a6fd, ServerLogConfigs.java) landed on the 3.9 branch after
    # 3.9.1: 3.9.1's jars do not define the key; the 3.9 catalog keeps it, as a later 3.9.x will define it.
    "3.9.1": ["broker alter.config.policy.kraft.compatibility.enable: in the catalog, not defined by Kafka"],
}


def test_every_release_line_of_the_oracle_has_a_dump() -> None:
    assert {feature_line(p.stem) for p in DUMPS} >= {"3.7", "3.9", "4.0", "4.1", "4.2", "4.3", "4.4"}


@pytest.mark.parametrize("path", DUMPS, ids=[p.stem for p in DUMPS])
def test_the_catalog_of_a_release_defines_what_its_jars_define(path: Path) -> None:
    kafka = json.loads(path.read_text())
    assert compare(kafka, catalog(feature_line(kafka["version"]))) == PATCH_LEVEL.get(kafka["version"], [])


def test_the_comparison_sees_a_key_a_default_and_a_fallback_that_differ() -> None:
    kafka = json.loads((FIXTURES / "4.4.0.json").read_text())
    doc = catalog("4.4")
    doc["broker"] = [e for e in doc["broker"] if e["name"] != "max.decompressed.message.bytes"]
    doc["topic"] = [{**e, "default": "1"} if e["name"] == "max.message.bytes" else e for e in doc["topic"]]
    doc["topic_synonyms"].pop("max.decompressed.message.bytes")
    assert compare(kafka, doc) == [
        "broker max.decompressed.message.bytes: defined by Kafka, missing from the catalog",
        "topic max.message.bytes: default '1' in the catalog, '1048588' in Kafka",
        "topic max.decompressed.message.bytes: falls back to [] in the catalog, ['max.decompressed.message.bytes'] "
        "in Kafka",
    ]


@pytest.mark.system
def test_the_committed_dumps_are_what_the_fetched_jars_define() -> None:
    fetched = available([p.stem for p in DUMPS])
    if not fetched:
        pytest.skip("no Kafka release is fetched here (make setup fetches 4.4.0)")
    for runtime in fetched:
        assert dump(runtime) == json.loads((FIXTURES / f"{runtime.version}.json").read_text()), runtime.version
