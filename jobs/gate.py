"""``kraft-audit gate``: ``run`` whose exit code is the upgrade verdict (0 safe, 1 do not upgrade, 2 error)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from jobs import audit, run
from jobs.runtime.entry import run_job_file

HELP = "run, then exit with the upgrade verdict (0 safe, 1 blocked, 2 error)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``run``."""
    run.add_arguments(parser)


def execute(args: argparse.Namespace) -> int:
    """CLI entry: the verdict on stdout, summary/JUnit files when asked, the exit code as the gate."""
    result = run.start(args, command="gate")
    audit.report(result, args)
    return result.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """spark-submit entry: ``spark-submit jobs/gate.py --input ... --target-mv ...``."""
    return run_job_file("gate", sys.modules[__name__], HELP, argv)


if __name__ == "__main__":
    sys.exit(main())
