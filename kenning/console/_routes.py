"""The console's routes: the HTML shell and its hashed static files.

The shell is served at ``/console/`` and names its files relative to itself
(``static/console-<hash>.js``), so the console also works where a proxy mounts Kenning under
a prefix; the console reaches the API at ``../graphql`` for the same reason.
"""

from __future__ import annotations

from html import escape

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Route

from kenning.console._bundle import BUILD_HINT, Bundle, load_bundle, static_dir
from kenning.web_bundle import TEXT, asset_response, page_headers

CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": TEXT,
}

# The page holds an API key: nothing from other hosts, no framing, no inline script. Inline
# styles stay allowed for the graph view's canvas; the websocket goes back to this host.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
)

PAGE_HEADERS = page_headers(CONTENT_SECURITY_POLICY)


def render_page(bundle: Bundle) -> str:
    """The shell's HTML for ``bundle``."""
    css, js = escape(f"static/{bundle.css}"), escape(f"static/{bundle.js}")
    return f"""<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Kenning console</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="{css}">
    <script type="module" src="{js}"></script>
  </head>
  <body>
    <div id="console"></div>
    <noscript>The Kenning console needs JavaScript.</noscript>
  </body>
</html>
"""


async def console_page(request: Request) -> Response:
    """The console's HTML shell, or 503 saying how to build it."""
    bundle = await anyio.to_thread.run_sync(load_bundle)
    if bundle is None:
        return PlainTextResponse(BUILD_HINT, status_code=503, headers={"Cache-Control": "no-store"})
    return HTMLResponse(render_page(bundle), headers=PAGE_HEADERS)


async def to_console_page(request: Request) -> Response:
    """``/console`` → ``/console/``: the shell's relative links need the slash."""
    return RedirectResponse("console/", status_code=308)


async def serve_asset(request: Request) -> Response:
    """One built file (gzipped when the browser accepts it and the build wrote a copy), or 404."""
    return asset_response(request, static_dir(), CONTENT_TYPES)


def console_routes() -> list[BaseRoute]:
    """The console's page and static files, served without a key (the API asks for one)."""
    return [
        Route("/console", to_console_page, methods=["GET", "HEAD"]),
        Route("/console/", console_page, methods=["GET", "HEAD"]),
        Route("/console/static/{name}", serve_asset, methods=["GET", "HEAD"]),
    ]
