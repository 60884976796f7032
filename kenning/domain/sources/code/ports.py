"""The ports the code source needs: a parser and a git repository; storage implements them
(``kenning.storage.sources.code``), tests may fake them. Both block: run them off the loop."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from kenning.domain.ingestion.git_commits import FileChange
from kenning.domain.sources.code.structure import CodeLanguage, FileStructure


class CodeParser(Protocol):
    """Reads the structure of one file."""

    def parse(self, path: str, language: CodeLanguage, content: bytes) -> FileStructure:
        """Definitions and imports of ``content`` (UTF-8 source of ``path``)."""
        ...


@dataclass(frozen=True, slots=True)
class TrackedFile:
    """A file of a commit and its size in bytes."""

    path: str
    size: int


class GitRepository(Protocol):
    """A local git repository, read at commits."""

    def head(self) -> str:
        """The commit hash ``HEAD`` points at."""
        ...

    def branch(self) -> str:
        """The checked-out branch name (``""`` on a detached head)."""
        ...

    def tracked_files(self, commit: str) -> list[TrackedFile]:
        """Every file ``commit`` tracks."""
        ...

    def changes(self, old: str, new: str) -> list[FileChange]:
        """``git diff --name-status old..new``: added, modified, deleted, renamed files."""
        ...

    def read(self, commit: str, paths: Iterable[str]) -> Mapping[str, bytes]:
        """The content of ``paths`` at ``commit`` (paths missing there are left out)."""
        ...

    def authored_at(self, commit: str) -> str:
        """When ``commit`` was authored, as git prints it (ISO 8601 with its zone)."""
        ...
