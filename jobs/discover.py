"""Finding input files, their kind and their cluster (CONTRACT §3)."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

from schemas.errors import InputError, UsageError
from transforms.text.detect import detect_input_kind, is_ignored_file, snapshot_end_offset_from_name

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


@dataclass(frozen=True)
class Discovery:
    """What a set of ``--input`` arguments expands to."""

    files: tuple[InputFile, ...]
    ignored: tuple[str, ...]  # known side files (indexes, quorum-state, ...) that hold nothing to decode


def discover_inputs(inputs: list[str], *, cluster_id: str | None = None, cluster_per_input: bool = False) -> Discovery:
    """Expand files, directories (recursively) and globs into input files with kind and cluster id.

    ``cluster_per_input`` names each input's cluster after the input directory itself, ignoring meta.properties:
    for collections of unrelated clusters that share a default ``cluster.id`` (copied from the docs).

    Raises:
        InputError: when an input matches nothing.
    """
    files: dict[str, InputFile] = {}
    ignored: list[str] = []
    for raw in inputs:
        matches = sorted(glob.glob(raw, recursive=True)) if glob.has_magic(raw) else [raw]
        if not matches or not any(os.path.exists(m) for m in matches):
            raise InputError(f"input {raw!r} does not exist")
        for match in matches:
            root = Path(match).resolve()
            candidates = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
            for path in candidates:
                if path.name.startswith(".") or is_ignored_file(path.name):
                    ignored.append(str(path))
                    continue
                key = str(path)
                if key in files:
                    continue
                kind = _kind(path)
                end = snapshot_end_offset_from_name(path.name) if kind == "SNAPSHOT" else None
                if kind == "BOOTSTRAP_SNAPSHOT":
                    end = 0
                files[key] = InputFile(
                    path=key,
                    input_kind=kind,
                    cluster_id=cluster_id
                    or (root.name if cluster_per_input and root.is_dir() else None)
                    or resolve_cluster_id(path, given_root=root),
                    size_bytes=path.stat().st_size,
                    snapshot_end_offset=end,
                )
    return Discovery(files=tuple(files.values()), ignored=tuple(ignored))


def _kind(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from error
    return detect_input_kind(str(path), head)


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
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip() == "cluster.id" and value.strip():
                return value.strip()
    except OSError:
        return None
    return None


def parse_static_config_args(values: list[str]) -> list[tuple[int | None, str]]:
    """``--static-config NODE=PATH`` (NODE optional when the file has node.id) as (node, absolute path)."""
    parsed: list[tuple[int | None, str]] = []
    for value in values:
        node_text, sep, path_text = value.partition("=")
        if sep and node_text.strip().isdigit():
            node: int | None = int(node_text)
            path = path_text
        elif sep and not os.path.exists(value):
            raise UsageError(f"--static-config {value!r}: expected NODE=PATH with a numeric node id")
        else:
            node, path = None, value
        if not os.path.isfile(path):
            raise InputError(f"--static-config {value!r}: file {path!r} does not exist")
        parsed.append((node, str(Path(path).resolve())))
    return parsed
