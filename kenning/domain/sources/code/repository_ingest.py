"""A repository's ingest as GraphQL's ``ingestRepository`` and MCP's ``ingest_repository``
ask for it: the spec and the priority checked, ``project`` folded into the scope, the
caller's write scope settled, the repository's commit found (git runs in a thread) and one
"repository" job queued (``repository_request.py``).

Example::

    queued = await ingest_repository(caller, RepositoryAsk(spec), ports)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.rules import check_write_connection
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.priorities import REPOSITORY_PRIORITY
from kenning.domain.queue.jobs import EnqueueResult
from kenning.domain.queue.ports import JobQueue
from kenning.domain.sources.code.code_graph import CODE_SOURCE_KIND
from kenning.domain.sources.code.repository_request import (
    RepositoryLocator,
    RepositorySpec,
    check_priority,
    check_spec,
    request_repository,
)


@dataclass(frozen=True, slots=True)
class RepositoryAsk:
    """A repository to ingest, at the scope ``scope_ids`` names (client, project and group
    ids as given; None: the key's own) or in ``project`` (which must not contradict them;
    alone, a project of the caller's client); ``priority`` None: the repository default.
    The ids stay apart until ``project`` is folded in: a project id alone is no ``Scope``."""

    spec: RepositorySpec
    priority: int | None = None
    scope_ids: tuple[str, str, str] | None = None
    project: str | None = None
    # The registered connection the code comes through (revoking it purges it).
    connection_id: str | None = None


@dataclass(frozen=True, slots=True)
class RepositoryQueuePorts:
    """Where repositories are found, the queue their jobs wait in, and the connections a
    request may name."""

    locator: RepositoryLocator
    jobs: JobQueue
    connections: ConnectionRegistry


def _target(asked: RepositoryAsk, caller_client: str) -> Scope | None:
    if asked.project is None:
        return Scope(*asked.scope_ids) if asked.scope_ids is not None else None
    client, project, group = asked.scope_ids or ("", "", "")
    if project and project != asked.project:
        raise ValidationError("project and scope.projectId differ", field="project")
    return Scope(client or caller_client, asked.project, group)


async def ingest_repository(
    caller: CallerScope, asked: RepositoryAsk, ports: RepositoryQueuePorts
) -> EnqueueResult:
    """Check the spec and the priority, settle the write scope, find the repository's
    commit and queue its job (the same commit asked again answers that job)."""
    checked = check_spec(asked.spec)
    priority = REPOSITORY_PRIORITY if asked.priority is None else asked.priority
    chosen = check_priority(priority)
    target = _target(asked, caller.principal.scope.client_id)
    scope = await caller.stored_writing(target)
    connection = asked.connection_id
    await check_write_connection(scope, connection, CODE_SOURCE_KIND, ports.connections)
    job = await asyncio.to_thread(ports.locator.locate, checked)
    return await request_repository(job, scope, chosen, queue=ports.jobs, connection_id=connection)
