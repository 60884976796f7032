"""Tools over whole sources: ``purge_source`` removes one, ``ingest_repository`` queues the
code structure of a git repository.

Each calls the use case of its GraphQL mutation (``purgeSource`` in
``resolvers/ingestion/knowledge_admin.py``, ``ingestRepository`` in
``resolvers/sources/code.py``: ``kenning.domain.ingestion.purge_request.purge_asked_source``,
``kenning.domain.sources.code.repository_ingest.ingest_repository``), which settle the same
scope.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.ingestion.purge_request import purge_asked_source
from kenning.domain.sources.code.repository_ingest import RepositoryAsk, ingest_repository
from kenning.domain.sources.code.repository_request import RepositorySpec
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain, to_scope
from kenning.mcp.source_arguments import Branch, GitUrl, Name, Path, Priority, Through
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def purge_source_tool(
    ctx: ToolContext,
    source_urn: Annotated[str, Field(description="The source to remove, e.g. 'doc:old-faq'.")],
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Remove a source's chunks, its evidence, and what only it supported."""
    who = caller(ctx)
    ports = who.runtime.purge_ports()
    counts = await purge_asked_source(who.scoped, source_urn, to_scope(scope), ports)
    answer: dict[str, Any] = plain(counts)
    return answer


@domain_errors
async def ingest_repository_tool(
    ctx: ToolContext,
    git_url: GitUrl = None,
    path: Path = None,
    branch: Branch = None,
    name: Name = None,
    priority: Priority = None,
    scope: NarrowScope = None,
    connection_id: Through = None,
) -> dict[str, Any]:
    """Queue the ingest of a repository's branch at its current commit."""
    who = caller(ctx)
    ids = (scope.client_id, scope.project_id, scope.group_id) if scope is not None else None
    spec = RepositorySpec(path, git_url, branch, name)
    asked = RepositoryAsk(spec, priority, ids, connection_id=connection_id)
    queued = await ingest_repository(who.scoped, asked, who.runtime.repository_queue_ports())
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
