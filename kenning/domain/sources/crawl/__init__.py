"""Web crawling: which pages to fetch, in what order, and what a page becomes.

Read ``crawl_loop.crawl`` first: it visits a checked ``CrawlSpec`` (``spec``) breadth first
through a ``Frontier`` (``frontier``) over a ``PageFetcher`` port (``pages``) and hands new or
changed pages to a ``PageSink``; ``page_graph`` turns a page into the ``GraphRequest`` that
``ingest_graph`` stores (source ``web:<url>``, ``links_to`` edges citing the linking chunk).
URL normalisation and the site rule are in ``urls``; the errors in ``errors``. The safe
HTTP fetcher behind the port is ``kenning.storage.sources.crawl.SafeFetcher``.
"""

from kenning.domain.sources.crawl.crawl_loop import (
    CrawlProgress,
    CrawlReport,
    PageOutcome,
    PageStatus,
    ProgressCallback,
    crawl,
)
from kenning.domain.sources.crawl.errors import (
    BlockedAddressError,
    FetchError,
    PageTooLargeError,
    UnsupportedPageError,
)
from kenning.domain.sources.crawl.frontier import Frontier, Visit
from kenning.domain.sources.crawl.page_graph import (
    LINKS_TO,
    PAGE_KIND,
    page_graph,
    page_key,
    page_properties,
    page_source_urn,
    previous_page,
)
from kenning.domain.sources.crawl.pages import (
    Fetch,
    FetchedPage,
    Link,
    NotModified,
    PageFetcher,
    PageSink,
    PreviousPage,
    Skipped,
    Validators,
    page_content_hash,
)
from kenning.domain.sources.crawl.spec import CrawlSpec, crawl_spec
from kenning.domain.sources.crawl.urls import normalise_url, resolve_link, same_site

__all__ = [
    "LINKS_TO", "PAGE_KIND", "BlockedAddressError", "CrawlProgress", "CrawlReport",
    "CrawlSpec", "Fetch", "FetchError", "FetchedPage", "Frontier", "Link", "NotModified",
    "PageFetcher", "PageOutcome", "PageSink", "PageStatus", "PageTooLargeError",
    "PreviousPage", "ProgressCallback", "Skipped", "UnsupportedPageError", "Validators",
    "Visit", "crawl", "crawl_spec", "normalise_url", "page_content_hash", "page_graph",
    "page_key", "page_properties", "page_source_urn", "previous_page", "resolve_link",
    "same_site",
]  # fmt: skip
