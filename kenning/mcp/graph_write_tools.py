"""Structured writes: ``ingest_graph`` (pieces, nodes and evidence-bearing edges),
``load_knowledge`` (a knowledge file) and ``ingest_git_commits`` (commits as a graph).

Each calls the use case of its GraphQL mutation (``ingestGraph``, ``loadKnowledge``,
``ingestGitCommits``: ``kenning.domain.ingestion.checked_graph`` and
``kenning.domain.ingestion.knowledge_file``) at the scope ``stored_write_scope`` settles.
Bad items are rejected one by one in the answer; the rest is stored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.checked_graph import ingest_checked_graph, ingest_commits
from kenning.domain.ingestion.git_commits import FileChange, GitCommit
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.ingest_graph import GraphOutcome
from kenning.domain.ingestion.knowledge_file import load_knowledge
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    stored_write_scope,
    time_argument,
)
from kenning.mcp.graph_write_arguments import CommitArg, EdgeArg, NodeArg, PieceArg
from kenning.mcp.tool_spec import ToolSpec

SourceUrn = Annotated[
    str, Field(description="The source, e.g. 'design:checkout'; writing it again replaces it.")
]
ObservedAt = Annotated[
    str | None,
    Field(description="When the source says its pieces were true (ISO 8601); default: now."),
]


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
    pieces: Annotated[list[PieceArg] | None, Field(description="The texts.")] = None,
    nodes: Annotated[list[NodeArg] | None, Field(description="The vertices.")] = None,
    edges: Annotated[list[EdgeArg] | None, Field(description="The edges.")] = None,
    metadata: Annotated[
        dict[str, Any] | None,
        Field(description="Entity id -> {'type': ..., 'properties': {...}}, each a node."),
    ] = None,
    kind: Annotated[str, Field(description="What the source is.")] = "graph",
    priority: Annotated[int, Field(description="0 (highest) to 9 for its embeddings.")] = 3,
    observed_at: ObservedAt = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Store pre-structured pieces, nodes and edges; reject bad items one by one."""
    who = caller(ctx)
    request = GraphRequest(
        source_urn=source_urn,
        scope=await stored_write_scope(who, scope),
        kind=kind,
        pieces=tuple(
            GraphPiece(
                p.ref, p.content, p.knowledge_type, p.info_type, tuple(p.tags), p.embedding_text
            )
            for p in pieces or ()
        ),
        nodes=tuple(NodeRecord(n.key, n.type or "", n.properties) for n in nodes or ()),
        edges=tuple(
            EdgeRecord(e.from_key, e.edge_type, e.to_key, tuple(e.evidence)) for e in edges or ()
        ),
        metadata=metadata or {},
        priority=priority,
        observed_at=time_argument(observed_at, "observed_at"),
    )
    runtime = who.runtime
    done = await ingest_checked_graph(request, runtime.ingest_deps(), runtime.queue.connections)
    return graph_answer(done)


@domain_errors
async def load_knowledge_tool(
    ctx: ToolContext,
    source_urn: SourceUrn,
    knowledge: Annotated[
        dict[str, Any],
        Field(
            description="The whole knowledge file: metadata, pieces and graph (README); "
            "errors name it json, as GraphQL does."
        ),
    ],
    priority: Annotated[int, Field(description="0 (highest) to 9 for its embeddings.")] = 3,
    observed_at: ObservedAt = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Load a knowledge file as one source; bad items are rejected one by one."""
    who = caller(ctx)
    writer = await stored_write_scope(who, scope)
    when = time_argument(observed_at, "observed_at")
    loaded = await load_knowledge(
        knowledge, source_urn, writer, who.runtime.ingest_deps(), priority, when, who.principal
    )
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
    ctx: ToolContext,
    repository: Annotated[str, Field(description="The repository, e.g. 'github:acme/shop'.")],
    commits: Annotated[list[CommitArg], Field(description="The commits, oldest first.")],
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Commits, branches and files as a graph; each commit's diff is its edges' evidence."""
    who = caller(ctx)
    read = tuple(_commit(commit, i) for i, commit in enumerate(commits))
    writer = await stored_write_scope(who, scope)
    runtime = who.runtime
    results = await ingest_commits(
        repository, read, writer, None, runtime.ingest_deps(), runtime.queue.connections
    )
    return {
        "commits": [
            {
                "hash": commit.hash.lower(),
                "status": plain(result.outcome.status),
                "edges": len(result.outcome.edges),
                "rejected": plain(result.rejected),
            }
            for commit, result in zip(read, results, strict=True)
        ]
    }


TOOLS = (
    ToolSpec(
        "ingest_graph",
        ingest_graph_tool,
        "Store knowledge you have already structured, as one source: pieces of text, nodes "
        "('type:id' keys with properties) and edges that cite the pieces supporting them by "
        "ref. Bad items are rejected one by one (the answer says which and why); writing "
        "the same source_urn again replaces it.",
        read_only=False,
        idempotent=True,
    ),
    ToolSpec(
        "load_knowledge",
        load_knowledge_tool,
        "Load a knowledge file (a JSON object with metadata, pieces and graph, the format "
        "the README describes) as one source through ingest_graph; bad items are rejected "
        "one by one, the rest is loaded. Loading the same source_urn again replaces it.",
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
