"""Repository jobs cannot be turned on the server's network, environment or clone cache:
remote hosts are checked and pinned, git runs in a minimal environment, clones are locked."""

from __future__ import annotations

import fcntl
import logging
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kenning.domain.errors import ValidationError
from kenning.domain.sources.code.repository_request import RepositoryJob, RepositorySpec
from kenning.storage.sources.code import repositories as repositories_module
from kenning.storage.sources.code.remote_address import UNREACHABLE, pin_remote
from kenning.storage.sources.code.repositories import Repositories
from tests.support.code_repo import make_code_repo


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A loopback TCP port that records what each connection sends."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(5)
    seen: list[bytes] = []

    def accept() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            seen.append(conn.recv(4096))
            conn.sendall(b"HTTP/1.1 500 no\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], seen
    server.close()
    thread.join(6)


@pytest.mark.parametrize(
    ("url", "answer"),
    [("http://127.0.0.1:5432/x.git", []), ("https://10.0.0.5/x.git", []),
     ("http://169.254.169.254/x", []), ("http://[::ffff:127.0.0.1]/x", []),
     ("http://localhost/x.git", ["127.0.0.1"]), ("ssh://git@inside/x", ["192.168.1.2"]),
     ("https://mixed.example/x", ["93.184.216.34", "10.1.1.1"])],
)  # fmt: skip
def test_non_public_hosts_are_refused_naming_git_url(url: str, answer: list[str]) -> None:
    with pytest.raises(ValidationError) as caught:
        pin_remote(url, resolver=lambda host, port: answer)
    assert caught.value.field == "gitUrl"
    assert "KENNING_REPOSITORY_ALLOW_PRIVATE" in str(caught.value)


def test_a_public_host_is_pinned_and_redirects_are_off() -> None:
    pinned = pin_remote("https://git.example/x.git", resolver=lambda h, p: ["93.184.216.34"])
    assert pinned.options == ("-c", "http.curloptResolve=git.example:443:93.184.216.34",
                              "-c", "http.followRedirects=false")  # fmt: skip
    v6 = pin_remote("http://git.example:8080/x", resolver=lambda h, p: ["2606:4700::1"])
    assert "http.curloptResolve=git.example:8080:[2606:4700::1]" in v6.options
    ssh = pin_remote("ssh://git@git.example/x", resolver=lambda h, p: ["93.184.216.34"])
    assert (ssh.options, ssh.ssh_address) == ((), "93.184.216.34")
    assert pin_remote("file:///srv/x").options == ()


def test_private_hosts_pass_when_allowed_and_unresolvable_ones_are_generic() -> None:
    allowed = pin_remote("http://127.0.0.1:3000/x", allow_private=True)
    assert "http.curloptResolve=127.0.0.1:3000:127.0.0.1" in allowed.options

    def fails(host: str, port: int) -> list[str]:
        raise socket.gaierror("Name or service not known")

    with pytest.raises(ValidationError) as caught:
        pin_remote("https://nowhere.invalid/x", resolver=fails)
    assert (str(caught.value), caught.value.field) == (UNREACHABLE, "gitUrl")


def test_a_loopback_url_is_refused_before_git_connects(
    tmp_path: Path, listener: tuple[int, list[bytes]]
) -> None:
    port, seen = listener
    repositories = Repositories([], tmp_path / "cache")
    for url in (f"http://127.0.0.1:{port}/x.git", f"http://localhost:{port}/x.git"):
        with pytest.raises(ValidationError) as caught:
            repositories.locate(_spec(url))
        assert caught.value.field == "gitUrl"
        assert str(port) not in str(caught.value)
    time.sleep(0.2)
    assert seen == []


def test_git_connects_to_the_pinned_address_and_its_error_stays_in_the_log(
    tmp_path: Path, listener: tuple[int, list[bytes]]
) -> None:
    port, seen = listener
    repositories = Repositories([], tmp_path / "cache", allow_private=True,
                                resolver=lambda host, p: ["127.0.0.1"])  # fmt: skip
    with pytest.raises(ValidationError) as caught:
        repositories.locate(_spec(f"http://git.nowhere.invalid:{port}/x.git"))
    assert (str(caught.value), caught.value.field) == (UNREACHABLE, "gitUrl")
    assert seen and b"Host: git.nowhere.invalid" in seen[0]


def _spec(url: str) -> RepositorySpec:
    return RepositorySpec(None, url, None)


def _recording_git(tmp_path: Path) -> tuple[str, Path]:
    record = tmp_path / "record"
    script = tmp_path / "fake-git"
    script.write_text(f'#!/bin/sh\n{{ printf "%s\\n" "$@"; echo ---; env; echo ---; '
                      f'ls -A "$HOME"; }} >> {record}\nexit 1\n')  # fmt: skip
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script), record


def test_git_runs_with_a_minimal_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTPS_PROXY", "http_proxy", "ALL_PROXY", "SSH_AUTH_SOCK", "GIT_DIR"):
        monkeypatch.setenv(name, "http://proxy.invalid:3128")
    git, record = _recording_git(tmp_path)
    repositories = Repositories([], tmp_path / "cache", git=git,
                                resolver=lambda host, port: ["93.184.216.34"])  # fmt: skip
    with pytest.raises(ValidationError):
        repositories.locate(_spec("ssh://git@git.example/x.git"))
    args, env, home = record.read_text().split("---\n")
    assert "credential.helper=" in args.splitlines()
    assert "core.hooksPath=/dev/null" in args.splitlines()
    variables = dict(line.split("=", 1) for line in env.splitlines() if "=" in line)
    assert not {"HTTPS_PROXY", "http_proxy", "ALL_PROXY", "SSH_AUTH_SOCK", "GIT_DIR"} & set(
        variables
    )
    assert variables["GIT_CONFIG_NOSYSTEM"] == "1"
    assert variables["GIT_CONFIG_GLOBAL"] == "/dev/null"
    assert variables["HOME"] != os.environ.get("HOME") and home.strip() == ""
    ssh = variables["GIT_SSH_COMMAND"]
    assert "BatchMode=yes" in ssh and "-i /dev/null" in ssh and "IdentityAgent=none" in ssh
    assert "HostName=93.184.216.34" in ssh


def test_a_local_repository_cannot_run_its_configured_programs(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    marker = tmp_path / "ran"
    with (repo.root / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = touch {marker}\n"
                     f"[diff]\n\texternal = touch {marker}\n")  # fmt: skip
    git, record = _recording_git(tmp_path)
    from kenning.storage.sources.code.git_cli import GitCli

    with pytest.raises(ValidationError):
        GitCli(repo.root, git)
    args = record.read_text().split("---\n")[0].splitlines()
    assert {"core.fsmonitor=", "diff.external=", "core.hooksPath=/dev/null"} <= set(args)
    real = GitCli(repo.root)
    assert [change.path for change in real.changes(repo.first, repo.second)]
    assert not marker.exists()


def test_one_job_at_a_time_holds_a_clone(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    repositories = Repositories([tmp_path / "repos"], tmp_path / "cache")
    job = repositories.locate(_spec(f"file://{repo.root}"))
    repositories.open(job)
    lock_path = next((tmp_path / "cache").glob("*.lock"))
    done: list[str] = []
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        worker = threading.Thread(target=lambda: done.append(repositories.open(job)[1]))
        worker.start()
        time.sleep(0.5)
        assert done == []  # waiting for the lock this test holds
    worker.join(30)
    assert done == [job.commit]


def test_concurrent_fetches_of_one_url_all_succeed(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    repositories = Repositories([tmp_path / "repos"], tmp_path / "cache")
    job = repositories.locate(_spec(f"file://{repo.root}"))
    results: list[str] = []
    errors: list[BaseException] = []

    def fetch() -> None:
        try:
            results.append(repositories.open(job)[1])
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=fetch) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert errors == [] and results == [job.commit] * 6


def test_a_job_of_a_loopback_url_is_refused_when_it_runs(tmp_path: Path) -> None:
    job = RepositoryJob("x", "main", "a" * 40, git_url="http://127.0.0.1:9/x.git")
    with pytest.raises(ValidationError) as caught:
        Repositories([], tmp_path / "cache").open(job)
    assert caught.value.field == "gitUrl"
    assert not list((tmp_path / "cache").glob("*"))


@pytest.mark.parametrize("how", ["fails", "hangs"])
def test_a_urls_user_part_never_reaches_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    url = "https://bot:s3cretpass@git.example/x.git"
    script = tmp_path / "fake-git"
    body = (
        f"echo \"fatal: unable to access '{url}/': Could not resolve host\" >&2\nexit 128\n"
        if how == "fails"
        else "sleep 5\n"
    )
    script.write_text(f"#!/bin/sh\n{body}")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(repositories_module, "_LS_REMOTE_TIMEOUT", 0.3)
    repositories = Repositories(
        [], tmp_path / "cache", git=str(script), resolver=lambda host, port: ["93.184.216.34"]
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(ValidationError):
        repositories.locate(_spec(url))
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert "git.example" in logged and "s3cretpass" not in logged and "bot:" not in logged
