"""A crawl as a queued job: its payload, its identity and the request that enqueues it.

A crawl job waits in the BULK lane (priority 3..9). Its identity is the spec's digest at the
caller's scope, so a second identical request while the first is queued or running answers
that job (``DUPLICATE``) instead of crawling twice; once it has ended, the same request
crawls again (the job's ``sourceUrn`` is ``crawl:<url>``, never a stored source, so the
queue's "already indexed" check never skips a re-crawl).

Example: ``await request_crawl(crawl_spec("https://docs.example.com/"), scope, queue=jobs)``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.priorities import CRAWL_PRIORITY, MAX_PRIORITY, PRIORITY_LANE_MAX
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity
from kenning.domain.queue.payload import task_payload
from kenning.domain.queue.ports import JobQueue, NewJob
from kenning.domain.sources.crawl.spec import CrawlSpec, crawl_spec

CRAWL_TASK: Final = "crawl"
CRAWL_SOURCE_KIND: Final = "crawl"


def crawl_body(spec: CrawlSpec) -> dict[str, Any]:
    """The spec as JSON for the job's payload (``recrawlAfter`` in seconds)."""
    after = spec.recrawl_after
    return {
        "url": spec.url,
        "maxDepth": spec.max_depth,
        "maxPages": spec.max_pages,
        "sameSite": spec.same_site,
        "include": list(spec.include),
        "exclude": list(spec.exclude),
        "recrawlAfter": after.total_seconds() if after is not None else None,
    }


def spec_from_payload(payload: Mapping[str, Any]) -> CrawlSpec:
    """The spec a crawl job runs, checked again as the request was."""
    body = payload.get("crawl")
    if payload.get("task") != CRAWL_TASK or not isinstance(body, Mapping):
        raise ValidationError("unreadable crawl job payload")
    after = body.get("recrawlAfter")
    return crawl_spec(
        str(body.get("url", "")),
        max_depth=int(body.get("maxDepth", 0)),
        max_pages=int(body.get("maxPages", 1)),
        same_site=bool(body.get("sameSite", True)),
        include=tuple(body.get("include") or ()),
        exclude=tuple(body.get("exclude") or ()),
        recrawl_after=recrawl_after(float(after)) if after is not None else None,
    )


def crawl_identity(spec: CrawlSpec) -> IngestionIdentity:
    """What makes two crawl requests the same work: the start URL and the whole spec (the
    queue keys it by the caller's scope too)."""
    text = json.dumps(crawl_body(spec), sort_keys=True, separators=(",", ":"))
    return IngestionIdentity(CRAWL_SOURCE_KIND, spec.url, hashlib.sha256(text.encode()).hexdigest())


MAX_RECRAWL_SECONDS: Final = 10 * 366 * 24 * 3600


def recrawl_after(seconds: int | float | None) -> timedelta | None:
    """``recrawlAfter`` in seconds as a duration; ``ValidationError`` naming the field."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not 0 <= seconds <= MAX_RECRAWL_SECONDS:
        raise ValidationError(
            f"recrawlAfter must be 0..{MAX_RECRAWL_SECONDS} seconds", field="recrawlAfter"
        )
    return timedelta(seconds=seconds)


def crawl_priority(priority: int | None) -> int:
    """A crawl's queue priority: the bulk lane only; ``None`` gives the default."""
    if priority is None:
        return CRAWL_PRIORITY
    if isinstance(priority, bool) or not PRIORITY_LANE_MAX < priority <= MAX_PRIORITY:
        raise ValidationError(
            f"priority of a crawl must be {PRIORITY_LANE_MAX + 1}..{MAX_PRIORITY} (the bulk lane)",
            field="priority",
        )
    return priority


async def request_crawl(
    spec: CrawlSpec,
    scope: Scope,
    *,
    queue: JobQueue,
    priority: int | None = None,
    connection_id: str | None = None,
) -> EnqueueResult:
    """Queue a crawl of ``spec`` written at ``scope`` (already the caller's write scope),
    its pages stored through ``connection_id`` when given (already checked)."""
    return await queue.enqueue(
        NewJob(
            identity=crawl_identity(spec),
            scope=scope,
            priority=crawl_priority(priority),
            source_urn=f"crawl:{spec.url}",
            connection_id=connection_id,
            payload=task_payload(CRAWL_TASK, {"crawl": crawl_body(spec)}),
        )
    )
