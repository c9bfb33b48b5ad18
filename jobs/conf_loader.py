"""Loading the YAML under ``conf/`` into validated models (the only place conf files are read)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from schemas.constraints import ConstraintCatalog, load_catalog_text
from schemas.errors import ConfigError
from schemas.kafka_catalog import KafkaCatalog, release_catalog_from_document
from schemas.lifecycle import Waiver, load_waivers_text, merge_waiver_files
from schemas.metadata_version import MetadataVersionTable
from transforms.redact import SensitivityRules

CONF_DIR = Path(__file__).resolve().parent.parent / "conf"


def conf_path(*parts: str) -> Path:
    """A path under the project's ``conf/`` directory."""
    return CONF_DIR.joinpath(*parts)


def load_yaml(path: Path) -> Any:
    """``yaml.safe_load`` of a file; a missing or malformed file is a ConfigError naming it."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
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
    docs = []
    for path in sorted(directory.glob("*.yaml"), key=lambda p: tuple(int(x) for x in p.stem.split(".") if x.isdigit())):
        docs.append((path.stem, load_yaml(path)))
    return tuple(docs)


@functools.cache
def sensitivity_rules() -> SensitivityRules:
    """Password-type and known config names over every release of the catalog (see transforms.redact)."""
    passwords: set[str] = set()
    known: dict[str, set[str]] = {}
    for _release, doc in kafka_catalog_documents():
        if not isinstance(doc, dict):
            continue
        for resource in ("broker", "topic", "group", "client_metrics"):
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
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise ConfigError(f"{path}: constraint catalog not found") from error
    return load_catalog_text(text, str(file))


def waivers(paths: list[str] | tuple[str, ...]) -> tuple[Waiver, ...]:
    """The waivers of every ``--waivers`` file, validated; errors name the file and the waiver id."""
    files = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError as error:
            raise ConfigError(f"{path}: waivers file not found") from error
        except (IsADirectoryError, UnicodeDecodeError) as error:
            raise ConfigError(f"{path}: not a readable waivers file ({error})") from error
        files.append(load_waivers_text(text, path))
    return merge_waiver_files(files)


def catalog_fingerprint(paths: list[str]) -> str:
    """A short hash over the config catalogs and constraint files a run used."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(conf_path("kafka").glob("*.yaml")) + [Path(p) for p in sorted(paths)]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
