"""Files the user names on the command line (``--summary-json``, ``--junit``, ``--remediation-out``, ``--out``).

A regular file (or a new path) is written whole or not at all: the text goes to a temporary file in the same
directory, which then replaces the target, so a reader (a CI step polling the summary, a browser reloading the
report) never sees half a file. A symlink to a regular file stays a link: the file it points to is replaced.
Missing parent directories are created, as ``jobs.preflight.check_output_file`` promises before the run starts.

Anything else at the path is never replaced (as root, ``--junit /dev/null`` would otherwise replace the system's
``/dev/null`` with a regular file):

* a character device (``/dev/null``, ``/dev/stdout`` on a terminal) or a named pipe (``/dev/stdout`` in a shell
  pipeline, ``<(...)`` process substitution, ``mkfifo``) is opened and the text streamed into it. A pipe is
  opened non-blocking first: with no reader that fails at once (a one-line error, exit 2, nothing written)
  instead of waiting forever for one; a reader that leaves midway is a ``StorageError``;
* a directory, a socket or a block device is refused;
* so is a path on ``/proc`` or ``/sys``: they look writable to root, but no file can be created there.

``/dev/stdout``, ``/dev/fd/N`` and ``/proc/self/fd/N`` name a descriptor of this process: when it is a regular file
(``--summary-json /dev/stdout > out.json``) the text is written through that descriptor, so it lands where the
shell's redirection points, before the verdict, instead of replacing the file behind the shell's back.

:func:`output_problem` is the one decision, made by the preflight before the run starts and by
:func:`write_output` again when it writes (the path may have changed meanwhile).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tempfile
from functools import cache
from pathlib import Path

from schemas.errors import StorageError, UsageError

__all__ = ["output_problem", "write_output"]

# Kernel file systems: every file looks writable to root (os.access says yes, so does open for /proc/version on
# some kernels), but nothing can be created in them and their files are not documents.
_PSEUDO_ROOTS = (Path("/proc"), Path("/sys"))
# A path naming one of this process's own descriptors (what /dev/stdout and /dev/fd/N link to on Linux).
_OWN_FD = re.compile(r"/dev/fd/(?P<fd>[0-9]+)|/proc/(?:self|thread-self|(?P<pid>[0-9]+))/fd/(?P<fd2>[0-9]+)")


@cache
def _pseudo_devices() -> frozenset[int]:
    """``st_dev`` of /proc and /sys, to recognise them under another name (a bind mount, a symlinked parent)."""
    devices = set()
    for root in _PSEUDO_ROOTS:
        try:
            devices.add(os.stat(root).st_dev)
        except OSError:
            continue
    return frozenset(devices)


def _streamed(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _refused_kind(mode: int) -> str | None:
    """Why an existing non-regular file is never written (None when it is regular or streamed into)."""
    if stat.S_ISDIR(mode):
        return "is a directory; give a file name"
    if stat.S_ISSOCK(mode):
        return "is a socket; give a regular file, a character device or a named pipe"
    if stat.S_ISBLK(mode):
        return "is a block device; give a regular file, a character device or a named pipe"
    if not (stat.S_ISREG(mode) or _streamed(mode)):
        return "is not a regular file, a character device or a named pipe"
    return None


def _on_pseudo_fs(path: Path, st: os.stat_result) -> bool:
    resolved = path.resolve()
    return st.st_dev in _pseudo_devices() or any(resolved.is_relative_to(root) for root in _PSEUDO_ROOTS)


def _stat(path: Path) -> os.stat_result | None:
    """The file at ``path`` (links followed), None when there is none (or a component is not a directory)."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _directory_problem(path: Path) -> str | None:
    """Whether the file ``path`` can be created: its nearest existing ancestor is a writable, real directory."""
    for parent in path.parents:
        st = _stat(parent)
        if st is None:
            continue
        if not stat.S_ISDIR(st.st_mode):
            return f"{parent} is a file, so no directory can be made below it"
        if _on_pseudo_fs(parent, st):
            return f"{parent} is on /proc or /sys, where no file can be created"
        if not os.access(parent, os.W_OK | os.X_OK):
            return f"directory {parent} is not writable"
        return None
    return None


def output_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be written as an output file, or None when it can (checks only; nothing is created).

    A new path or a regular file is fine when it is not read-only and its directory can be written (or made);
    a character device or a named pipe is fine when it is writable (a pipe's reader is only known when it is
    opened, so a pipe without one is found by :func:`write_output`); anything else is a problem.
    """
    target = Path(path).absolute()
    st = _stat(target)
    if st is None:
        return _directory_problem(target)
    if (kind := _refused_kind(st.st_mode)) is not None:
        return kind
    if _on_pseudo_fs(target, st):
        return "is on /proc or /sys, not a file kraft-audit can write"
    if not os.access(target, os.W_OK):
        return "not writable"
    if _streamed(st.st_mode):
        return None
    return _directory_problem(target.resolve())


def write_output(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path``: atomically for a regular file or a new path (creating its directory),
    streamed into a character device or a named pipe; returns the path.

    Raises:
        UsageError: the path is something that is never written (see the module docstring), or a named pipe
            that no process is reading.
        StorageError: the write failed (a full disk, a pipe's reader that went away).
    """
    target = Path(path)
    st = _stat(target)
    if st is not None and (problem := _refused_kind(st.st_mode)) is not None:
        raise UsageError(f"{target}: {problem}")
    try:
        if st is not None and _streamed(st.st_mode):
            _stream(target, text)
        elif st is not None and (fd := _own_descriptor(target)) is not None:
            _write_descriptor(fd, text)
        else:
            _replace(target.resolve() if st is not None else target, text)
    except OSError as error:
        raise StorageError(f"{target}: cannot write: {error.strerror or error}") from error
    return target


def _own_descriptor(path: Path) -> int | None:
    """The descriptor number when ``path`` (or a link it leads through) names one of this process's own."""
    current = str(Path(path).absolute())
    for _hop in range(40):  # the kernel's own limit on a chain of links
        if (match := _OWN_FD.fullmatch(current)) is not None:
            if match["pid"] is None or int(match["pid"]) == os.getpid():
                return int(match["fd"] or match["fd2"])
            return None
        if not os.path.islink(current):
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return None


def _write_descriptor(fd: int, text: str) -> None:
    """Write through an inherited descriptor (its offset shared with the shell's redirection and with stdout)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream.fileno() == fd:
                stream.flush()
        except (AttributeError, OSError, ValueError):  # replaced (pytest's capture) or closed: nothing buffered
            continue
    data = memoryview(text.encode("utf-8"))
    while data:
        data = data[os.write(fd, data) :]


def _stream(target: Path, text: str) -> None:
    """Write into a character device or a named pipe, never replacing it (non-blocking open, then blocking)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO opened for writing, non-blocking, with no reader
            raise UsageError(f"{target}: a named pipe with no reader (start it first); nothing written") from None
        raise
    with os.fdopen(fd, "wb") as handle:
        if not _streamed(os.fstat(fd).st_mode):  # replaced by a regular file since the stat: never truncate it
            raise UsageError(f"{target}: changed while it was being written; nothing written")
        os.set_blocking(fd, True)  # a slow reader is waited for, not an EAGAIN midway
        handle.write(text.encode("utf-8"))


def _replace(target: Path, text: str) -> None:
    """The temporary-file-then-rename write of a regular file (or a new one)."""
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
