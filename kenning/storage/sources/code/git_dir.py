"""Where a local repository's git directory is, found without git's own search and checked
against the repository roots before git reads anything of it.

Left to itself, git reads beyond the directory it is given: it climbs to an enclosing
repository, follows a ``.git`` file (``gitdir: /elsewhere/.git``) or symlink, a worktree's
``commondir``, ``objects/info/alternates`` and any symlink inside the git directory, and
takes history from ``info/grafts``. ``confined_git_dir`` finds the git directory itself
(``<dir>/.git``, or ``<dir>`` when it is bare; never a parent) and refuses, naming the rule,
each link that leads out of the roots, grafts, and a repository another user owns (git's own
``safe.directory`` rule, which an explicit ``--git-dir`` skips); git then runs with that
``--git-dir`` and ``--work-tree`` and searches for nothing.

Example: ``GitCli(confined_git_dir("/srv/repos/shop", roots, "path"))``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.sources.code.repository_request import inside_roots, under_roots

_OUTSIDE = "outside the directories the server allows (KENNING_REPOSITORY_ROOTS)"
_ALTERNATES = "objects/info/alternates"
# A .git file or commondir holds one path; one this long is not one.
_POINTER_BYTES = 65536


@dataclass(frozen=True, slots=True)
class GitDir:
    """A repository as git is told to open it: the directory named (symlinks resolved) and
    its git directory (the same directory when the repository is bare)."""

    path: str
    git_dir: str

    @property
    def options(self) -> tuple[str, ...]:
        """git's options naming the repository, so that git looks for no other."""
        if self.git_dir == self.path:
            return (f"--git-dir={self.git_dir}",)
        return (f"--git-dir={self.git_dir}", f"--work-tree={self.path}")


@dataclass(frozen=True, slots=True)
class _Roots:
    """Where links may lead (``None``: anywhere) and the input field a refusal names."""

    roots: Sequence[str] | None
    field: str

    def check(self, real: str, refusal: str) -> str:
        if self.roots is not None and not inside_roots(real, self.roots):
            raise ValidationError(refusal, field=self.field)
        return real

    def refuse(self, message: str) -> ValidationError:
        return ValidationError(message, field=self.field)


def git_dir_of(path: str | Path) -> GitDir:
    """The repository at ``path`` itself, wherever its links lead (for repositories the
    server owns, such as its clones); ``ValidationError`` when ``path`` is not one."""
    return _locate(os.path.realpath(path), _Roots(None, "path"))


def confined_git_dir(path: str, roots: Sequence[str], field: str) -> GitDir:
    """The repository at ``path`` when everything git would read of it lies under ``roots``
    (real paths); ``ValidationError`` naming ``field`` and the rule broken otherwise,
    ``NotFoundError`` when there is no such directory."""
    resolved = os.path.realpath(path)
    under_roots(resolved, roots, field)
    if not os.path.isdir(resolved):
        raise NotFoundError(f"no directory {path!r}", field=field)
    allowed = _Roots(roots, field)
    try:
        place = _locate(resolved, allowed)
        _check_owner(place, allowed)
        _check_store(place.git_dir, allowed)
    except OSError as error:
        raise allowed.refuse(f"the repository is unreadable: {error.strerror}") from None
    return place


def _locate(resolved: str, allowed: _Roots) -> GitDir:
    dotgit = os.path.join(resolved, ".git")
    if os.path.islink(dotgit):
        allowed.check(os.path.realpath(dotgit), f"the repository's .git symlink leads {_OUTSIDE}")
    if os.path.isfile(dotgit):
        target = _gitfile_target(dotgit, allowed)
        allowed.check(target, f"the repository's .git file names a git directory {_OUTSIDE}")
        if not os.path.isdir(target):
            # git would follow a second .git file given as --git-dir: one link, no chains.
            raise allowed.refuse("the repository's .git file names no directory")
        return GitDir(resolved, target)
    if os.path.isdir(dotgit):
        return GitDir(resolved, os.path.realpath(dotgit))
    if os.path.isfile(os.path.join(resolved, "HEAD")):
        return GitDir(resolved, resolved)  # a bare repository
    raise allowed.refuse(
        "the directory is not a git repository itself (no .git, not bare): "
        "an enclosing repository is never read"
    )


def _check_owner(place: GitDir, allowed: _Roots) -> None:
    """Refuse a repository another user owns, as git's own search does (``safe.directory``);
    an explicit ``--git-dir`` would skip that check."""
    for directory in dict.fromkeys((place.path, place.git_dir)):
        if os.stat(directory).st_uid != os.geteuid():
            raise allowed.refuse(
                "the repository belongs to another user of the server, which git refuses "
                "(safe.directory)"
            )


def _gitfile_target(dotgit: str, allowed: _Roots) -> str:
    """The git directory a ``.git`` file names, resolved as git does (relative to the
    directory holding the file)."""
    line = _pointer(dotgit, ".git file", allowed)
    if not line.startswith("gitdir: ") or len(line) == 8:
        raise allowed.refuse("the repository's .git file is not a 'gitdir: <path>' line")
    return os.path.realpath(os.path.join(os.path.dirname(dotgit), line[8:]))


def _pointer(path: str, name: str, allowed: _Roots) -> str:
    """A one-path file (``.git`` file, ``commondir``) read as git reads it: whole, with
    only its trailing line ends dropped."""
    with open(path, "rb") as file:
        data = file.read(_POINTER_BYTES + 1)
    text = data.decode("utf-8", "surrogateescape").rstrip("\r\n")
    if len(data) > _POINTER_BYTES or "\n" in text or "\0" in text:
        raise allowed.refuse(f"the repository's {name} is not one path")
    return text


def _check_store(git_dir: str, allowed: _Roots) -> None:
    """Refuse a git directory whose commondir, object stores or symlinks lead out of the
    roots, or that has grafts."""
    common = git_dir
    if os.path.isfile(pointer := os.path.join(git_dir, "commondir")):
        # git reads this file itself (only the git directory is named to it): read it alike.
        named = _pointer(pointer, "commondir", allowed)
        common = os.path.realpath(os.path.join(git_dir, named))
        allowed.check(common, f"the repository's commondir names a directory {_OUTSIDE}")
    for directory in dict.fromkeys((git_dir, common)):
        if os.path.lexists(os.path.join(directory, "info", "grafts")):
            raise allowed.refuse(
                "info/grafts is refused: a repository is read by its own commits "
                "(git replace --convert-graft-file turns grafts into replace refs)"
            )
        _no_symlink_out(directory, allowed)
    for store in _alternates(os.path.join(common, "objects"), allowed):
        _no_symlink_out(store, allowed)


def _alternates(objects: str, allowed: _Roots) -> list[str]:
    """Every object store ``objects`` borrows from, at any depth, each under the roots."""
    found: list[str] = []
    pending = [os.path.realpath(objects)]
    while pending:
        store = pending.pop()
        listing = os.path.join(store, "info", "alternates")
        if not os.path.isfile(listing):
            continue
        with open(listing, "rb") as file:
            entries = file.read().decode("utf-8", "surrogateescape").split("\n")
        for entry in entries:
            if not entry or entry.startswith("#"):
                continue
            if entry.startswith('"'):
                # git unquotes C-style entries by rules of its own: read none rather than guess.
                raise allowed.refuse(f"the repository's {_ALTERNATES} has a quoted entry")
            if "\0" in entry:  # git would stop at it; no path holds one
                raise allowed.refuse(f"the repository's {_ALTERNATES} has an entry with a NUL")
            # As git does: relative to the store, ".." taken by the letter, then opened.
            real = os.path.realpath(os.path.normpath(os.path.join(store, entry)))
            allowed.check(real, f"the repository's {_ALTERNATES} borrows objects {_OUTSIDE}")
            if real not in found and os.path.isdir(real):  # git skips a missing one
                found.append(real)
                pending.append(real)
    return found


def _no_symlink_out(top: str, allowed: _Roots) -> None:
    """Refuse a symlink anywhere under ``top`` (not followed) that leads out of the roots:
    git would read a linked object store, pack or ref as its own."""
    pending = [top]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_symlink():
                    where = os.path.relpath(entry.path, top)
                    message = f"a symlink in the git directory ({where}) leads {_OUTSIDE}"
                    allowed.check(os.path.realpath(entry.path), message)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
