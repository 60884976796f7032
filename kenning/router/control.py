"""The router's own endpoints: announce, release, status, metrics, events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .router import Router


async def _session(request: Request) -> str | None:
    body = await request.body()
    if not body.strip():
        return None
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    session = payload.get("session") if isinstance(payload, dict) else None
    return str(session) if session else None


def control_routes(router: Router) -> list[Route]:
    """Routes to mount at ``/router``: POST /announce, POST /release, GET /status, /metrics,
    /events (NDJSON stream of router events)."""

    async def announce(request: Request) -> Response:
        return JSONResponse(await router.announce(await _session(request)))

    async def release(request: Request) -> Response:
        return JSONResponse(await router.release(await _session(request)))

    async def status(_: Request) -> Response:
        return JSONResponse(await router.status())

    async def metrics(_: Request) -> Response:
        return Response(router.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    async def events(_: Request) -> Response:
        async def lines() -> AsyncIterator[bytes]:
            async for event in router.events_stream():
                yield json.dumps(event.as_dict()).encode() + b"\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    handlers: list[tuple[str, Callable[[Request], Awaitable[Response]], str]] = [
        ("/announce", announce, "POST"),
        ("/release", release, "POST"),
        ("/status", status, "GET"),
        ("/metrics", metrics, "GET"),
        ("/events", events, "GET"),
    ]
    return [Route(path, handler, methods=[method]) for path, handler, method in handlers]
