"""How a command runs, from the console script or from its own job file under ``spark-submit``: the parser that
reports usage mistakes in one line (exit 2), the options every command takes, logging, the checks before any Spark
work, and errors as one line with their exit code (docs/contract.md §2)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

from jobs import preflight
from schemas.errors import AuditError

PROG = "kraft-audit"
DESCRIPTION = "Audit KRaft metadata against a target metadata.version."


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit code 2 (never a traceback)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"kraft-audit: error: {message}", file=sys.stderr)
        sys.exit(2)


def add_command(sub: argparse._SubParsersAction[Parser], name: str, command: ModuleType, help_text: str) -> None:
    """One subcommand: the common options, then the command module's own (``add_arguments(parser)``)."""
    parser = sub.add_parser(name, help=help_text, description=help_text)
    add_common_arguments(parser)
    command.add_arguments(parser)


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


def execute(command: ModuleType, args: argparse.Namespace) -> int:
    """Run a parsed command (``command.execute(args)``); returns the process exit code."""
    configure_logging(verbose=args.verbose, quiet=args.quiet)
    try:
        preflight.check_args(args)  # master URL, warehouse and output files: before any Spark work
        return int(command.execute(args))
    except AuditError as error:
        print(f"kraft-audit: error: {one_line(error)}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("kraft-audit: interrupted", file=sys.stderr)
        return 130


def run_job_file(name: str, command: ModuleType, help_text: str, argv: Sequence[str] | None = None) -> int:
    """A command's own job file as ``spark-submit`` runs it: ``spark-submit jobs/audit.py --target-mv ...`` is
    ``kraft-audit audit --target-mv ...``."""
    parser = Parser(prog=PROG, description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    add_command(sub, name, command, help_text)
    args = parser.parse_args([name, *(argv if argv is not None else sys.argv[1:])])
    return execute(command, args)


def one_line(error: BaseException) -> str:
    """An error's text on one line, at most 600 characters."""
    text = " ".join(str(error).split())
    return text if len(text) <= 600 else text[:597] + "..."
