"""A real `kenning serve` process on a free loopback port, and API keys for it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

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


def stop_server(process: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """SIGTERM, then SIGKILL if it has not exited within ``timeout`` s."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def graphql(server: Server, key: str, query: str, **variables: object) -> dict[str, Any]:
    """The ``data`` of one GraphQL request to a running server, as ``key``."""
    response = httpx.post(
        f"{server.url}/graphql",
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    data: dict[str, Any] = response.json()["data"]
    return data
