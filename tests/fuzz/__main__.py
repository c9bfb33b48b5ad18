"""``python -m tests.fuzz [--count N] [--seed S] [--start I] [--target T ...]``: the full fuzz campaign.

Prints, per target, the inputs tried and the inputs that crashed, leaked a planted secret, lost a good record or
left a line or byte unaccounted for, then replayable examples; exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from .campaign import FAILURE_KINDS, TARGETS, run_campaign


def main(argv: Sequence[str] | None = None) -> int:
    """Run the campaign the arguments describe and print its report."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=20_000, help="inputs per target (default 20000)")
    parser.add_argument("--seed", type=int, default=16, help="campaign seed (default 16)")
    parser.add_argument("--start", type=int, default=0, help="first input index (replay: --start I --count 1)")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="repeatable; default all")
    args = parser.parse_args(argv)
    started = time.monotonic()
    report = run_campaign(args.count, args.seed, start=args.start, targets=args.target or tuple(TARGETS))
    print(f"{'target':<12} {'inputs':>8} " + " ".join(f"{kind:>12}" for kind in FAILURE_KINDS) + "  slowest (CPU s)")
    for target, inputs in report.inputs.items():
        counts = " ".join(f"{report.failures[(target, kind)]:>12}" for kind in FAILURE_KINDS)
        seconds, index = report.slowest.get(target, (0.0, 0))
        print(f"{target:<12} {inputs:>8} {counts}  {seconds:.3f} (--start {index})")
    total = sum(report.inputs.values())
    print(f"{'total':<12} {total:>8} " + " ".join(f"{report.count(kind):>12}" for kind in FAILURE_KINDS))
    print(f"seed {args.seed}, {time.monotonic() - started:.1f} s")
    for example in report.examples:
        print("  " + example)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
