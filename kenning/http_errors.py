"""Refusals before any schema or tool runs, in the shape GraphQL clients parse: a JSON body
with one error carrying ``extensions.code`` (and ``requestId``), and the HTTP status.

``/graphql``, ``/mcp`` and the file routes answer a missing key, a body too large or a part
that is down with these, so a client reads them one way whichever door it used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse

from kenning.domain.health import PART_NAMES
from kenning.logs import request_id

REALM = 'Bearer realm="kenning"'
HTTP_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHENTICATED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    503: "SERVICE_UNAVAILABLE",
}


def error_body(message: str, code: str, **extensions: Any) -> dict[str, Any]:
    """A GraphQL response with one top-level error and no data."""
    extra = {"code": code, **extensions}
    rid = request_id.get()
    if rid:
        extra["requestId"] = rid
    return {"errors": [{"message": message, "extensions": extra}]}


def error_response(
    status: int,
    message: str,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
    **extensions: Any,
) -> JSONResponse:
    """A GraphQL-shaped error answer with an HTTP status."""
    body = error_body(message, code or HTTP_CODES.get(status, "BAD_REQUEST"), **extensions)
    return JSONResponse(body, status_code=status, headers=headers)


def unavailable_response(part: str) -> JSONResponse:
    """503 naming the part that is down."""
    name = PART_NAMES.get(part, part)
    return error_response(
        503,
        f"{name} is unavailable; try again shortly",
        part=part,
        headers={"Retry-After": "5"},
    )
