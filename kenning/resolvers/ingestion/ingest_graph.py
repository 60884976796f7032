"""Resolvers of `ingestGraph`, `loadKnowledge` and `ingestGitCommits`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.checked_graph import ingest_checked_graph, ingest_commits
from kenning.domain.ingestion.git_commits import FileChange, GitCommit
from kenning.domain.ingestion.ingest_graph import (
    GraphOutcome,
    GraphPiece,
    GraphRequest,
)
from kenning.domain.ingestion.knowledge_file import load_knowledge
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.resolvers.access.scope import principal, stored_write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.ingestion.ingest import to_warnings
from kenning.schema.access.scope import ScopeInput
from kenning.schema.ingestion.ingest import EdgeTriple, IngestedChunk
from kenning.schema.ingestion.ingest_graph import (
    CommitIngested,
    IngestGitCommitsInput,
    IngestGitCommitsResult,
    IngestGitCommitsSuccess,
    IngestGraphInput,
    IngestGraphResult,
    IngestGraphSuccess,
    RejectedItem,
)


def _properties(value: object, index: int) -> Mapping[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(f"nodes[{index}].properties must be a JSON object", field="nodes")
    return value


def _metadata(value: object) -> Mapping[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError("metadata must be a JSON object", field="metadata")
    return value


async def _request(info: Info, data: IngestGraphInput) -> GraphRequest:
    return GraphRequest(
        source_urn=data.source_urn,
        scope=await stored_write_scope(info, data.scope),
        kind=data.kind,
        pieces=tuple(
            GraphPiece(
                p.ref, p.content, p.knowledge_type, p.info_type, tuple(p.tags), p.embedding_text
            )
            for p in data.pieces
        ),
        nodes=tuple(
            NodeRecord(n.key, n.type or "", _properties(n.properties, i))
            for i, n in enumerate(data.nodes)
        ),
        edges=tuple(
            EdgeRecord(e.from_key, e.edge_type, e.to_key, tuple(e.evidence)) for e in data.edges
        ),
        metadata=_metadata(data.metadata),
        connection_id=data.connection_id,
        source_kind=data.source_kind,
        priority=data.priority,
        observed_at=data.observed_at,
    )


def _rejected(result: GraphOutcome) -> list[RejectedItem]:
    return [RejectedItem(item=r.item, index=r.index, reason=r.reason) for r in result.rejected]


@error_members
async def resolve_ingest_graph(info: Info, input: IngestGraphInput) -> IngestGraphResult:
    """Store pre-structured pieces, nodes and edges; reject bad items one by one."""
    runtime = info.context.runtime
    request = await _request(info, input)
    result = await ingest_checked_graph(request, runtime.ingest_deps(), runtime.queue.connections)
    return _success(result)


@error_members
async def resolve_load_knowledge(
    info: Info,
    json: Annotated[
        JSON,
        strawberry.argument(
            description="The whole knowledge file: metadata, pieces, graph and relations (see "
            "the README)."
        ),
    ],
    source_urn: Annotated[
        str, strawberry.argument(description="Loading the same URN again replaces it.")
    ],
    scope: ScopeInput | None = None,
    priority: int = 3,
    observed_at: Annotated[
        datetime | None,
        strawberry.argument(
            description="When the file's pieces were true, for every one of them (the file "
            "format has no field for it): as ingestGraph's observedAt."
        ),
    ] = None,
) -> IngestGraphResult:
    """Load a knowledge file through ingestGraph; bad items are rejected one by one, and
    its relation declarations are the caller's (as defineRelation)."""
    writer = await stored_write_scope(info, scope)
    deps = info.context.runtime.ingest_deps()
    loaded = await load_knowledge(
        json, source_urn, writer, deps, priority, observed_at, principal(info)
    )
    return _success(loaded)


def _success(result: GraphOutcome) -> IngestGraphSuccess:
    outcome = result.outcome
    return IngestGraphSuccess(
        status=outcome.status,
        content_hash=outcome.content_hash,
        chunks=[IngestedChunk(id=strawberry.ID(c), ordinal=i)
                for i, c in enumerate(outcome.chunk_ids)],
        nodes=list(outcome.nodes),
        edges=[EdgeTriple(from_key=e.from_key, edge_type=e.edge_type, to_key=e.to_key)
               for e in outcome.edges],
        rejected=_rejected(result),
        warnings=to_warnings(outcome.warnings),
    )  # fmt: skip


@error_members
async def resolve_ingest_git_commits(
    info: Info, input: IngestGitCommitsInput
) -> IngestGitCommitsResult:
    """Commits, branches and files as a graph; each commit's diff is its edges' evidence."""
    commits = tuple(
        GitCommit(c.hash, c.message, c.author, c.date, c.branch, tuple(c.parents),
                  tuple(FileChange(f.path, f.change_type, f.old_path) for f in c.files),
                  c.diff)
        for c in input.commits
    )  # fmt: skip
    scope = await stored_write_scope(info, input.scope)
    runtime = info.context.runtime
    results = await ingest_commits(
        input.repository,
        commits,
        scope,
        input.connection_id,
        runtime.ingest_deps(),
        runtime.queue.connections,
    )
    done = [
        CommitIngested(
            hash=commit.hash.lower(),
            status=result.outcome.status,
            edges=len(result.outcome.edges),
            rejected=_rejected(result),
        )
        for commit, result in zip(commits, results, strict=True)
    ]
    return IngestGitCommitsSuccess(commits=done)
