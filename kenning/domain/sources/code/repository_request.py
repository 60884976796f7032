"""Asking for a repository's code to be ingested: where it is, which branch, and the queued
"repository" job that does it.

A local ``path`` must lie under one of the server's configured roots
(``KENNING_REPOSITORY_ROOTS``; none configured refuses every local path), so that no API key
can make the server read an arbitrary directory of its machine. A ``gitUrl`` must be an
``http``, ``https``, ``ssh`` or ``file`` URL (a ``file`` URL's path under a root too); git's
other transports (``ext::``, which runs a command) are refused. The job's idempotency key is
the repository, branch, commit and scope, so asking twice for the same commit is one job.
The faces ask through ``repository_ingest.ingest_repository``.

Example::

    spec = check_spec(RepositorySpec(path="/srv/repos/shop", git_url=None, branch=None))
    result = await request_repository(locator.locate(spec), scope, 5, queue=queue)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Final, Protocol
from urllib.parse import unquote, urlsplit

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity, Lane, lane_bounds
from kenning.domain.queue.payload import task_payload
from kenning.domain.queue.ports import JobQueue, NewJob
from kenning.domain.sources.code.code_keys import check_branch, check_repository

REPOSITORY_TASK: Final = "repository"
_SCHEMES = frozenset({"http", "https", "ssh", "file"})
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class RepositorySpec:
    """What the caller asked for: exactly one of ``path`` and ``git_url``; ``branch``
    ``None`` for the repository's current branch; ``name`` ``None`` for the directory's
    (or the URL's last segment's) name."""

    path: str | None
    git_url: str | None
    branch: str | None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class RepositoryJob:
    """What a "repository" job reads: a local ``path`` (resolved, under a root) or a
    ``git_url``, the repository ``name`` in keys, the ``branch`` and its ``commit``."""

    name: str
    branch: str
    commit: str
    path: str | None = None
    git_url: str | None = None

    def payload(self) -> dict[str, Any]:
        """The job's JSON payload."""
        body = {
            "name": self.name,
            "branch": self.branch,
            "commit": self.commit,
            "path": self.path,
            "gitUrl": self.git_url,
        }
        return task_payload(REPOSITORY_TASK, {"repository": body})

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> RepositoryJob:
        """The job a payload describes; ``ValidationError`` when it is not one."""
        body = payload.get("repository")
        if not isinstance(body, Mapping):
            raise ValidationError("unreadable repository job payload", field="payload")
        job = cls(
            str(body.get("name")),
            str(body.get("branch")),
            str(body.get("commit")),
            body.get("path"),
            body.get("gitUrl"),
        )
        check_repository(job.name)
        check_branch(job.branch)
        if not _COMMIT.fullmatch(job.commit) or (job.path is None) == (job.git_url is None):
            raise ValidationError("unreadable repository job payload", field="payload")
        return job

    @property
    def identity(self) -> IngestionIdentity:
        """One job per repository, branch and commit (and scope: the queue keys by it)."""
        where = self.path or self.git_url or ""
        return IngestionIdentity(REPOSITORY_TASK, f"{where}#{self.branch}", self.commit)

    @property
    def state_urn(self) -> str:
        """The branch's own source (``code:<repo>@<branch>``), written last by a run that
        succeeded: it holds the commit the branch's knowledge stands for."""
        return f"code:{self.name}@{self.branch}"


class RepositoryLocator(Protocol):
    """Finds the repository a spec names and its branch's commit (blocking: git runs)."""

    def locate(self, spec: RepositorySpec) -> RepositoryJob:
        """The job for ``spec``; ``ValidationError`` or ``NotFoundError`` naming the field."""
        ...


def check_spec(spec: RepositorySpec) -> RepositorySpec:
    """``spec`` when its fields are well-formed (the locator checks what exists)."""
    if (spec.path is None) == (spec.git_url is None):
        raise ValidationError("give exactly one of path and gitUrl", field="path")
    if spec.path is not None and not PurePosixPath(spec.path).is_absolute():
        raise ValidationError("path must be an absolute path on the server", field="path")
    if spec.git_url is not None:
        check_git_url(spec.git_url)
    if spec.branch is not None:
        check_branch(spec.branch)
    if spec.name is not None:
        check_repository(spec.name)
    return spec


def check_git_url(url: str) -> str:
    """``url`` when it is an http(s), ssh or file URL git may clone; ``ValidationError``
    (field ``gitUrl``) otherwise. ``ext::sh -c …`` and options in disguise are refused;
    where the host resolves (no loopback, private or link-local address) is the locator's
    check, made again before each connection."""
    parts = urlsplit(url)
    if (
        len(url) > 2000
        or any(ord(c) < 33 for c in url)
        or "::" in url.split("/", 1)[0]
        or parts.scheme.lower() not in _SCHEMES
    ):
        raise ValidationError("gitUrl must be an http, https, ssh or file URL", field="gitUrl")
    if parts.scheme.lower() != "file" and (not parts.hostname or parts.hostname.startswith("-")):
        raise ValidationError("gitUrl must name a host", field="gitUrl")
    if parts.scheme.lower() == "file" and (parts.netloc or not parts.path.startswith("/")):
        raise ValidationError("a file gitUrl is file:///absolute/path", field="gitUrl")
    return url


def file_url_path(url: str) -> str | None:
    """The local path of a ``file://`` URL (which must then lie under a root), else None."""
    parts = urlsplit(url)
    return unquote(parts.path) if parts.scheme.lower() == "file" else None


def under_roots(resolved: str, roots: Sequence[str], field: str = "path") -> str:
    """``resolved`` (a real path, symlinks resolved) when it lies under one of ``roots``
    (real paths too); ``ValidationError`` naming ``field`` otherwise."""
    if not roots:
        raise ValidationError(
            "local repositories are off: the server configures none (KENNING_REPOSITORY_ROOTS)",
            field=field,
        )
    if not inside_roots(resolved, roots):
        raise ValidationError(
            "the repository is not under a directory the server allows", field=field
        )
    return resolved


def inside_roots(resolved: str, roots: Sequence[str]) -> bool:
    """Whether ``resolved`` (a real path) is one of ``roots`` or lies beneath one."""
    path = PurePosixPath(resolved)
    return any(path == PurePosixPath(r) or PurePosixPath(r) in path.parents for r in roots)


def default_name(where: str) -> str:
    """The repository name a path or URL suggests: ``/srv/shop.git`` → ``shop``."""
    last = where.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = last.removesuffix(".git")
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", name).lstrip("._-")[:100]
    return check_repository(cleaned or "repository")


def check_priority(priority: int) -> int:
    """A bulk-lane priority (3..9): a repository is many files, never an agent's write."""
    low, high = lane_bounds(Lane.BULK)
    if not low <= priority <= high:
        raise ValidationError(f"priority must be {low}..{high} (the bulk lane)", field="priority")
    return priority


async def request_repository(
    job: RepositoryJob,
    scope: Scope,
    priority: int,
    *,
    queue: JobQueue,
    connection_id: str | None = None,
) -> EnqueueResult:
    """Queue the "repository" job (bulk lane); the same commit asked again is one job. Its
    code is stored through ``connection_id`` when given (already checked)."""
    return await queue.enqueue(
        NewJob(
            identity=job.identity,
            scope=scope,
            priority=check_priority(priority),
            source_urn=job.state_urn,
            connection_id=connection_id,
            payload=job.payload(),
        )
    )
