"""The layer rules of the code base, checked on the import statements (pure Python, no import is executed).

``schemas`` (contracts) ← ``transforms`` (pure DataFrame / Column logic) ← ``jobs`` (side effects, CLI). Every
``import`` counts wherever it is written: inside functions and under ``if TYPE_CHECKING:`` too, because a
type-only import still couples the modules.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Top-level directories that are packages of the project (tests and the helper scripts aside).
PACKAGES = tuple(sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests"))


@cache
def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of every project package (a package is its ``__init__``)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _project_module(dotted: str) -> str | None:
    """The project module an imported name lives in (its longest known prefix), or None outside the project."""
    known = modules()
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


@cache
def imports() -> dict[str, frozenset[str]]:
    """Module -> the project modules it imports (``from p import m`` counts as importing ``p.m`` when ``m`` is a
    module, else as importing ``p``)."""
    graph: dict[str, frozenset[str]] = {}
    for module, path in modules().items():
        is_package = path.name == "__init__.py"
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: resolved against the importing module's package
                    anchor = module if is_package else module.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = f"{anchor}.{base}" if base else anchor
                names = [f"{base}.{alias.name}" for alias in node.names]
                names = [n if n in modules() else base for n in names]
            else:
                continue
            found.update(m for m in map(_project_module, names) if m is not None and m != module)
        graph[module] = frozenset(found)
    return graph


def _under(module: str, *roots: str) -> bool:
    return any(module == root or module.startswith(root + ".") for root in roots)


def _imports_of(importers: str, *, outside: tuple[str, ...] = (), inside: tuple[str, ...] = ()) -> list[str]:
    """``importer -> imported`` for the imports of modules under ``importers`` whose target is not under any of
    ``outside`` (when given) or is under one of ``inside`` (when given)."""
    return sorted(
        f"{importer} -> {imported}"
        for importer, targets in imports().items()
        if _under(importer, importers)
        for imported in targets
        if (outside and not _under(imported, *outside)) or (inside and _under(imported, *inside))
    )


def test_the_packages_are_found() -> None:
    assert {"schemas", "transforms", "jobs"} <= set(PACKAGES)
    assert "transforms.constraints.evaluate" in modules()


def test_schemas_import_no_other_project_package() -> None:
    assert _imports_of("schemas", outside=("schemas",)) == []


def test_transforms_import_only_schemas_and_transforms() -> None:
    assert _imports_of("transforms", outside=("schemas", "transforms")) == []


def test_constraint_evaluation_does_not_depend_on_replay_resolution_or_whatif() -> None:
    forbidden = ("transforms.decode", "transforms.replay", "transforms.effective", "transforms.whatif")
    assert _imports_of("transforms.constraints", inside=forbidden) == []


def test_no_import_cycles() -> None:
    graph = imports()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    assert cycles == []


def test_only_the_runtime_reaches_into_pyspark_private_handles() -> None:
    """A DataFrame's ``_jdf`` and a session's ``_jsparkSession`` (PySpark's private handles on the JVM) are used by
    ``jobs.runtime`` alone: transforms build plans with the public API, and jobs ask the runtime."""
    found = [
        f"{module}: {handle}"
        for module, path in modules().items()
        if _under(module, "schemas", "transforms", "jobs", "synthetic") and not _under(module, "jobs.runtime")
        for handle in ("._jdf", "._jsparkSession")
        if handle in path.read_text()
    ]
    assert found == []


def test_the_console_script_imports_every_command_and_no_module_imports_it_back() -> None:
    commands = {"ingest", "audit", "run", "gate", "simulate", "report", "demo", "synth", "dq"}
    assert {f"jobs.{name}" for name in commands} <= imports()["jobs.cli"]
    assert _imports_of("jobs", inside=("jobs.cli",)) == []


def test_the_constraint_catalog_depends_on_no_stage() -> None:
    """``transforms.configdef`` is shared by the resolution and the evaluation: it imports neither, nor any stage."""
    assert _imports_of("transforms.configdef", outside=("schemas", "transforms.configdef", "transforms.kit")) == []
