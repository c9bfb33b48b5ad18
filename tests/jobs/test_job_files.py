"""Job files run as scripts (``spark-submit jobs/audit.py``): their folder then leads ``sys.path``."""

from __future__ import annotations

import sys
from pathlib import Path

JOBS = Path(__file__).resolve().parents[2] / "jobs"


def test_no_job_module_shadows_a_standard_library_module() -> None:
    # Python puts a script's own folder first on sys.path, so jobs/secrets.py would hide the stdlib's `secrets`
    # from every library the job imports; the job files carry no sys.path workaround, so no name may clash.
    names = {path.stem for path in JOBS.glob("*.py")} | {path.name for path in JOBS.iterdir() if path.is_dir()}
    assert not names & set(sys.stdlib_module_names)


def test_job_files_do_not_reorder_sys_path() -> None:
    assert not [path.name for path in JOBS.glob("*.py") if "sys.path" in path.read_text(encoding="utf-8")]


def test_every_command_is_a_job_file_spark_submit_can_run() -> None:
    # docs/contract.md §2: `spark-submit jobs/<command>.py` runs `kraft-audit <command>` (a package would not do)
    commands = ("ingest", "audit", "run", "gate", "simulate", "report", "demo", "synth", "dq")
    missing = [name for name in commands if 'if __name__ == "__main__":' not in _text(JOBS / f"{name}.py")]
    assert missing == []


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""
