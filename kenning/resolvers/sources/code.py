"""The ``ingestRepository`` mutation: find the repository and its commit, then queue one
"repository" job in the bulk lane (the same commit asked again answers that job)."""

from __future__ import annotations

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.sources.code.repository_request import RepositorySpec, queue_repository
from kenning.resolvers.access.scope import principal, stored_write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.access.scope import ScopeInput
from kenning.schema.sources.code import IngestRepositoryInput, IngestRepositoryResult


def _scope_input(input: IngestRepositoryInput, caller_client: str) -> ScopeInput | None:
    """The scope argument with ``project`` folded in (it must not contradict the scope); a
    project given alone is one of the caller's client."""
    if input.project is None:
        return input.scope
    scope = input.scope or ScopeInput()
    if scope.project_id and scope.project_id != input.project:
        raise ValidationError("project and scope.projectId differ", field="project")
    return ScopeInput(client_id=scope.client_id or caller_client, project_id=input.project,
                      group_id=scope.group_id)  # fmt: skip


@error_members
async def resolve_ingest_repository(
    info: Info, input: IngestRepositoryInput
) -> IngestRepositoryResult:
    """Queue the ingest of a repository's branch at its current commit."""
    runtime = info.context.runtime
    spec = RepositorySpec(input.path, input.git_url, input.branch, input.name)

    async def writer() -> Scope:
        target = _scope_input(input, principal(info).scope.client_id)
        return await stored_write_scope(info, target)

    result = await queue_repository(
        spec, input.priority, writer, locator=runtime.repositories, queue=runtime.queue.jobs
    )
    return to_handle(result)
