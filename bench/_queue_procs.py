"""Processes of the queue benchmark: its database, a ``kenning serve`` and ``kenning worker``
processes on loopback, an admin key."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from bench._own_database import own_settings, recreate_and_migrate
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "kenning_bench_queue"
REDIS_DB = "13"


def bench_settings() -> Settings:
    """The stack's settings pointed at the benchmark's own database, hash embedder."""
    return own_settings(DATABASE, REDIS_DB, log_level="WARNING")


def fresh_database(settings: Settings) -> None:
    """Drop, create and migrate the benchmark database."""
    recreate_and_migrate(settings, DATABASE)


async def admin_key(settings: Settings) -> str:
    pool = await create_pool(settings, min_size=1)
    try:
        key, _ = await PgApiKeys(pool).create(Scope(), Role.ADMIN, "bench")
        return key
    finally:
        await pool.close()


def _env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    env.update(
        KENNING_DATABASE_URL=settings.database_url,
        KENNING_REDIS_URL=settings.redis_url,
        KENNING_EMBEDDER=settings.embedder.value,
        KENNING_EMBEDDING_MODEL=settings.embedding_model,
        KENNING_EMBEDDING_DIM=str(settings.embedding_dim),
        KENNING_LOG_LEVEL="WARNING",
        **extra,
    )
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-3000:]


@dataclass(frozen=True, slots=True)
class Server:
    url: str
    ws_url: str
    headers: dict[str, str]
    pid: int


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), 30)
    except TimeoutError:
        process.kill()
        await asyncio.wait_for(process.wait(), 5)


@asynccontextmanager
async def running_server(settings: Settings, key: str, **extra: str) -> AsyncIterator[Server]:
    """``kenning serve`` on a free loopback port until the block ends."""
    port = free_port()
    env = _env(settings, KENNING_PORT=str(port), KENNING_HOST="127.0.0.1", **extra)
    with tempfile.TemporaryFile() as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "kenning", "serve", cwd=ROOT, env=env, stdout=log, stderr=log
        )
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
                for _ in range(600):
                    if process.returncode is not None:
                        raise RuntimeError(f"the server exited:\n{_tail(log)}")
                    try:
                        if (await client.get("/readyz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    await asyncio.sleep(0.1)
                else:
                    raise RuntimeError(f"the server did not become ready:\n{_tail(log)}")
            yield Server(
                f"http://127.0.0.1:{port}",
                f"ws://127.0.0.1:{port}/graphql",
                {"Authorization": f"Bearer {key}"},
                process.pid,
            )
        finally:
            await _stop(process)


@asynccontextmanager
async def running_workers(settings: Settings, count: int, **extra: str) -> AsyncIterator[list[int]]:
    """``count`` ``kenning worker`` processes until the block ends; yields their pids."""
    with tempfile.TemporaryFile() as log:
        processes = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "kenning",
                "worker",
                cwd=ROOT,
                env=_env(settings, **extra),
                stdout=log,
                stderr=log,
            )
            for _ in range(count)
        ]
        try:
            yield [p.pid for p in processes]
            for process in processes:
                if process.returncode is not None:
                    raise RuntimeError(f"a worker exited:\n{_tail(log)}")
        finally:
            for process in processes:
                await _stop(process)
