"""Purging what one crawl or one repository brought in, as a unit (GraphQL's ``purgeCrawl``
and ``purgeRepository``, MCP's ``purge_crawl`` and ``purge_repository``).

A crawl is the crawl job's spec at its scope: every page any run of it stored (each source
remembers the job that wrote it last, ``sources.job_id``), whichever run the caller names.
A repository's branch is its sources ``code:<name>@<branch>:<path>`` and its own state
source ``code:<name>@<branch>``. Either way the jobs that would write them again are
cancelled first (as ``purgeSource`` does: queued and running, at the purged scope), then
every source is purged as ``purgeSource`` purges one, in one transaction.

A job id the caller cannot see gets the same answer as an unknown one (``NotFoundError``),
so another client's job ids tell nothing; a visible job that is no crawl is a
``ValidationError`` naming ``jobId``.

Example: ``counts = await purge_crawl(caller, CrawlUnit(job_id), ports)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.ingestion.purge import purge_listed
from kenning.domain.ingestion.request import PurgeCounts
from kenning.domain.queue.ports import JobQueue
from kenning.domain.sources.code.code_keys import check_branch, check_repository
from kenning.domain.sources.crawl.crawl_job import CRAWL_SOURCE_KIND

MAX_JOB_ID = 64


class SourceUnits(Protocol):
    """The sources of one unit at exactly one scope; storage implements it."""

    async def crawl_sources(self, scope: Scope, job_id: str) -> list[str]:
        """URNs at ``scope`` last written by a job of the same identity as ``job_id``."""
        ...

    async def repository_sources(self, scope: Scope, state_urn: str) -> list[str]:
        """URNs at ``scope`` equal to ``state_urn`` or starting with ``state_urn + ":"``."""
        ...


@dataclass(frozen=True, slots=True)
class UnitPurgePorts:
    """Where the sources are found and removed, and the queue whose jobs are cancelled."""

    units: SourceUnits
    store: KnowledgeStore
    jobs: JobQueue


@dataclass(frozen=True, slots=True)
class CrawlUnit:
    """A ``purgeCrawl`` request: any job of the crawl, seen through ``scope`` (None: the
    key's own)."""

    job_id: str
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class RepositoryUnit:
    """A ``purgeRepository`` request: the repository's name in keys and its branch, purged
    at the caller's write scope (or ``scope``, a narrowing of it)."""

    name: str
    branch: str
    scope: Scope | None = None


async def purge_crawl(caller: CallerScope, asked: CrawlUnit, ports: UnitPurgePorts) -> PurgeCounts:
    """Cancel the crawl's live jobs and purge every page it stored, at the job's scope."""
    job_id = asked.job_id.strip()
    if not job_id or len(job_id) > MAX_JOB_ID:
        raise ValidationError(f"jobId must be 1..{MAX_JOB_ID} characters", field="jobId")
    job = await ports.jobs.get(job_id, caller.reading(asked.scope))
    if job is None:
        raise NotFoundError(f"no visible job {job_id}", field="jobId")
    if job.source_kind != CRAWL_SOURCE_KIND or job.source_urn is None:
        raise ValidationError(f"job {job_id} is not a crawl job", field="jobId")
    scope = caller.writing(job.scope)
    cancelled = await ports.jobs.cancel_purged(scope, source_urn=job.source_urn)
    urns = await ports.units.crawl_sources(scope, job.id)
    return await purge_listed(scope, urns, ports.store, cancelled, crawl=job.source_urn)


def _checked(asked: RepositoryUnit) -> str:
    try:
        check_repository(asked.name)
    except ValidationError as error:
        raise ValidationError(error.message, field="name") from None
    check_branch(asked.branch)
    return f"code:{asked.name}@{asked.branch}"


async def purge_repository(
    caller: CallerScope, asked: RepositoryUnit, ports: UnitPurgePorts
) -> PurgeCounts:
    """Cancel the branch's live jobs and purge every source of it, at the write scope."""
    state_urn = _checked(asked)
    scope = caller.writing(asked.scope)
    cancelled = await ports.jobs.cancel_purged(scope, source_urn=state_urn)
    urns = await ports.units.repository_sources(scope, state_urn)
    return await purge_listed(scope, urns, ports.store, cancelled, repository=state_urn)
