"""A page's main content as Markdown-ish text, its title, and its links.

trafilatura removes navigation, headers, footers and other boilerplate and writes the
main content as Markdown with ``[anchor](href)`` links; those links are replaced by their
anchor text and kept with their position, so an edge can cite the chunk holding it. Every
``<a href>`` of the whole page (navigation included) is collected too: the frontier follows
them, though only links in the main text become edges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html  # type: ignore[import-untyped]
import trafilatura
from lxml import etree

from kenning.domain.sources.crawl.pages import Link
from kenning.domain.sources.crawl.urls import resolve_link

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_MARKDOWN_LINK = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(([^()\s]+)\)")
_CHARSET = re.compile(r"charset=[\"']?([\w.:-]+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a page holds for the crawl."""

    title: str
    text: str
    links: tuple[Link, ...]
    outlinks: tuple[str, ...]


def extract_page(body: bytes, media_type: str, content_type: str, url: str) -> Extracted:
    """The title, main text, text links and all links of a page fetched from ``url``."""
    text = decode(body, content_type)
    if media_type not in HTML_TYPES:
        return Extracted("", text.strip(), (), ())
    try:
        document = lxml.html.document_fromstring(text)
    except (etree.ParserError, ValueError):
        try:
            document = lxml.html.document_fromstring(body)
        except (etree.ParserError, ValueError):
            return Extracted("", "", (), ())
    title = " ".join((document.findtext(".//title") or "").split())
    base = _base(document, url)
    outlinks = _outlinks(document, base)
    # No ``url=``: trafilatura would resolve relative links against the host, not the page.
    markdown = trafilatura.extract(
        document, output_format="markdown", include_links=True,
        include_comments=False, include_tables=True,
    ) or ""  # fmt: skip
    main, links = _unlinked(markdown, base)
    return Extracted(title, main, links, outlinks)


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
    declared = next(iter(document.xpath("//base/@href")), None)
    return (resolve_link(url, str(declared)) if declared is not None else None) or url


def _outlinks(document: lxml.html.HtmlElement, base: str) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for href in document.xpath("//a/@href"):
        target = resolve_link(base, str(href))
        if target is not None:
            found.setdefault(target)
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
        if target is not None and anchor.strip():
            links.append(Link(target, anchor, length, length + len(anchor)))
        parts.append(anchor)
        length += len(anchor)
        cursor = match.end()
    parts.append(markdown[cursor:])
    return "".join(parts), tuple(links)
