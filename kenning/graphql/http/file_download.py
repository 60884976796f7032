"""``GET /files/{id}``: a stored original streamed to whoever may read its chunks.

Authenticated like ``/graphql`` (``Authorization: Bearer <API key>``). A file the caller's
scope may not read gets the same 404 as an unknown id, so an id tells nothing. The answer is
always an attachment with ``nosniff``: an uploaded HTML file is never rendered as a page of
this server. A file whose original was not kept (its text held credentials) answers 410 Gone
with the reason (``extensions.reason``), to the same readers only: others get the 404. Text
that cannot be an id (not a lowercase UUID: a NUL, thousands of characters) answers 400."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kenning.domain.access.principal import ANONYMOUS, Principal, bearer_key
from kenning.domain.sources.files.stored import (
    FILE_ID_FORM,
    NOT_KEPT_MESSAGES,
    FileStore,
    StoredFile,
    is_file_id,
)
from kenning.http_errors import REALM
from kenning.runtime import Runtime

logger = logging.getLogger("kenning.sources.files")


def _error(
    status: int, message: str, code: str, reason: str | None = None, **headers: str
) -> JSONResponse:
    extensions = {"code": code} | ({"reason": reason} if reason else {})
    body = {"errors": [{"message": message, "extensions": extensions}]}
    return JSONResponse(body, status_code=status, headers=headers or None)


def content_disposition(filename: str) -> str:
    """An attachment header that survives any filename (RFC 6266 with RFC 5987's UTF-8)."""
    plain = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "_" for c in filename)
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


async def _caller(runtime: Runtime, request: Request) -> Principal | None:
    key = bearer_key(request.headers.get("authorization"))
    if key is None:
        return ANONYMOUS if runtime.anonymous_allowed else None
    return await runtime.api_keys.authenticate(key)


async def _stream(files: FileStore, file: StoredFile) -> AsyncIterator[bytes]:
    async for piece in files.read(file):
        yield piece


async def _looked_up(runtime: Runtime, request: Request) -> Response | StoredFile | None:
    """The stored file the request names as its caller may read it (None: none such), or
    the refusal of a request without a key or with text no file id can be."""
    caller = await _caller(runtime, request)
    if caller is None:
        return _error(
            401,
            "send Authorization: Bearer <API key>",
            "UNAUTHENTICATED",
            **{"WWW-Authenticate": REALM},
        )
    file_id = request.path_params["file_id"]
    # Checked before the lookup: a NUL cannot reach PostgreSQL, and text no id can have is
    # the client's mistake to be told, not a file to look for.
    if not is_file_id(file_id):
        return _error(400, f"not a file id: {FILE_ID_FORM}", "BAD_REQUEST", "INVALID")
    return await runtime.file_work.files.get(file_id, caller.scope)


def _sent(files: FileStore, found: StoredFile | None) -> Response:
    """The original as an attachment; 404 for none, 410 for one that was not kept."""
    if found is None:
        return _error(404, "no such file", "NOT_FOUND")
    if found.not_kept is not None:
        return _error(410, NOT_KEPT_MESSAGES[found.not_kept], "GONE", found.not_kept.value)
    logger.info("files.download", extra={"file_id": found.id, "size": found.size})
    headers = {
        "Content-Disposition": content_disposition(found.filename),
        "Content-Length": str(found.size),
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
    }
    return StreamingResponse(_stream(files, found), media_type=found.media_type, headers=headers)


def file_routes(
    holder: dict[str, Runtime], unavailable: Callable[[BaseException], str | None]
) -> list[Route]:
    """The download route, reading the runtime from ``holder`` (set by the lifespan)."""

    async def download(request: Request) -> Response:
        runtime = holder.get("runtime")
        if runtime is None:
            return _error(503, "the server is starting", "UNAVAILABLE", **{"Retry-After": "5"})
        try:
            found = await _looked_up(runtime, request)
        except Exception as error:
            part = unavailable(error)
            if part is None:
                raise
            message = f"{part} is unavailable; try again shortly"
            return _error(503, message, "UNAVAILABLE", **{"Retry-After": "5"})
        if isinstance(found, Response):
            return found
        return _sent(runtime.file_work.files, found)

    return [Route("/files/{file_id}", download, methods=["GET"])]
