"""Router test harness: settings for tests and a router served by uvicorn on loopback."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

from kenning.router import Router, RouterSettings, create_router_app, router_of
from kenning.router.demo import FakeOllama

ORCHESTRATOR_MODEL = "llama3.2:1b"
BACKGROUND_MODEL = "nomic-embed-text"


def router_settings(
    gpus: list[FakeOllama], cpu: FakeOllama | None, **overrides: Any
) -> RouterSettings:
    """Settings for tests: fast health checks, one failure opens a breaker."""
    values: dict[str, Any] = {
        "gpu_backends": [
            {"name": gpu.name, "url": gpu.url, "vram_budget_mb": 4000} for gpu in gpus
        ],
        "cpu_backend": cpu.url if cpu else None,
        "orchestrator_models": [ORCHESTRATOR_MODEL],
        "background_models": [BACKGROUND_MODEL],
        "health_interval_seconds": 0.2,
        "breaker_failure_threshold": 1,
        "breaker_reset_seconds": 0.3,
        "connect_timeout_seconds": 1.0,
        "busy_retry_delay_seconds": 0.01,
        "swap_timeout_seconds": 10.0,
        **overrides,
    }
    return RouterSettings(**values)


async def wait_until(condition: Callable[[], object], within: float = 5.0) -> None:
    """Poll a condition every 5 ms; fail the test if it is still false after ``within`` s."""
    for _ in range(int(within / 0.005) + 1):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"condition not met within {within} s")


@dataclass
class RunningRouter:
    url: str
    router: Router


RouterFactory = Callable[..., Awaitable[RunningRouter]]


@asynccontextmanager
async def serving_routers() -> AsyncIterator[RouterFactory]:
    """Start `create_router_app` under uvicorn on loopback ports in the running loop."""
    running: list[tuple[uvicorn.Server, asyncio.Task[None]]] = []

    async def start(settings: RouterSettings, redis_url: str | None = None) -> RunningRouter:
        app = create_router_app(settings, redis_url=redis_url)
        # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on sockets that name it, and
        # without it Nagle plus delayed ACKs add ~40 ms to every keep-alive request.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        config = uvicorn.Config(app, lifespan="on", log_level="warning", loop="asyncio")
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        running.append((server, task))
        await wait_until(lambda: server.started, within=10)
        port = sock.getsockname()[1]
        return RunningRouter(f"http://127.0.0.1:{port}", router_of(app))

    yield start
    for server, task in reversed(running):  # uvicorn restores signal handlers LIFO
        server.should_exit = True
        async with asyncio.timeout(10):
            await task
