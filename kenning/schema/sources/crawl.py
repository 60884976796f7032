"""Types of crawling: the ``crawl`` mutation's input and result (the progress of a crawl job
is in ``crawl_progress``)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.schema.access.scope import ScopeInput
from kenning.schema.errors import ScopeError, ValidationError
from kenning.schema.queue.types import ConnectionRevokedError, IngestionHandle


@strawberry.input(description="A site to crawl: where to start, how far to go, what to keep.")
class CrawlInput:
    url: str = strawberry.field(description="The start URL (http or https).")
    max_depth: int = strawberry.field(
        default=2, description="Links away from the start URL, 0..20."
    )
    max_pages: int = strawberry.field(default=100, description="URLs visited at most, 1..5000.")
    same_site: bool = strawberry.field(
        default=True, description="Stay on the start URL's host and its subdomains."
    )
    include: list[str] = strawberry.field(
        default_factory=list,
        description="Glob patterns a URL must match one of (none: every URL); a pattern "
        "starting with `/` matches the path and query, any other the whole URL.",
    )
    exclude: list[str] = strawberry.field(
        default_factory=list, description="Glob patterns of URLs not to crawl."
    )
    recrawl_after: int | None = strawberry.field(
        default=None,
        description="Seconds: a page fetched less than this long ago is not fetched again. "
        "Null: every stored page is revalidated (If-None-Match / If-Modified-Since).",
    )
    priority: int | None = strawberry.field(
        default=None, description="3..9, the bulk lane; defaults to 6."
    )
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )
    connection_id: str | None = strawberry.field(
        default=None,
        description="The registered connection it comes through: what it stores carries it, "
        "and revoking the connection cancels its job and purges what it stored.",
    )


CrawlResult = Annotated[
    IngestionHandle | ValidationError | ScopeError | ConnectionRevokedError,
    strawberry.union("CrawlResult"),
]
