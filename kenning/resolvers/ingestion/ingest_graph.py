"""Resolvers of `ingestGraph`, `loadKnowledge` and `ingestGitCommits`: the input in, the use
case of ``kenning.domain.ingestion.checked_graph`` (as the MCP tools call it), the result out."""

from __future__ import annotations

from collections.abc import Mapping

import strawberry

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.checked_graph import (
    CommitsWrite,
    GraphWrite,
    KnowledgeLoad,
    load_knowledge_file,
    write_commits,
    write_graph,
)
from kenning.domain.ingestion.git_commits import FileChange, GitCommit
from kenning.domain.ingestion.graph_items import GraphPiece
from kenning.domain.ingestion.ingest_graph import GraphOutcome
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.ingestion.ingest import to_warnings
from kenning.schema.access.scope import ScopeInput
from kenning.schema.ingestion.arguments import KnowledgeJson, LoadedAt, LoadedUrn
from kenning.schema.ingestion.ingest import EdgeTriple, IngestedChunk
from kenning.schema.ingestion.ingest_graph import (
    CommitIngested,
    GitCommitInput,
    GraphEdgeInput,
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


def _edges(edges: list[GraphEdgeInput]) -> tuple[EdgeRecord, ...]:
    return tuple(
        EdgeRecord(e.from_key, e.edge_type, e.to_key, tuple(e.evidence), _edge_properties(e, i))
        for i, e in enumerate(edges)
    )


def _edge_properties(edge: GraphEdgeInput, index: int) -> Mapping[str, object]:
    if edge.properties is None:
        return {}
    if not isinstance(edge.properties, Mapping):
        where = f"edges[{index}].properties"
        raise ValidationError(f"{where} must be a JSON object", field=where)
    return edge.properties


def _metadata(value: object) -> Mapping[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError("metadata must be a JSON object", field="metadata")
    return value


def _graph_write(data: IngestGraphInput) -> GraphWrite:
    return GraphWrite(
        source_urn=data.source_urn,
        scope=to_scope(data.scope),
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
        edges=_edges(data.edges),
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
    ports = info.context.runtime.graph_write_ports()
    return graph_success(await write_graph(caller(info), _graph_write(input), ports))


@error_members
async def resolve_load_knowledge(
    info: Info,
    json: KnowledgeJson,
    source_urn: LoadedUrn,
    scope: ScopeInput | None = None,
    priority: int = 3,
    observed_at: LoadedAt = None,
) -> IngestGraphResult:
    """Load a knowledge file through ingestGraph; bad items are rejected one by one, and
    its relation declarations are the caller's (as defineRelation)."""
    asked = KnowledgeLoad(json, source_urn, to_scope(scope), priority, observed_at)
    ports = info.context.runtime.graph_write_ports()
    return graph_success(await load_knowledge_file(caller(info), asked, ports))


def graph_success(result: GraphOutcome) -> IngestGraphSuccess:
    """The GraphQL form of a structured write (``loadKnowledge`` and ``structureKnowledge``
    answer a load with it too)."""
    outcome = result.outcome
    return IngestGraphSuccess(
        status=outcome.status,
        content_hash=outcome.content_hash,
        chunks=[
            IngestedChunk(id=strawberry.ID(c), ordinal=i) for i, c in enumerate(outcome.chunk_ids)
        ],
        nodes=list(outcome.nodes),
        edges=[
            EdgeTriple(from_key=e.from_key, edge_type=e.edge_type, to_key=e.to_key)
            for e in outcome.edges
        ],
        rejected=_rejected(result),
        warnings=to_warnings(outcome.warnings),
    )


def _commit(c: GitCommitInput) -> GitCommit:
    files = tuple(FileChange(f.path, f.change_type, f.old_path) for f in c.files)
    return GitCommit(c.hash, c.message, c.author, c.date, c.branch, tuple(c.parents), files, c.diff)


@error_members
async def resolve_ingest_git_commits(
    info: Info, input: IngestGitCommitsInput
) -> IngestGitCommitsResult:
    """Commits, branches and files as a graph; each commit's diff is its edges' evidence."""
    commits = tuple(_commit(c) for c in input.commits)
    asked = CommitsWrite(input.repository, commits, to_scope(input.scope), input.connection_id)
    ports = info.context.runtime.graph_write_ports()
    done = await write_commits(caller(info), asked, ports)
    return IngestGitCommitsSuccess(
        commits=[
            CommitIngested(
                hash=c.hash,
                status=c.result.outcome.status,
                edges=len(c.result.outcome.edges),
                rejected=_rejected(c.result),
            )
            for c in done
        ]
    )
