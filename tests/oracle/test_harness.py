"""The Kafka oracle harness (oracle/, issue #60).

Unit tests check what the harness writes and parses without starting Java. The system tests run a real Kafka node
and skip, with the command that fetches it, when the release's runtime is not in the cache
(``make kafka-runtime``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from oracle import admin, node, runtime, scenarios, summary
from oracle.node import KafkaNode, base_properties, render_properties, startup_error
from oracle.runtime import Release, RuntimeMissing

LIVE_VERSION = "4.4.0"


def _props(text: str) -> dict[str, str]:
    """Read properties text back the way the simple lines the harness writes are read by java.util.Properties."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        out[key] = value.replace("\\\\", "\\")
    return out


# Unit: properties, runtime lookup, scenario format ---------------------------------------------------------------


@pytest.mark.unit
def test_server_properties_are_one_line_per_key_in_order() -> None:
    text = render_properties({"node.id": "1", "log.dirs": "/tmp/a b", "ssl.x": "C:\\path"})
    assert text == "node.id=1\nlog.dirs=/tmp/a b\nssl.x=C:\\\\path\n"
    assert _props(text) == {"node.id": "1", "log.dirs": "/tmp/a b", "ssl.x": "C:\\path"}


@pytest.mark.unit
def test_a_combined_node_on_loopback_with_static_quorum(tmp_path: Path) -> None:
    props = base_properties(9092, 9093, tmp_path / "data", Release("4.4.0", tmp_path))
    assert props["process.roles"] == "broker,controller"
    assert props["node.id"] == "1"
    assert props["controller.quorum.voters"] == "1@127.0.0.1:9093"
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093"
    assert props["log.dirs"] == str(tmp_path / "data")
    assert "share.coordinator.state.topic.replication.factor" in props
    assert "share.coordinator.state.topic.replication.factor" not in base_properties(
        1, 2, tmp_path, Release("3.9.1", tmp_path)
    )


@pytest.mark.unit
def test_a_further_broker_joins_the_first_nodes_quorum_as_a_broker_only(tmp_path: Path) -> None:
    controller = KafkaNode(Release("4.4.0", tmp_path), workdir=tmp_path / "n1", controller_port=9093)
    props = base_properties(
        9094, 0, tmp_path / "d2", Release("3.9.1", tmp_path), node_id=2, voters=controller.quorum_voters
    )
    assert props["process.roles"] == "broker"
    assert props["node.id"] == "2"
    assert props["controller.quorum.voters"] == "1@127.0.0.1:9093"
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:9094"
    assert props["controller.listener.names"] == "CONTROLLER"


@pytest.mark.unit
def test_scenario_overrides_win_and_the_node_writes_its_files(tmp_path: Path) -> None:
    rel = Release("3.9.1", tmp_path)
    kafka = KafkaNode(rel, overrides={"num.io.threads": "8", "node.id": "1"}, workdir=tmp_path / "n")
    written = _props(kafka.write_properties().read_text())
    assert written["num.io.threads"] == "8"
    assert written["listeners"].endswith(f"CONTROLLER://127.0.0.1:{kafka.controller_port}")
    assert kafka.broker_port != kafka.controller_port
    assert (tmp_path / "n" / "log4j.properties").is_file()  # 3.x: reload4j
    assert kafka.metadata_dir == tmp_path / "n" / "data" / "__cluster_metadata-0"
    assert kafka.stop().how == "exited"


@pytest.mark.unit
def test_cluster_ids_look_like_kafkas() -> None:
    ids = [node.new_cluster_id() for _ in range(2000)]
    assert all(len(cid) == 22 and "=" not in cid and "+" not in cid and "/" not in cid for cid in ids)
    assert not any(cid.startswith("-") for cid in ids)  # StorageTool would take it for an option


@pytest.mark.unit
def test_startup_error_is_the_exception_after_the_fatal_line() -> None:
    log = (
        "[2026-12-02 10:00:00,000] INFO starting (kafka.server.KafkaRaftServer)\n"
        "[2026-12-02 10:00:01,000] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)\n"
        "java.lang.IllegalArgumentException: requirement failed: group.consumer.assignment.interval.ms must be ...\n"
        "\tat scala.Predef$.require(Predef.scala:337)\n"
    )
    assert startup_error(log) == (
        "java.lang.IllegalArgumentException: requirement failed: group.consumer.assignment.interval.ms must be ..."
    )
    assert startup_error("all good\n") is None


@pytest.mark.unit
def test_a_missing_release_is_one_line_naming_the_fetch_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KRAFT_AUDIT_KAFKA_CACHE", str(tmp_path))
    with pytest.raises(
        RuntimeMissing, match=r"Kafka 4\.4\.0 is not fetched: run `scripts/kafka-oracle/fetch.sh 4\.4\.0`"
    ):
        runtime.release("4.4.0")
    assert runtime.available(["4.4.0"]) == []
    (tmp_path / "4.4.0").mkdir()
    (tmp_path / "4.4.0" / ".complete").write_text("4.4.0 log4j2\n")
    assert runtime.release("4.4.0").classpath == str(tmp_path / "4.4.0" / "*")


@pytest.mark.unit
def test_fetch_without_maven_says_so_and_exits_2(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "env"):
        found = shutil.which(tool)
        assert found is not None
        os.symlink(found, bin_dir / tool)
    done = subprocess.run(
        ["bash", str(runtime.FETCH_SCRIPT), "4.4.0"],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Maven (mvn) is not installed" in done.stderr


@pytest.mark.unit
def test_upgrade_uses_release_version_on_4x_and_metadata_on_3x(tmp_path: Path) -> None:
    assert admin.upgrade_args(Release("4.4.0", tmp_path), "4.4") == ["upgrade", "--release-version", "4.4"]
    assert admin.upgrade_args(Release("4.2.0", tmp_path), "4.2", mode="metadata", dry_run=True) == [
        "upgrade",
        "--metadata",
        "4.2",
        "--dry-run",
    ]
    assert admin.upgrade_args(Release("3.9.1", tmp_path), "3.9") == ["upgrade", "--metadata", "3.9"]


@pytest.mark.unit
def test_the_committed_scenarios_parse() -> None:
    loaded = {s.name: s for s in scenarios.load()}
    assert {
        "reconfigurable-refuses-layer",
        "log-cleaner-per-broker",
        "local-retention-above-total",
        "group-assignment-interval-out-of-bounds",
        "release-version-upgrade",
        "broker-id-mirrors-node-id",
    } <= set(loaded)
    layer = loaded["reconfigurable-refuses-layer"]
    assert layer.static == {"num.io.threads": "8"}
    assert layer.steps[0]["via"] == "controller" and layer.steps[0]["name"] == ""
    assert layer.restart
    upgrade = loaded["release-version-upgrade"]
    assert scenarios.pick(upgrade.format_release_version, "3.9.1") == "3.8-IV0"
    assert scenarios.pick(upgrade.format_release_version, "4.4.0") == "3.9-IV0"


@pytest.mark.unit
def test_release_prefixes_match_at_dot_boundaries(tmp_path: Path) -> None:
    assert scenarios.applies(None, "3.9.1")
    assert scenarios.applies(["4"], "4.4.0") and not scenarios.applies(["4"], "3.9.1")
    assert scenarios.applies(["3.9"], "3.9.1") and not scenarios.applies(["3.9"], "3.10.0")
    assert scenarios.pick({"4": "a", "4.4": "b", "4.4.0": "c"}, "4.4.0") == "c"
    assert scenarios.pick({"4": "a", "4.4": "b"}, "4.2.0") == "a"
    assert scenarios.pick({"4": "a"}, "3.9.1") is None
    assert scenarios.pick("same", "3.9.1") == "same"
    assert scenarios.upgrade_target({"op": "upgrade"}, Release("4.2.0", tmp_path)) == "4.2"
    assert scenarios.upgrade_target({"op": "upgrade", "target": {"4": "4.1"}}, Release("4.2.0", tmp_path)) == "4.1"


@pytest.mark.unit
def test_a_scenario_names_the_other_releases_it_needs() -> None:
    scenario = scenarios.Scenario.from_dict(
        {"name": "a", "start_release": "3.9.1", "brokers": [{"node": 2, "release": {"3.9": "3.7.2", "4": "3.9.1"}}]}
    )
    assert scenarios.other_releases(scenario, "4.4.0") == ["3.9.1"]
    assert scenarios.other_releases(scenario, "3.9.1") == ["3.7.2"]
    assert scenarios.other_releases(scenarios.Scenario.from_dict({"name": "b"}), "4.4.0") == []


@pytest.mark.unit
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"description": "x"}, "needs a name"),
        ({"name": "a", "stepz": []}, "unknown fields"),
        ({"name": "a", "steps": [{"op": "explode"}]}, "unknown step"),
        ({"name": "a", "steps": [{"op": "upgrade", "mode": "zk"}]}, "upgrade mode"),
        ({"name": "a", "describe": [{"name": "1"}]}, "needs a type"),
        ({"name": "a", "static": {"x": ["1"]}}, "must be a string"),
        ({"name": "a", "brokers": [{"node": 1}]}, "node id above 1"),
        ({"name": "a", "brokers": [{"node": 2, "roles": "x"}]}, "unknown broker fields"),
        ({"name": "a", "steps": [{"op": "start_broker", "node": 3}]}, "not in brokers"),
        ({"name": "a", "steps": [{"op": "upgrade", "static": {"x": "1"}}]}, "only a restart step takes static"),
        ({"name": "a", "steps": [{"op": "restart", "static": {"x": [1]}}]}, "must be a string"),
    ],
)
def test_malformed_scenarios_are_refused(data: dict[str, object], message: str) -> None:
    with pytest.raises(scenarios.ScenarioError, match=message):
        scenarios.Scenario.from_dict(data)


@pytest.mark.unit
def test_static_numbers_become_strings() -> None:
    scenario = scenarios.Scenario.from_dict(
        {"name": "a", "static": {"num.io.threads": 8}, "static_after_format": {"x.ms": 20000}}
    )
    assert scenario.static == {"num.io.threads": "8"}
    assert scenario.static_after_format == {"x.ms": "20000"}
    restart = scenarios.Scenario.from_dict({"name": "b", "steps": [{"op": "restart", "static": {"y.ms": 50000}}]})
    assert restart.steps == [{"op": "restart", "static": {"y.ms": "50000"}}]


@pytest.mark.unit
def test_an_unknown_release_on_the_command_line_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KRAFT_AUDIT_KAFKA_CACHE", str(tmp_path))
    assert scenarios.main(["--release", "4.4.0", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not fetched" in err


# System: a real node ---------------------------------------------------------------------------------------------


def _live_release() -> Release:
    try:
        runtime.java_binary()
        return runtime.release(LIVE_VERSION)
    except RuntimeMissing as exc:
        pytest.skip(f"{exc} (or `make kafka-runtime`)")


@pytest.mark.system
def test_a_live_node_formats_starts_takes_a_dynamic_config_and_stops(tmp_path: Path) -> None:
    rel = _live_release()
    with KafkaNode(rel) as kafka:
        formatted = kafka.format()
        assert formatted.ok, formatted.error
        started = kafka.start(timeout=90)
        assert started.started, started.error
        assert started.pid is not None and node.process_alive(started.pid)
        altered = admin.run_one(
            kafka, {"op": "alter", "type": "BROKER", "name": "1", "set": {"log.cleaner.backoff.ms": "20000"}}
        )
        assert altered["ok"], altered
        # The broker applies the committed record a moment later: read until two answers agree.
        described = scenarios.settled(
            lambda: admin.run_operations(kafka, [{"op": "describe", "type": "BROKER", "name": "1"}])
        )
        entry = described[0]["configs"]["log.cleaner.backoff.ms"]
        assert (entry["value"], entry["source"]) == ("20000", "DYNAMIC_BROKER_CONFIG")
        assert described[0]["configs"]["broker.id"]["value"] == "1"
        stopped = kafka.stop()
        assert stopped.how in ("SIGTERM", "SIGKILL")
        assert not node.process_alive(started.pid)
        files = [p for p in kafka.metadata_dir.iterdir() if p.suffix == ".log"]
        assert files and sum(p.stat().st_size for p in files) > 0
        copied = kafka.copy_metadata(tmp_path / "copy")
        assert copied is not None
        names = {p.name for p in copied.iterdir()}
        assert {p.name for p in files} <= names and "quorum-state" in names
        assert not any(name.endswith((".index", ".timeindex")) for name in names)
        workdir = kafka.root
    assert not workdir.exists()


@pytest.mark.unit
def test_config_refusals_pair_the_log_entry_with_its_exception() -> None:
    log = (
        "[2026-12-02 09:47:12,509] ERROR Failed to update broker configuration with configs : {...} (x)\n"
        "org.apache.kafka.common.config.ConfigException: Dynamic thread count update validation failed for "
        "num.io.threads=32, value should not be greater than double the current value 8\n"
        "\tat kafka.server.DynamicThreadPool.validateReconfiguration(DynamicBrokerConfig.scala:1)\n"
        "[2026-12-02 09:47:12,516] ERROR Cluster default configs could not be applied: [message.max.bytes] (y)\n"
        "[2026-12-02 09:47:13,000] INFO unrelated (z)\n"
    )
    found = node.config_refusals(log)
    assert [f["reason"].split(":")[0] for f in found] == ["org.apache.kafka.common.config.ConfigException", ""]
    assert "could not be applied: [message.max.bytes]" in found[1]["line"]


@pytest.mark.unit
def test_the_summary_shows_stored_values_a_broker_did_not_apply() -> None:
    result = {
        "scenario": "s",
        "release": "4.4.0",
        "format": {"returncode": 0},
        "starts": [{"started": True, "error": None}],
        "refused": [],
        "features": {"initial": {"finalized": {"metadata.version": 33}}},
        "describe": {
            "BROKER:1": {
                "message.max.bytes": {
                    "value": "1048588",
                    "source": "DYNAMIC_DEFAULT_BROKER_CONFIG",
                    "synonyms": [
                        {"value": "2000000", "source": "DYNAMIC_DEFAULT_BROKER_CONFIG"},
                        {"value": "1048588", "source": "DEFAULT_CONFIG"},
                    ],
                },
                "listeners": {"value": "x", "source": "STATIC_BROKER_CONFIG", "synonyms": [{"value": "x"}]},
                "num.network.threads": {"value": "3", "source": "DEFAULT_CONFIG", "synonyms": [{"value": "3"}]},
            }
        },
    }
    text = "\n".join(summary.summarize(result))
    assert "features initial: metadata.version=33" in text
    assert (
        "message.max.bytes=1048588 (DYNAMIC_DEFAULT_BROKER_CONFIG)  "
        "[stored, not applied: 2000000 (DYNAMIC_DEFAULT_BROKER_CONFIG)]" in text
    )
    assert "listeners" not in text and "num.network.threads" not in text


@pytest.mark.unit
def test_settled_reads_until_two_answers_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenarios, "SETTLE_PAUSE_S", 0.0)
    answers = iter([[{"v": "15000"}], [{"v": "20000"}], [{"v": "20000"}], [{"v": "never read"}]])
    assert scenarios.settled(lambda: next(answers)) == [{"v": "20000"}]
    changing = iter([[{"v": str(i)}] for i in range(10)])
    assert scenarios.settled(lambda: next(changing), tries=3) == [{"v": "3"}]
