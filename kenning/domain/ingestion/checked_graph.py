"""Structured writes as a caller asks for them: ``ingestGraph``, ``loadKnowledge`` and
``ingestGitCommits`` with their steps in the order every face must run them (the caller's
write scope settled; identifiers first, so a credential in one never reaches a query; then
the connection; then the store).

GraphQL's resolvers and the MCP tools ``ingest_graph``, ``load_knowledge`` and
``ingest_git_commits`` call these, with ``Runtime.graph_write_ports()``.

Example: ``await write_graph(caller, GraphWrite("design:checkout", pieces=...), ports)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.git_commits import GitCommit, commit_requests
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest, identifier_fields
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ingest_graph import GraphOutcome, ingest_graph
from kenning.domain.ingestion.knowledge_file import load_knowledge
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.ingestion.rules import check_identifiers, check_write_connection
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.off_loop import off_loop


@dataclass(frozen=True, slots=True)
class GraphWritePorts:
    """What a structured write runs with: the write path's ports and the connections."""

    ingest: IngestDeps
    connections: ConnectionRegistry


@dataclass(frozen=True, slots=True)
class GraphWrite:
    """An ``ingestGraph`` as a caller asks for it: ``GraphRequest``'s fields at ``scope``
    (None: the key's own)."""

    source_urn: str
    scope: Scope | None = None
    kind: str = "graph"
    pieces: tuple[GraphPiece, ...] = ()
    nodes: tuple[NodeRecord, ...] = ()
    edges: tuple[EdgeRecord, ...] = ()
    metadata: Mapping[str, object] = field(default_factory=dict)
    connection_id: str | None = None
    source_kind: str | None = None
    priority: int = 3
    observed_at: datetime | None = None

    def at(self, scope: Scope, writer: str | None = None) -> GraphRequest:
        """The request as the write path takes it, at the settled ``scope``, by ``writer``."""
        named = {f.name for f in dataclasses.fields(GraphRequest)} - {"scope", "writer"}
        given = {name: getattr(self, name) for name in named}
        return GraphRequest(**given, scope=scope, writer=writer)


@dataclass(frozen=True, slots=True)
class KnowledgeLoad:
    """A ``loadKnowledge``: the file as given, loaded as ``source_urn`` at ``scope``."""

    document: object
    source_urn: str
    scope: Scope | None = None
    priority: int = 3
    observed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class CommitsWrite:
    """An ``ingestGitCommits``: ``repository``'s commits, oldest first, at ``scope``."""

    repository: str
    commits: tuple[GitCommit, ...]
    scope: Scope | None = None
    connection_id: str | None = None


@dataclass(frozen=True, slots=True)
class CommitWritten:
    """One commit's structured ingest, by its (lower-case) hash."""

    hash: str
    result: GraphOutcome


async def write_graph(
    caller: CallerScope, asked: GraphWrite, ports: GraphWritePorts
) -> GraphOutcome:
    """Check the identifiers and the connection, then store what is valid of ``asked``."""
    request = asked.at(await caller.stored_writing(asked.scope), caller.principal.key_id)
    check_identifiers(identifier_fields(request))
    await check_write_connection(
        request.scope, request.connection_id, request.source_kind, ports.connections
    )
    return await ingest_graph(request, ports.ingest)


async def load_knowledge_file(
    caller: CallerScope, asked: KnowledgeLoad, ports: GraphWritePorts
) -> GraphOutcome:
    """Load a knowledge file as one source; its relation declarations are the caller's."""
    writer = await caller.stored_writing(asked.scope)
    return await load_knowledge(
        asked.document,
        asked.source_urn,
        writer,
        ports.ingest,
        asked.priority,
        asked.observed_at,
        caller.principal,
    )


async def write_commits(
    caller: CallerScope, asked: CommitsWrite, ports: GraphWritePorts
) -> list[CommitWritten]:
    """Every commit as its own structured ingest, in order, after all are checked."""
    scope = await caller.stored_writing(asked.scope)
    commits, deps = asked.commits, ports.ingest
    size = sum(len(c.diff) + len(c.message) for c in commits)
    requests = await off_loop(
        size,
        lambda: commit_requests(
            asked.repository,
            commits,
            scope,
            connection_id=asked.connection_id,
            policy=deps.secret_policy,
        ),
    )
    await check_write_connection(scope, asked.connection_id, None, ports.connections)
    results = [await ingest_graph(request, deps) for request in requests]
    return [
        CommitWritten(commit.hash.lower(), result)
        for commit, result in zip(commits, results, strict=True)
    ]
