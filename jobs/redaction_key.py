"""The key of the keyed hash kept beside redacted values.

Read from ``KRAFT_AUDIT_REDACTION_KEY`` (any string), else from ``~/.config/kraft-audit/redaction.key``, which is
created with mode 0600 on first use. It is deliberately kept outside the warehouse: hashes stored in tables are
useless for guessing a password without it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def redaction_key() -> bytes:
    """The redaction key for this machine or deployment."""
    from_env = os.environ.get("KRAFT_AUDIT_REDACTION_KEY")
    if from_env:
        return from_env.encode("utf-8")
    path = Path(os.environ.get("KRAFT_AUDIT_KEY_FILE", Path.home() / ".config" / "kraft-audit" / "redaction.key"))
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written under a temporary name, then linked into place: of two runs starting at once on a new machine,
        # one creates the key and the other reads it, never a half-written file.
        staging = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
        try:
            os.link(staging, path)
        except FileExistsError:
            pass  # another run created it first: use theirs
        finally:
            staging.unlink()
    return path.read_text().strip().encode("utf-8")
