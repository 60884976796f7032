"""``GitRepository`` over the ``git`` command (run without a shell, arguments as a list).

Files are read from the commit's objects through one ``git cat-file --batch`` process, not
from the working tree, so uncommitted edits never reach the knowledge the commit stands for;
only regular files are read (a symlink's target, a submodule's commit are not followed).
git runs with the minimal environment of ``git_env``, told its ``--git-dir`` (``git_dir``:
no search, no other repository), and with the repository's own config kept from running
programs (fsmonitor, hooks, external diff) or reaching a remote: a local repository is data.
"""

from __future__ import annotations

import logging
import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.ingestion.git_commits import FileChange
from kenning.domain.sources.code.ports import TrackedFile
from kenning.storage.sources.code.git_dir import GitDir, git_dir_of
from kenning.storage.sources.code.git_env import HARDENED, git_environment

log = logging.getLogger(__name__)

_COMMIT = re.compile(r"[0-9a-fA-F]{7,64}|HEAD")
_TIMEOUT = 120
# ls-tree's modes of regular files (644, 755, and 664 from old git).
_REGULAR = (b"100644", b"100755", b"100664")


class GitCli:
    """A local repository (a checkout or a bare clone) at ``root``: a ``GitDir`` already
    located and checked, or a directory that is itself a repository."""

    def __init__(self, root: str | Path | GitDir, git: str = "git") -> None:
        self._git = git
        if not isinstance(root, GitDir):
            if not Path(root).is_dir():
                raise NotFoundError(f"no directory {str(root)!r}", field="path")
            root = git_dir_of(root)
        self.place = root
        self.root = Path(root.path)
        if self._run("rev-parse", "--git-dir", check=False) is None:
            raise ValidationError(f"{root.path!r} is not a git repository", field="path")

    def head(self) -> str:
        """The commit hash ``HEAD`` points at."""
        return self._text("rev-parse", "--verify", "HEAD^{commit}").strip()

    def branch(self) -> str:
        """The checked-out branch (``""`` on a detached head)."""
        name = self._run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        return name.decode().strip() if name is not None else ""

    def commit_of(self, branch: str) -> str:
        """The commit branch ``branch`` points at (``NotFoundError`` naming ``branch``)."""
        ref = f"refs/heads/{branch}^{{commit}}"
        found = self._run("rev-parse", "--verify", "--quiet", ref, check=False)
        if not found:
            raise NotFoundError(f"no branch {branch!r} in the repository", field="branch")
        return found.decode().strip()

    def has_commit(self, commit: str) -> bool:
        """Whether the repository holds ``commit`` (a hash)."""
        if not _COMMIT.fullmatch(commit):
            return False
        return self._run("cat-file", "-e", f"{commit}^{{commit}}", check=False) is not None

    def tracked_files(self, commit: str) -> list[TrackedFile]:
        """Every regular file ``commit`` tracks, with its size (``git ls-tree -r -l``)."""
        output = self._run("ls-tree", "-r", "-l", "-z", "--full-tree", _checked(commit))
        files: list[TrackedFile] = []
        for entry in (output or b"").split(b"\0"):
            meta, _, path = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) == 4 and fields[0] in _REGULAR and fields[3].isdigit():
                files.append(TrackedFile(path.decode("utf-8", "replace"), int(fields[3])))
        return files

    def changes(self, old: str, new: str) -> list[FileChange]:
        """``git diff --name-status -M old..new``."""
        span = f"{_checked(old)}..{_checked(new)}"
        output = self._run(
            "diff", "--no-ext-diff", "--no-textconv", "--name-status", "-M", "-z", span
        )
        fields = (output or b"").decode("utf-8", "replace").split("\0")
        changes: list[FileChange] = []
        position = 0
        while position < len(fields) and fields[position]:
            status = fields[position]
            if status[:1] in ("R", "C"):
                old_path, path = fields[position + 1], fields[position + 2]
                changes.append(FileChange(path, status[:1], old_path))
                position += 3
            else:
                changes.append(FileChange(fields[position + 1], status[:1]))
                position += 2
        return changes

    def read(self, commit: str, paths: Iterable[str]) -> Mapping[str, bytes]:
        """The content of ``paths`` at ``commit`` (missing ones left out)."""
        wanted = [p for p in paths if "\n" not in p]
        if not wanted:
            return {}
        request = "".join(f"{_checked(commit)}:{path}\n" for path in wanted).encode()
        output = self._run("cat-file", "--batch", stdin=request) or b""
        contents: dict[str, bytes] = {}
        position = 0
        for path in wanted:
            header_end = output.index(b"\n", position)
            header = output[position:header_end].split()
            position = header_end + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                contents[path] = output[position : position + size]
                position += size + 1
            elif len(header) == 3:
                position += int(header[2]) + 1
        return contents

    def authored_at(self, commit: str) -> str:
        """The author date of ``commit`` in strict ISO 8601 (``git log -1 --format=%aI``)."""
        return self._text("log", "-1", "--no-show-signature", "--format=%aI", _checked(commit))

    def _text(self, *args: str) -> str:
        return (self._run(*args) or b"").decode("utf-8", "replace")

    def _run(self, *args: str, check: bool = True, stdin: bytes | None = None) -> bytes | None:
        with tempfile.TemporaryDirectory(prefix="kenning-git-") as home:
            completed = subprocess.run(
                [self._git, *HARDENED, *self.place.options, *args],
                input=stdin,
                capture_output=True,
                timeout=_TIMEOUT,
                check=False,
                cwd=home,
                env=git_environment(home, local=True),
            )
        if completed.returncode != 0:
            if not check:
                return None
            # git's own words (paths on the server, object ids) stay in the server log, as a
            # failed fetch's do.
            stderr = completed.stderr.decode("utf-8", "replace").strip()
            log.warning(
                "git %s failed (exit %s): %s", args[0], completed.returncode, stderr[-2000:]
            )
            raise ValidationError(
                f"git {args[0]} failed on the repository; the server log has git's message",
                field="commit",
            )
        return completed.stdout


def _checked(commit: str) -> str:
    """``commit`` when it is a hash or ``HEAD`` (never an option such as ``--output``)."""
    if not _COMMIT.fullmatch(commit):
        raise ValidationError(f"{commit[:80]!r} is not a commit hash", field="commit")
    return commit
