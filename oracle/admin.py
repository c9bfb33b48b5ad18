"""Drive a running node through its release's own Admin client (``oracle/java/Driver.java``) and FeatureCommand.

Operations are dicts, sent as one JSON list to the driver, which answers one result per operation with the
operation itself, ``ok`` and, for a refused request, Kafka's ``error_class`` and ``error_message``:

* ``{"op": "alter", "type": "BROKER", "name": "", "set": {...}, "delete": [...], "validate_only": false}``
  (IncrementalAlterConfigs; ``name`` "" is the cluster default, "1" the broker)
* ``{"op": "create_topic", "name": "t", "partitions": 1, "replication_factor": 1, "configs": {...}}``
* ``{"op": "describe", "type": "BROKER" | "TOPIC" | "GROUP" | "CLIENT_METRICS", "name": "..."}``
  (DescribeConfigs with synonyms: ``configs`` {key: {value, source, read_only, sensitive, synonyms}})
* ``{"op": "describe_features"}`` (``finalized`` {feature: level}, ``supported`` {feature: {min, max}})
* ``{"op": "update_features", "updates": {"metadata.version": {"level": 33, "type": "UPGRADE"}}, "dry_run": true}``

Each operation may add ``"via": "controller"`` to go through ``bootstrap.controllers``: the controller applies
config changes without the broker-side validation, as records written by other tools or older releases reach a log.
The driver is compiled once per release (against that release's jars) into the runtime cache.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from oracle.node import KafkaNode, ToolResult
from oracle.runtime import Release, cache_dir, java_binary

DRIVER_SOURCE = Path(__file__).resolve().parent / "java" / "Driver.java"
DRIVER_TIMEOUT_S = 180
COMPILE_TIMEOUT_S = 120
FEATURE_TIMEOUT_S = 90

Operation = dict[str, Any]
Result = dict[str, Any]


class DriverFailed(Exception):
    """The driver itself failed (did not compile, crashed, timed out): not a refusal by Kafka."""


def _javac() -> str:
    java = Path(java_binary()).resolve()
    javac = java.with_name("javac")
    if not javac.is_file():
        raise DriverFailed(f"javac not found beside {java}: the driver needs a JDK, not a JRE")
    return str(javac)


def driver_classes(release: Release) -> Path:
    """The driver compiled against ``release`` (cached by the source's hash, recompiled when it changes)."""
    return compiled(release, DRIVER_SOURCE)


def compiled(release: Release, source: Path) -> Path:
    """The directory of ``source`` (one Java class) compiled against ``release``, cached by the source's hash."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:12]
    out = cache_dir() / source.stem.lower() / release.version / digest
    if (out / f"{source.stem}.class").is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    command = [_javac(), "-nowarn", "-d", str(out), "-cp", release.classpath, str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    if done.returncode != 0:
        raise DriverFailed(f"{source.name} did not compile against Kafka {release.version}: {done.stderr.strip()}")
    return out


def run_operations(node: KafkaNode, operations: list[Operation], timeout: float = DRIVER_TIMEOUT_S) -> list[Result]:
    """Run ``operations`` in order against ``node``; one result per operation (refusals included)."""
    if not operations:
        return []
    classes = driver_classes(node.release)
    command = [
        java_binary(),
        "-Xmx256m",
        "-XX:TieredStopAtLevel=1",
        "-Dlog4j2.level=OFF",
        "-Dlog4j.configuration=file:/dev/null",
        "-cp",
        f"{classes}:{node.release.classpath}",
        "Driver",
        node.bootstrap_servers,
        node.bootstrap_controllers,
    ]
    try:
        done = subprocess.run(command, input=json.dumps(operations), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise DriverFailed(f"the Admin driver did not finish within {timeout:.0f} s") from exc
    if done.returncode != 0:
        raise DriverFailed(f"the Admin driver failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    start = done.stdout.find("[")
    results: list[Result] = json.loads(done.stdout[start:])
    return results


def run_one(node: KafkaNode, operation: Operation) -> Result:
    """Run a single operation (see ``run_operations``)."""
    return run_operations(node, [operation])[0]


def feature_command(node: KafkaNode, *args: str, via: str = "broker") -> ToolResult:
    """Kafka's own ``kafka-features`` (``org.apache.kafka.tools.FeatureCommand``) against the node.

    ``args`` are the sub-command and its options, e.g. ``("upgrade", "--release-version", "4.4", "--dry-run")``
    on 4.x or ``("upgrade", "--metadata", "3.9")`` on 3.x, which has no ``--release-version``.
    """
    if via == "controller":
        bootstrap = ["--bootstrap-controller", node.bootstrap_controllers]
    else:
        bootstrap = ["--bootstrap-server", node.bootstrap_servers]
    return node.tool("org.apache.kafka.tools.FeatureCommand", *bootstrap, *args, timeout=FEATURE_TIMEOUT_S)


def upgrade_args(release: Release, target: str, *, mode: str = "release-version", dry_run: bool = False) -> list[str]:
    """``kafka-features upgrade`` arguments raising the cluster to ``target`` (``X.Y`` or ``X.Y-IVn``).

    ``mode`` ``release-version`` raises every production feature with the MV; 3.x has no such option, so there
    (and with ``mode`` ``metadata``) only ``--metadata`` moves the MV.
    """
    option = "--release-version" if mode == "release-version" and release.major >= 4 else "--metadata"
    args = ["upgrade", option, target]
    if dry_run:
        args.append("--dry-run")
    return args
