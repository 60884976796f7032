"""What fetching a page gives, what an earlier crawl kept, and the ports a crawl runs over.

A ``PageFetcher`` (the safe HTTP fetcher in ``kenning.storage.sources.crawl``, or a fake)
turns a URL into a ``FetchedPage``, a ``NotModified`` answer to the validators it was given,
or a ``Skipped`` page (robots.txt); failures raise the errors of ``crawl.errors``. A
``PageSink`` stores what changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Validators:
    """What a conditional request sends: ``If-None-Match`` and ``If-Modified-Since``."""

    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class Link:
    """A link in a page's main text: its target, anchor text and ``text[start:end]`` span."""

    url: str
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """A page as fetched: its main text (Markdown-ish), links and validators.

    ``url`` is the page's identity, the normalised URL after redirects; ``requested`` the
    URL that was asked for. ``links`` are the links of the main text, with positions;
    ``outlinks`` every link of the page (navigation too), which the frontier follows.
    """

    url: str
    requested: str
    title: str
    text: str
    links: tuple[Link, ...]
    outlinks: tuple[str, ...]
    content_hash: str
    fetched_at: datetime
    etag: str | None = None
    last_modified: str | None = None
    content_type: str = "text/html"

    @property
    def validators(self) -> Validators:
        return Validators(self.etag, self.last_modified)


@dataclass(frozen=True, slots=True)
class NotModified:
    """The server answered 304 to the validators: the stored page is current."""

    url: str
    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class Skipped:
    """A page not fetched on purpose; ``reason`` is ``ROBOTS`` or ``OUT_OF_SCOPE``."""

    url: str
    reason: str


Fetch = FetchedPage | NotModified | Skipped


@dataclass(frozen=True, slots=True)
class PreviousPage:
    """What an earlier crawl kept about a page, so a re-crawl can skip it unchanged.

    ``links`` are the page's outlinks then: a page answered by 304 has no body, and the
    crawl still goes on through the pages it links to.
    """

    url: str
    content_hash: str
    fetched_at: datetime
    etag: str | None = None
    last_modified: str | None = None
    links: tuple[str, ...] = field(default=())

    @property
    def validators(self) -> Validators:
        return Validators(self.etag, self.last_modified)


def page_content_hash(title: str, text: str) -> str:
    """The hash that says whether a page changed: over its extracted title and text only,
    so markup, scripts and rotating boilerplate do not count as a change."""
    framed = f"{len(title)}:{title}\n{text}"
    return hashlib.sha256(framed.encode("utf-8", "surrogatepass")).hexdigest()


class PageFetcher(Protocol):
    """Fetches one page; raises ``BlockedAddressError``, ``PageTooLargeError``,
    ``UnsupportedPageError``, ``UnsupportedEncodingError`` or ``FetchError`` when it cannot."""

    async def fetch(self, url: str, validators: Validators | None = None) -> Fetch: ...


class PageSink(Protocol):
    """Stores a new or changed page. ``crawled`` maps every URL the crawl reached (asked
    for or redirected to) to the identity of the page it gave, for ``links_to`` edges."""

    async def store(self, page: FetchedPage, crawled: Mapping[str, str]) -> None: ...
