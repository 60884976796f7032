"""A small web site served on loopback for the crawl tests and benchmark.

Pages carry navigation, a footer and a sidebar around their main text (what extraction
must drop), links in the text and in the navigation, ETag and Last-Modified validators
(answering 304 to a matching conditional request), a robots.txt that disallows
``/private/``, an oversized page, and redirects to the loopback, link-local (cloud
metadata) and IPv6 loopback addresses. ``Site.encoded`` serves bytes as they are, under a
``Content-Encoding`` of the test's choice (robots.txt too). Every request is recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.support.router_harness import wait_until

LAST_MODIFIED = "Wed, 01 Jan 2025 00:00:00 GMT"
BIG_BYTES = 300_000
ROBOTS = "User-agent: *\nDisallow: /private/\n"
_PROSE = (
    "Kenning keeps knowledge as chunks and a graph, and this paragraph is long enough to "
    "read as the main content of the page rather than as navigation or boilerplate. "
)


def page(title: str, body: str, nav: str = "") -> str:
    """An HTML page with navigation, a sidebar and a footer around ``body``."""
    links = nav or '<a href="/">Home</a> <a href="/guide">Guide</a> <a href="/api">API</a>'
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f"<header><nav>{links}</nav></header>"
        f'<aside class="sidebar"><a href="/">Sidebar home</a> Subscribe to our newsletter</aside>'
        f"<main><article><h1>{title}</h1>{body}</article></main>"
        "<footer>Copyright 2025 Example Corp. All rights reserved. Cookie settings.</footer>"
        "</body></html>"
    )


def default_pages() -> dict[str, str]:
    """The site: ``/`` → ``/guide`` → ``/api``, a disallowed and an oversized page."""
    return {
        "/": page("Welcome", f"<p>{_PROSE}Start with the <a href='/guide'>user guide</a>.</p>"
                  f"<p>{_PROSE}</p>"),
        "/guide": page("Guide", f"<p>{_PROSE}The <a href='/api#top'>API reference</a> lists "
                       f"every call.</p><p>{_PROSE}See also <a href='/private/notes'>notes</a> "
                       f"and the <a href='/big'>big page</a>.</p>"),
        "/api": page("API", f"<p>{_PROSE}Back to the <a href='/'>welcome page</a>.</p>"),
        "/private/notes": page("Private", f"<p>{_PROSE}Never crawled.</p>"),
        "/big": page("Big", "<p>" + "x" * BIG_BYTES + "</p>"),
    }  # fmt: skip


@dataclass(frozen=True, slots=True)
class Encoded:
    """A body served exactly as given, labelled with ``encoding`` (``Content-Encoding``)."""

    body: bytes
    encoding: str
    media_type: str = "text/html; charset=utf-8"


@dataclass(slots=True)
class Site:
    """A running site: its base URL, pages (editable) and the requests it got."""

    base: str
    pages: dict[str, str]
    requests: list[tuple[str, Mapping[str, str]]] = field(default_factory=list)
    port: int = 0
    encoded: dict[str, Encoded] = field(default_factory=dict)
    # A page's Last-Modified header instead of LAST_MODIFIED (None: none at all).
    last_modified: dict[str, str | None] = field(default_factory=dict)

    def paths(self) -> list[str]:
        """The paths requested so far, in order."""
        return [path for path, _ in self.requests]


def _etag(text: str) -> str:
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:16] + '"'


def site_app(site: Site) -> Starlette:
    """The Starlette app serving ``site``."""

    async def serve(request: Request) -> Response:
        path = request.url.path
        site.requests.append((path, dict(request.headers)))
        raw = site.encoded.get(path)
        if raw is not None:
            headers = {"Content-Encoding": raw.encoding, "Content-Type": raw.media_type}
            return Response(raw.body, headers=headers)
        if path == "/robots.txt":
            return PlainTextResponse(ROBOTS)
        targets = {"/to-loopback": f"http://127.0.0.1:{site.port}/",
                   "/to-metadata": "http://169.254.169.254/latest/meta-data/",
                   "/to-v6": f"http://[::1]:{site.port}/", "/moved": "/api"}  # fmt: skip
        if path in targets:
            return RedirectResponse(targets[path], status_code=302)
        text = site.pages.get(path)
        if text is None:
            return PlainTextResponse("not found", status_code=404)
        tag = _etag(text)
        modified = site.last_modified.get(path, LAST_MODIFIED)
        headers = {"ETag": tag, **({"Last-Modified": modified} if modified else {})}
        if request.headers.get("if-none-match") == tag:
            return Response(status_code=304, headers=headers)
        return Response(text, media_type="text/html; charset=utf-8", headers=headers)

    return Starlette(routes=[Route("/{path:path}", serve)])


@asynccontextmanager
async def serving_site(
    pages: dict[str, str] | None = None, host: str = "127.0.0.2"
) -> AsyncIterator[Site]:
    """Serve a site on ``host`` (a loopback address other than 127.0.0.1 by default, so the
    SSRF tests can allow exactly it and still see 127.0.0.1 refused)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    site = Site(f"http://{host}:{port}", pages if pages is not None else default_pages(), [], port)
    config = uvicorn.Config(site_app(site), log_level="warning", loop="asyncio", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await wait_until(lambda: server.started, within=10)
        yield site
    finally:
        server.should_exit = True
        async with asyncio.timeout(10):
            await task
