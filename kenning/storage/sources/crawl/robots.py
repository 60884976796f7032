"""robots.txt rules per origin, fetched once through the safe fetcher and cached.

As RFC 9309 says: a robots.txt that answers 4xx means no rules (crawl freely); 5xx or an
unreachable one means crawl nothing on that origin for now, and so does one the fetcher
refuses (over ``ROBOTS_MAX_BYTES`` decoded, an encoding it does not decode). Rules are
matched for the user agent ``Kenning``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from urllib.robotparser import RobotFileParser

from kenning.domain.sources.crawl.errors import (
    FetchError,
    PageTooLargeError,
    UnsupportedEncodingError,
)
from kenning.domain.sources.crawl.urls import origin_of
from kenning.storage.sources.crawl.exchange import RawResponse

logger = logging.getLogger("kenning.sources.crawl")

ROBOTS_AGENT = "Kenning"
ROBOTS_MAX_BYTES = 512 * 1024

_NOTHING = ("User-agent: *", "Disallow: /")

Loader = Callable[[str], Awaitable[RawResponse]]


class RobotsRules:
    """Whether a URL may be fetched, by the robots.txt of its origin."""

    def __init__(self, load: Loader, agent: str = ROBOTS_AGENT) -> None:
        self._load = load
        self._agent = agent
        self._parsers: dict[str, RobotFileParser] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def allowed(self, url: str) -> bool:
        """Whether robots.txt lets ``url`` be fetched."""
        parser = await self._parser(origin_of(url))
        return parser.can_fetch(self._agent, url)

    async def _parser(self, origin: str) -> RobotFileParser:
        async with self._locks.setdefault(origin, asyncio.Lock()):
            if origin not in self._parsers:
                self._parsers[origin] = await self._fetched(origin)
            return self._parsers[origin]

    async def _fetched(self, origin: str) -> RobotFileParser:
        parser = RobotFileParser(f"{origin}/robots.txt")
        try:
            response = await self._load(f"{origin}/robots.txt")
        except (FetchError, PageTooLargeError, UnsupportedEncodingError) as error:
            # Unreachable, or a body the fetcher refuses (over its cap, an encoding it does
            # not decode): crawl nothing there, and do not fetch it again for every page. An
            # address the rules refuse is the page's own refusal and goes on up.
            if not isinstance(error, FetchError):
                logger.info(
                    "crawl.robots.unreadable", extra={"origin": origin, "error": error.message}
                )
            parser.parse(_NOTHING)
            return parser
        if 200 <= response.status < 300:
            parser.parse(response.body.decode("utf-8", "replace").splitlines())
        elif response.status >= 500:
            parser.parse(_NOTHING)
        else:
            parser.parse([])
        return parser
