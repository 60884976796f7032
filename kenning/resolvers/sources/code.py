"""The ``ingestRepository`` mutation: the input in, ``ingest_repository``
(``kenning.domain.sources.code.repository_ingest``, as MCP's ``ingest_repository`` calls it)
finds the repository and its commit and queues one "repository" job in the bulk lane (the
same commit asked again answers that job), the job's handle out."""

from __future__ import annotations

from kenning.domain.sources.code.repository_ingest import RepositoryAsk, ingest_repository
from kenning.domain.sources.code.repository_request import RepositorySpec
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.sources.code import IngestRepositoryInput, IngestRepositoryResult


@error_members
async def resolve_ingest_repository(
    info: Info, input: IngestRepositoryInput
) -> IngestRepositoryResult:
    """Queue the ingest of a repository's branch at its current commit."""
    spec = RepositorySpec(input.path, input.git_url, input.branch, input.name)
    given = input.scope
    ids = (given.client_id, given.project_id, given.group_id) if given is not None else None
    asked = RepositoryAsk(spec, input.priority, ids, input.project, input.connection_id)
    ports = info.context.runtime.repository_queue_ports()
    return to_handle(await ingest_repository(caller(info), asked, ports))
