"""Build hook only (the project is described in pyproject.toml): ship ``conf/`` inside the package as ``jobs/conf``.

A wheel (and the ``spark-submit --py-files`` zip made from it) then carries the Kafka config catalogs, the
metadata.version table and the example constraint catalogs beside the code that reads them; ``jobs.conf_loader``
looks there first and falls back to the checkout's ``conf/`` (editable installs, tests).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONF = Path(__file__).resolve().parent / "conf"


class BuildPyWithConf(build_py):
    """``build_py`` that also copies ``conf/`` to ``<build>/jobs/conf`` (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads conf/ from the checkout
            return
        target = Path(self.build_lib) / "jobs" / "conf"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(CONF, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))


setup(cmdclass={"build_py": BuildPyWithConf})
