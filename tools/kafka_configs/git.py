"""Read-only access to the Java and Scala sources of one ref of a bare git mirror (``git show``, no work tree)."""

from __future__ import annotations

import subprocess
from typing import Protocol

__all__ = ["Git", "SourceTree"]


class SourceTree(Protocol):
    """The main-source files of one Kafka ref, as the resolver reads them."""

    @property
    def paths(self) -> list[str]:
        """Repo paths of every ``.java`` / ``.scala`` file under a ``/src/main/`` directory, in git's order."""
        ...

    @property
    def by_basename(self) -> dict[str, list[str]]:
        """File name without extension -> the paths of that name (for the last-resort class lookup)."""
        ...

    def read(self, path: str) -> str:
        """The text of one file."""
        ...

    def exists(self, path: str) -> bool:
        """Whether ``path`` is one of :attr:`paths`."""
        ...


def index_by_basename(paths: list[str]) -> dict[str, list[str]]:
    """``{"LogConfig": ["core/.../LogConfig.scala", "storage/.../LogConfig.java"], ...}`` in the order of ``paths``.

    Args:
        paths: repo paths of source files.

    Returns:
        The paths grouped by file name without directory and extension.
    """
    out: dict[str, list[str]] = {}
    for path in paths:
        base = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        out.setdefault(base, []).append(path)
    return out


class Git:
    """The sources of one ref of a bare git mirror; files are read once and cached."""

    def __init__(self, git_dir: str, ref: str) -> None:
        """Resolve ``ref`` to its commit and list the commit's main sources.

        Args:
            git_dir: the bare mirror (``--git-dir``).
            ref: branch, tag or commit to read.

        Raises:
            subprocess.CalledProcessError: when git fails (unknown ref, not a repository).
        """
        self.git_dir = git_dir
        self.ref = ref
        self.commit = self._run("rev-parse", f"{ref}^{{commit}}").strip()
        names = self._run("ls-tree", "-r", "--name-only", self.commit).splitlines()
        self._paths = [p for p in names if p.endswith((".java", ".scala")) and "/src/main/" in p]
        self._path_set = frozenset(self._paths)
        self._by_basename = index_by_basename(self._paths)
        self._cache: dict[str, str] = {}

    @property
    def paths(self) -> list[str]:
        """Repo paths of the commit's main sources, in git's order."""
        return self._paths

    @property
    def by_basename(self) -> dict[str, list[str]]:
        """File name without extension -> paths."""
        return self._by_basename

    def _run(self, *args: str) -> str:
        out = subprocess.run(["git", f"--git-dir={self.git_dir}", *args], check=True, capture_output=True, text=True)
        return out.stdout

    def read(self, path: str) -> str:
        """The text of ``path`` at the resolved commit.

        Args:
            path: repo-relative path.

        Returns:
            The file's text.
        """
        if path not in self._cache:
            self._cache[path] = self._run("show", f"{self.commit}:{path}")
        return self._cache[path]

    def exists(self, path: str) -> bool:
        """Whether ``path`` is one of the commit's main sources."""
        return path in self._path_set
