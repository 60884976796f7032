"""Child processes of the benchmarks: a server on a free loopback port, worker processes,
anything that answers HTTP once it is ready.

Read ``running_server`` first. Each child is stopped when its block ends (terminated, killed
if it does not stop in time). Its output goes to a temporary file, shown in the
``ProcessFailed`` raised when the child exits early or never gets ready, and on stderr when
it ends abnormally otherwise. A child gets the benchmark's ``Settings`` as ``KENNING_*``
variables (``child_environment``), so it builds the very settings the benchmark holds.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from kenning.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
KENNING_SERVE = ("-m", "kenning", "serve")
KENNING_WORKER = ("-m", "kenning", "worker")
READY_WITHIN = 120.0  # a server with the local model loads it before it answers
STOP_WITHIN = 30.0
LOG_TAIL = 3000


class ProcessFailed(RuntimeError):
    """A child process exited early or never became ready; the message ends with its output."""

    def __init__(self, process: asyncio.subprocess.Process, message: str) -> None:
        super().__init__(message)
        self.pid = process.pid


def free_port() -> int:
    """A loopback TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def child_environment(settings: Settings) -> dict[str, str]:
    """This process's environment with every setting of ``settings`` as its variable."""
    env = dict(os.environ)
    # The router's settings read their own KENNING_ROUTER_* variables: passed through as is.
    for name, value in settings.model_dump(mode="json", exclude={"router"}).items():
        if value is not None:
            env[f"KENNING_{name.upper()}"] = value if isinstance(value, str) else json.dumps(value)
    env["HF_HUB_OFFLINE"] = "1"  # benchmarks use loopback only; the local model is on disk
    return env


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-LOG_TAIL:]


async def _until_ready(
    process: asyncio.subprocess.Process, log: IO[bytes], name: str, url: str
) -> None:
    deadline = time.monotonic() + READY_WITHIN
    async with httpx.AsyncClient(timeout=5.0) as client:
        while time.monotonic() < deadline:
            if process.returncode is not None:
                raise ProcessFailed(process, f"{name} exited:\n{_tail(log)}")
            try:
                if (await client.get(url)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise ProcessFailed(process, f"{name} did not become ready:\n{_tail(log)}")


async def _stop(
    process: asyncio.subprocess.Process, log: IO[bytes], name: str, *, show_output: bool
) -> None:
    if process.returncode is None:
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), STOP_WITHIN)
    except TimeoutError:
        process.kill()
        await asyncio.wait_for(process.wait(), 5)
    if show_output and process.returncode not in (0, -signal.SIGTERM):
        print(f"{name} exit code {process.returncode}:\n{_tail(log)}", file=sys.stderr)


@asynccontextmanager
async def running_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    ready_url: str | None = None,
    cwd: Path = ROOT,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``python *argv`` from the repository root (or ``cwd``: another checkout's code) until
    the block ends; with ``ready_url``, yielded once ``GET ready_url`` answers 200. Example:
    ``running_process(KENNING_WORKER)``."""
    name = "python " + " ".join(argv)
    with tempfile.TemporaryFile() as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable, *argv, cwd=cwd, env=env, stdout=log, stderr=log
        )
        shown = False  # whether this child's output is in the error already
        try:
            if ready_url is not None:
                await _until_ready(process, log, name, ready_url)
            yield process
            if process.returncode is not None:
                raise ProcessFailed(process, f"{name} exited during the run:\n{_tail(log)}")
        except ProcessFailed as failed:
            shown = failed.pid == process.pid
            raise
        finally:
            await _stop(process, log, name, show_output=not shown)


@dataclass(frozen=True, slots=True)
class Server:
    """A running server process and a client bound to it."""

    pid: int
    port: int
    headers: dict[str, str]  # the benchmark's key, for clients of its own (websockets)
    client: httpx.AsyncClient

    @property
    def url(self) -> str:
        """The server's HTTP base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """The GraphQL endpoint for websocket clients."""
        return f"ws://127.0.0.1:{self.port}/graphql"


@asynccontextmanager
async def running_server(
    settings: Settings,
    api_key: str,
    *,
    command: Sequence[str] = KENNING_SERVE,
    request_timeout: float = 60.0,
    connections: int = 100,
    cwd: Path = ROOT,
) -> AsyncIterator[Server]:
    """``command`` (``kenning serve`` unless told) with ``settings`` on a free loopback port,
    ready until the block ends; its client sends ``api_key``, ``connections`` at most at once.
    ``cwd`` runs another checkout's code (its ``kenning`` is imported first)."""
    port = free_port()
    env = child_environment(settings.model_copy(update={"host": "127.0.0.1", "port": port}))
    headers = {"Authorization": f"Bearer {api_key}"}
    url = f"http://127.0.0.1:{port}"
    async with (
        running_process(command, env=env, ready_url=f"{url}/readyz", cwd=cwd) as process,
        httpx.AsyncClient(
            base_url=url,
            headers=headers,
            timeout=request_timeout,
            limits=httpx.Limits(max_connections=connections),
        ) as client,
    ):
        yield Server(process.pid, port, headers, client)


@asynccontextmanager
async def running_workers(settings: Settings, count: int) -> AsyncIterator[list[int]]:
    """``count`` ``kenning worker`` processes with ``settings`` until the block ends; their
    pids. They are not waited for: a worker claims jobs as soon as it has started."""
    env = child_environment(settings)
    async with AsyncExitStack() as stack:
        processes = [
            await stack.enter_async_context(running_process(KENNING_WORKER, env=env))
            for _ in range(count)
        ]
        yield [p.pid for p in processes]
