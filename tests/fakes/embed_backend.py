"""A tiny Ollama-shaped ``/api/embed`` backend on a loopback port whose behaviour a test
switches at will: ``ok``, ``busy`` (503, Ollama's queue-full message) or ``malformed``
(200 with an answer that is not a list of vectors)."""

from __future__ import annotations

from typing import Literal

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kenning.router.demo import ThreadedServer
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
        self._http = ThreadedServer("fake embedding backend")

    @property
    def url(self) -> str:
        return self._http.url

    @property
    def port(self) -> int:
        return self._http.port

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
        self._http.start(Starlette(routes=[Route("/api/embed", self._embed, methods=["POST"])]))

    def stop(self) -> None:
        self._http.stop()
