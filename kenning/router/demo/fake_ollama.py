"""A protocol-faithful fake Ollama server on a loopback port, run by uvicorn in a thread.

It speaks /api/generate, /api/chat (NDJSON streaming with a final ``done`` object, or one
object with ``stream: false``), /api/embed (L2-normalized), legacy /api/embeddings (not
normalized), /api/tags, /api/ps, /api/show and /api/version. Models load on first use
(``load_time``) within a VRAM budget, ``keep_alive: 0`` unloads (only once no request runs
on the model), an empty prompt preloads. ``busy`` answers 503, ``error_after_tokens`` ends
streams with an ``{"error": ...}`` line under status 200, a client that disconnects cancels
its request (recorded), and ``die()`` kills the process-equivalent: open connections are
reset and the port refuses connections until ``revive()``. Tests script what generations
answer, and 503 storms, with ``script``, ``replier`` and ``busy_for`` (`fake_replies.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kenning.router.demo.fake_completions import complete
from kenning.router.demo.fake_models import (
    ModelSpec,
    Residencies,
    Residency,
    fake_embedding,
    normalized,
    parse_keep_alive,
)
from kenning.router.demo.fake_replies import ScriptedReplies
from kenning.router.demo.threaded_server import ThreadedServer

DEFAULT_MODELS = (
    ModelSpec("llama3.2:1b", size_mb=1000),
    ModelSpec("qwen3-coder-tool:30b", size_mb=3000),
    ModelSpec("qwen2.5:7b", size_mb=2000),
    ModelSpec("nomic-embed-text", size_mb=300, embedding=True, dims=16),
    ModelSpec("all-minilm", size_mb=100, embedding=True, dims=8),
)
BUSY = "server busy, please try again.  maximum pending requests exceeded"
Handler = Callable[
    [Request, dict[str, Any], ModelSpec, "RequestRecord"], Coroutine[Any, Any, Response]
]


@dataclass
class RequestRecord:
    """One model request as the fake saw it; ``outcome`` ends as ok, cancelled or error;
    ``priority`` is the ``X-Ollama-Priority`` header it came with (None without one)."""

    id: int
    endpoint: str
    model: str
    outcome: str = "running"
    started: float = 0.0
    first_token: float | None = None
    finished: float | None = None
    priority: str | None = None


class FakeOllama(ScriptedReplies):
    """A fake Ollama instance; configure attributes any time, read ``records`` to assert."""

    def __init__(
        self,
        name: str = "fake",
        *,
        models: tuple[ModelSpec, ...] = DEFAULT_MODELS,
        vram_mb: int = 8192,
        load_time: float = 0.0,
        token_latency: float = 0.0,
        embed_latency: float = 0.0,
        tokens: int = 8,
        num_parallel: int = 4,
        port: int = 0,
    ) -> None:
        self.name = name
        self.models = {m.name: m for m in models}
        self.load_time = load_time
        self.token_latency = token_latency
        self.embed_latency = embed_latency
        self.tokens = tokens
        self.num_parallel = num_parallel
        self.busy = False
        self.error_after_tokens: int | None = None
        self._reset_replies()
        self.residency = Residencies(vram_mb)
        self.records: list[RequestRecord] = []
        self._ids = itertools.count(1)
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._http = ThreadedServer(f"fake ollama {name}", port)

    # ---- lifecycle -------------------------------------------------------------------
    @property
    def url(self) -> str:
        return self._http.url

    def start(self) -> None:
        self._slots = {}
        self._http.start(self.app())

    def stop(self) -> None:
        self._http.stop()

    def die(self) -> None:
        """Crash: reset every open connection, stop listening, forget loaded models."""
        self._http.die()
        self.residency = Residencies(self.residency.vram_mb)

    def revive(self) -> None:
        self.start()

    # ---- assertions helpers ----------------------------------------------------------
    def count(self, endpoint: str | None = None, model: str | None = None, **kw: str) -> int:
        """How many model requests matched, e.g. ``count("/api/embed", outcome="ok")``."""
        return sum(
            1
            for r in list(self.records)
            if (endpoint is None or r.endpoint == endpoint)
            and (model is None or r.model == model)
            and all(getattr(r, k) == v for k, v in kw.items())
        )

    def loaded(self) -> list[str]:
        return sorted(self.residency.loaded)

    # ---- the ASGI app ----------------------------------------------------------------
    def app(self) -> Starlette:
        def model_route(path: str, handler: Handler) -> Route:
            async def endpoint(request: Request) -> Response:
                return await self._model_request(request, path, handler)

            return Route(path, endpoint, methods=["POST"])

        return Starlette(
            routes=[
                model_route("/api/generate", self._generate),
                model_route("/api/chat", self._chat),
                model_route("/api/embed", self._embed),
                model_route("/api/embeddings", self._embeddings),
                Route("/api/tags", self._tags, methods=["GET"]),
                Route("/api/ps", self._ps, methods=["GET"]),
                Route("/api/show", self._show, methods=["POST"]),
                Route("/api/version", self._version, methods=["GET", "HEAD"]),
                Route("/", self._root, methods=["GET", "HEAD"]),
            ]
        )

    async def _model_request(self, request: Request, path: str, handler: Handler) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            return JSONResponse({"error": f"invalid request: {exc}"}, status_code=400)
        spec = self.models.get(str(body.get("model", "")))
        if spec is None:
            msg = f"model '{body.get('model', '')}' not found"
            return JSONResponse({"error": msg}, status_code=404)
        if self.busy or self.take_busy():
            return JSONResponse({"error": BUSY}, status_code=503)
        record = RequestRecord(
            next(self._ids),
            path,
            spec.name,
            started=time.monotonic(),
            priority=request.headers.get("x-ollama-priority"),
        )
        self.records.append(record)
        return await handler(request, body, spec, record)

    async def until_disconnect(
        self, request: Request, record: RequestRecord, work: Coroutine[Any, Any, Response]
    ) -> Response:
        """Run non-streaming work; a client disconnect cancels it, like Ollama's context."""

        async def disconnected() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass

        task = asyncio.ensure_future(work)
        watcher = asyncio.ensure_future(disconnected())
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
        watcher.cancel()
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        record.outcome, record.finished = "cancelled", time.monotonic()
        return Response(status_code=499)

    @contextlib.asynccontextmanager
    async def running(
        self, spec: ModelSpec, record: RequestRecord, keep_alive: float | None
    ) -> AsyncIterator[Residency]:
        """Hold the model loaded and one of its parallel slots for the body; record the end."""
        resident = await self.residency.acquire(spec, self.load_time)
        try:
            slots = self._slots.setdefault(spec.name, asyncio.Semaphore(self.num_parallel))
            async with slots:
                yield resident
            if record.outcome == "running":
                record.outcome = "ok"
        except asyncio.CancelledError:
            record.outcome = "cancelled"
            raise
        finally:
            record.finished = time.monotonic()
            self.residency.release(resident, keep_alive)

    async def _generate(
        self, request: Request, body: dict[str, Any], spec: ModelSpec, record: RequestRecord
    ) -> Response:
        return await complete(self, request, body, spec, record, str(body.get("prompt") or ""))

    async def _chat(
        self, request: Request, body: dict[str, Any], spec: ModelSpec, record: RequestRecord
    ) -> Response:
        messages = body.get("messages") or []
        prompt = str(messages[-1].get("content", "")) if messages else ""
        return await complete(self, request, body, spec, record, prompt, chat=True)

    async def _embed(
        self, request: Request, body: dict[str, Any], spec: ModelSpec, record: RequestRecord
    ) -> Response:
        raw = body.get("input", [])
        inputs = [raw] if isinstance(raw, str) else list(raw)
        inputs = [text for text in inputs if text != ""]
        keep = parse_keep_alive(body.get("keep_alive"))

        async def work() -> Response:
            started = time.monotonic()
            async with self.running(spec, record, keep):
                if inputs:
                    await asyncio.sleep(self.embed_latency * len(inputs))
            vectors = [normalized(fake_embedding(text, spec.dims)) for text in inputs]
            return JSONResponse(
                {
                    "model": spec.name,
                    "embeddings": vectors,
                    "total_duration": int((time.monotonic() - started) * 1e9),
                    "load_duration": int(self.load_time * 1e9),
                    "prompt_eval_count": sum(len(t.split()) for t in inputs),
                }
            )

        return await self.until_disconnect(request, record, work())

    async def _embeddings(
        self, request: Request, body: dict[str, Any], spec: ModelSpec, record: RequestRecord
    ) -> Response:
        prompt = str(body.get("prompt") or "")
        keep = parse_keep_alive(body.get("keep_alive"))

        async def work() -> Response:
            async with self.running(spec, record, keep):
                if prompt:
                    await asyncio.sleep(self.embed_latency)
            vector = fake_embedding(prompt, spec.dims) if prompt else []
            return JSONResponse({"embedding": vector})

        return await self.until_disconnect(request, record, work())

    async def _tags(self, _: Request) -> Response:
        return JSONResponse({"models": [m.tag() for m in self.models.values()]})

    async def _ps(self, _: Request) -> Response:
        return JSONResponse({"models": self.residency.ps()})

    async def _show(self, request: Request) -> Response:
        body = json.loads(await request.body())
        spec = self.models.get(str(body.get("model") or body.get("name") or ""))
        if spec is None:
            return JSONResponse({"error": f"model '{body.get('model')}' not found"}, 404)
        tag = spec.tag()
        return JSONResponse(
            {
                "modelfile": f"FROM {spec.name}\n",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": tag["details"],
                "model_info": {"general.architecture": spec.family},
                "capabilities": ["embedding"] if spec.embedding else ["completion", "tools"],
                "modified_at": tag["modified_at"],
            }
        )

    async def _version(self, _: Request) -> Response:
        return JSONResponse({"version": "0.12.0"})

    async def _root(self, _: Request) -> Response:
        return Response("Ollama is running", media_type="text/plain")
