"""Structured writes as a caller asks for them: ``ingestGraph`` and ``ingestGitCommits``
with their checks in the order every face must run them (identifiers first, so a
credential in one never reaches a query; then the connection; then the store).

GraphQL's resolvers and the MCP tools ``ingest_graph`` and ``ingest_git_commits`` call these.

Example: ``await ingest_checked_graph(request, deps, connections)``.
"""

from __future__ import annotations

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.git_commits import GitCommit, commit_requests
from kenning.domain.ingestion.graph_items import GraphRequest, identifier_fields
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ingest_graph import GraphOutcome, ingest_graph
from kenning.domain.ingestion.rules import check_identifiers, check_write_connection
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.off_loop import off_loop


async def ingest_checked_graph(
    request: GraphRequest, deps: IngestDeps, connections: ConnectionRegistry
) -> GraphOutcome:
    """Check the identifiers and the connection, then store what is valid of ``request``."""
    check_identifiers(identifier_fields(request))
    await check_write_connection(
        request.scope, request.connection_id, request.source_kind, connections
    )
    return await ingest_graph(request, deps)


async def ingest_commits(
    repository: str,
    commits: tuple[GitCommit, ...],
    scope: Scope,
    connection_id: str | None,
    deps: IngestDeps,
    connections: ConnectionRegistry,
) -> list[GraphOutcome]:
    """Every commit as its own structured ingest, in order, after all are checked."""
    size = sum(len(c.diff) + len(c.message) for c in commits)
    requests = await off_loop(
        size,
        lambda: commit_requests(
            repository, commits, scope, connection_id=connection_id, policy=deps.secret_policy
        ),
    )
    await check_write_connection(scope, connection_id, None, connections)
    return [await ingest_graph(request, deps) for request in requests]
