"""The server under test: ``create_app`` under uvicorn in a child process on loopback.

Started as ``kenning serve`` starts it (same uvicorn arguments), with the hash embedder
passed in, settings from ``KENNING_*`` variables the parent sets.
"""

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

from kenning.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def serve(port: int) -> None:
    """Child-process entry: the app from ``KENNING_*`` with the hash embedder."""
    import uvicorn

    from kenning.app import create_app
    from kenning.storage.embedders.constant import ConstantTimeEmbedder

    settings = Settings()
    app = create_app(settings, embedder=ConstantTimeEmbedder(settings.embedding_dim))
    uvicorn.run(
        app, host="127.0.0.1", port=port, log_config=None, ws="websockets-sansio",
        lifespan="on",
    )  # fmt: skip


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-3000:]


@dataclass(frozen=True, slots=True)
class Server:
    """A running server process and a client bound to it."""

    pid: int
    port: int
    client: httpx.AsyncClient


def _environment(settings: Settings) -> dict[str, str]:
    return {
        **os.environ,
        "KENNING_DATABASE_URL": settings.database_url,
        "KENNING_REDIS_URL": settings.redis_url,
        "KENNING_EMBEDDER": settings.embedder.value,
        "KENNING_EMBEDDING_MODEL": settings.embedding_model,
        "KENNING_EMBEDDING_DIM": str(settings.embedding_dim),
        "KENNING_GRAPH_NAME": settings.graph_name,
        "KENNING_LOG_LEVEL": settings.log_level,
        "KENNING_QUEUE_WORKERS": str(settings.queue_workers),
        "KENNING_DB_POOL_MAX": str(settings.db_pool_max),
    }


@asynccontextmanager
async def running_server(
    settings: Settings, api_key: str, connections: int
) -> AsyncIterator[Server]:
    """Start the server on a free loopback port, wait until ready; stop it on exit."""
    port = _free_port()
    with tempfile.TemporaryFile() as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.read", "--serve", str(port),
            cwd=ROOT, env=_environment(settings), stdout=log, stderr=log,
        )  # fmt: skip
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}",
                headers={"Authorization": f"Bearer {api_key}"},
                timeout=60.0,
                limits=httpx.Limits(max_connections=connections),
            ) as client:
                for _ in range(600):  # up to a minute
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
                yield Server(process.pid, port, client)
        finally:
            if process.returncode is None:
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 20)
            except TimeoutError:
                process.kill()
                await asyncio.wait_for(process.wait(), 5)
            if process.returncode not in (0, -15):
                print(f"server exit code {process.returncode}:\n{_tail(log)}", file=sys.stderr)
