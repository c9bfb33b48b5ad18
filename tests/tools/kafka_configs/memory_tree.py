"""An in-memory stand-in for the git mirror: repo path -> source text."""

from __future__ import annotations

from tools.kafka_configs.git import index_by_basename


class MemoryTree:
    """A :class:`tools.kafka_configs.git.SourceTree` over a dict of files."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.paths = list(files)
        self.by_basename = index_by_basename(self.paths)

    def read(self, path: str) -> str:
        return self.files[path]

    def exists(self, path: str) -> bool:
        return path in self.files
