"""Files the user names on the command line (``--summary-json``, ``--junit``, ``--remediation-out``, ``--out``).

Each is written whole or not at all: the text goes to a temporary file in the same directory, which then replaces
the target, so a reader (a CI step polling the summary, a browser reloading the report) never sees half a file.
Missing parent directories are created, as ``jobs.preflight.check_output_file`` promises before the run starts.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_output"]


def write_output(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically, creating its directory; returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
