"""Loading the YAML under ``conf/`` into validated models (the only place conf files are read)."""

from __future__ import annotations

import functools
import os
import stat
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final

import yaml
from pydantic import ValidationError

from schemas.constraints import ConstraintCatalog, load_catalog_text
from schemas.errors import ConfigError
from schemas.kafka_catalog import KafkaCatalog, release_catalog_from_document
from schemas.kafka_vocabulary import CONFIG_RESOURCE_TYPES
from schemas.lifecycle import Waiver, load_waivers_text, merge_waiver_files
from schemas.metadata_version import MetadataVersionTable
from schemas.yaml_text import MAX_USER_YAML_BYTES
from transforms.configdef.functions import precheck_functions
from transforms.decode.redaction import SensitivityRules


def _conf_dir() -> Traversable:
    """The project's ``conf/``: packaged as ``jobs/conf`` in a wheel or the ``--py-files`` zip, else the checkout's.

    Inside a zip it is a ``zipfile.Path``: conf is read through the Traversable API (``iterdir``, ``read_text``),
    never through the file system, so the same code runs from a checkout, an installed wheel, and a zip shipped
    to a cluster's driver and executors.
    """
    packaged = resources.files("jobs").joinpath("conf")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "conf"


CONF_DIR: Traversable = _conf_dir()


def conf_path(*parts: str) -> Traversable:
    """A file or folder under the project's ``conf/`` (a Path in a checkout, a zipfile.Path inside a zip)."""
    return CONF_DIR.joinpath(*parts)


def _yaml_files(directory: Traversable) -> list[Traversable]:
    """The ``*.yaml`` files of a conf folder, by name (none when the folder is missing)."""
    if not directory.is_dir():
        return []
    return sorted((p for p in directory.iterdir() if p.name.endswith(".yaml") and p.is_file()), key=lambda p: p.name)


def _release_key(name: str) -> tuple[int, ...]:
    """``4.10.yaml`` sorts after ``4.9.yaml``."""
    return tuple(int(part) for part in name.removesuffix(".yaml").split(".") if part.isdigit())


# libyaml's safe loader when PyYAML has it (same documents, ~6x faster: the shipped conf/kafka catalogs took about
# 3 CPU-seconds per process with the pure-Python loader); user files keep yaml.safe_load and its messages.
_CONF_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: Traversable) -> Any:
    """Safe YAML load of a shipped conf file; a missing or malformed file is a ConfigError naming it."""
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_CONF_LOADER)  # a safe loader (no arbitrary objects)
    except FileNotFoundError as error:
        raise ConfigError(f"{path}: file not found") from error
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML: {error}") from error


@functools.cache
def metadata_versions() -> MetadataVersionTable:
    """The metadata.version table of ``conf/metadata_versions.yaml``."""
    path = conf_path("metadata_versions.yaml")
    try:
        return MetadataVersionTable.model_validate(load_yaml(path))
    except ValidationError as error:
        raise ConfigError(f"{path}: {error}") from error


@functools.cache
def kafka_catalog_documents() -> tuple[tuple[str, Any], ...]:
    """Every per-release Kafka config catalog as (release, parsed YAML), oldest release first."""
    directory = conf_path("kafka")
    return tuple(
        (path.name.removesuffix(".yaml"), load_yaml(path))
        for path in sorted(_yaml_files(directory), key=lambda p: _release_key(p.name))
    )


@functools.cache
def kafka_mv_gates() -> Any:
    """``conf/kafka_mv_gates.yaml`` as parsed YAML: Kafka's own MV-gated config checks (validated by
    ``transforms.configdef.generate.generate_default_catalog``)."""
    return load_yaml(conf_path("kafka_mv_gates.yaml"))


@functools.cache
def sensitivity_rules() -> SensitivityRules:
    """Password-type and known config names over every release of the catalog (see transforms.decode.redaction)."""
    passwords: set[str] = set()
    known: dict[str, set[str]] = {}
    for _release, doc in kafka_catalog_documents():
        if not isinstance(doc, dict):
            continue
        for resource in (t.kind for t in CONFIG_RESOURCE_TYPES):
            entries = doc.get(resource)
            names = known.setdefault(resource, set())
            for entry in entries or []:
                if not isinstance(entry, dict) or "name" not in entry:
                    continue
                names.add(entry["name"])
                if str(entry.get("type", "")).upper() == "PASSWORD" or entry.get("sensitive"):
                    passwords.add(entry["name"])
    return SensitivityRules(
        password_keys=frozenset(passwords),
        known_keys={resource: frozenset(names) for resource, names in known.items() if names},
    )


@functools.cache
def kafka_catalog() -> KafkaCatalog:
    """All per-release Kafka config catalogs of ``conf/kafka/`` as one validated model."""
    releases = [
        release_catalog_from_document(doc, source=f"conf/kafka/{release}.yaml")
        for release, doc in kafka_catalog_documents()
    ]
    if not releases:
        raise ConfigError(f"no Kafka config catalogs found in {conf_path('kafka')}")
    return KafkaCatalog(releases=tuple(releases))


def constraint_catalog(path: str) -> ConstraintCatalog:
    """A user constraint catalog file (``--constraints``), validated; errors name the file and constraint."""
    file = Path(path)
    text = read_user_text(file, what="constraint catalog", option="--constraints")
    catalog = load_catalog_text(text, str(file))
    for constraint in catalog.constraints:
        # Cheap and before Spark starts; validate_with_spark repeats it exactly on Spark's parse tree.
        if constraint.expr is not None and (problem := precheck_functions(constraint.expr)) is not None:
            raise ConfigError(f"{path}: constraint {constraint.id}: expr {problem}")
    return catalog


# A real server.properties is a few KiB (Kafka's own sample is 6 KiB); 1 MiB is far beyond any, and keeps a
# hostile file from costing the ingest many times its size in parsed properties.
MAX_STATIC_CONFIG_BYTES: Final = 1024 * 1024
_KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(mode: int) -> str | None:
    """What a non-regular file is (for the message), None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def _size_text(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB" if size % (1024 * 1024) == 0 else f"{size:,} bytes"


def _open_regular(file: Path, *, where: str, what: str) -> int:
    """A read-only, non-blocking descriptor of a regular file; anything else is a ConfigError."""
    try:
        kind = _not_regular(os.stat(file).st_mode)
        if kind is None:
            fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            kind = _not_regular(os.fstat(fd).st_mode)  # replaced between the stat and the open
            if kind is not None:
                os.close(fd)
    except FileNotFoundError as error:
        raise ConfigError(f"{where}: {what} not found") from error
    except OSError as error:
        raise ConfigError(f"{where}: cannot read the {what}: {error.strerror or error}") from error
    if kind is not None:
        raise ConfigError(f"{where}: is {kind}, not a {what} file")
    return fd


def read_user_bytes(file: Path, *, what: str, option: str, limit: int) -> bytes:
    """A user file's bytes, at most ``limit``; every way it cannot be read is a ConfigError naming it (exit 2).

    Only regular files are read: a FIFO would block the run until some writer appears, ``/dev/zero`` or
    ``/dev/urandom`` never end, and opening some devices has side effects, so the file's kind is checked
    before it is opened. It is opened non-blocking (a FIFO put in its place meanwhile cannot hang the open),
    checked again on the open descriptor, and read up to ``limit + 1`` bytes, so a file that grows while it is
    read is refused too rather than read whole.

    Raises:
        ConfigError: ``"<option> <file>: <problem>"``: missing, not a regular file, unreadable, or over ``limit``.
    """
    where = f"{option} {file}"
    fd = _open_regular(file, where=where, what=what)
    try:
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1024 * 1024, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise ConfigError(f"{where}: cannot read the {what}: {error.strerror or error}") from error
    finally:
        os.close(fd)
    if size > limit:
        raise ConfigError(f"{where}: larger than {_size_text(limit)}, the limit of a {what}")
    return b"".join(chunks)


def read_user_text(file: Path, *, what: str, option: str, limit: int = MAX_USER_YAML_BYTES) -> str:
    """A user file's text (UTF-8), read by :func:`read_user_bytes`; not UTF-8 is a ConfigError too (exit 2)."""
    raw = read_user_bytes(file, what=what, option=option, limit=limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{option} {file}: {what} is not UTF-8 text (byte {error.start})") from error


def read_static_config(path: str) -> bytes:
    """A ``--static-config`` server.properties file's bytes (a regular file of at most 1 MiB)."""
    return read_user_bytes(
        Path(path), what="server.properties", option="--static-config", limit=MAX_STATIC_CONFIG_BYTES
    )


def waivers(paths: list[str] | tuple[str, ...]) -> tuple[Waiver, ...]:
    """The waivers of every ``--waivers`` file, validated; errors name the file and the waiver id."""
    files = []
    for path in paths:
        text = read_user_text(Path(path), what="waivers file", option="--waivers")
        files.append(load_waivers_text(text, path))
    return merge_waiver_files(files)


def catalog_fingerprint(paths: list[str]) -> str:
    """A short hash over the config catalogs and constraint files a run used."""
    import hashlib

    digest = hashlib.sha256()
    files: list[Traversable] = [*_yaml_files(conf_path("kafka")), *(Path(p) for p in sorted(paths))]
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
