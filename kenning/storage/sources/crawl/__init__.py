"""Web crawling: which pages to fetch, in what order, and what a page becomes.

The adapter side: ``SafeFetcher`` (``fetcher``, read it first) implements the domain's
``PageFetcher`` port over httpx with the SSRF rules (``addresses``), pinned connections
(``exchange``), bodies read raw and decoded under the byte cap (``content_decoding`` over
``inflater``), robots.txt (``robots``), the per-host interval (``host_pacing``) and
trafilatura's main-content extraction (``html_content``) of a page within the node budget.
"""

from kenning.storage.sources.crawl.addresses import AddressPolicy, Resolver, refusal
from kenning.storage.sources.crawl.fetcher import DEFAULT_MAX_BYTES, USER_AGENT, SafeFetcher

__all__ = ["DEFAULT_MAX_BYTES", "USER_AGENT", "AddressPolicy", "Resolver", "SafeFetcher", "refusal"]
