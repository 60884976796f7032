"""Where "repository" jobs read from: local repositories under the configured roots, and
clones of remote ones kept in a cache directory (one bare, shallow clone per URL, fetched
again by each job, so ``git diff`` between the last ingested commit and the new one works).

A local repository, named by ``path`` or by a ``file://`` URL, is located and checked by
``git_dir`` when the request comes and again when the job runs: git reads nothing of it that
lies outside the roots. A ``file://`` URL is fetched from that checked git directory through
``upload-pack --strict``, which opens exactly it (no ``.git`` file or suffix it would try on
its own) and sends a pack: the clone never hardlinks or borrows the source's objects.

git runs without a shell, with ``GIT_ALLOW_PROTOCOL`` limited to http, https, ssh and file
(``ext::`` and the other transports never run), no terminal prompt, a timeout and the minimal
environment of ``git_env``. A remote URL's host is checked and pinned by ``remote_address``
before every ``ls-remote`` and ``fetch`` (a name may resolve elsewhere by the time the job
runs); git's own error text is logged, never returned. One job at a time holds a clone
(``flock`` on ``<clone>.lock`` around init, fetch and the commit lookup); reads after that
are safe beside a later fetch, which only adds objects (automatic gc is off).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import re
import shlex
import subprocess
import tempfile
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
)
from kenning.storage.sources.code.git_cli import GitCli
from kenning.storage.sources.code.git_dir import confined_git_dir
from kenning.storage.sources.code.git_env import HARDENED, git_environment
from kenning.storage.sources.code.remote_address import (
    UNREACHABLE,
    Pinned,
    SyncResolver,
    pin_remote,
    system_resolver,
)

log = logging.getLogger(__name__)
_UNPINNED = Pinned()
_TIMEOUT = 600
_USERINFO = re.compile(r"://[^/@\s]*@")
# ls-remote runs inside the ingestRepository request: a caller waits for it.
_LS_REMOTE_TIMEOUT = 60
# Commits fetched per branch: enough that a later diff finds the last ingested commit.
FETCH_DEPTH = 50


class Repositories:
    """``RepositoryLocator`` and ``RepositoryOpener`` over the local file system."""

    def __init__(
        self,
        roots: Sequence[str | Path],
        cache_dir: str | Path,
        git: str = "git",
        *,
        allow_private: bool = False,
        resolver: SyncResolver = system_resolver,
    ) -> None:
        self.roots = [os.path.realpath(root) for root in roots]
        self.cache_dir = Path(cache_dir)
        self._git = git
        self._allow_private = allow_private
        self._resolver = resolver

    def locate(self, spec: RepositorySpec) -> RepositoryJob:
        """The job for ``spec``: the repository found, its branch and the branch's commit."""
        check_spec(spec)
        if spec.path is not None:
            place = confined_git_dir(spec.path, self.roots, "path")
            repo = GitCli(place, self._git)
            branch = spec.branch or _current(repo.branch())
            name = spec.name or default_name(place.path)
            return RepositoryJob(name, branch, repo.commit_of(branch), path=place.path)
        url = str(spec.git_url)
        branch, commit = self._remote_head(url, spec.branch)
        return RepositoryJob(spec.name or default_name(url), branch, commit, git_url=url)

    def open(self, job: RepositoryJob) -> tuple[GitRepository, str]:
        """The repository to read and the commit to ingest."""
        if job.path is not None:
            return GitCli(confined_git_dir(job.path, self.roots, "path"), self._git), job.commit
        url = str(job.git_url)
        source, options = self._source(url)
        clone = self.cache_dir / hashlib.sha256(url.encode()).hexdigest()[:32]
        pinned = self._pin(url)
        clone.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{clone}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not (clone / "HEAD").exists():
                clone.mkdir(parents=True, exist_ok=True)
                self._run("init", "--bare", "--quiet", str(clone))
            ref = f"+refs/heads/{job.branch}:refs/heads/{job.branch}"
            fetch = ("fetch", "--quiet", f"--depth={FETCH_DEPTH}", *options, "--", source, ref)
            self._run(*pinned.options, f"--git-dir={clone}", *fetch, pinned=pinned)
            repo = GitCli(clone, self._git)
            head = repo.commit_of(job.branch)
            has = repo.has_commit(job.commit)
        # The branch may have moved since the job was queued; ingest what it is now.
        return repo, job.commit if has else head

    def _source(self, url: str) -> tuple[str, tuple[str, ...]]:
        """Where git reaches ``url`` and the options that go with it: a file URL's checked
        git directory, opened by ``upload-pack --strict`` as it is, or the URL itself."""
        local = file_url_path(url)
        if local is None:
            return url, ()
        place = confined_git_dir(local, self.roots, "gitUrl")
        upload_pack = f"{shlex.quote(self._git)} upload-pack --strict"
        return place.git_dir, (f"--upload-pack={upload_pack}",)

    def _remote_head(self, url: str, branch: str | None) -> tuple[str, str]:
        wanted = f"refs/heads/{branch}" if branch else "HEAD"
        source, options = self._source(url)
        pinned = self._pin(url)
        listing = ("ls-remote", "--symref", *options, "--", source, wanted)
        output = self._run(*pinned.options, *listing, pinned=pinned, timeout=_LS_REMOTE_TIMEOUT)
        lines = [line.split("\t") for line in output.splitlines() if "\t" in line]
        heads = (
            ref.removeprefix("ref: refs/heads/")
            for ref, name in lines
            if ref.startswith("ref: refs/heads/") and name == "HEAD"
        )
        target = next(heads, branch)
        commit = next(
            (ref for ref, name in lines if name == wanted and not ref.startswith("ref:")), None
        )
        if commit is None or target is None:
            raise NotFoundError(f"no branch {branch or 'HEAD'!r} at {url!r}", field="branch")
        return target, commit

    def _pin(self, url: str) -> Pinned:
        return pin_remote(url, allow_private=self._allow_private, resolver=self._resolver)

    def _run(self, *args: str, pinned: Pinned = _UNPINNED, timeout: float = _TIMEOUT) -> str:
        with tempfile.TemporaryDirectory(prefix="kenning-git-") as home:
            try:
                done = subprocess.run(
                    [self._git, *HARDENED, *args],
                    capture_output=True,
                    timeout=timeout,
                    check=False,
                    cwd=home,
                    env=git_environment(home, pinned.ssh_address),
                )
            except subprocess.TimeoutExpired:
                shown = " ".join(a for a in args if "=" not in a)
                # A URL's user part never reaches the log, whatever the checks let through.
                log.warning("git %s timed out", _USERINFO.sub("://", shown)[:200])
                raise ValidationError(UNREACHABLE, field="gitUrl") from None
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace").strip()
            log.warning(
                "git failed (exit %s): %s", done.returncode, _USERINFO.sub("://", stderr)[-2000:]
            )
            raise ValidationError(UNREACHABLE, field="gitUrl")
        return done.stdout.decode("utf-8", "replace")


def _current(branch: str) -> str:
    if not branch:
        raise ValidationError("the repository is on a detached HEAD: give branch", field="branch")
    return branch
