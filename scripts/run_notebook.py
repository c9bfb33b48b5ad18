"""Execute a notebook headless (``make notebook``, the notebook tests) and write the executed copy.

Usage: ``python scripts/run_notebook.py NOTEBOOK OUT [--cwd DIR] [--timeout SECONDS]``. The kernel is this
interpreter's ``python3`` kernel (ipykernel), started in ``--cwd`` (default: the current directory) with this
process's environment, so ``KRAFT_AUDIT_WAREHOUSE`` and the other ``KRAFT_AUDIT_*`` parameters pass through.
Exit code 0 when every cell ran, 1 when a cell failed (the executed copy is written either way, with the error).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat import NotebookNode


def execute_notebook(
    path: Path,
    out: Path | None = None,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: int = 600,
) -> NotebookNode:
    """Run every cell of ``path`` in a fresh kernel; write the executed notebook to ``out`` when given.

    Args:
        path: the notebook to run (not modified).
        out: where to write the executed copy (its folder is created); also written when a cell fails.
        cwd: the kernel's working directory (default: the current one).
        env: the kernel's whole environment (default: this process's).
        timeout: seconds one cell may run.

    Raises:
        CellExecutionError: a cell raised; the message holds the cell's traceback.
    """
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd or Path.cwd())}},
    )
    try:
        client.execute(env=dict(env if env is not None else os.environ))
    finally:
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, out)
    return notebook


def main(argv: Sequence[str] | None = None) -> int:
    """Command line of ``make notebook``."""
    parser = argparse.ArgumentParser(description="Execute a notebook headless and write the executed copy.")
    parser.add_argument("notebook", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--cwd", type=Path, help="the kernel's working directory (default: the current one)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds one cell may run (default 600)")
    args = parser.parse_args(argv)
    try:
        execute_notebook(args.notebook, args.out, cwd=args.cwd, timeout=args.timeout)
    except CellExecutionError as error:
        print(f"{args.notebook}: a cell failed (executed copy with the error in {args.out})\n{error}", file=sys.stderr)
        return 1
    print(f"executed {args.notebook} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
