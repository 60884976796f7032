"""Structured writes: ``ingest_graph`` (pieces, nodes and evidence-bearing edges),
``load_knowledge`` (a knowledge file) and ``ingest_git_commits`` (commits as a graph).

Each calls the use case of its GraphQL mutation (``ingestGraph``, ``loadKnowledge``,
``ingestGitCommits``, in ``resolvers/ingestion/ingest_graph.py``):
``kenning.domain.ingestion.checked_graph``'s ``write_graph``, ``load_knowledge_file`` and
``write_commits``, which settle the write scope as GraphQL's do. Bad items are rejected one
by one in the answer; the rest is stored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion import checked_graph as use_case
from kenning.domain.ingestion.git_commits import FileChange, GitCommit
from kenning.domain.ingestion.graph_items import GraphPiece
from kenning.domain.ingestion.ingest_graph import GraphOutcome
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    time_argument,
    to_scope,
)
from kenning.mcp.graph_write_arguments import (
    CommitArg,
    Commits,
    EdgeArg,
    Edges,
    Kind,
    Knowledge,
    Metadata,
    NodeArg,
    Nodes,
    ObservedAt,
    PieceArg,
    Pieces,
    Priority,
    Repository,
    SourceUrn,
)
from kenning.mcp.tool_spec import ToolSpec


def graph_answer(result: GraphOutcome) -> dict[str, Any]:
    """What was stored and what was rejected, as GraphQL's ``IngestGraphSuccess``."""
    outcome = result.outcome
    return {
        "status": plain(outcome.status),
        "contentHash": outcome.content_hash,
        "chunkIds": list(outcome.chunk_ids),
        "nodes": list(outcome.nodes),
        "edges": plain(outcome.edges),
        "rejected": plain(result.rejected),
        "warnings": plain(outcome.warnings),
    }


@domain_errors
async def ingest_graph_tool(
    ctx: ToolContext,
    source_urn: SourceUrn,
    pieces: Pieces = None,
    nodes: Nodes = None,
    edges: Edges = None,
    metadata: Metadata = None,
    kind: Kind = "graph",
    priority: Priority = 3,
    observed_at: ObservedAt = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Store pre-structured pieces, nodes and edges; reject bad items one by one."""
    who = caller(ctx)
    items = _pieces(pieces or []), _nodes(nodes or []), _edges(edges or [])
    at = time_argument(observed_at, "observed_at")
    asked = use_case.GraphWrite(
        source_urn, to_scope(scope), kind, *items, metadata or {}, priority=priority, observed_at=at
    )
    done = await use_case.write_graph(who.scoped, asked, who.runtime.graph_write_ports())
    return graph_answer(done)


def _pieces(pieces: list[PieceArg]) -> tuple[GraphPiece, ...]:
    return tuple(
        GraphPiece(p.ref, p.content, p.knowledge_type, p.info_type, tuple(p.tags), p.embedding_text)
        for p in pieces
    )


def _nodes(nodes: list[NodeArg]) -> tuple[NodeRecord, ...]:
    return tuple(NodeRecord(n.key, n.type or "", n.properties) for n in nodes)


def _edges(edges: list[EdgeArg]) -> tuple[EdgeRecord, ...]:
    return tuple(
        EdgeRecord(e.from_key, e.edge_type, e.to_key, tuple(e.evidence), e.properties)
        for e in edges
    )


@domain_errors
async def load_knowledge_tool(
    ctx: ToolContext,
    source_urn: SourceUrn,
    knowledge: Knowledge,
    priority: Priority = 3,
    observed_at: ObservedAt = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Load a knowledge file as one source; bad items are rejected one by one."""
    who = caller(ctx)
    when = time_argument(observed_at, "observed_at")
    asked = use_case.KnowledgeLoad(knowledge, source_urn, to_scope(scope), priority, when)
    loaded = await use_case.load_knowledge_file(who.scoped, asked, who.runtime.graph_write_ports())
    return graph_answer(loaded)


def _date(value: str, index: int) -> datetime:
    field = f"commits[{index}].date"
    parsed = time_argument(value, field)
    if parsed is None:
        raise ValidationError(f"{field} is required", field=field)
    return parsed


def _commit(commit: CommitArg, index: int) -> GitCommit:
    files = tuple(FileChange(f.path, f.change_type, f.old_path) for f in commit.files)
    return GitCommit(
        commit.hash,
        commit.message,
        commit.author,
        _date(commit.date, index),
        commit.branch,
        tuple(commit.parents),
        files,
        commit.diff,
    )


@domain_errors
async def ingest_git_commits_tool(
    ctx: ToolContext, repository: Repository, commits: Commits, scope: NarrowScope = None
) -> dict[str, Any]:
    """Commits, branches and files as a graph; each commit's diff is its edges' evidence."""
    who = caller(ctx)
    read = tuple(_commit(commit, i) for i, commit in enumerate(commits))
    asked = use_case.CommitsWrite(repository, read, to_scope(scope))
    done = await use_case.write_commits(who.scoped, asked, who.runtime.graph_write_ports())
    return {
        "commits": [
            {
                "hash": c.hash,
                "status": plain(c.result.outcome.status),
                "edges": len(c.result.outcome.edges),
                "rejected": plain(c.result.rejected),
            }
            for c in done
        ]
    }


TOOLS = (
    ToolSpec(
        "ingest_graph",
        ingest_graph_tool,
        "Store knowledge you have already structured, as one source: pieces of text, nodes "
        "('type:id' keys with properties) and edges that cite the pieces supporting them by "
        "ref, with properties of their own; an edge citing none is asserted by the source "
        "(an org chart, a structured import). Bad items are rejected one by one (the answer "
        "says which and why); writing the same source_urn again replaces it.",
        read_only=False,
        idempotent=True,
    ),
    ToolSpec(
        "load_knowledge",
        load_knowledge_tool,
        "Load a knowledge file (a JSON object with metadata, pieces and graph, in Kenning's "
        "format or the design's snake_case one with piece_id, entity_id, node_id, source_id, "
        "target_id, edge_type and properties.piece_id, as the documentation's memory guide "
        "describes) as one source "
        "through ingest_graph; bad items are rejected one by one, the rest is loaded. Loading "
        "the same source_urn again replaces it.",
        read_only=False,
        idempotent=True,
    ),
    ToolSpec(
        "ingest_git_commits",
        ingest_git_commits_tool,
        "Store commits of a repository as a graph: each commit, its branch, author, parents "
        "and the files it touched, with its diff as the evidence. Ingesting the same commit "
        "again changes nothing.",
        read_only=False,
        idempotent=True,
    ),
)
