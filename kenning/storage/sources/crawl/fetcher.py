"""The safe page fetcher: the ``PageFetcher`` port over httpx, with the SSRF rules.

Each hop of a fetch (redirects are followed here, at most ``max_redirects``) resolves its
host once, refuses it by ``AddressPolicy`` and connects to exactly the checked address
(``exchange``); robots.txt (``robots``) and the per-host interval (``host_pacing``) apply
to every hop too. One httpx client per origin keeps pooled connections from being reused
under another host's TLS name. Extraction (trafilatura) runs off the event loop, for a page
within ``max_html_nodes`` elements and attributes (``html_content``).

Example::

    async with SafeFetcher(min_interval=1.0) as fetcher:
        report = await crawl(spec, fetcher, sink)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from types import TracebackType
from urllib.parse import urlsplit

import httpx

from kenning.domain.off_loop import OFF_LOOP_CHARS, off_loop
from kenning.domain.sources.crawl.errors import FetchError
from kenning.domain.sources.crawl.pages import (
    Fetch,
    FetchedPage,
    NotModified,
    Skipped,
    Validators,
    page_content_hash,
)
from kenning.domain.sources.crawl.urls import normalise_url, origin_of, resolve_link
from kenning.domain.sources.html_limits import MAX_HTML_NODES
from kenning.storage.sources.crawl.addresses import AddressPolicy, Resolver, system_resolver
from kenning.storage.sources.crawl.exchange import REDIRECTS, RawResponse, exchange
from kenning.storage.sources.crawl.host_pacing import HostPacing
from kenning.storage.sources.crawl.html_content import HTML_TYPES, extract_page
from kenning.storage.sources.crawl.robots import ROBOTS_MAX_BYTES, RobotsRules

USER_AGENT = "Kenning/1.0 (knowledge crawler)"
PAGE_TYPES = HTML_TYPES | {"text/plain"}
DEFAULT_MAX_BYTES = 5 * 1024 * 1024


class SafeFetcher:
    """Fetches pages for a crawl; refuses what the SSRF rules and robots.txt refuse."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        allowed_networks: Sequence[str] = (),
        resolver: Resolver = system_resolver,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_html_nodes: int = MAX_HTML_NODES,
        min_interval: float = 1.0,
        max_redirects: int = 5,
        timeout: float = 30.0,
        respect_robots: bool = True,
        user_agent: str = USER_AGENT,
    ) -> None:
        self._policy = AddressPolicy(
            allow_private=allow_private, allowed_networks=allowed_networks, resolver=resolver
        )
        self._pacing = HostPacing(min_interval)
        self._robots = RobotsRules(self._robots_txt) if respect_robots else None
        self._max_bytes, self._max_redirects, self._timeout = max_bytes, max_redirects, timeout
        self._max_html_nodes = max_html_nodes
        self._headers = {"User-Agent": user_agent, "Accept": "text/html, text/plain;q=0.9"}
        self._clients: dict[str, httpx.AsyncClient] = {}

    async def __aenter__(self) -> SafeFetcher:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every pooled connection."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    async def fetch(self, url: str, validators: Validators | None = None) -> Fetch:
        """The page at ``url``: fetched, not modified since ``validators``, or skipped."""
        start = normalise_url(url)
        headers = dict(self._headers)
        if validators is not None and validators.etag:
            headers["If-None-Match"] = validators.etag
        if validators is not None and validators.last_modified:
            headers["If-Modified-Since"] = validators.last_modified
        try:
            async with asyncio.timeout(self._timeout):
                reply = await self._follow(start, headers, self._max_bytes, PAGE_TYPES, True)
        except TimeoutError:
            raise FetchError(f"{start} took over {self._timeout} s", transient=True) from None
        if isinstance(reply, Skipped):
            return reply
        return await self._page(start, reply)

    async def _page(self, start: str, reply: RawResponse) -> Fetch:
        etag, modified = reply.headers.get("etag"), reply.headers.get("last-modified")
        if reply.status == 304:
            return NotModified(reply.url, etag, modified)
        if reply.status >= 400 or reply.status < 200:
            raise FetchError(
                f"{reply.url} answered HTTP {reply.status}",
                status=reply.status,
                transient=reply.status >= 500 or reply.status == 429,
            )
        content_type = reply.headers.get("content-type", "")
        body, nodes = reply.body, self._max_html_nodes
        # Parsing is CPU work whatever the size: always in the shared worker thread.
        found = await off_loop(
            max(len(body), OFF_LOOP_CHARS),
            lambda: extract_page(body, reply.media_type, content_type, reply.url, nodes),
        )
        return FetchedPage(
            url=reply.url,
            requested=start,
            title=found.title,
            text=found.text,
            links=found.links,
            outlinks=found.outlinks,
            content_hash=page_content_hash(found.title, found.text),
            fetched_at=datetime.now(UTC),
            etag=etag,
            last_modified=modified,
            content_type=reply.media_type,
        )

    async def _follow(
        self,
        url: str,
        headers: dict[str, str],
        max_bytes: int,
        accept: frozenset[str] | None,
        robots: bool,
    ) -> RawResponse | Skipped:
        current = url
        for _ in range(self._max_redirects + 1):
            if robots and self._robots is not None and not await self._robots.allowed(current):
                return Skipped(current, "ROBOTS")
            reply = await self._once(current, headers, max_bytes, accept)
            location = reply.headers.get("location") if reply.status in REDIRECTS else None
            if location is None:
                return reply
            target = resolve_link(current, location)
            if target is None:
                raise FetchError(f"{current} redirects to an unusable location {location[:80]!r}")
            current = target
            # Validators belong to the URL asked for, not to where it now points.
            headers = dict(self._headers)
        raise FetchError(f"{url} redirects more than {self._max_redirects} times")

    async def _once(
        self, url: str, headers: dict[str, str], max_bytes: int, accept: frozenset[str] | None
    ) -> RawResponse:
        parts = urlsplit(url)
        host = parts.hostname or ""
        address = await self._policy.address_of(host, parts.port or _default_port(parts.scheme))
        await self._pacing.wait(host)
        return await exchange(
            self._client(origin_of(url)),
            url,
            address,
            headers,
            max_bytes=max_bytes,
            accept=accept,
        )

    def _client(self, origin: str) -> httpx.AsyncClient:
        client = self._clients.get(origin)
        if client is None:
            # No environment proxies (they would bypass the address check), no automatic
            # redirects (each hop is checked here).
            client = httpx.AsyncClient(
                trust_env=False, follow_redirects=False, timeout=self._timeout
            )
            self._clients[origin] = client
        return client

    async def _robots_txt(self, url: str) -> RawResponse:
        reply = await self._follow(url, dict(self._headers), ROBOTS_MAX_BYTES, None, False)
        assert isinstance(reply, RawResponse)  # robots=False never skips
        return reply


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80
