"""Bounds of the queue API every face shares: one page of the jobs a reader may see, with
its arguments checked, and how many documents one call may queue.

GraphQL's ``jobs`` and the MCP tool ``list_jobs`` both call ``list_jobs``, so a page is
bounded and ordered the same way on every face; ``requestIngestions`` and the MCP tool
``request_ingestion`` both call ``check_request_count``.

Example: ``await list_jobs(queue, reader, JobFilter(), first=20)``.
"""

from __future__ import annotations

from typing import Final

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.queue.jobs import JobFilter, JobOrder, JobPage, JobStatus
from kenning.domain.queue.ports import JobQueue

MAX_PAGE: Final = 500
MAX_REQUESTS: Final = 1000


def check_request_count(count: int, field: str) -> None:
    """At most ``MAX_REQUESTS`` documents per call (``TooLargeError`` naming ``field``)."""
    if count > MAX_REQUESTS:
        raise TooLargeError(f"at most {MAX_REQUESTS} documents per call", field=field)


async def list_jobs(
    queue: JobQueue,
    reader: Scope,
    where: JobFilter,
    first: int,
    after: str | None = None,
    order: JobOrder = JobOrder.NEWEST,
) -> JobPage:
    """Visible jobs in ``order`` after the cursor ``after``; ``first`` is 1..``MAX_PAGE``,
    and ``CLAIM_ORDER`` lists QUEUED jobs only (``ValidationError`` naming the field)."""
    if not 1 <= first <= MAX_PAGE:
        raise ValidationError(f"first must be 1..{MAX_PAGE}", field="first")
    if order is JobOrder.CLAIM_ORDER and where.statuses not in (None, {JobStatus.QUEUED}):
        raise ValidationError(
            "orderBy CLAIM_ORDER lists QUEUED jobs only: leave statuses out or ask for QUEUED",
            field="orderBy",
        )
    return await queue.page(reader, where, first, after, order)
