"""The ``kraft-audit`` console script: one subcommand per job, user mistakes as one line and exit code 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from jobs import audit, demo, dq, gate, ingest, report, run, simulate, synth
from jobs.runtime.entry import DESCRIPTION, PROG, Parser, add_command, execute

# subcommand -> (job module, one-line help)
COMMANDS: dict[str, tuple[ModuleType, str]] = {
    "ingest": (ingest, ingest.HELP),
    "audit": (audit, audit.HELP),
    "run": (run, run.HELP),
    "gate": (gate, gate.HELP),
    "simulate": (simulate, simulate.HELP),
    "report": (report, report.HELP),
    "demo": (demo, demo.HELP),
    "synth": (synth, synth.HELP),
    "dq": (dq, dq.HELP),
}


def build_parser() -> argparse.ArgumentParser:
    """The full command line; each job module adds its own options with ``add_arguments(parser)``."""
    parser = Parser(prog=PROG, description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (command, help_text) in COMMANDS.items():
        add_command(sub, name, command, help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    return execute(COMMANDS[args.command][0], args)


if __name__ == "__main__":
    sys.exit(main())
