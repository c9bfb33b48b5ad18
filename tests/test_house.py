"""The house rules a newcomer relies on, checked on the source text (pure Python, nothing is imported or run).

* A production module stays under 600 lines and a function under 70 (declarative tables aside).
* Nothing under ``transforms/`` touches files: reading and writing is for jobs. The runtime switches still under
  ``transforms/`` (ANSI off while plans are built, the cycle collector paused around decoding loops) are listed and
  may not spread.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = ("jobs", "transforms", "schemas", "synthetic")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 70

# Declarative tables written as functions: the data-quality suites, one expectation per entry.
DECLARATIVE = {"transforms/quality/suites.py"}
# Runtime switches still under transforms/ (module -> the switch).
SWITCHES = {
    "transforms/configdef/expressions.py": "spark.conf.set",
    "transforms/kit/cycle_collection.py": "gc.disable",
}
FILE_CALLS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "iterdir", "rglob", "unlink", "mkdir"}


def _sources(*packages: str) -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text()
        for package in packages
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def test_no_module_is_over_600_lines() -> None:
    over = {
        name: len(text.splitlines())
        for name, text in _sources(*PRODUCTION).items()
        if len(text.splitlines()) > MAX_MODULE_LINES
    }
    assert over == {}


def test_no_function_is_over_70_lines() -> None:
    over: dict[str, int] = {}
    for name, text in _sources(*PRODUCTION).items():
        if name in DECLARATIVE:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > MAX_FUNCTION_LINES:
                    over[f"{name}:{node.name}"] = lines
    assert over == {}


def test_transforms_touch_no_files() -> None:
    calls = [
        f"{name}:{node.lineno}"
        for name, text in _sources("transforms").items()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id in FILE_CALLS)
            or (isinstance(node.func, ast.Attribute) and node.func.attr in FILE_CALLS)
        )
    ]
    assert calls == []


def test_runtime_switches_in_transforms_do_not_spread() -> None:
    found = {
        name: switch
        for name, text in _sources("transforms").items()
        for switch in ("spark.conf.set", "gc.disable", "spark.sparkContext")
        if switch in text
    }
    assert found == SWITCHES
