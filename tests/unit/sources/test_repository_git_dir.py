"""Where git reads a repository: the roots checked again when a job runs, its owner, its
alternates and commondir read as git reads them, nothing from the server's working directory,
a file:// clone holding its own copy of the objects, and roots configured as absolute paths."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

import pytest

from kenning.domain.errors import ValidationError
from kenning.domain.sources.code.repository_request import RepositorySpec
from kenning.settings import Settings
from kenning.storage.sources.code.git_cli import GitCli
from kenning.storage.sources.code.git_dir import confined_git_dir
from kenning.storage.sources.code.remote_address import UNREACHABLE
from kenning.storage.sources.code.repositories import Repositories
from tests.support.code_repo import git, make_code_repo
from tests.support.repository_escapes import alternates, inside_repo, roots_of, secret_of


def test_a_job_checks_the_roots_again_when_it_runs(tmp_path: Path) -> None:
    secret, _ = secret_of(tmp_path)
    shop = inside_repo(tmp_path)
    repositories = Repositories([roots_of(tmp_path)], tmp_path / "cache")
    job = repositories.locate(RepositorySpec(str(shop), None, None))
    os.rename(shop / ".git", tmp_path / "moved")
    (shop / ".git").write_text(f"gitdir: {secret / '.git'}\n")
    with pytest.raises(ValidationError, match=r"\.git file") as caught:
        repositories.open(job)
    assert caught.value.field == "path"


def test_a_repository_another_user_owns_is_refused_as_git_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = inside_repo(tmp_path)
    repositories = Repositories([roots_of(tmp_path)], tmp_path / "cache")
    spec = RepositorySpec(str(shop), None, None)
    assert repositories.locate(spec).commit == git(shop, "rev-parse", "HEAD").strip()
    # The server running as someone else sees the same repository as another user's.
    monkeypatch.setattr(os, "geteuid", lambda: (shop / ".git").stat().st_uid + 1)
    as_url = RepositorySpec(None, f"file://{shop}", None)
    for asked, field in ((spec, "path"), (as_url, "gitUrl")):
        with pytest.raises(ValidationError, match=r"\(safe\.directory\)") as caught:
            repositories.locate(asked)
        assert caught.value.field == field


def test_alternates_are_followed_as_git_follows_them(tmp_path: Path) -> None:
    shop = alternates(tmp_path)
    roots = [str(roots_of(tmp_path))]
    listing = shop / ".git/objects/info/alternates"
    middle = inside_repo(tmp_path, "middle")
    outside = os.path.relpath(tmp_path / "outside/secret/.git/objects", shop / ".git/objects")
    for text, where in (
        (f"# a comment\n{outside}\n", shop),  # relative to the object store
        (f"{shop / '.git/objects/info'}/../../../../../outside/secret/.git/objects\n", shop),
        (f"{middle / '.git/objects'}\n", middle),  # borrowing from one that borrows
    ):
        listing.write_text(text)
        (middle / ".git/objects/info/alternates").write_text(f"{outside}\n")
        with pytest.raises(ValidationError, match="objects/info/alternates borrows") as caught:
            confined_git_dir(str(shop), roots, "gitUrl")
        assert caught.value.field == "gitUrl", where
    listing.write_text(f'"{tmp_path}/outside/secret/.git/objects"\n')
    with pytest.raises(ValidationError, match="quoted entry"):
        confined_git_dir(str(shop), roots, "path")
    listing.write_text(f"{middle / '.git/objects'}\0\n")
    with pytest.raises(ValidationError, match="an entry with a NUL"):
        confined_git_dir(str(shop), roots, "path")
    (middle / ".git/objects/info/alternates").unlink()
    listing.write_text(f"# {tmp_path}/outside\n{middle / '.git/objects'}\n")
    assert confined_git_dir(str(shop), roots, "path").git_dir == str(shop / ".git")


def test_a_commondir_is_read_whole_as_git_reads_it(tmp_path: Path) -> None:
    secret, _ = secret_of(tmp_path)
    dotgit = roots_of(tmp_path) / "shop" / ".git"
    (dotgit / "..\n").mkdir(parents=True)
    (dotgit / "HEAD").write_text("ref: refs/heads/main\n")
    # The first line alone stays inside; the whole text leads git out.
    (dotgit / "commondir").write_text("..\n/../../../../outside/secret/.git\n")
    assert "vault.py" in git(secret, f"--git-dir={dotgit}", "ls-tree", "-r", "HEAD")
    with pytest.raises(ValidationError, match="commondir is not one path"):
        confined_git_dir(str(dotgit.parent), [str(roots_of(tmp_path))], "path")


def test_the_servers_working_directory_does_not_steer_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret, _ = secret_of(tmp_path)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    here = tmp_path / "server"
    here.mkdir()
    git(here, "init", "-q")
    # A repository the server happens to run in would send this URL to the secret one.
    git(here, "config", f"url.{secret}.insteadOf", f"https://git.example:{port}/")
    monkeypatch.chdir(here)
    repositories = Repositories(
        [], tmp_path / "cache", allow_private=True, resolver=lambda host, p: ["127.0.0.1"]
    )
    with pytest.raises(ValidationError) as caught:
        repositories.locate(RepositorySpec(None, f"https://git.example:{port}/", None))
    assert (str(caught.value), caught.value.field) == (UNREACHABLE, "gitUrl")


def test_a_file_url_is_copied_through_upload_pack_never_linked(tmp_path: Path) -> None:
    shop = inside_repo(tmp_path)
    marker = tmp_path / "ran"
    git(shop, "gc", "-q")  # a pack the fetch could have hardlinked
    git(shop, "config", "core.fsmonitor", f"touch {marker}")
    git(shop, "config", "uploadpack.packObjectsHook", f"touch {marker}")
    repositories = Repositories([roots_of(tmp_path)], tmp_path / "cache")
    job = repositories.locate(RepositorySpec(None, f"file://{shop}", None))
    repo, commit = repositories.open(job)
    assert commit == job.commit and repo.read(commit, ["shop.py"])
    clone = next(p for p in (tmp_path / "cache").iterdir() if p.is_dir())
    assert not (clone / "objects/info/alternates").exists()
    stored = [p for p in (clone / "objects").rglob("*") if p.is_file()]
    assert stored and all(p.stat().st_nlink == 1 for p in stored)
    assert not marker.exists()


def test_repository_roots_must_be_absolute() -> None:
    with pytest.raises(ValueError, match="absolute"):
        Settings(repository_roots="srv/repos")
    roots = Settings(repository_roots="/srv/repos,/srv/../opt").repository_roots
    assert roots == ["/srv/repos", "/srv/../opt"]


def test_gits_own_message_stays_in_the_server_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    with caplog.at_level(logging.WARNING), pytest.raises(ValidationError) as caught:
        GitCli(repo.root).tracked_files("0123456789abcdef0123456789abcdef01234567")
    assert caught.value.message == (
        "git ls-tree failed on the repository; the server log has git's message"
    )
    assert str(tmp_path) not in caught.value.message
    assert any("ls-tree" in r.getMessage() and "fatal" in r.getMessage() for r in caplog.records)
