"""Web crawling: which pages to fetch, in what order, and what a page becomes.

Read ``crawl_loop.crawl`` first: it visits a checked ``CrawlSpec`` (``spec``) breadth first
through a ``Frontier`` (``frontier``) over a ``PageFetcher`` port (``pages``) and hands new or
changed pages to a ``PageSink``; ``page_graph`` turns a page into the ``GraphRequest`` that
``ingest_graph`` stores (source ``web:<url>``, ``links_to`` edges citing the linking chunk).
URL normalisation and the site rule are in ``urls``; the errors in ``errors``. The safe
HTTP fetcher behind the port is ``kenning.storage.sources.crawl.SafeFetcher``.

As a queued job: ``crawl_request.queue_crawl`` (what every face calls) checks a caller's
crawl and ``crawl_job.request_crawl`` enqueues it (bulk lane, one job per spec and scope in
flight) and ``crawl_run.crawl_runner`` is the "crawl" task's runner, its
live counts on a ``ProgressBoard`` (Redis: ``kenning.storage.queue.progress_board``).
"""

from kenning.domain.sources.crawl.crawl_job import (
    CRAWL_SOURCE_KIND,
    CRAWL_TASK,
    crawl_identity,
    crawl_priority,
    recrawl_after,
    request_crawl,
    spec_from_payload,
)
from kenning.domain.sources.crawl.crawl_loop import (
    CrawlProgress,
    CrawlReport,
    PageOutcome,
    PageStatus,
    ProgressCallback,
    crawl,
)
from kenning.domain.sources.crawl.crawl_run import (
    FetcherFactory,
    ProgressBoard,
    crawl_runner,
    previous_pages,
)
from kenning.domain.sources.crawl.errors import (
    BlockedAddressError,
    FetchError,
    PageTooLargeError,
    UnsupportedEncodingError,
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
    "CRAWL_SOURCE_KIND",
    "CRAWL_TASK",
    "LINKS_TO",
    "PAGE_KIND",
    "BlockedAddressError",
    "CrawlProgress",
    "CrawlReport",
    "CrawlSpec",
    "Fetch",
    "FetchError",
    "FetchedPage",
    "FetcherFactory",
    "Frontier",
    "Link",
    "NotModified",
    "PageFetcher",
    "PageOutcome",
    "PageSink",
    "PageStatus",
    "PageTooLargeError",
    "PreviousPage",
    "ProgressBoard",
    "ProgressCallback",
    "Skipped",
    "UnsupportedEncodingError",
    "UnsupportedPageError",
    "Validators",
    "Visit",
    "crawl",
    "crawl_identity",
    "crawl_priority",
    "crawl_runner",
    "crawl_spec",
    "normalise_url",
    "page_content_hash",
    "page_graph",
    "page_key",
    "page_properties",
    "page_source_urn",
    "previous_page",
    "previous_pages",
    "recrawl_after",
    "request_crawl",
    "resolve_link",
    "same_site",
    "spec_from_payload",
]
