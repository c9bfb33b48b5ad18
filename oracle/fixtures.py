"""Golden fixtures: what a Kafka node wrote and answered, per scenario and release, small enough to commit.

From a results root of ``oracle.scenarios`` (``<root>/<scenario>/<release>/``) this writes, per run that has a
metadata log, ``<dest>/<scenario>@<release>/`` with:

* ``__cluster_metadata-0/``: the node's log segments and KRaft snapshots (``*.log``, ``*.checkpoint``) as they were
  after it stopped: kraft-audit's input. The directory's name makes ``<scenario>@<release>`` the cluster id an
  ingest gives it (``jobs.discover``: no ``meta.properties``);
* ``server.properties``: the node's static file (``server-N.properties``: further brokers' files, node ``N``);
* ``dump-log.txt.gz``: ``kafka-dump-log --cluster-metadata-decoder`` of the release on that log, written afterwards
  by ``python -m oracle.dumplog`` (``make kafka-fixtures`` runs both);
* ``kafka.json.gz``: Kafka's answers, trimmed to what a comparison reads (every described entry's value, source,
  sensitivity and synonyms; refusals; whether and why the node did (not) start; feature levels).

Nodes that never formatted or started have no metadata log: their fixture holds only ``server.properties`` and
``kafka.json.gz``.

``python -m oracle.fixtures SRC DEST`` (``make kafka-fixtures`` runs the scenarios first). ``DEST`` is emptied first,
so a scenario removed from ``scenarios.yaml`` leaves no stale fixture.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ANSWERS = "kafka.json.gz"
METADATA_DIR = "__cluster_metadata-0"
# What kraft-audit reads from a metadata log directory; indexes, quorum state and producer snapshots are not needed.
LOG_PATTERNS = ("*.log", "*.checkpoint")
KEPT = (
    "scenario",
    "description",
    "release",
    "started",
    "startup_error",
    "refused",
    "config_refusals_logged",
    "feature_commands",
    "features",
    "brokers",
)


def _entry(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "value": entry.get("value"),
        "source": entry.get("source"),
        "sensitive": bool(entry.get("sensitive")),
        "synonyms": [[s.get("name"), s.get("value"), s.get("source")] for s in entry.get("synonyms") or []],
    }


def _described(described: dict[str, Any] | None) -> dict[str, Any] | None:
    if described is None:
        return None
    return {
        resource: (
            configs if "error_class" in configs else {key: _entry(entry) for key, entry in sorted(configs.items())}
        )
        for resource, configs in sorted(described.items())
    }


def trimmed(result: dict[str, Any]) -> dict[str, Any]:
    """``kafka.json`` less what no comparison reads (tool output, timings, request echoes)."""
    kept = {key: result.get(key) for key in KEPT}
    kept["format_ok"] = not (result.get("format") or {}).get("returncode")
    kept["format_error"] = (result.get("format") or {}).get("error")
    kept["describe"] = _described(result.get("describe"))
    kept["describe_after_restart"] = _described(result.get("describe_after_restart"))
    return kept


def write_fixture(run_dir: Path, dest: Path) -> None:
    """One scenario × release result directory as a fixture directory ``dest``."""
    result = json.loads((run_dir / "kafka.json").read_text(encoding="utf-8"))
    dest.mkdir(parents=True)
    for static in sorted(run_dir.glob("server*.properties")):
        shutil.copyfile(static, dest / static.name)
    files = log_files(run_dir / METADATA_DIR)
    if files:
        (dest / METADATA_DIR).mkdir()
        for path in files:
            shutil.copyfile(path, dest / METADATA_DIR / path.name)
    text = json.dumps(trimmed(result), indent=None, sort_keys=True, separators=(",", ":"))
    # mtime 0: the same answers give the same bytes
    with gzip.GzipFile(dest / ANSWERS, "wb", mtime=0) as out:
        out.write(text.encode("utf-8"))


def log_files(metadata_dir: Path) -> list[Path]:
    """The files kraft-audit reads from a metadata log directory, sorted (none when it does not exist)."""
    if not metadata_dir.is_dir():
        return []
    return sorted(p for pattern in LOG_PATTERNS for p in metadata_dir.glob(pattern))


def static_files(fixture: Path) -> dict[str, Path]:
    """A fixture's ``server.properties`` files by node id: the first node's (``""``: its file names it) and each
    further broker's (``server-N.properties``)."""
    found = {"": fixture / "server.properties"}
    for path in sorted(fixture.glob("server-*.properties")):
        found[path.stem.removeprefix("server-")] = path
    return found


def answers(fixture: Path) -> dict[str, Any]:
    """A fixture's trimmed answers."""
    with gzip.open(fixture / ANSWERS, "rb") as handle:
        loaded: dict[str, Any] = json.loads(handle.read().decode("utf-8"))
    return loaded


def fixtures(root: Path) -> list[Path]:
    """Every fixture directory under ``root``, sorted."""
    return sorted(p.parent for p in root.glob(f"*/{ANSWERS}"))


def collect(src: Path, dest: Path) -> list[Path]:
    """Every ``<src>/<scenario>/<release>/`` with a ``kafka.json`` as ``<dest>/<scenario>@<release>/``."""
    runs = sorted(p.parent for p in src.glob("*/*/kafka.json"))
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    written = []
    for run_dir in runs:
        target = dest / f"{run_dir.parent.name}@{run_dir.name}"
        write_fixture(run_dir, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracle.fixtures", description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path, help="results root of oracle.scenarios")
    parser.add_argument("dest", type=Path, help="fixture root (emptied first)")
    args = parser.parse_args(argv)
    if not any(args.src.glob("*/*/kafka.json")):
        print(f"kafka-fixtures: no scenario results under {args.src}", file=sys.stderr)
        return 2
    written = collect(args.src, args.dest)
    size = sum(p.stat().st_size for d in written for p in d.rglob("*") if p.is_file())
    print(f"kafka-fixtures: {len(written)} fixtures, {size / 1024:.0f} KiB, in {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
