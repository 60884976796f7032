"""A real `kenning serve` process on a free loopback port, against the test database."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool


@dataclass(frozen=True)
class Server:
    url: str
    ws_url: str
    log: Path
    key: str = ""

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def with_key(self, key: str) -> Server:
        return Server(self.url, self.ws_url, self.log, key)


async def create_key(settings: Settings, scope: Scope, role: Role) -> str:
    """A real API key in the test database."""
    pool = await create_pool(settings, min_size=1)
    try:
        key, _ = await PgApiKeys(pool).create(scope, role, "e2e")
        return key
    finally:
        await pool.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(settings: Settings, port: int, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    env.update(
        KENNING_DATABASE_URL=settings.database_url,
        KENNING_REDIS_URL=settings.redis_url,
        KENNING_PORT=str(port),
        KENNING_HOST="127.0.0.1",
        KENNING_EMBEDDER=settings.embedder.value,
        KENNING_EMBEDDING_MODEL=settings.embedding_model,
    )
    env.update(extra)  # a test may point the server elsewhere (a relay, a closed port)
    return env


def start_server(
    settings: Settings, log: Path, **extra: str
) -> tuple[subprocess.Popen[bytes], Server]:
    """A ``kenning serve`` process, ready. It runs no queue workers unless ``extra`` sets
    ``KENNING_QUEUE_WORKERS``: servers share the test database, and one server's workers
    would take jobs another test waits for on its own server."""
    extra = {"KENNING_QUEUE_WORKERS": "0", **extra}
    port = free_port()
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "kenning", "serve"],
            env=server_env(settings, port, **extra),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/graphql", log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()}")
        try:
            if httpx.get(f"{server.url}/readyz", timeout=1).status_code == 200:
                return process, server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server not ready in 30 s:\n{log.read_text()}")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One server for the session, without queue workers: it outlives the e2e tests, and
    the integration tests after them share its database (its workers would index their
    queued jobs under them). Tests that need jobs to run use ``working_server``."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    process, running = start_server(migrated_settings, log)
    key = asyncio.run(create_key(migrated_settings, Scope(), Role.ADMIN))
    yield running.with_key(key)
    stop_server(process)


@pytest.fixture(scope="module")
def working_server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A server with queue workers, for one test module."""
    log = tmp_path_factory.mktemp("working") / "server.log"
    process, running = start_server(migrated_settings, log, KENNING_QUEUE_WORKERS="2")
    key = asyncio.run(create_key(migrated_settings, Scope(), Role.ADMIN))
    yield running.with_key(key)
    stop_server(process)
