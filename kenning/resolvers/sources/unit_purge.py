"""Resolvers of ``purgeCrawl`` and ``purgeRepository``: each calls its use case
(``kenning.domain.sources.unit_purge``: ``purge_crawl``, ``purge_repository``, which MCP's
``purge_crawl`` and ``purge_repository`` call too) and answers the counts as
``purgeSource`` does."""

from __future__ import annotations

import strawberry

from kenning.domain.sources.unit_purge import (
    CrawlUnit,
    RepositoryUnit,
    purge_crawl,
    purge_repository,
)
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope
from kenning.schema.ingestion.knowledge_admin import PurgeResult, PurgeSuccess


@error_members
async def resolve_purge_crawl(
    info: Info, job_id: strawberry.ID, scope: NarrowScope = None
) -> PurgeResult:
    """Cancel a crawl's live jobs and remove every page any run of it stored."""
    asked = CrawlUnit(str(job_id), to_scope(scope))
    counts = await purge_crawl(caller(info), asked, info.context.runtime.unit_purge_ports())
    return PurgeSuccess.from_counts(counts)


@error_members
async def resolve_purge_repository(
    info: Info, name: str, branch: str, scope: NarrowScope = None
) -> PurgeResult:
    """Cancel a repository branch's live jobs and remove every source of it."""
    asked = RepositoryUnit(name, branch, to_scope(scope))
    ports = info.context.runtime.unit_purge_ports()
    counts = await purge_repository(caller(info), asked, ports)
    return PurgeSuccess.from_counts(counts)
