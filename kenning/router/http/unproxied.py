"""Answers for the Ollama endpoints the router does not proxy, in Ollama's error shape.

Model management (``/api/pull``, ``/api/push``, ``/api/create``, ``/api/delete``,
``/api/copy``, ``/api/blobs/...``) and the OpenAI-compatible ``/v1/*`` API get 501: they
concern one backend, and a router in front of several cannot pick it for the caller. Any
other ``/api/*`` path gets 404. Both say to call the backend directly; its URL is in
``/router/status``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

_ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
_UNSUPPORTED = (
    "/api/pull",
    "/api/push",
    "/api/create",
    "/api/delete",
    "/api/copy",
    "/api/blobs/{digest:path}",
    "/v1/{rest:path}",
)
Endpoint = Callable[[Request], Awaitable[Response]]
_DIRECT = "call the backend directly (an operator finds its URL in /router/status)"


async def _unsupported(request: Request) -> Response:
    message = f"the Kenning router does not proxy {request.url.path}: {_DIRECT}"
    return JSONResponse({"error": message}, status_code=501)


def _same(endpoint: Endpoint) -> Endpoint:
    return endpoint


def _unknown(served: dict[str, list[str]], guard: Callable[[Endpoint], Endpoint]) -> Route:
    """The catch-all for ``/api/*``: 405 on a served path with another method, else 404."""

    async def unknown(request: Request) -> Response:
        path = "/api/" + request.path_params["rest"]
        methods = served.get(path)
        if methods is not None:
            allowed = ", ".join(methods)
            message = f"{request.method} {path} is not allowed: use {allowed}"
            return JSONResponse({"error": message}, status_code=405, headers={"Allow": allowed})
        message = f"unknown endpoint {request.url.path}: the Kenning router does not proxy it; "
        return JSONResponse({"error": message + _DIRECT}, status_code=404)

    return Route("/api/{rest:path}", guard(unknown), methods=_ANY_METHOD)


def unproxied_routes(
    served: list[Route], guard: Callable[[Endpoint], Endpoint] = _same
) -> list[BaseRoute]:
    """Routes to add after the ``served`` ones, so only paths those do not match get here;
    ``guard`` wraps each endpoint (the caller's access check)."""
    methods = {
        route.path: sorted((route.methods or set()) - {"HEAD"}) or ["GET"] for route in served
    }
    return [
        *(Route(path, guard(_unsupported), methods=_ANY_METHOD) for path in _UNSUPPORTED),
        _unknown(methods, guard),
    ]
