"""Directories under the repository roots (``<tmp>/repos``) that lead git to a repository
outside them (``<tmp>/outside/secret``, whose one file holds ``SECRET``), one way each.

Each builder takes the test's tmp directory and returns the directory a caller would name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.code_repo import git

# Text only the outside repository holds: a chunk containing it is a leak.
SECRET = "kenning-outside-7c41e9"


def roots_of(tmp: Path) -> Path:
    """The one repository root of these scenarios."""
    return tmp / "repos"


def small_repo(root: Path, files: dict[str, str]) -> str:
    """``root`` as a repository with ``files`` committed on ``main``; the commit's hash."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "Test")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root, "add", "--", *files)
    git(root, "commit", "-q", "-m", "files")
    return git(root, "rev-parse", "HEAD").strip()


def outside_repo(root: Path) -> str:
    """The secret repository at ``root``; its commit."""
    return small_repo(root, {"vault.py": f'TOKEN = "{SECRET}"\n\n\ndef unlock():\n    return 1\n'})


def secret_of(tmp: Path) -> tuple[Path, str]:
    """The outside repository of ``tmp`` (made once) and its commit."""
    secret = tmp / "outside" / "secret"
    if not (secret / ".git").exists():
        outside_repo(secret)
    return secret, git(secret, "rev-parse", "HEAD").strip()


def inside_repo(tmp: Path, name: str = "shop") -> Path:
    """An honest repository under the roots."""
    root = roots_of(tmp) / name
    small_repo(root, {"shop.py": "def sell():\n    return 1\n"})
    return root


def gitdir_file(tmp: Path) -> Path:
    """A directory whose ``.git`` is a file naming the outside repository's git directory."""
    secret, _ = secret_of(tmp)
    shop = roots_of(tmp) / "shop"
    shop.mkdir(parents=True)
    (shop / ".git").write_text(f"gitdir: {secret / '.git'}\n")
    return shop


def chained_gitfile(tmp: Path) -> Path:
    """A ``.git`` file naming, under the roots, a second ``.git`` file that names the outside
    repository (git follows a file given as ``--git-dir``)."""
    secret, _ = secret_of(tmp)
    shop, other = roots_of(tmp) / "shop", roots_of(tmp) / "other"
    for directory in (shop, other):
        directory.mkdir(parents=True)
    (other / ".git").write_text(f"gitdir: {secret / '.git'}\n")
    (shop / ".git").write_text("gitdir: ../other/.git\n")
    return shop


def alternates(tmp: Path) -> Path:
    """A repository borrowing the outside repository's objects, its branch at their commit."""
    secret, commit = secret_of(tmp)
    shop = roots_of(tmp) / "shop"
    shop.mkdir(parents=True)
    git(shop, "init", "-q", "-b", "main")
    (shop / ".git/objects/info/alternates").write_text(f"{secret / '.git/objects'}\n")
    git(shop, "update-ref", "refs/heads/main", commit)
    return shop


def enclosing(tmp: Path) -> Path:
    """A plain directory under the roots, which lie inside the outside repository's tree."""
    outside_repo(tmp)
    plain = roots_of(tmp) / "plain"
    plain.mkdir(parents=True)
    return plain


def dotgit_symlink(tmp: Path) -> Path:
    """A directory whose ``.git`` is a symlink to the outside repository's git directory."""
    secret, _ = secret_of(tmp)
    shop = roots_of(tmp) / "shop"
    shop.mkdir(parents=True)
    (shop / ".git").symlink_to(secret / ".git")
    return shop


def commondir(tmp: Path) -> Path:
    """A worktree-style git directory whose ``commondir`` is the outside repository's."""
    secret, _ = secret_of(tmp)
    dotgit = roots_of(tmp) / "shop" / ".git"
    dotgit.mkdir(parents=True)
    (dotgit / "HEAD").write_text("ref: refs/heads/main\n")
    (dotgit / "commondir").write_text(f"{secret / '.git'}\n")
    return dotgit.parent


def objects_symlink(tmp: Path) -> Path:
    """A repository whose object store is a symlink to the outside repository's."""
    secret, commit = secret_of(tmp)
    shop = roots_of(tmp) / "shop"
    shop.mkdir(parents=True)
    git(shop, "init", "-q", "-b", "main")
    shutil.rmtree(shop / ".git/objects")
    (shop / ".git/objects").symlink_to(secret / ".git/objects")
    git(shop, "update-ref", "refs/heads/main", commit)
    return shop


def nested_gitfile(tmp: Path) -> Path:
    """A repository's own git directory, holding a ``.git`` file that names the outside
    one (git's search, and upload-pack's, try ``<dir>/.git`` before ``<dir>``)."""
    secret, _ = secret_of(tmp)
    shop = inside_repo(tmp)
    (shop / ".git/.git").write_text(f"gitdir: {secret / '.git'}\n")
    return shop / ".git"


def grafts(tmp: Path) -> Path:
    """A repository with ``info/grafts``, which rewrites its history from outside it."""
    shop = inside_repo(tmp)
    head = git(shop, "rev-parse", "HEAD").strip()
    (shop / ".git/info").mkdir(exist_ok=True)
    (shop / ".git/info/grafts").write_text(f"{head}\n")
    return shop


def promisor(tmp: Path) -> Path:
    """A partial clone whose promisor remote is the outside repository: a missing object
    would be fetched from there on first read."""
    secret, commit = secret_of(tmp)
    shop = roots_of(tmp) / "shop"
    shop.mkdir(parents=True)
    git(shop, "init", "-q", "-b", "main")
    settings = {
        "core.repositoryformatversion": "1",
        "extensions.partialClone": "origin",
        "remote.origin.url": str(secret),
        "remote.origin.promisor": "true",
    }
    for key, value in settings.items():
        git(shop, "config", key, value)
    (shop / ".git/refs/heads/main").write_text(f"{commit}\n")
    return shop
