"""The config definitions of released Kafka runtimes against kraft-audit's catalogs (``conf/kafka/<X.Y>.yaml``).

``oracle/java/ConfigDefs.java`` prints what a release's jars define: every broker, topic and group key with its
type, default, importance and validator, and the broker keys each topic key falls back to. ``compare`` lists where a
catalog differs from it: a key only one side has (the catalog's ``dynamic_only`` broker quotas excepted: they live
in ``QuotaConfig``, outside ``KafkaConfig``'s ConfigDef), a type, a default, a topic key's fallbacks. The suite
compares every catalog with the dumps committed under ``tests/data/kafka-oracle/configdefs/`` (``make
kafka-configdefs`` writes them from the fetched releases).

    python -m oracle.configdefs [VERSION ...] [--write DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from oracle.admin import DriverFailed, compiled
from oracle.runtime import DEFAULT_VERSIONS, REPO, Release, RuntimeMissing, java_binary, release

SOURCE = Path(__file__).resolve().parent / "java" / "ConfigDefs.java"
CATALOGS = REPO / "conf" / "kafka"
FIXTURES = REPO / "tests" / "data" / "kafka-oracle" / "configdefs"
RESOURCES = ("broker", "topic", "group")
TIMEOUT_S = 120

Dump = dict[str, Any]


def dump(runtime: Release) -> Dump:
    """What ``runtime``'s jars define (see the module docstring)."""
    classes = compiled(runtime, SOURCE)
    command = [java_binary(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", f"{classes}:{runtime.classpath}"]
    done = subprocess.run([*command, "ConfigDefs"], capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise DriverFailed(f"ConfigDefs failed on Kafka {runtime.version}: {done.stderr.strip()[-2000:]}")
    result: Dump = json.loads(done.stdout[done.stdout.find("{") :])
    result["version"] = runtime.version
    return result


def catalog(feature_line: str) -> dict[str, Any]:
    """kraft-audit's catalog of release ``X.Y``."""
    with (CATALOGS / f"{feature_line}.yaml").open(encoding="utf-8") as handle:
        doc: dict[str, Any] = yaml.safe_load(handle)
    return doc


def compare(kafka: Dump, doc: dict[str, Any]) -> list[str]:
    """Every difference between a release's definitions and a catalog, one line each (none: they agree)."""
    differences = []
    for resource in RESOURCES:
        defined = {entry["name"]: entry for entry in kafka[resource]}
        listed = {entry["name"]: entry for entry in doc[resource] if not entry.get("dynamic_only")}
        for name in sorted(defined.keys() - listed.keys()):
            differences.append(f"{resource} {name}: defined by Kafka, missing from the catalog")
        for name in sorted(listed.keys() - defined.keys()):
            differences.append(f"{resource} {name}: in the catalog, not defined by Kafka")
        for name in sorted(defined.keys() & listed.keys()):
            for field in ("type", "default"):
                theirs, ours = defined[name][field], listed[name].get(field)
                if theirs != ours:
                    differences.append(f"{resource} {name}: {field} {ours!r} in the catalog, {theirs!r} in Kafka")
    synonyms = {topic: [s["name"] for s in names] for topic, names in doc["topic_synonyms"].items()}
    for topic in sorted(kafka["topic_synonyms"].keys() | synonyms.keys()):
        theirs, ours = kafka["topic_synonyms"].get(topic, []), synonyms.get(topic, [])
        if theirs != ours:
            differences.append(f"topic {topic}: falls back to {ours} in the catalog, {theirs} in Kafka")
    return differences


def feature_line(version: str) -> str:
    return ".".join(version.split(".")[:2])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracle.configdefs", description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*", default=list(DEFAULT_VERSIONS))
    parser.add_argument("--write", type=Path, help="write each release's definitions as DIR/<version>.json")
    args = parser.parse_args(argv)
    disagreements = 0
    for version in args.versions:
        try:
            kafka = dump(release(version))
        except (RuntimeMissing, DriverFailed) as error:
            print(f"kafka {version}: skipped: {error}", file=sys.stderr)
            continue
        if args.write:
            args.write.mkdir(parents=True, exist_ok=True)
            (args.write / f"{version}.json").write_text(json.dumps(kafka, indent=1, sort_keys=True) + "\n")
        differences = compare(kafka, catalog(feature_line(version)))
        disagreements += len(differences)
        counts = ", ".join(f"{len(kafka[r])} {r}" for r in RESOURCES)
        print(
            f"kafka {version} ({counts} keys): {len(differences)} difference(s) from conf/kafka/"
            f"{feature_line(version)}.yaml"
        )
        for line in differences:
            print(f"  {line}")
    return 1 if disagreements and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
