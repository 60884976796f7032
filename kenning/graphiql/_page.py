"""The HTML page: the key bar and GraphiQL, loading only this server's own files."""

from __future__ import annotations

from html import escape

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from kenning.graphiql._bundle import BUILD_HINT, Bundle, load_bundle
from kenning.web_bundle import page_headers

# Relative to /graphql, so the page also works where a proxy mounts Kenning under a prefix.
ASSET_PATH = "graphiql/assets"

# The page holds an API key: allow nothing from other hosts, no framing, no inline script.
# Monaco adds inline styles and data: fonts; the websocket goes back to this host.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data:",
    "img-src 'self' data:",
    "worker-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
)

PAGE_HEADERS = page_headers(CONTENT_SECURITY_POLICY)


def render_page(bundle: Bundle) -> str:
    """The page's HTML for ``bundle``."""
    css = escape(f"{ASSET_PATH}/{bundle.css}")
    js = escape(f"{ASSET_PATH}/{bundle.js}")
    return f"""<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Kenning GraphiQL</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="{css}">
    <script type="module" src="{js}"></script>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <noscript>GraphiQL needs JavaScript.</noscript>
  </body>
</html>
"""


async def graphiql_page(request: Request) -> Response:
    """The GraphiQL HTML page, or 503 saying how to build it."""
    bundle = await anyio.to_thread.run_sync(load_bundle)
    if bundle is None:
        return PlainTextResponse(BUILD_HINT, status_code=503, headers={"Cache-Control": "no-store"})
    return HTMLResponse(render_page(bundle), headers=PAGE_HEADERS)
