"""A tiny Ollama-shaped ``/api/embed`` backend on a loopback port whose behaviour a test
switches at will: ``ok``, ``busy`` (503, Ollama's queue-full message) or ``malformed``
(200 with an answer that is not a list of vectors)."""

from __future__ import annotations

import socket
import threading
import time
from typing import Literal

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kenning.storage.embedders.constant import hash_vector

Mode = Literal["ok", "busy", "malformed"]
BUSY = "server busy, please try again.  maximum pending requests exceeded"


class FakeEmbedBackend:
    """Start with ``start()``, stop with ``stop()``; ``calls`` counts answers per mode."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.mode: Mode = "ok"
        self.calls: dict[str, int] = {"ok": 0, "busy": 0, "malformed": 0}
        self.priorities: list[str] = []
        self.port = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _embed(self, request: Request) -> Response:
        body = await request.json()
        self.calls[self.mode] += 1
        self.priorities.append(request.headers.get("x-ollama-priority", ""))
        if self.mode == "busy":
            return JSONResponse({"error": BUSY}, status_code=503)
        if self.mode == "malformed":
            return JSONResponse({"model": body["model"], "embeddings": "not vectors"})
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = [hash_vector(text, self.dimension) for text in texts]
        return JSONResponse({"model": body["model"], "embeddings": vectors})

    def start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        app = Starlette(routes=[Route("/api/embed", self._embed, methods=["POST"])])
        config = uvicorn.Config(app, log_level="warning", lifespan="off", loop="asyncio")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("fake embedding backend did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
