"""Command line: ``python -m tools.kafka_configs --git-dir ... --ref 4.4 --release 4.4 --repo ... --out ...``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from tools.kafka_configs.build import build
from tools.kafka_configs.facts import load_facts
from tools.kafka_configs.git import Git
from tools.kafka_configs.release import Release
from tools.kafka_configs.writer import dump

__all__ = ["main"]

# exit status when anything is left under `unresolved:` (the file is still written, for review)
EXIT_UNRESOLVED = 3


def main(argv: Sequence[str] | None = None) -> int:
    """Extract one release's catalog and write it.

    Args:
        argv: command-line arguments (default: ``sys.argv[1:]``).

    Returns:
        0, or 3 when the catalog lists unresolved items (a human has to look at them).
    """
    facts = load_facts()  # validated before anything is read from git
    releases = [str(r) for r in facts.known_releases]
    ap = argparse.ArgumentParser(
        prog="python -m tools.kafka_configs",
        description="Extract Kafka config definitions of one release into YAML (conf/kafka/README.md).",
    )
    ap.add_argument("--git-dir", required=True, help="bare git mirror of apache/kafka or confluentinc/kafka")
    ap.add_argument("--ref", required=True, help="branch, tag or commit to read")
    ap.add_argument("--release", required=True, choices=releases)
    ap.add_argument("--repo", required=True, help="owner/name, recorded in sources:")
    ap.add_argument("--previous", help="YAML of the previous release, for removed_since")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    git = Git(args.git_dir, args.ref)
    previous = None
    if args.previous:
        previous = yaml.safe_load(Path(args.previous).read_text(encoding="utf-8"))
    doc = build(Release.parse(args.release), args.repo, git, git.ref, git.commit, facts, previous)
    Path(args.out).write_text(dump(doc), encoding="utf-8")
    counts = ", ".join(f"{k}={v}" for k, v in doc["counts"].items())
    print(f"wrote {args.out}: {counts}; unresolved={len(doc['unresolved'])}", file=sys.stderr)
    for u in doc["unresolved"]:
        print(f"  unresolved: {u}", file=sys.stderr)
    return EXIT_UNRESOLVED if doc["unresolved"] else 0
