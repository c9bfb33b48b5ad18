"""Finding input files, their kind and their cluster (docs/contract.md §3).

Only regular files are ever opened, and without blocking: a FIFO named like a segment would block the run
forever on ``open``, and a dangling symlink cannot be read at all. Such paths are kept as unrecognised inputs
with a ``skip_reason`` (the ingest job quarantines them with that reason), so they are counted and reported,
never skipped silently.
"""

from __future__ import annotations

import errno
import glob
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from schemas.errors import InputError, UsageError
from transforms.decode.text.detect import detect_input_kind, is_ignored_file, snapshot_end_offset_from_name
from transforms.decode.text.properties import parse_server_properties

_HEAD_BYTES = 4096
METADATA_DIR_PREFIX = "__cluster_metadata"


@dataclass(frozen=True)
class InputFile:
    """One input file to ingest."""

    path: str  # absolute local path
    input_kind: str | None  # None: not a recognised KRaft input (it will be quarantined, not dropped)
    cluster_id: str
    size_bytes: int
    snapshot_end_offset: int | None
    # Why the path was not read: it is not a regular file (FIFO, socket, device) or a dangling symbolic link.
    skip_reason: str | None = None


@dataclass(frozen=True)
class Discovery:
    """What a set of ``--input`` arguments expands to."""

    files: tuple[InputFile, ...]
    ignored: tuple[str, ...]  # known side files (indexes, quorum-state, ...) that hold nothing to decode

    @property
    def skipped(self) -> tuple[InputFile, ...]:
        """Paths that are not regular files (reported as unrecognised inputs with their reason, never read)."""
        return tuple(f for f in self.files if f.skip_reason)


def discover_inputs(inputs: list[str], *, cluster_id: str | None = None, cluster_per_input: bool = False) -> Discovery:
    """Expand files, directories (recursively) and globs into input files with kind and cluster id.

    ``cluster_per_input`` names each input's cluster after the input directory itself, ignoring meta.properties:
    for collections of unrelated clusters that share a default ``cluster.id`` (copied from the docs).

    A path that is not a regular file (FIFO, socket, device, dangling symlink) becomes an ``InputFile`` without
    kind and with a ``skip_reason``; it is never opened for reading.

    Raises:
        InputError: when an input matches nothing, or a regular file cannot be read.
    """
    files: dict[str, InputFile] = {}
    ignored: list[str] = []
    for raw in inputs:
        matches = sorted(glob.glob(raw, recursive=True)) if glob.has_magic(raw) else [raw]
        if not matches or not any(os.path.exists(m) for m in matches):
            raise InputError(f"input {raw!r} does not exist")
        for match in matches:
            root = Path(match).resolve()
            # Everything but directories: FIFOs, sockets and dangling symlinks are reported, not dropped.
            candidates = [root] if not root.is_dir() else sorted(p for p in root.rglob("*") if not p.is_dir())
            for path in candidates:
                if path.name.startswith(".") or is_ignored_file(path.name):
                    ignored.append(str(path))
                    continue
                key = str(path)
                if key in files:
                    continue
                probed = _probe(path)
                cluster = (
                    cluster_id
                    or (root.name if cluster_per_input and root.is_dir() else None)
                    or resolve_cluster_id(path, given_root=root)
                )
                if isinstance(probed, str):
                    files[key] = InputFile(key, None, cluster, 0, None, skip_reason=probed)
                    continue
                head, size = probed
                kind = detect_input_kind(str(path), head)
                end = snapshot_end_offset_from_name(path.name) if kind == "SNAPSHOT" else None
                if kind == "BOOTSTRAP_SNAPSHOT":
                    end = 0
                files[key] = InputFile(
                    path=key, input_kind=kind, cluster_id=cluster, size_bytes=size, snapshot_end_offset=end
                )
    return Discovery(files=tuple(files.values()), ignored=tuple(ignored))


def _probe(path: Path, head_bytes: int = _HEAD_BYTES) -> tuple[bytes, int] | str:
    """``(first bytes, size)`` of a regular file, or why the path is not one (then nothing was read).

    The file is opened non-blocking and checked with ``fstat`` on the open descriptor, so a FIFO (which would
    block an ordinary ``open`` until a writer appears) is never waited on, even if it replaced a regular file
    after the directory was listed.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return "dangling symbolic link" if path.is_symlink() else "vanished while the inputs were listed"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symbolic link loop"
        raise InputError(f"cannot read {path}: {error.strerror}") from error
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return _not_regular(info.st_mode)
        return os.read(fd, head_bytes), info.st_size
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from error
    finally:
        os.close(fd)


def _not_regular(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "not a regular file: a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "not a regular file: a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "not a regular file: a device"
    return "not a regular file"


def read_head(path: str, size: int) -> bytes:
    """The first ``size`` bytes of a regular file; empty for anything else (never blocks on a FIFO).

    Args:
        path: A local path.
        size: How many bytes at most.

    Returns:
        The bytes, or ``b""`` when the path is not a readable regular file.
    """
    try:
        probed = _probe(Path(path), size)
    except InputError:
        return b""
    return b"" if isinstance(probed, str) else probed[0]


def resolve_cluster_id(path: Path, *, given_root: Path) -> str:
    """``cluster.id`` from a ``meta.properties`` beside the log directory, else the input directory's name.

    A log file sits in ``<log dir>/__cluster_metadata-0/``; Kafka writes ``meta.properties`` into ``<log dir>``.
    ``bootstrap.checkpoint`` sits in ``<log dir>`` itself. Without meta.properties, the name of the directory the
    user gave (or the file's own directory when a file was given) is used, skipping ``__cluster_metadata-0``.
    """
    directory = path.parent
    log_dir = directory.parent if directory.name.startswith(METADATA_DIR_PREFIX) else directory
    for candidate in (log_dir / "meta.properties", directory / "meta.properties"):
        found = _cluster_id_from_meta(candidate)
        if found:
            return found
    base = given_root if given_root.is_dir() else log_dir
    if base.name.startswith(METADATA_DIR_PREFIX):
        base = base.parent
    return base.name or "default"


def _cluster_id_from_meta(path: Path) -> str | None:
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # Kafka reads meta.properties with Properties.load: lines end at \n, \r or \r\n only (not at U+2028, ...).
    properties, _problems = parse_server_properties(text)
    return properties.get("cluster.id", "").strip() or None


def parse_static_config_args(values: list[str]) -> list[tuple[str | None, int | None, str]]:
    """``--static-config [CLUSTER/][NODE]=PATH`` or ``PATH`` (NODE optional when the file has node.id) as (cluster,
    node, absolute path); the cluster is None when the argument names none."""
    parsed: list[tuple[str | None, int | None, str]] = []
    for value in values:
        target, sep, path_text = value.partition("=")
        cluster, slash, node_text = target.rpartition("/")
        node_text = node_text.strip()
        numeric = node_text.isascii() and node_text.isdigit()
        if sep and slash and cluster.strip() and (not node_text or numeric):
            node: int | None = int(node_text[:12]) if node_text else None
            named: str | None = cluster.strip()
            path = path_text
        elif sep and target.strip().isascii() and target.strip().isdigit():
            node, named = int(target.strip()[:12]), None  # a longer id is refused as above a Java int
            path = path_text
        elif sep and not os.path.exists(value):
            raise UsageError(f"--static-config {value!r}: expected [CLUSTER/]NODE=PATH with a numeric node id")
        else:
            node, named, path = None, None, value
        if not os.path.exists(path):  # what it is, when not a regular file, is said by the reader (conf_loader)
            raise InputError(f"--static-config {value!r}: file {path!r} does not exist")
        parsed.append((named, node, str(Path(path).resolve())))
    return parsed
