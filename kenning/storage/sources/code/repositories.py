"""Where "repository" jobs read from: local repositories under the configured roots, and
clones of remote ones kept in a cache directory (one bare, shallow clone per URL, fetched
again by each job, so ``git diff`` between the last ingested commit and the new one works).

git runs without a shell, with ``GIT_ALLOW_PROTOCOL`` limited to http, https, ssh and file
(``ext::`` and the other transports never run), no terminal prompt and a timeout.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.sources.code.ports import GitRepository
from kenning.domain.sources.code.repository_request import (
    RepositoryJob,
    RepositorySpec,
    check_spec,
    default_name,
    file_url_path,
    under_roots,
)
from kenning.storage.sources.code.git_cli import GitCli

_ENV = {"GIT_ALLOW_PROTOCOL": "http:https:ssh:file", "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true", "GIT_SSH_COMMAND": "ssh -o BatchMode=yes"}  # fmt: skip
_TIMEOUT = 600
# Commits fetched per branch: enough that a later diff finds the last ingested commit.
FETCH_DEPTH = 50


class Repositories:
    """``RepositoryLocator`` and ``RepositoryOpener`` over the local file system."""

    def __init__(self, roots: Sequence[str | Path], cache_dir: str | Path, git: str = "git"):
        self.roots = [os.path.realpath(root) for root in roots]
        self.cache_dir = Path(cache_dir)
        self._git = git

    def locate(self, spec: RepositorySpec) -> RepositoryJob:
        """The job for ``spec``: the repository found, its branch and the branch's commit."""
        check_spec(spec)
        if spec.path is not None:
            path = self._allowed(spec.path, "path")
            repo = GitCli(path, self._git)
            branch = spec.branch or _current(repo.branch())
            name = spec.name or default_name(path)
            return RepositoryJob(name, branch, repo.commit_of(branch), path=path)
        url = str(spec.git_url)
        local = file_url_path(url)
        if local is not None:
            self._allowed(local, "gitUrl")
        branch, commit = self._remote_head(url, spec.branch)
        return RepositoryJob(spec.name or default_name(url), branch, commit, git_url=url)

    def open(self, job: RepositoryJob) -> tuple[GitRepository, str]:
        """The repository to read and the commit to ingest."""
        if job.path is not None:
            return GitCli(self._allowed(job.path, "path"), self._git), job.commit
        url = str(job.git_url)
        if (local := file_url_path(url)) is not None:
            self._allowed(local, "gitUrl")
        clone = self.cache_dir / hashlib.sha256(url.encode()).hexdigest()[:32]
        if not (clone / "HEAD").exists():
            clone.mkdir(parents=True, exist_ok=True)
            self._run("init", "--bare", "--quiet", str(clone))
        ref = f"+refs/heads/{job.branch}:refs/heads/{job.branch}"
        self._run("-C", str(clone), "fetch", "--quiet", f"--depth={FETCH_DEPTH}", "--", url, ref)
        repo = GitCli(clone, self._git)
        head = repo.commit_of(job.branch)
        # The branch may have moved since the job was queued; ingest what it is now.
        return repo, job.commit if _has(clone, job.commit, self._git) else head

    def _allowed(self, path: str, field: str) -> str:
        resolved = os.path.realpath(path)
        under_roots(resolved, self.roots, field)
        if not os.path.isdir(resolved):
            raise NotFoundError(f"no directory {path!r}", field=field)
        return resolved

    def _remote_head(self, url: str, branch: str | None) -> tuple[str, str]:
        wanted = f"refs/heads/{branch}" if branch else "HEAD"
        output = self._run("ls-remote", "--symref", "--", url, wanted, field="gitUrl")
        lines = [line.split("\t") for line in output.splitlines() if "\t" in line]
        heads = (ref.removeprefix("ref: refs/heads/") for ref, name in lines
                 if ref.startswith("ref: refs/heads/") and name == "HEAD")  # fmt: skip
        target = next(heads, branch)
        commit = next((ref for ref, name in lines
                       if name == wanted and not ref.startswith("ref:")), None)  # fmt: skip
        if commit is None or target is None:
            raise NotFoundError(f"no branch {branch or 'HEAD'!r} at {url!r}", field="branch")
        return target, commit

    def _run(self, *args: str, field: str = "gitUrl") -> str:
        try:
            done = subprocess.run(
                [self._git, *args], capture_output=True, timeout=_TIMEOUT, check=False,
                env={**os.environ, **_ENV},
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise ValidationError(f"git {args[0]} timed out", field=field) from None
        if done.returncode != 0:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ValidationError(f"git failed: {lines[-1] if lines else ''}"[:500], field=field)
        return done.stdout.decode("utf-8", "replace")


def _current(branch: str) -> str:
    if not branch:
        raise ValidationError("the repository is on a detached HEAD: give branch", field="branch")
    return branch


def _has(clone: Path, commit: str, git: str) -> bool:
    done = subprocess.run([git, "-C", str(clone), "cat-file", "-e", f"{commit}^{{commit}}"],
                          capture_output=True, check=False, timeout=60)  # fmt: skip
    return done.returncode == 0
