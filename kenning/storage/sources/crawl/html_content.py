"""A page's main content as Markdown-ish text, its title, and its links.

trafilatura removes navigation, headers, footers and other boilerplate and writes the
main content as Markdown with ``[anchor](href)`` links; those links are replaced by their
anchor text and kept with their position, so an edge can cite the chunk holding it. Every
``<a href>`` of the whole page (navigation included) is collected too: the frontier follows
them, though only links in the main text become edges.

A page is parsed only when its elements and attributes are within ``max_nodes``, counted on
its text first (``html_nodes``): extraction costs about 2 KB a node, so a 5 MB page of
``<li>x`` would take 1.8 GB. A page over it is ``PageTooLargeError``, like one over the byte
cap. At most ``MAX_PAGE_LINKS`` links of each kind are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import lxml.html  # type: ignore[import-untyped]
import trafilatura
from lxml import etree

from kenning.domain.sources.crawl.errors import PageTooLargeError
from kenning.domain.sources.crawl.pages import Link
from kenning.domain.sources.crawl.spec import MAX_PAGES
from kenning.domain.sources.crawl.urls import resolve_link
from kenning.domain.sources.html_limits import MAX_HTML_NODES
from kenning.storage.sources.html_nodes import markup_excess

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Links kept per page, of each kind: a crawl visits at most MAX_PAGES pages, so one page's
# first 10,000 distinct links are more than it can follow even if half are out of scope.
MAX_PAGE_LINKS: Final = 2 * MAX_PAGES
# A text with an XML encoding declaration is parsed as the UTF-8 it is encoded to here: the
# same characters whose nodes were counted (raw bytes would let libxml2 pick the encoding).
_UTF8 = lxml.html.HTMLParser(encoding="utf-8")
_MARKDOWN_LINK = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(([^()\s]+)\)")
_CHARSET = re.compile(r"charset=[\"']?([\w.:-]+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a page holds for the crawl."""

    title: str
    text: str
    links: tuple[Link, ...]
    outlinks: tuple[str, ...]


def extract_page(
    body: bytes, media_type: str, content_type: str, url: str, max_nodes: int = MAX_HTML_NODES
) -> Extracted:
    """The title, main text, text links and all links of a page fetched from ``url``;
    ``PageTooLargeError`` for one with more than ``max_nodes`` elements and attributes."""
    text = decode(body, content_type)
    if media_type not in HTML_TYPES:
        return Extracted("", text.strip(), (), ())
    excess = markup_excess(text, max_nodes)
    if excess is not None:
        raise PageTooLargeError(f"{url} has {excess}", limit=max_nodes)
    document = _parsed(text)
    if document is None:
        return Extracted("", "", (), ())
    title = " ".join((document.findtext(".//title") or "").split())
    base = _base(document, url)
    outlinks = _outlinks(document, base)
    # No ``url=``: trafilatura would resolve relative links against the host, not the page.
    markdown = (
        trafilatura.extract(
            document,
            output_format="markdown",
            include_links=True,
            include_comments=False,
            include_tables=True,
        )
        or ""
    )
    main, links = _unlinked(markdown, base)
    return Extracted(title, main, links, outlinks)


def _parsed(text: str) -> lxml.html.HtmlElement | None:
    try:
        return lxml.html.document_fromstring(text)
    except (etree.ParserError, ValueError):  # ValueError: a str with an encoding declaration
        pass
    try:
        return lxml.html.document_fromstring(text.encode(), parser=_UTF8)
    except (etree.ParserError, ValueError):
        return None


def decode(body: bytes, content_type: str) -> str:
    """``body`` as text: the declared charset, else UTF-8, else Windows-1252."""
    declared = _CHARSET.search(content_type)
    if declared is not None:
        try:
            return body.decode(declared.group(1), "replace")
        except LookupError:
            pass
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("cp1252", "replace")


def _base(document: lxml.html.HtmlElement, url: str) -> str:
    """What relative links resolve against: ``<base href>`` when usable, else the page."""
    declared = next(
        (b.get("href") for b in document.iter("base") if b.get("href") is not None), None
    )
    return (resolve_link(url, str(declared)) if declared is not None else None) or url


def _outlinks(document: lxml.html.HtmlElement, base: str) -> tuple[str, ...]:
    """The page's first ``MAX_PAGE_LINKS`` distinct link targets, in document order."""
    found: dict[str, None] = {}
    for anchor in document.iter("a"):
        href = anchor.get("href")
        target = resolve_link(base, str(href)) if href is not None else None
        if target is not None:
            found.setdefault(target)
            if len(found) == MAX_PAGE_LINKS:
                break
    return tuple(found)


def _unlinked(markdown: str, url: str) -> tuple[str, tuple[Link, ...]]:
    """``markdown`` with each link replaced by its anchor text, and the links' spans."""
    parts: list[str] = []
    links: list[Link] = []
    length = cursor = 0
    for match in _MARKDOWN_LINK.finditer(markdown):
        before = markdown[cursor : match.start()]
        parts.append(before)
        length += len(before)
        anchor = match.group(1)
        target = resolve_link(url, match.group(2))
        if target is not None and anchor.strip() and len(links) < MAX_PAGE_LINKS:
            links.append(Link(target, anchor, length, length + len(anchor)))
        parts.append(anchor)
        length += len(anchor)
        cursor = match.end()
    parts.append(markdown[cursor:])
    return "".join(parts), tuple(links)
