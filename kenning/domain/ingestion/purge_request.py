"""Purges as a caller asks for them (GraphQL's ``purgeSource`` and ``purgeConnection``, MCP's
``purge_source``): at the caller's write scope, or a narrowing of it, through ``purge.py``.

Example: ``await purge_asked_source(caller, "doc:old-faq", None, ports)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ports import KnowledgeStore, PurgedJobs
from kenning.domain.ingestion.purge import purge_connection, purge_source
from kenning.domain.ingestion.request import PurgeCounts


@dataclass(frozen=True, slots=True)
class PurgePorts:
    """Where a purge removes what was stored, and the jobs it cancels first."""

    store: KnowledgeStore
    jobs: PurgedJobs


async def purge_asked_source(
    caller: CallerScope, source_urn: str, scope: Scope | None, ports: PurgePorts
) -> PurgeCounts:
    """Remove one source and everything only it supported, at the caller's write scope."""
    return await purge_source(caller.writing(scope), source_urn, ports.store, ports.jobs)


async def purge_asked_connection(
    caller: CallerScope, connection_id: str, scope: Scope | None, ports: PurgePorts
) -> PurgeCounts:
    """Remove every source of one connection at the caller's write scope."""
    return await purge_connection(caller.writing(scope), connection_id, ports.store, ports.jobs)
