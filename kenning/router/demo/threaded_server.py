"""An ASGI app served by uvicorn in a background thread on a loopback port, for fakes
that stand in for real servers (start, stop, or die as a crashed server would)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send


class ThreadedServer:
    """Serves one app at a time on ``url``; the port is kept across restarts."""

    def __init__(self, name: str, port: int = 0) -> None:
        self.name = name
        self.port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, app: ASGIApp) -> None:
        """Serve ``app`` and return once uvicorn accepts connections."""
        # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on sockets that name it, and
        # without it Nagle plus delayed ACKs add ~40 ms to every keep-alive request.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", self.port))
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]

        async def asgi(scope: Scope, receive: Receive, send: Send) -> None:
            self._loop = asyncio.get_running_loop()
            await app(scope, receive, send)

        config = uvicorn.Config(asgi, log_level="warning", lifespan="off", loop="asyncio")
        server = self._server = uvicorn.Server(config)
        thread = self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.005)

    def stop(self) -> None:
        """Shut down cleanly."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def die(self) -> None:
        """Crash: reset every open connection and stop listening."""
        server, loop = self._server, self._loop
        if server is None:
            return
        done = threading.Event()

        def kill() -> None:
            for listener in getattr(server, "servers", []):
                listener.close()
            for connection in list(server.server_state.connections):
                transport = getattr(connection, "transport", None)
                if transport is not None:
                    transport.abort()
            server.should_exit = server.force_exit = True
            done.set()

        if loop is None or loop.is_closed():
            kill()
        else:
            loop.call_soon_threadsafe(kill)
            done.wait(timeout=5)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None
