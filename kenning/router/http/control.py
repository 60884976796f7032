"""The router's own endpoints: announce, release, status, metrics, events.

Who may do what comes from the `Gate` the router is served with (`access`): every endpoint
asks it first, and answers a refusal as ``{"error": "...", "code": "UNAUTHENTICATED"}`` (or
``FORBIDDEN``, ``SERVICE_UNAVAILABLE``) with the gate's status. Announce and release need
``Access.control`` and act for ``Access.owner`` (`kenning.router.scheduling.sessions`): a
release ends the caller's own sessions and its client's priority-0 traffic lease only, unless
``Access.all_sessions``. A body that cannot be used (not a JSON object, nested too deep, a
bad ``session``) is answered 400 ``{"error", "code", "field"}``; one over
`CONTROL_BODY_BYTES` 413 with ``"code": "TOO_LARGE"`` and its ``limit``, the rest unread. An
announce of one session more than a client may hold (`MAX_SESSIONS_PER_CLIENT`) is answered
429 with ``"code": "TOO_MANY_SESSIONS"`` and the ``limit``.
Backend URLs and announced session names describe the deployment and the agents of every
client: without ``Access.private`` `/status` nulls the URLs and hides the session names, and
`/events` leaves session names out.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kenning.router.errors import AccessDenied, BodyTooLarge, InvalidRequest, TooManySessions
from kenning.router.http.access import Access, Gate, Guarded, guarded, open_gate
from kenning.router.http.bodies import CONTROL_BODY_BYTES, json_value, read_body
from kenning.router.router import Router
from kenning.router.scheduling.sessions import CRITICAL_TRAFFIC, session_name

_CODES = {401: "UNAUTHENTICATED", 403: "FORBIDDEN", 503: "SERVICE_UNAVAILABLE"}


def refusal(denied: AccessDenied) -> Response:
    """A refused control request: the message, a stable code, the gate's status."""
    body = {"error": denied.message, "code": _CODES.get(denied.status, "FORBIDDEN")}
    return JSONResponse(body, status_code=denied.status, headers=denied.headers)


def invalid(error: InvalidRequest) -> Response:
    """A control request whose body cannot be used: 400, naming what is wrong."""
    body = {"error": error.message, "code": error.code, "field": error.field}
    return JSONResponse(body, status_code=400)


def too_large(error: BodyTooLarge) -> Response:
    """A control request whose body passed `CONTROL_BODY_BYTES`: 413, naming the limit."""
    body = {"error": error.message, "code": "TOO_LARGE", "field": None, "limit": error.limit}
    return JSONResponse(body, status_code=413)


def too_many(error: TooManySessions) -> Response:
    """An announce past the sessions one client may hold: 429, naming the limit."""
    body = {"error": error.message, "code": "TOO_MANY_SESSIONS", "field": None}
    return JSONResponse({**body, "limit": error.limit}, status_code=429)


async def _session(request: Request) -> str | None:
    """The session an announce or release names; an empty body names none."""
    body = await read_body(request, CONTROL_BODY_BYTES)
    if not body.strip():
        return None
    try:
        payload = json_value(body)
    except ValueError as exc:  # UnicodeDecodeError and JsonTooDeep included
        raise InvalidRequest(f"the body must be JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise InvalidRequest('the body must be a JSON object, e.g. {"session": "chat-1"}')
    return session_name(payload.get("session"))


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as ``as_dict()`` gives it, with the session name nulled."""
    return {**event, "session": None} if "session" in event else event


def public_status(status: dict[str, Any]) -> dict[str, Any]:
    """``Router.status()`` without backend URLs (null) and whose sessions live: leases are
    named ``hidden-N``, and each session's name, client and keys are null.

    The lease of recent priority-0 traffic keeps its name: it stands for every client's
    traffic lease as one and names no session. Sessions are counted one by one, never merged
    by name, so the count tells no one that another client holds a session under a name it
    also uses.
    """
    sessions = [
        {**held, "session": None, "client": None, "keys": None} for held in status["sessions"]
    ]
    traffic = status["leases"].get(CRITICAL_TRAFFIC)
    leases = {CRITICAL_TRAFFIC: traffic} if traffic is not None else {}
    for n, held in enumerate(sessions, 1):
        leases[f"hidden-{n}"] = held["expires_in"]
    return {
        **status,
        "leases": leases,
        "sessions": sessions,
        "backends": [{**backend, "url": None} for backend in status["backends"]],
        "recent_events": [public_event(event) for event in status["recent_events"]],
    }


def control_routes(router: Router, *, gate: Gate = open_gate) -> list[Route]:
    """Routes to mount at ``/router``: POST /announce, POST /release, GET /status, /metrics,
    /events (NDJSON stream of router events), each asking ``gate`` who is calling."""

    async def announce(request: Request, access: Access) -> Response:
        if not access.control:
            raise access.deny("/router/announce")
        try:
            session = await _session(request)
        except InvalidRequest as error:
            return invalid(error)
        except BodyTooLarge as error:
            return too_large(error)
        try:
            return JSONResponse(await router.announce(session, access.owner))
        except TooManySessions as error:
            return too_many(error)

    async def release(request: Request, access: Access) -> Response:
        if not access.control:
            raise access.deny("/router/release")
        try:
            session = await _session(request)
        except InvalidRequest as error:
            return invalid(error)
        except BodyTooLarge as error:
            return too_large(error)
        answer = await router.release(session, access.owner, all_sessions=access.all_sessions)
        return JSONResponse(answer)

    async def status(_: Request, access: Access) -> Response:
        snapshot = await router.status()
        return JSONResponse(snapshot if access.private else public_status(snapshot))

    async def metrics(_: Request, __: Access) -> Response:
        return Response(router.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    async def events(_: Request, access: Access) -> Response:
        async def lines() -> AsyncIterator[bytes]:
            async for event in router.events_stream():
                shown = event.as_dict() if access.private else public_event(event.as_dict())
                yield json.dumps(shown).encode() + b"\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    handlers: list[tuple[str, Guarded, str]] = [
        ("/announce", announce, "POST"),
        ("/release", release, "POST"),
        ("/status", status, "GET"),
        ("/metrics", metrics, "GET"),
        ("/events", events, "GET"),
    ]
    return [
        Route(path, guarded(gate, handler, refusal), methods=[method])
        for path, handler, method in handlers
    ]
