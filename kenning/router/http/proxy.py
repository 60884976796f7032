"""The Ollama-compatible HTTP API: model endpoints through the relay, catalogue aggregated."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from kenning.router.errors import AccessDenied, BodyTooLarge, InvalidPriority, NoBackendAvailable
from kenning.router.http.access import Access, Endpoint, Gate, Guarded, guarded, open_gate
from kenning.router.http.bodies import DEFAULT_MAX_BODY_BYTES, json_value, read_body
from kenning.router.http.unproxied import unproxied_routes
from kenning.router.relay import Job
from kenning.router.router import Router
from kenning.router.scheduling.policy import decide_priority
from kenning.router.upstream.upstream import Buffered, send_buffered

T = TypeVar("T")
NDJSON = "application/x-ndjson"
BACKEND_HEADER = "x-kenning-backend"
_STREAMING_PATHS = ("/api/generate", "/api/chat")


class _ClosingStream(StreamingResponse):
    """Closes the body iterator even when the client vanished mid-send, so the upstream
    request is cancelled now rather than when the generator is garbage-collected."""

    def __init__(self, content: AsyncIterator[bytes], **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._content = content

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            aclose = getattr(self._content, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()


async def _until_disconnect(request: Request, work: Coroutine[Any, Any, T]) -> T | None:
    """Run work, cancelling it if the client disconnects first (None then)."""

    async def disconnected() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass

    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(disconnected())
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    finally:
        watcher.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return None


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _refusal(denied: AccessDenied) -> Response:
    """A refused call in Ollama's error shape, which Ollama clients show as is."""
    return JSONResponse(
        {"error": denied.message}, status_code=denied.status, headers=denied.headers
    )


def _relay_answer(answer: Buffered) -> Response:
    return Response(
        answer.body,
        status_code=answer.status,
        media_type=answer.media_type,
        headers={BACKEND_HEADER: answer.backend},
    )


def _too_large(error: BodyTooLarge) -> Response:
    return JSONResponse({"error": error.message, "limit": error.limit}, status_code=413)


def _model_endpoint(router: Router, path: str, max_body_bytes: int) -> Guarded:
    rules = router.settings.rules()

    async def endpoint(request: Request, access: Access) -> Response:
        try:
            body = await read_body(request, max_body_bytes)
        except BodyTooLarge as error:
            return _too_large(error)
        try:
            payload = json_value(body)
            if not isinstance(payload, dict):
                raise ValueError("the body must be a JSON object")
        except ValueError as exc:  # JsonTooDeep included
            return _error(400, f"invalid request body: {exc}")
        model = str(payload.get("model") or "")
        if not model:
            return _error(400, "model is required")
        try:
            claimed = decide_priority(request.headers.get("x-ollama-priority"), model, rules)
        except InvalidPriority as exc:
            return _error(400, str(exc))
        decision = access.claim(claimed)  # refused (403) above the caller's cap
        streaming = path in _STREAMING_PATHS and payload.get("stream", True) is not False
        job = Job(path, body, model, decision, stream=streaming, owner=access.owner)
        try:
            if not streaming:
                answer = await _until_disconnect(request, router.relay.buffered(job))
                return _relay_answer(answer) if answer else Response(status_code=499)
            opened = await _until_disconnect(request, router.relay.open_stream(job))
        except NoBackendAvailable as exc:
            return _error(503, str(exc))
        if opened is None:
            return Response(status_code=499)
        if isinstance(opened, Buffered):
            return _relay_answer(opened)
        return _ClosingStream(
            router.relay.stream_body(job, opened),
            media_type=NDJSON,
            headers={BACKEND_HEADER: opened.lease.backend.name},
        )

    return endpoint


async def _gather(router: Router, method: str, path: str) -> list[Buffered]:
    backends = router.pool.healthy()
    answers = await asyncio.gather(
        *(send_buffered(b.client, b.name, method, path) for b in backends),
        return_exceptions=True,
    )
    return [a for a in answers if isinstance(a, Buffered) and a.status == 200]


def _tags(router: Router) -> Endpoint:
    async def tags(_: Request) -> Response:
        merged: dict[str, dict[str, Any]] = {}
        for answer in await _gather(router, "GET", "/api/tags"):
            for model in answer.json().get("models", []):
                entry = merged.setdefault(model.get("name") or model.get("model"), model)
                entry.setdefault("backends", []).append(answer.backend)
        return JSONResponse({"models": list(merged.values())})

    return tags


def _ps(router: Router) -> Endpoint:
    async def ps(_: Request) -> Response:
        running = [
            {**model, "backend": answer.backend}
            for answer in await _gather(router, "GET", "/api/ps")
            for model in answer.json().get("models", [])
        ]
        return JSONResponse({"models": running})

    return ps


def _show(router: Router, max_body_bytes: int) -> Endpoint:
    async def show(request: Request) -> Response:
        try:
            body = await read_body(request, max_body_bytes)
        except BodyTooLarge as error:
            return _too_large(error)
        last: Buffered | None = None
        for backend in router.pool.healthy():
            try:
                last = await send_buffered(backend.client, backend.name, "POST", "/api/show", body)
            except Exception:  # try the next backend; a dead one is the pool's business
                continue
            if last.status != 404:
                break
        return _relay_answer(last) if last else _error(503, "no healthy backend")

    return show


def _version(router: Router) -> Endpoint:
    async def version(_: Request) -> Response:
        answers = await _gather(router, "GET", "/api/version")
        return _relay_answer(answers[0]) if answers else _error(503, "no healthy backend")

    return version


async def _root(_: Request) -> Response:
    return Response("Ollama is running", media_type="text/plain")


def ollama_routes(
    router: Router, *, gate: Gate = open_gate, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
) -> list[BaseRoute]:
    """Routes of the Ollama API; mount them at the root of a prefix such as ``/ollama``.

    Every ``/api/*`` path asks ``gate`` first and answers a refusal in Ollama's shape,
    ``{"error": "..."}``; the root only says that Ollama is running, to anyone. Paths the
    router does not proxy answer with an Ollama-shaped error (`unproxied_routes`). A request
    body over ``max_body_bytes`` is answered 413 ``{"error", "limit"}`` once it passes the
    limit, the rest unread (`kenning.router.http.bodies`).
    """

    def guard(endpoint: Endpoint) -> Endpoint:
        async def plain(request: Request, _: Access) -> Response:
            return await endpoint(request)

        return guarded(gate, plain, _refusal)

    model_paths = ("/api/generate", "/api/chat", "/api/embed", "/api/embeddings")
    served = [
        *(
            Route(
                p,
                guarded(gate, _model_endpoint(router, p, max_body_bytes), _refusal),
                methods=["POST"],
            )
            for p in model_paths
        ),
        Route("/api/tags", guard(_tags(router)), methods=["GET"]),
        Route("/api/ps", guard(_ps(router)), methods=["GET"]),
        Route("/api/show", guard(_show(router, max_body_bytes)), methods=["POST"]),
        Route("/api/version", guard(_version(router)), methods=["GET"]),
    ]
    root = Route("/", _root, methods=["GET", "HEAD"])
    return [*served, root, *unproxied_routes([*served, root], guard)]
