"""The progress of a crawl job, as ``IngestionJob.progress`` shows it."""

from __future__ import annotations

import strawberry


@strawberry.type(
    description="A crawl's counts so far: `unchanged` includes pages fetched recently "
    "enough not to fetch again; `queued` URLs wait in the frontier; `stored` pages were "
    "new or changed and are stored."
)
class CrawlProgress:
    fetched: int
    unchanged: int
    skipped: int
    failed: int
    queued: int
    stored: int
