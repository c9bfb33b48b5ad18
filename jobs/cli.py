"""The ``kraft-audit`` console script: one subcommand per job, user mistakes as one line and exit code 2."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import sys
from collections.abc import Sequence

from jobs import preflight
from schemas.errors import AuditError

log = logging.getLogger("kraft_audit")

# subcommand -> (job module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "ingest": ("jobs.ingest", "decode inputs into the bronze tables"),
    "audit": ("jobs.audit", "replay, resolve, evaluate and write violations for ingested data"),
    "run": ("jobs.run", "ingest + audit in one job"),
    "gate": ("jobs.gate", "run, then exit with the upgrade verdict (0 safe, 1 blocked, 2 error)"),
    "simulate": ("jobs.simulate", "apply proposed config changes and re-evaluate"),
    "report": ("jobs.report", "write a self-contained HTML report of the latest runs"),
    "demo": ("jobs.demo", "synthesise a small fleet, audit it, write tables and report"),
    "synth": ("jobs.synth", "write a synthetic fleet as real binary metadata logs"),
    "dq": ("jobs.dq", "run the data-quality expectations (Great Expectations) on a warehouse's tables"),
}


def available_commands() -> dict[str, tuple[str, str]]:
    """The subcommands whose job module is present in this build."""
    return {name: spec for name, spec in COMMANDS.items() if importlib.util.find_spec(spec[0]) is not None}


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit code 2 (never a traceback)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"kraft-audit: error: {message}", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    """The full command line; each job module adds its own options with ``add_arguments(parser)``."""
    parser = _Parser(prog="kraft-audit", description="Audit KRaft metadata against a target metadata.version.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in available_commands().items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        add_common_arguments(command)
        module = importlib.import_module(module_name)
        module.add_arguments(command)
    return parser


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every subcommand accepts (docs/contract.md §2)."""
    parser.add_argument("--warehouse", default="./warehouse", help="warehouse directory or URI (default ./warehouse)")
    parser.add_argument("--summary-json", metavar="FILE", help="write the machine-readable run summary here")
    parser.add_argument("--master", help="Spark master URL (default local[*])")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-v", "--verbose", action="store_true", help="more detail")
    verbosity.add_argument("-q", "--quiet", action="store_true", help="only errors and the verdict")


def configure_logging(*, verbose: bool, quiet: bool) -> None:
    """Human-readable progress on stderr; library modules only log."""
    level = logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO
    logging.basicConfig(level=level, format="%(message)s", stream=sys.stderr, force=True)
    for noisy in ("py4j", "pyspark", "great_expectations", "numexpr", "tzlocal"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # PySpark logs every analysis error it raises, with the whole Java trace; kraft-audit reports the ones it meets
    # itself, in one line (-v keeps PySpark's record)
    for handled in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        logging.getLogger(handled).setLevel(logging.DEBUG if verbose else logging.CRITICAL)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    configure_logging(verbose=args.verbose, quiet=args.quiet)
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        preflight.check_args(args)  # master URL, warehouse and output files: before any Spark work
        return int(module.execute(args))
    except AuditError as error:
        print(f"kraft-audit: error: {_one_line(error)}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("kraft-audit: interrupted", file=sys.stderr)
        return 130


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 600 else text[:597] + "..."


if __name__ == "__main__":
    sys.exit(main())
