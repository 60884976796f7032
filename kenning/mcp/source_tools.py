"""Tools over whole sources: ``purge_source`` removes one, ``ingest_repository`` queues the
code structure of a git repository.

Each calls the use case of its GraphQL mutation (``purgeSource``, ``ingestRepository``:
``kenning.domain.ingestion.purge.purge_source``,
``kenning.domain.sources.code.repository_request.queue_repository``) at the same scope.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.purge import purge_source
from kenning.domain.sources.code.repository_request import RepositorySpec, queue_repository
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    stored_write_scope,
    write_scope,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def purge_source_tool(
    ctx: ToolContext,
    source_urn: Annotated[str, Field(description="The source to remove, e.g. 'doc:old-faq'.")],
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Remove a source's chunks, its evidence, and what only it supported."""
    who = caller(ctx)
    runtime = who.runtime
    counts = await purge_source(
        write_scope(who, scope), source_urn, runtime.store, runtime.queue.jobs
    )
    answer: dict[str, Any] = plain(counts)
    return answer


@domain_errors
async def ingest_repository_tool(
    ctx: ToolContext,
    git_url: Annotated[
        str | None, Field(description="An http(s), ssh or file URL git can clone.")
    ] = None,
    path: Annotated[
        str | None, Field(description="A local path under the server's repository roots.")
    ] = None,
    branch: Annotated[str | None, Field(description="Default: the current branch.")] = None,
    name: Annotated[
        str | None, Field(description="The name in keys (repo:<name>); default: the last part.")
    ] = None,
    priority: Annotated[int | None, Field(description="3..9 (bulk lane); default 5.")] = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Queue the ingest of a repository's branch at its current commit."""
    who = caller(ctx)

    async def writer() -> Scope:
        return await stored_write_scope(who, scope)

    runtime = who.runtime
    queued = await queue_repository(
        RepositorySpec(path, git_url, branch, name),
        priority,
        writer,
        locator=runtime.repositories,
        queue=runtime.queue.jobs,
    )
    return {"jobId": queued.job_id, "status": queued.status.value, "position": queued.position}


TOOLS = (
    ToolSpec(
        "purge_source",
        purge_source_tool,
        "Remove a source from the knowledge base for good: its chunks, its stored file, its "
        "queued jobs, its evidence on edges, and the edges and nodes nothing else supports. "
        "Only when the user asks to forget a document; re-ingesting replaces one anyway.",
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "ingest_repository",
        ingest_repository_tool,
        "Queue the code structure of a git repository's branch (background lane): files, "
        "classes, functions and their references, with the code as evidence; a later "
        "commit re-ingests only what changed. Give git_url (or a path under the server's "
        "roots); follow the job with job_status.",
        read_only=False,
        idempotent=True,
        open_world=True,
    ),
)
