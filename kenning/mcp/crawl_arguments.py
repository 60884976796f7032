"""The arguments of ``crawl`` and ``crawl_status`` (``crawl_tools.py``), as GraphQL's
``CrawlInput`` names them (snake_case), each with the description an agent reads."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

Url = Annotated[str, Field(description="The start URL (http or https).")]
MaxDepth = Annotated[int, Field(description="Links away from the start, 0..20.")]
MaxPages = Annotated[int, Field(description="URLs visited at most, 1..5000.")]
SameSite = Annotated[bool, Field(description="Stay on the start host.")]
Include = Annotated[list[str] | None, Field(description="Glob patterns to keep, e.g. '/docs/*'.")]
Exclude = Annotated[list[str] | None, Field(description="Glob patterns to skip.")]
RecrawlAfter = Annotated[
    int | None, Field(description="Seconds: pages fetched more recently are not fetched.")
]
Priority = Annotated[int | None, Field(description="3..9 (bulk lane); default 6.")]
JobId = Annotated[str, Field(description="The jobId the crawl tool answered.")]
Through = Annotated[
    str | None,
    Field(
        description="A registered connection it comes through: revoking the connection "
        "cancels the job and purges what it stored."
    ),
]
