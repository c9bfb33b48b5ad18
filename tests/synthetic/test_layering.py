"""The generator's place among the packages: ``synthetic`` uses ``schemas`` and ``transforms.decode.binary`` only, and
no module of ``transforms`` imports ``synthetic`` (the generator is not a transform)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("schemas", "transforms", "jobs", "synthetic", "benchmarks", "tests", "tools")


def project_imports(package: str) -> dict[str, set[str]]:
    """Module path -> the project modules it imports (absolute imports; the project uses no relative ones)."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        found[str(path.relative_to(REPO))] = {n for n in names if n.split(".")[0] in PROJECT_PACKAGES}
    return found


def test_transforms_never_import_synthetic() -> None:
    offenders = {m: i for m, i in project_imports("transforms").items() if any(n.startswith("synthetic") for n in i)}
    assert not offenders


def test_synthetic_uses_only_schemas_transforms_binary_and_itself() -> None:
    allowed = ("schemas", "transforms.decode.binary", "synthetic")
    offenders = {
        module: {n for n in names if not n.startswith(allowed)}
        for module, names in project_imports("synthetic").items()
        if any(not n.startswith(allowed) for n in names)
    }
    assert not offenders
