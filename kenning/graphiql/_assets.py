"""``/graphiql/assets/<name>``: the bundle's files, hashed names cached for a year.

Only plain names in the static directory with a known suffix are served; a browser that
accepts gzip gets the precompressed copy the build wrote beside each file.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from kenning.graphiql._bundle import static_dir

CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".ttf": "font/ttf",
    ".txt": "text/plain; charset=utf-8",
}

# Every served name carries a content hash, so a changed file always has a new name.
IMMUTABLE = "public, max-age=31536000, immutable"

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def content_type(name: str) -> str | None:
    """The Content-Type for an asset ``name``, or ``None`` if it is not served."""
    for suffix, media_type in CONTENT_TYPES.items():
        if name.endswith(suffix):
            return media_type
    return None


def _accepts_gzip(request: Request) -> bool:
    return any(
        part.split(";")[0].strip() == "gzip"
        for part in request.headers.get("accept-encoding", "").split(",")
    )


async def serve_asset(request: Request) -> Response:
    """One built file, or 404."""
    name = str(request.path_params["name"])
    media_type = content_type(name)
    path = static_dir() / name
    if media_type is None or not _SAFE_NAME.fullmatch(name) or not path.is_file():
        return PlainTextResponse("Not Found", status_code=404)
    headers = {"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"}
    if media_type != CONTENT_TYPES[".txt"]:
        headers["Vary"] = "Accept-Encoding"
        packed = path.with_name(f"{name}.gz")
        if _accepts_gzip(request) and packed.is_file():
            headers["Content-Encoding"] = "gzip"
            return FileResponse(packed, media_type=media_type, headers=headers)
    return FileResponse(path, media_type=media_type, headers=headers)


def graphiql_routes() -> list[BaseRoute]:
    """Routes of the page's static assets (JS, CSS, fonts), served without a key."""
    return [Route("/graphiql/assets/{name}", serve_asset, methods=["GET", "HEAD"])]
