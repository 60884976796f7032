"""What a crawled page becomes: a source ``web:<url>`` whose chunks are the pieces of a
``GraphRequest``, its page node, and ``links_to`` edges to the other crawled pages, each
citing the chunk that holds the link.

A page's node key is ``web:<host>[_<port>]<path>[?<query>]`` as ``node_keys`` canonicalises
it (lower case; the scheme is dropped, so the http and https pages of a site are one node).
When canonicalising loses characters (a query's ``=`` and ``&``, an upper-case path) a short
hash of the URL is appended after ``#``, so two distinct URLs never share a node.

Example: ``page_key("https://docs.example.com/guide/") == "web:docs.example.com/guide/"``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from urllib.parse import urlsplit

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.chunking import DEFAULT_LIMIT, chunk
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.node_keys import MAX_KEY_LENGTH, canonicalize_key
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.ingestion.source_times import email_date
from kenning.domain.sources.crawl.pages import FetchedPage, PreviousPage

PAGE_TYPE = "web"
PAGE_KIND = "web_page"
# The source kind of every page a crawl stores (a connection naming kinds must allow it).
PAGE_SOURCE_KIND = "web"
LINKS_TO = "links_to"
_HASH_LENGTH = 12
# Keys stay well under the limit so the hash suffix always fits.
_KEY_ROOM = MAX_KEY_LENGTH - 64


def page_source_urn(url: str) -> str:
    """The source URN of the page at normalised ``url``: ``web:<url>``."""
    return f"web:{url}"


def page_key(url: str) -> str:
    """The canonical node key of the page at normalised ``url``."""
    parts = urlsplit(url)
    host = (parts.hostname or "") + (f"_{parts.port}" if parts.port else "")
    spelled = f"{PAGE_TYPE}:{host}{parts.path}" + (f"?{parts.query}" if parts.query else "")
    key = canonicalize_key(spelled[:_KEY_ROOM])
    if key != spelled.lower() or len(spelled) > _KEY_ROOM:
        digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:_HASH_LENGTH]
        key = f"{key}#{digest}"
    return key


def page_graph(
    page: FetchedPage,
    scope: Scope,
    crawled: Mapping[str, str],
    *,
    chunk_limit: int = DEFAULT_LIMIT,
    priority: int = 6,
) -> GraphRequest:
    """The structured ingest of ``page``: chunks as pieces, page nodes, ``links_to`` edges.

    ``crawled`` is the crawl's URL → page map (``CrawlReport.crawled``); a link to a URL
    outside it gives no edge. Pieces are chunked with ``chunk_limit``, the ingest's own
    limit, so each piece stays one chunk and a link's evidence is exactly its chunk. The
    page's ``Last-Modified`` (when readable and plausible) is when its text was true (its
    chunks' ``observedAt``); without one, the time it is stored.
    """
    urn = page_source_urn(page.url)
    chunks = chunk(page.text, urn, limit=chunk_limit) if page.text.strip() else []
    pieces = tuple(GraphPiece(f"c{c.ordinal}", c.content) for c in chunks)
    own = page_key(page.url)
    nodes: dict[str, NodeRecord] = {own: NodeRecord(own, PAGE_TYPE, page_properties(page))}
    evidence: dict[str, list[str]] = {}
    for link in page.links:
        target = crawled.get(link.url)
        holder = next((c for c in chunks if c.start <= link.start < c.end), None)
        if target is None or target == page.url or holder is None:
            continue
        key = page_key(target)
        nodes.setdefault(key, NodeRecord(key, PAGE_TYPE, {"url": target}))
        refs = evidence.setdefault(key, [])
        if f"c{holder.ordinal}" not in refs:
            refs.append(f"c{holder.ordinal}")
    edges = tuple(EdgeRecord(own, LINKS_TO, key, tuple(refs)) for key, refs in evidence.items())
    return GraphRequest(
        source_urn=urn,
        scope=scope,
        kind=PAGE_KIND,
        pieces=pieces,
        nodes=tuple(nodes.values()),
        edges=edges,
        source_kind=PAGE_SOURCE_KIND,
        priority=priority,
        observed_at=email_date(page.last_modified, "Last-Modified"),
    )


def page_properties(page: FetchedPage) -> dict[str, object]:
    """The page node's properties; they hold what a re-crawl needs (``previous_page``)."""
    properties: dict[str, object] = {
        "url": page.url,
        "title": page.title,
        "contentHash": page.content_hash,
        "links": list(page.outlinks),
        "fetchedAt": page.fetched_at.isoformat(),
    }
    if page.etag:
        properties["etag"] = page.etag
    if page.last_modified:
        properties["lastModified"] = page.last_modified
    return properties


def previous_page(
    properties: Mapping[str, object], fetched_at: datetime | None = None
) -> PreviousPage | None:
    """What a re-crawl needs, read back from a page node's properties; ``None`` if absent.

    ``fetched_at`` defaults to the node's ``fetchedAt`` (the epoch when it has none, so the
    page is revalidated)."""
    url, digest = properties.get("url"), properties.get("contentHash")
    if fetched_at is None:
        fetched_at = _fetched_at(properties.get("fetchedAt"))
    if not isinstance(url, str) or not isinstance(digest, str):
        return None
    links = properties.get("links")
    etag, modified = properties.get("etag"), properties.get("lastModified")
    return PreviousPage(
        url,
        digest,
        fetched_at,
        etag if isinstance(etag, str) else None,
        modified if isinstance(modified, str) else None,
        tuple(x for x in links if isinstance(x, str)) if isinstance(links, list) else (),
    )


def _fetched_at(value: object) -> datetime:
    try:
        parsed = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        return datetime(1970, 1, 1, tzinfo=UTC)
    return parsed
