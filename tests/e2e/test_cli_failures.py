"""The ``kenning`` command as a user runs it (its own process) against a real server: a wrong
key, a server down, a refused file, a bad argument and a port in use each end with one
``error:`` line on stderr, the exit code ``kenning --help`` documents, and no traceback;
Ctrl-C ends quietly with 130."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from kenning.cli.exit_codes import ExitCode
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.server_process import Server, create_key, free_port

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
# The installed command (its name in every message), running this checkout's package.
KENNING = str(Path(sys.executable).with_name("kenning"))
PROGRESS = re.compile(r"(files|pages) \d+/\d+ · refused \d+ · \d+:\d\d")


def kenning(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``kenning args`` in a process of its own, with only the given ``KENNING_*`` set."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    return subprocess.run(
        [KENNING, *args],
        cwd=ROOT,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **env},
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The single ``error:`` line on stderr, once it is known nothing else is there but the
    progress lines before it."""
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if not PROGRESS.fullmatch(line)]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert done.stderr.endswith(lines[0] + "\n"), done.stderr
    return lines[0].removeprefix("error: ")


@pytest.fixture(scope="module")
def agent_key(server: Server, migrated_settings: Settings) -> str:
    scope = Scope(f"clifail-{uuid.uuid4().hex[:8]}")
    return asyncio.run(create_key(migrated_settings, scope, Role.AGENT))


def test_a_wrong_key_is_one_line_and_exit_4(server: Server, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n")
    commands = [
        ["ingest", str(tmp_path / "notes.md"), "--url"],
        ["ingest-repo", str(tmp_path), "--url"],
        ["crawl", "https://docs.example.com/", "--server"],
    ]
    for command in commands:
        done = kenning(*command, server.url, "--api-key", "kn_not-a-key")
        assert done.returncode == ExitCode.REFUSED, done.stderr
        assert one_error_line(done) == (
            f"the server at {server.url} refused the API key: the API key is not valid "
            "(unknown or revoked); give a valid one with --api-key or KENNING_API_KEY"
        )


def test_a_server_down_is_one_line_and_exit_3(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done = kenning("ingest-repo", str(tmp_path), "--url", url, "--api-key", "kn_any")
    assert done.returncode == ExitCode.UNREACHABLE
    line = one_error_line(done)
    assert line.startswith(f"cannot reach a Kenning server at {url} ("), line
    assert line.endswith("): start one (kenning serve) or give its URL with --url"), line
    crawl = kenning("crawl", "https://docs.example.com/", "--server", url, "--api-key", "kn_any")
    assert crawl.returncode == ExitCode.UNREACHABLE
    assert one_error_line(crawl).endswith("give its URL with --server")


def test_a_refused_file_is_named_in_the_table_then_one_line_and_exit_1(
    server: Server, agent_key: str, tmp_path: Path
) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02\xff" * 64)
    blob = str(tmp_path / "blob.bin")
    done = kenning("ingest", blob, "--url", server.url, "--api-key", agent_key)
    assert done.returncode == ExitCode.FAILED
    assert one_error_line(done) == "1 of 1 files failed (the table says why)"
    assert "files 1/1 · refused 1 · 0:0" in done.stderr
    assert "blob.bin" in done.stdout and "UNSUPPORTED_TYPE" in done.stdout, done.stdout


def test_a_bad_argument_is_one_line_and_exit_2(server: Server, agent_key: str) -> None:
    parsed = kenning("crawl", "https://docs.example.com/", "--max-pages", "many")
    assert parsed.returncode == ExitCode.USAGE
    assert one_error_line(parsed) == (
        "Invalid value for '--max-pages': Input should be a valid integer, unable to parse "
        "string as an integer (see kenning crawl -h)"
    )
    at_server = ["--server", server.url, "--api-key", agent_key]
    refused = kenning("crawl", "https://docs.example.com/", "--max-pages", "0", *at_server)
    assert refused.returncode == ExitCode.USAGE
    assert one_error_line(refused) == (
        "Invalid value for maxPages: maxPages must be at least 1 (see kenning crawl -h)"
    )
    assert refused.stdout == ""


def test_a_port_in_use_is_one_line_and_exit_1(migrated_settings: Settings) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        database = migrated_settings.database_url
        done = kenning("serve", "--port", str(port), KENNING_DATABASE_URL=database)
    assert done.returncode == ExitCode.FAILED
    assert one_error_line(done) == (
        f"port {port} on 127.0.0.1 is in use: stop what listens there, or give another with "
        "--port or KENNING_PORT"
    )
    assert "server.started" not in done.stdout + done.stderr


def test_ctrl_c_while_waiting_for_a_server_ends_quietly_with_130() -> None:
    with socket.socket() as silent:  # accepts the connection, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
        process = subprocess.Popen(
            [KENNING, "crawl", "https://docs.example.com/", "--server", url, "--api-key", "kn_x"],
            cwd=ROOT,
            env={**env, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Interrupted once it waits for the answer: its request has reached the server (a
        # fixed pause raced the command's start on a loaded machine).
        silent.settimeout(60)
        connection, _ = silent.accept()
        with connection:
            connection.recv(1024)  # the request's first bytes: the command now waits
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=30)
    assert process.returncode == ExitCode.INTERRUPTED
    assert "Traceback" not in out + err and out == "", err
