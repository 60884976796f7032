"""Request bodies the router reads: never more than a limit, and JSON no deeper than Python
parses.

A body is received a chunk at a time and refused (`BodyTooLarge`) as soon as it passes its
limit, the rest never received; a ``Content-Length`` over the limit is refused before the first
chunk. An announce or release names at most a 200-character session, so its body is held to
`CONTROL_BODY_BYTES`; a model call's may carry images, so the app serving the router passes
its limit (Kenning: ``KENNING_MAX_REQUEST_BYTES``), `DEFAULT_MAX_BODY_BYTES` unless it does.
"""

from __future__ import annotations

import json

from starlette.requests import Request

from kenning.router.errors import BodyTooLarge

# A 200-character name escaped as surrogate pairs is 2,400 bytes: room for that and more.
CONTROL_BODY_BYTES = 8 * 1024
DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024
TOO_DEEP = "the JSON nests deeper than the router parses"


class JsonTooDeep(ValueError):
    """JSON nested past Python's recursion limit: a value error like any malformed JSON."""

    def __init__(self) -> None:
        super().__init__(TOO_DEEP)


async def read_body(request: Request, limit: int) -> bytes:
    """The body of ``request``, at most ``limit`` bytes; raises `BodyTooLarge` past it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def json_value(body: bytes) -> object:
    """``json.loads(body)``; raises `ValueError` for what is not JSON, nesting too deep
    included (`JsonTooDeep`: ``json.loads`` raises RecursionError there, which would be a 500)."""
    try:
        return json.loads(body)
    except RecursionError:
        raise JsonTooDeep from None
