"""Oracle scenarios as data, and the runner that records what a real Kafka node answered for each.

A scenario (``oracle/scenarios.yaml``) has:

* ``name``, ``description``;
* ``releases``: version prefixes it applies to (all when absent);
* ``static``: server.properties overrides on top of the harness's base (``oracle.node.base_properties``);
* ``static_after_format``: overrides written only after ``kafka-storage format`` succeeded, so the node's start
  (rather than the format command, which validates the same file) meets them;
* ``format_release_version``: the metadata.version ``kafka-storage format`` sets (the release's latest when absent);
* ``start_release``: the release the node is formatted and first started on (a version, or a value keyed by release
  prefixes; the scenario's release when absent): the step ``{op: roll}`` restarts it on the scenario's release, as
  an operator's binary upgrade does;
* ``brokers``: more nodes, each a broker only that joins the first node's quorum:
  ``{node: 2, release: <version, or a value keyed by release prefixes>, static: {...}}`` (its own release's
  runtime: an older broker beside a newer controller is how a rolling upgrade looks); started and stopped by steps;
* ``steps``: in order, Admin operations (``oracle.admin``) and these harness steps: ``{op: restart}`` (with
  ``static: {...}``: server.properties overrides written before the node starts again, as an operator's edit),
  ``{op: upgrade, target: latest | X.Y[-IVn], mode: release-version | metadata, via: broker | controller}``
  (Kafka's own ``kafka-features``, a dry run first; the metadata log is copied just before it) and
  ``{op: feature_command, args: [...], via: broker | controller}``, ``{op: start_broker, node: N}`` (formatted with
  the cluster's id by its own release's tool on first start) and ``{op: stop_broker, node: N}`` (a clean shutdown:
  the controller fences it and keeps its registration);
* ``describe``: the resources DescribeConfigs reads (with synonyms) after the steps;
* ``restart``: also stop, start and describe them again (after a restart "current" values are the static ones).

A value keyed by release prefixes (``{"3": ..., "4.4": ...}``) takes the longest prefix that matches, and a step or
describe entry with ``releases`` is skipped elsewhere. The runner writes, per scenario and release, a directory
with ``kafka.json`` (every answer, refusal, startup outcome and feature level), ``server.properties``,
``__cluster_metadata-0`` (after the node stopped), ``__cluster_metadata-0.pre-upgrade`` (before an upgrade) and
``node.log`` (and ``server-N.properties``, ``node-N.log`` of each further broker). ``kafka.json``'s
``config_refusals_logged`` lists the dynamic changes the broker logged as not applied: such a layer is stored by
the controller and answers its request with success, so only the log and the described values show the refusal.

``python -m oracle.scenarios [--release V ...] [--scenario NAME ...] [--out DIR]`` runs them (default: every
scenario on every fetched release of 3.9.1, 4.2.0, 4.4.0, into ``out/oracle``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from oracle import admin
from oracle.node import KafkaNode, StartResult, ToolResult, config_refusals
from oracle.runtime import DEFAULT_VERSIONS, REPO, Release, RuntimeMissing, release

SCENARIO_FILE = Path(__file__).resolve().parent / "scenarios.yaml"
HARNESS_STEPS = ("restart", "roll", "upgrade", "feature_command", "start_broker", "stop_broker")
SETTLE_TRIES = 8
SETTLE_PAUSE_S = 1.0
DRIVER_STEPS = ("alter", "create_topic", "describe", "describe_features", "update_features")


class ScenarioError(ValueError):
    """A scenario file that does not follow the format."""


def applies(prefixes: list[str] | None, version: str) -> bool:
    """Whether ``version`` starts with one of ``prefixes`` at a dot boundary (every version when None)."""
    if not prefixes:
        return True
    return any(version == p or version.startswith(p + ".") for p in prefixes)


def pick(value: Any, version: str) -> Any:
    """``value`` itself, or for a dict keyed by version prefixes the entry of the longest matching prefix."""
    if not isinstance(value, dict):
        return value
    matching = [key for key in value if applies([str(key)], version)]
    if not matching:
        return None
    return value[max(matching, key=len)]


@dataclass(frozen=True)
class Scenario:
    """One case to run on each release (see the module docstring for the fields)."""

    name: str
    description: str = ""
    releases: list[str] | None = None
    static: dict[str, str] = field(default_factory=dict)
    static_after_format: dict[str, str] = field(default_factory=dict)
    format_release_version: Any = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    describe: list[dict[str, Any]] = field(default_factory=list)
    restart: bool = False
    brokers: list[dict[str, Any]] = field(default_factory=list)
    start_release: Any = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scenario:
        """Validate and build a scenario from its YAML mapping."""
        known = {
            "name",
            "description",
            "releases",
            "static",
            "static_after_format",
            "format_release_version",
            "steps",
            "describe",
            "restart",
            "brokers",
            "start_release",
        }
        unknown = set(data) - known
        if unknown:
            raise ScenarioError(f"scenario {data.get('name')!r}: unknown fields {sorted(unknown)}")
        if not isinstance(data.get("name"), str) or not data["name"]:
            raise ScenarioError("a scenario needs a name")
        name = data["name"]
        static = {str(k): _string(name, k, v) for k, v in (data.get("static") or {}).items()}
        after_format = {str(k): _string(name, k, v) for k, v in (data.get("static_after_format") or {}).items()}
        steps = list(data.get("steps") or [])
        for step in steps:
            op = step.get("op") if isinstance(step, dict) else None
            if op not in HARNESS_STEPS + DRIVER_STEPS:
                raise ScenarioError(f"scenario {name!r}: unknown step {step!r}")
            if op == "upgrade" and step.get("mode", "release-version") not in ("release-version", "metadata"):
                raise ScenarioError(f"scenario {name!r}: upgrade mode must be release-version or metadata")
            if step.get("via", "broker") not in ("broker", "controller"):
                raise ScenarioError(f"scenario {name!r}: via must be broker or controller")
            if "static" in step:
                if op != "restart":
                    raise ScenarioError(f"scenario {name!r}: only a restart step takes static: {step!r}")
                step["static"] = {str(k): _string(name, k, v) for k, v in (step["static"] or {}).items()}
        brokers = list(data.get("brokers") or [])
        nodes = set()
        for broker in brokers:
            if not (isinstance(broker, dict) and isinstance(broker.get("node"), int) and broker["node"] > 1):
                raise ScenarioError(f"scenario {name!r}: a broker needs a node id above 1: {broker!r}")
            if extra := set(broker) - {"node", "release", "static"}:
                raise ScenarioError(f"scenario {name!r}: unknown broker fields {sorted(extra)}")
            nodes.add(broker["node"])
        for step in steps:
            if step["op"] in ("start_broker", "stop_broker") and step.get("node") not in nodes:
                raise ScenarioError(f"scenario {name!r}: {step['op']} of a node not in brokers: {step!r}")
        describe = list(data.get("describe") or [])
        for entry in describe:
            if not isinstance(entry, dict) or "type" not in entry:
                raise ScenarioError(f"scenario {name!r}: a describe entry needs a type: {entry!r}")
        releases = data.get("releases")
        return cls(
            name=name,
            description=str(data.get("description") or "").strip(),
            releases=[str(r) for r in releases] if releases else None,
            static=static,
            static_after_format=after_format,
            format_release_version=data.get("format_release_version"),
            steps=steps,
            describe=describe,
            restart=bool(data.get("restart", False)),
            brokers=brokers,
            start_release=data.get("start_release"),
        )


def _string(scenario: str, key: object, value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ScenarioError(f"scenario {scenario!r}: static {key} must be a string, got {value!r}")
    return str(value)


def load(path: Path = SCENARIO_FILE) -> list[Scenario]:
    """Every scenario of a YAML file (a list of mappings); names must be unique."""
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, list):
        raise ScenarioError(f"{path}: expected a list of scenarios")
    scenarios = [Scenario.from_dict(item) for item in data]
    names = [s.name for s in scenarios]
    if len(set(names)) != len(names):
        raise ScenarioError(f"{path}: duplicate scenario names")
    return scenarios


def describe_key(entry: dict[str, Any]) -> str:
    """How a described resource is named in kafka.json: ``TYPE:name`` (``BROKER:`` is the cluster default)."""
    return f"{entry['type']}:{entry.get('name', '')}"


def upgrade_target(step: dict[str, Any], rel: Release) -> str:
    """The level an upgrade step asks for on ``rel``: ``latest`` is the release's own ``X.Y``."""
    target = pick(step.get("target", "latest"), rel.version)
    return rel.feature_line if target in (None, "latest") else str(target)


class Recorder:
    """Runs one scenario on one release and collects everything Kafka answered into ``kafka.json``."""

    def __init__(self, scenario: Scenario, rel: Release, out: Path) -> None:
        self.scenario = scenario
        self.release = rel
        self.out = out
        self.data: dict[str, Any] = {
            "scenario": scenario.name,
            "description": scenario.description,
            "release": rel.version,
            "started": False,
            "startup_error": None,
            "format": None,
            "starts": [],
            "stops": [],
            "requests": [],
            "refused": [],
            "feature_commands": [],
            "features": {},
            "describe": {},
            "brokers": {},
        }
        self.brokers: dict[int, KafkaNode] = {}  # further brokers, by node id, once started

    def run(self) -> dict[str, Any]:
        """Format, start, run the steps, describe, stop; write the result directory and return kafka.json."""
        if self.out.exists():
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True)
        began = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"kafka-oracle-{self.release.version}-") as tmp:
            first = pick(self.scenario.start_release, self.release.version)
            self.data["start_release"] = str(first) if first else self.release.version
            node = KafkaNode(
                release(str(first)) if first else self.release, overrides=dict(self.scenario.static), workdir=Path(tmp)
            )
            try:
                self._run(node)
            finally:
                for node_id, broker in self.brokers.items():
                    self.data["brokers"][str(node_id)]["stops"].append(_stop(broker))
                    shutil.copy2(broker.properties_file, self.out / f"server-{node_id}.properties")
                    if broker.log_file.exists():
                        shutil.copy2(broker.log_file, self.out / f"node-{node_id}.log")
                self.data["stops"].append(_stop(node))
                shutil.copy2(node.properties_file, self.out / "server.properties")
                node.copy_metadata(self.out / "__cluster_metadata-0")
                if node.log_file.exists():
                    shutil.copy2(node.log_file, self.out / "node.log")
                    log_text = node.log_file.read_text(errors="replace")
                    self.data["config_refusals_logged"] = config_refusals(log_text)
        self.data["seconds"] = round(time.monotonic() - began, 1)
        (self.out / "kafka.json").write_text(json.dumps(self.data, indent=2, sort_keys=False) + "\n")
        return self.data

    def _run(self, node: KafkaNode) -> None:
        version = pick(self.scenario.format_release_version, self.release.version)
        formatted = node.format(str(version) if version else None)
        self.data["format"] = _tool(formatted)
        if not formatted.ok:
            self.data["startup_error"] = formatted.error
            return
        if self.scenario.static_after_format:
            node.overrides.update(self.scenario.static_after_format)
            node.write_properties()
        if not self._start(node):
            return
        self.data["features"]["initial"] = self._features(node)
        pending: list[dict[str, Any]] = []
        for step in self.scenario.steps:
            if not applies(step.get("releases"), self.release.version):
                continue
            if step["op"] in DRIVER_STEPS:
                pending.append({k: v for k, v in step.items() if k != "releases"})
                continue
            self._requests(node, pending)
            pending = []
            if step["op"] == "start_broker":
                if not self._start_broker(node, int(step["node"]), node.root):
                    return
            elif step["op"] == "stop_broker":
                self.data["brokers"][str(step["node"])]["stops"].append(_stop(self.brokers[int(step["node"])]))
            elif step["op"] == "roll":  # the binary upgrade: same log dir and server.properties, the new release
                self.data["stops"].append(_stop(node))
                node.release = self.release
                node.write_properties()
                # whether the node runs is asked of the scenario's release: this start decides it
                self.data["started"] = self._start(node)
                if not self.data["started"]:
                    return
            elif step["op"] == "restart":
                self.data["stops"].append(_stop(node))
                if step.get("static"):  # the operator edits server.properties before the restart
                    node.overrides.update(step["static"])
                    node.write_properties()
                if not self._start(node):
                    return
            elif step["op"] == "upgrade":
                self._upgrade(node, step)
            else:
                self._feature_command(node, [str(a) for a in step.get("args", [])], str(step.get("via", "broker")))
        self._requests(node, pending)
        self.data["features"]["final"] = self._features(node)
        self.data["describe"] = self._describe(node)
        if self.scenario.restart:
            self.data["stops"].append(_stop(node))
            if self._start(node):
                self.data["describe_after_restart"] = self._describe(node)

    def _start(self, node: KafkaNode) -> bool:
        started: StartResult = node.start()
        self.data["starts"].append(
            {
                "started": started.started,
                "seconds": round(started.seconds, 1),
                "error": started.error,
                "exit_code": started.exit_code,
            }
        )
        self.data["started"] = started.started if len(self.data["starts"]) == 1 else self.data["started"]
        if not started.started:
            self.data["startup_error"] = self.data["startup_error"] or started.error
        return started.started

    def _start_broker(self, controller: KafkaNode, node_id: int, root: Path) -> bool:
        """Start broker ``node_id`` (formatted on its first start) against ``controller``'s quorum; False when it did
        not format or start (recorded under ``brokers``)."""
        spec = next(b for b in self.scenario.brokers if b["node"] == node_id)
        record = self.data["brokers"].setdefault(str(node_id), {"starts": [], "stops": []})
        broker = self.brokers.get(node_id)
        if broker is None:
            version = str(pick(spec.get("release"), self.release.version) or self.release.version)
            broker = KafkaNode(
                release(version),
                overrides={str(k): str(v) for k, v in (spec.get("static") or {}).items()},
                workdir=root / f"node-{node_id}",
                cluster_id=controller.cluster_id,
                node_id=node_id,
                voters=controller.quorum_voters,
            )
            self.brokers[node_id] = broker
            record["release"] = version
            formatted = broker.format()
            record["format"] = _tool(formatted)
            if not formatted.ok:
                return False
        started = broker.start()
        record["starts"].append(
            {"started": started.started, "seconds": round(started.seconds, 1), "error": started.error}
        )
        return started.started

    def _requests(self, node: KafkaNode, operations: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self._record(admin.run_operations(node, operations))

    def _record(self, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Keep every result in kafka.json's ``requests`` and each refusal in ``refused``."""
        for result in results:
            self.data["requests"].append(result)
            if not result.get("ok"):
                self.data["refused"].append(
                    {
                        "op": result["op"],
                        "error_class": result.get("error_class"),
                        "error_message": result.get("error_message"),
                    }
                )
        return results

    def _features(self, node: KafkaNode) -> dict[str, Any]:
        result = settled(lambda: admin.run_operations(node, [{"op": "describe_features"}]), same=_without_epoch)[0]
        if not result.get("ok"):
            return {"error_class": result.get("error_class"), "error_message": result.get("error_message")}
        return {"finalized": result.get("finalized", {}), "supported": result.get("supported", {})}

    def _feature_command(self, node: KafkaNode, args: list[str], via: str = "broker") -> ToolResult:
        done = admin.feature_command(node, *args, via=via)
        self.data["feature_commands"].append(_tool(done))
        return done

    def _upgrade(self, node: KafkaNode, step: dict[str, Any]) -> None:
        target = upgrade_target(step, self.release)
        mode = str(step.get("mode", "release-version"))
        via = str(step.get("via", "broker"))
        self.data["features"]["before_upgrade"] = self._features(node)
        node.copy_metadata(self.out / "__cluster_metadata-0.pre-upgrade")
        self._feature_command(node, ["describe"], via)
        self._feature_command(node, admin.upgrade_args(self.release, target, mode=mode, dry_run=True), via)
        self._feature_command(node, admin.upgrade_args(self.release, target, mode=mode), via)
        self.data["features"]["after_upgrade"] = self._features(node)
        self._feature_command(node, ["describe"], via)

    def _describe(self, node: KafkaNode) -> dict[str, Any]:
        """DescribeConfigs of the scenario's resources, once the answers are settled (see ``settled``)."""
        entries = [e for e in self.scenario.describe if applies(e.get("releases"), self.release.version)]
        operations = [{"op": "describe", "type": e["type"], "name": str(e.get("name", ""))} for e in entries]
        results = settled(lambda: admin.run_operations(node, operations))
        answers: dict[str, Any] = {}
        for entry, result in zip(entries, self._record(results), strict=True):
            if result.get("ok"):
                answers[describe_key(entry)] = result.get("configs", {})
            else:
                answers[describe_key(entry)] = {
                    "error_class": result.get("error_class"),
                    "error_message": result.get("error_message"),
                }
        return answers


def settled(
    read: Callable[[], list[dict[str, Any]]],
    tries: int = SETTLE_TRIES,
    same: Callable[[list[dict[str, Any]]], object] = lambda answer: answer,
) -> list[dict[str, Any]]:
    """``read()`` repeated until two answers in a row are equal as ``same`` sees them (at most ``tries`` reads after
    the first).

    A successful AlterConfigs returns once the controller committed the records; the broker applies them later, on
    its metadata publisher. A DescribeConfigs in between shows the new layer as the source with the old value (seen
    on 4.4.0: ``log.cleaner.backoff.ms`` 15000 from DYNAMIC_BROKER_CONFIG right after setting 20000), which is
    neither Kafka's answer before nor after the change.
    """
    answer = read()
    for _ in range(tries):
        time.sleep(SETTLE_PAUSE_S)
        again = read()
        if same(again) == same(answer):
            return again
        answer = again
    return answer


def _without_epoch(answer: list[dict[str, Any]]) -> object:
    """A DescribeFeatures answer less its epoch, which moves with every metadata record (the controller's periodic
    NoOpRecords too)."""
    return [{k: v for k, v in result.items() if k != "epoch"} for result in answer]


def _tool(done: ToolResult) -> dict[str, Any]:
    lines = [line for line in done.output.splitlines() if line.strip()]
    return {
        "args": done.args[done.args.index("-cp") + 2 :],
        "returncode": done.returncode,
        "error": done.error,
        "output": lines[-40:],
    }


def _stop(node: KafkaNode) -> dict[str, Any]:
    stopped = node.stop()
    return {"how": stopped.how, "seconds": round(stopped.seconds, 1), "exit_code": stopped.exit_code}


def other_releases(scenario: Scenario, version: str) -> list[str]:
    """The releases besides ``version`` a scenario runs on ``version`` needs: its start release, its brokers'."""
    wanted = [pick(scenario.start_release, version)] + [pick(b.get("release"), version) for b in scenario.brokers]
    return sorted({str(v) for v in wanted if v and str(v) != version})


def run(scenario: Scenario, rel: Release, out_root: Path) -> dict[str, Any]:
    """Run ``scenario`` on ``rel``; its results go to ``out_root/<scenario>/<version>/``."""
    return Recorder(scenario, rel, out_root / scenario.name / rel.version).run()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracle.scenarios", description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", action="append", help=f"Kafka version (default: {', '.join(DEFAULT_VERSIONS)})")
    parser.add_argument("--scenario", action="append", help="scenario name (default: all)")
    parser.add_argument("--file", type=Path, default=SCENARIO_FILE, help="scenario file")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "oracle", help="results root")
    args = parser.parse_args(argv)
    # Stopped by SIGTERM, still stop the node and remove its directory (the `finally` blocks run on SystemExit).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        scenarios = load(args.file)
        releases = [release(v) for v in (args.release or DEFAULT_VERSIONS)]
    except (RuntimeMissing, ScenarioError, OSError) as exc:
        print(f"kafka-oracle: {exc}", file=sys.stderr)
        return 2
    if args.scenario:
        unknown = set(args.scenario) - {s.name for s in scenarios}
        if unknown:
            print(f"kafka-oracle: unknown scenarios {sorted(unknown)}", file=sys.stderr)
            return 2
        scenarios = [s for s in scenarios if s.name in args.scenario]
    failed = 0
    for rel in releases:
        for scenario in scenarios:
            if not applies(scenario.releases, rel.version):
                continue
            try:
                for other in other_releases(scenario, rel.version):
                    release(other)
            except RuntimeMissing as exc:
                print(f"{scenario.name} on {rel.version}: skipped: {exc}", file=sys.stderr)
                continue
            try:
                data = run(scenario, rel, args.out)
            except admin.DriverFailed as exc:
                print(f"{scenario.name} on {rel.version}: harness failure: {exc}", file=sys.stderr)
                failed += 1
                continue
            state = "started" if data["started"] else f"did not start: {data['startup_error']}"
            print(
                f"{scenario.name} on {rel.version}: {state}; {len(data['refused'])} refused; {data['seconds']} s",
                flush=True,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
