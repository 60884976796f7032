"""What ``/graphql`` reads of a request: a body within its limit (``BodyTooLarge`` past it,
a 413), decoded as JSON (a 400 when it is not JSON, or nests deeper than Python's parser
goes), a large body off the event loop.

A body of ``LARGE_BODY`` bytes or more is decoded in the shared worker thread, its long
strings a slice at a time (``json_body``): ``json.loads`` of a 25 MB document held the loop
for 30-50 ms, and in a thread the one call would hold the GIL as long.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from functools import partial
from typing import Any

from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.requests import Request
from starlette.types import Message
from strawberry.asgi import GraphQL
from strawberry.http.parse_content_type import parse_content_type

from kenning import json_body
from kenning.domain.off_loop import OFF_LOOP_CHARS, off_loop
from kenning.graphql.context import Context

TOO_DEEP = "the JSON nests deeper than the server parses; flatten it"
LARGE_BODY = 1024 * 1024
# The body decoded off the loop, for ``parse_json`` to answer with when Strawberry asks.
_decoded: ContextVar[tuple[bytes, Any] | None] = ContextVar("decoded_body", default=None)


class JsonTooDeep(json.JSONDecodeError):
    """JSON nested past the parser's recursion limit; a decode error to every caller."""

    def __init__(self) -> None:
        super().__init__(TOO_DEEP, "", 0)


class BodyTooLarge(Exception):
    """The request body passed ``KENNING_MAX_REQUEST_BYTES``."""


class _JoinedOffLoop(Request):
    """A request whose body, once ``LARGE_BODY`` or more, is joined in the worker thread.

    Starlette joins the received chunks on the loop: 25 MB is a 15 ms copy there, while
    ``bytes.join`` lets go of the GIL for large results, so in a thread it stalls nothing.
    """

    async def body(self) -> bytes:
        if not hasattr(self, "_body"):
            chunks: list[bytes] = []
            size = 0
            async for chunk in self.stream():
                chunks.append(chunk)
                size += len(chunk)
            join = partial(b"".join, chunks)
            self._body = await off_loop(OFF_LOOP_CHARS, join) if size >= LARGE_BODY else join()
        return self._body


def limited(request: Request, max_bytes: int) -> Request:
    """``request`` whose body may be read only up to ``max_bytes``."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise BodyTooLarge
    receive, seen = request.receive, 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        seen += len(message.get("body", b""))
        if seen > max_bytes:
            raise BodyTooLarge
        return message

    return _JoinedOffLoop(request.scope, counted)


class JsonBodyView(GraphQL[Context, None]):
    """Strawberry's ASGI view decoding JSON as Kenning does (websocket messages too)."""

    def decode_json(self, data: str | bytes) -> object:
        # json.loads raises RecursionError, not a decode error, on deep nesting: that
        # would be a 500 over HTTP and a dropped websocket instead of a 4400.
        try:
            if isinstance(data, bytes) and len(data) >= LARGE_BODY:
                return json_body.decode(data)
            return json.loads(data)
        except RecursionError as error:
            raise JsonTooDeep from error

    async def parse_http_body(self, request: AsyncHTTPRequestAdapter) -> Any:
        content_type, _ = parse_content_type(request.content_type or "")
        if request.method != "POST" or "application/json" not in content_type:
            return await super().parse_http_body(request)
        body = await request.get_body()
        if len(body) < LARGE_BODY:
            return await super().parse_http_body(request)
        token = _decoded.set((body, await off_loop(len(body), partial(self.parse_json, body))))
        try:
            return await super().parse_http_body(request)
        finally:
            _decoded.reset(token)

    def parse_json(self, data: str | bytes) -> Any:
        decoded = _decoded.get()
        if decoded is not None and decoded[0] is data:
            return decoded[1]
        try:
            return self.decode_json(data)
        except JsonTooDeep as error:
            raise HTTPException(400, TOO_DEEP) from error
        except json.JSONDecodeError as error:
            raise HTTPException(400, "Unable to parse request body as JSON") from error
