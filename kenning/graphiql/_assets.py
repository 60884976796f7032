"""``/graphiql/assets/<name>``: the bundle's files, hashed names cached for a year.

Only plain names in the static directory with a known suffix are served; a browser that
accepts gzip gets the precompressed copy the build wrote beside each file.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning.graphiql._bundle import static_dir
from kenning.web_bundle import TEXT, asset_response

CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".ttf": "font/ttf",
    ".txt": TEXT,
}


async def serve_asset(request: Request) -> Response:
    """One built file, or 404."""
    return asset_response(request, static_dir(), CONTENT_TYPES)


def graphiql_routes() -> list[BaseRoute]:
    """Routes of the page's static assets (JS, CSS, fonts), served without a key."""
    return [Route("/graphiql/assets/{name}", serve_asset, methods=["GET", "HEAD"])]
