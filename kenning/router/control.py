"""The router's own endpoints: announce, release, status, metrics, events.

Who sees what: backend URLs and announced session names describe the deployment and the
agents of every client. ``control_routes(router, may_see_private=...)`` decides per request;
for anyone else `/status` nulls the URLs and hides the session names, and `/events` leaves
session names out. Standalone (``kenning router``, an operator tool on loopback) shows all.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .leases import CRITICAL_TRAFFIC
from .router import Router

RequestCheck = Callable[[Request], Awaitable[bool]]


async def _everyone(_: Request) -> bool:
    return True


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


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as ``as_dict()`` gives it, with the session name nulled."""
    return {**event, "session": None} if "session" in event else event


def public_status(status: dict[str, Any]) -> dict[str, Any]:
    """``Router.status()`` without backend URLs (null) and session names (``hidden-N``).

    The lease of recent priority-0 traffic keeps its name: it is no one's session.
    """
    hidden = iter(range(1, len(status["leases"]) + 1))
    leases = {
        name if name == CRITICAL_TRAFFIC else f"hidden-{next(hidden)}": seconds
        for name, seconds in status["leases"].items()
    }
    return {
        **status,
        "leases": leases,
        "backends": [{**backend, "url": None} for backend in status["backends"]],
        "recent_events": [public_event(event) for event in status["recent_events"]],
    }


def control_routes(router: Router, *, may_see_private: RequestCheck = _everyone) -> list[Route]:
    """Routes to mount at ``/router``: POST /announce, POST /release, GET /status, /metrics,
    /events (NDJSON stream of router events). ``may_see_private(request)`` false hides
    backend URLs and session names from that request (see the module docstring)."""

    async def announce(request: Request) -> Response:
        return JSONResponse(await router.announce(await _session(request)))

    async def release(request: Request) -> Response:
        return JSONResponse(await router.release(await _session(request)))

    async def status(request: Request) -> Response:
        snapshot = await router.status()
        private = await may_see_private(request)
        return JSONResponse(snapshot if private else public_status(snapshot))

    async def metrics(_: Request) -> Response:
        return Response(router.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    async def events(request: Request) -> Response:
        private = await may_see_private(request)

        async def lines() -> AsyncIterator[bytes]:
            async for event in router.events_stream():
                shown = event.as_dict() if private else public_event(event.as_dict())
                yield json.dumps(shown).encode() + b"\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    handlers: list[tuple[str, Callable[[Request], Awaitable[Response]], str]] = [
        ("/announce", announce, "POST"),
        ("/release", release, "POST"),
        ("/status", status, "GET"),
        ("/metrics", metrics, "GET"),
        ("/events", events, "GET"),
    ]
    return [Route(path, handler, methods=[method]) for path, handler, method in handlers]
