"""A gate accounts for every input it was given: a cluster it could not read blocks the verdict (issue 58, case 1).

The fleet: cluster ``good`` is the hand-written JSON-lines cluster of tests/data/e2e, which passes the segment rule
at 4.2 (tests/jobs/test_audit_e2e.py::test_gate_exits_0_when_nothing_blocks); cluster ``garbage`` is one file named
like a log segment holding random bytes, so no record of it decodes and ingest quarantines it. The gate over ``good``
alone is SAFE; over both it must not be.
"""

from __future__ import annotations

import json
import random
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.cli import main as cli_main
from jobs.storage import open_store

DATA = Path(__file__).resolve().parent.parent / "data" / "e2e"


def _gate(tmp: Path, name: str, *inputs: Path) -> tuple[int, dict[str, Any], ET.Element, str]:
    summary, junit = tmp / f"{name}.json", tmp / f"{name}.xml"
    args = ["gate", "--target-mv", "4.2", "--warehouse", str(tmp / name / "warehouse"), "--no-dq", "-q"]
    args += ["--no-default-constraints", "--constraints", str(DATA / "segment-rule.yaml")]
    args += ["--summary-json", str(summary), "--junit", str(junit)]
    for path in inputs:
        args += ["--input", str(path)]
    code = cli_main(args)
    return code, json.loads(summary.read_text()), ET.parse(junit).getroot(), str(tmp / name / "warehouse")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    tmp = tmp_path_factory.mktemp("fleet")
    good, garbage = tmp / "good", tmp / "garbage"
    good.mkdir()
    garbage.mkdir()
    shutil.copy(DATA / "cluster.jsonl", good / "cluster.jsonl")
    # random bytes: no record batch's CRC-32C verifies, so nothing decodes
    (garbage / "00000000000000000000.log").write_bytes(random.Random(58).randbytes(3000))
    return tmp, good, garbage


def test_the_good_cluster_alone_is_safe(spark: SparkSession, fleet: tuple[Path, Path, Path]) -> None:
    tmp, good, _ = fleet
    code, summary, junit, _ = _gate(tmp, "alone", good)
    assert (code, summary["verdict"], summary["clusters"], summary["clusters_not_audited"]) == (0, "pass", ["good"], {})
    assert junit.get("failures") == "0"


def test_an_unreadable_cluster_blocks_the_gate_and_is_shown(
    spark: SparkSession, fleet: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    tmp, good, garbage = fleet
    code, summary, junit, warehouse = _gate(tmp, "both", good, garbage)
    out = capsys.readouterr().out
    assert (code, summary["verdict"]) == (1, "fail")
    assert summary["clusters"] == ["good"]
    assert list(summary["clusters_not_audited"]) == ["garbage"]
    assert "quarantined" in summary["clusters_not_audited"]["garbage"]
    assert out.startswith("DO NOT upgrade") and "garbage: NOT AUDITED" in out
    suites = {suite.get("name"): suite for suite in junit.iter("testsuite")}
    assert suites["garbage → 4.2-IV1"].get("failures") == "1"
    assert junit.get("failures") == "1"  # the good cluster has no failing case
    findings = (
        open_store(spark, warehouse)
        .read("findings")
        .filter(F.col("kind") == "NOT_AUDITED")
        .select("cluster_id", "is_blocking")
        .collect()
    )
    assert [tuple(r) for r in findings] == [("garbage", True)]


def test_a_fenced_registration_without_the_target_level_blocks_the_gate(
    spark: SparkSession, fleet: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Kafka's controller checks the new metadata.version against every broker registration, fenced ones included
    # (confluentinc/kafka 4.2: FeatureControlManager.reasonNotSupported, ClusterControlManager.brokerSupportedFeatures):
    # broker 9, fenced and registered with levels 7-27, refuses an upgrade to 4.2-IV1 (29) until it is unregistered
    tmp, _, _ = fleet
    stale = tmp / "stale"
    stale.mkdir()
    lines = (DATA / "cluster.jsonl").read_text().splitlines()
    fenced = {
        "offset": 25,
        "timestamp": 1732150025000,
        "type": "REGISTER_BROKER_RECORD",
        "version": 3,
        "data": {
            "brokerId": 9,
            "isMigratingZkBroker": False,
            "incarnationId": "CQkJCQkJCQkJCQkJCQkJCQ",
            "brokerEpoch": 20,
            "endPoints": [{"name": "PLAINTEXT", "host": "b9", "port": 9092, "securityProtocol": 0}],
            "features": [{"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 27}],
            "rack": "r1",
            "fenced": True,
            "inControlledShutdown": False,
            "logDirs": [],
        },
    }
    (stale / "cluster.jsonl").write_text("\n".join([*lines, json.dumps(fenced)]) + "\n")
    code, summary, junit, warehouse = _gate(tmp, "stale", stale)
    out = capsys.readouterr().out
    assert (code, summary["verdict"], summary["violations_by_severity"]["error"]) == (1, "fail", 0)
    assert list(summary["upgrade_refused"]) == ["stale"]
    (reason,) = summary["upgrade_refused"]["stale"]
    assert reason.startswith("broker 9 is fenced") and "levels 7-27 only" in reason
    assert out.startswith("DO NOT upgrade") and "stale: UPGRADE REFUSED, broker 9" in out
    assert junit.get("failures") == "1"
    findings = (
        open_store(spark, warehouse)
        .read("findings")
        .filter(F.col("kind") == "UNSUPPORTED_REGISTRATION")
        .select("cluster_id", "resource_name", "is_blocking")
        .collect()
    )
    assert [tuple(r) for r in findings] == [("stale", "9", True)]
