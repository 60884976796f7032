"""Tools over the knowledge base itself: search it, write a document into it, and read the
entity graph (find a node, a node, its neighbours).

Each calls the use case its GraphQL resolver calls (``search``, ``ingest``, ``findNodes``,
``node``, ``neighbors``: ``kenning/resolvers/retrieval/search.py``,
``resolvers/ingestion/ingest.py``, ``resolvers/graph/``), with the same checks, settings and
metrics.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Annotated, Any

from pydantic import Field

from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.graph.find import find_nodes, find_query
from kenning.domain.graph.model import (
    MAX_SUBGRAPH_LIMIT,
    Direction,
    check_depth,
    check_range,
    edge_type_filter,
)
from kenning.domain.graph.traverse import NeighborsQuery, neighbors
from kenning.domain.ingestion.ingest import ingest
from kenning.domain.ingestion.request import IngestOutcome, IngestRequest, KnowledgeType
from kenning.domain.ingestion.rules import check_identifiers, identifier_fields
from kenning.domain.off_loop import off_loop
from kenning.domain.queue.requests import chosen_extraction, request_extraction
from kenning.domain.retrieval.search import (
    SearchFilters,
    SearchMode,
    SearchRequest,
    config_for,
    search,
)
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    canonical_key,
    domain_errors,
    plain,
    read_scope,
    stored_write_scope,
)
from kenning.mcp.tool_spec import ToolSpec
from kenning.resolvers.ingestion.ingest import INGEST_PRIORITY

Filter = Annotated[list[str] | None, Field(description="Any of these values (omit: no filter).")]


@domain_errors
async def search_knowledge_tool(
    ctx: ToolContext,
    query: Annotated[str, Field(description="What to look for, in words or keywords.")],
    mode: Annotated[SearchMode, Field(description="HYBRID (default), VECTOR or KEYWORD.")] = (
        SearchMode.HYBRID
    ),
    limit: Annotated[int, Field(description="How many hits at most.")] = 10,
    kinds: Filter = None,
    tags: Filter = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """The chunks the caller may see that best match ``query``."""
    who = caller(ctx)
    runtime, settings = who.runtime, who.runtime.settings
    request = SearchRequest(
        query=query,
        mode=mode,
        limit=limit,
        filters=SearchFilters(kinds=tuple(kinds or ()), tags=tuple(tags or ())),
    )
    fusion = settings.search_fusion_weights()
    started = time.perf_counter()
    hits = await search(
        request,
        reader=read_scope(who, scope),
        embedder=runtime.embedder,
        index=runtime.chunk_index,
        config=config_for(mode, fusion),
        max_limit=settings.search_max_limit,
    )
    runtime.metrics.observe_search(mode.value, time.perf_counter() - started)
    return {"hits": plain(hits)}


@domain_errors
async def ingest_document_tool(
    ctx: ToolContext,
    source_urn: Annotated[
        str, Field(description="Where it comes from, e.g. 'doc:runbook-42'; re-ingesting replaces.")
    ],
    kind: Annotated[str, Field(description="What it is, e.g. 'note', 'runbook', 'ticket'.")],
    content: Annotated[str, Field(description="The text (Markdown), relationships inline.")],
    main_node_key: Annotated[
        str | None, Field(description="The entity it describes, e.g. 'service:billing'.")
    ] = None,
    knowledge_type: KnowledgeType | None = None,
    info_type: Annotated[
        str | None, Field(description="Routes it in get_context: instructions, skills, ...")
    ] = None,
    tags: Annotated[list[str] | None, Field(description="Labels to filter searches by.")] = None,
    metadata: Annotated[dict[str, Any] | None, Field(description="A JSON object.")] = None,
    relationships: Annotated[
        list[str] | None, Field(description="Edges as 'from|relation|to'.")
    ] = None,
    scope: NarrowScope = None,
    extraction: Annotated[
        ExtractionMode | None,
        Field(
            description="LLM: the extraction model also reads the chunks for entities and "
            "relations in the background (the answer's extractionJobId); default: the "
            "server's setting for the kind, else NONE."
        ),
    ] = None,
) -> dict[str, Any]:
    """Index one document now, at the agents' interactive priority, as ``ingest`` does."""
    who = caller(ctx)
    request = IngestRequest(
        source_urn=source_urn,
        kind=kind,
        content=content,
        scope=await stored_write_scope(who, scope),
        main_node_key=main_node_key,
        knowledge_type=knowledge_type,
        info_type=info_type,
        tags=tuple(tags or ()),
        metadata=dict(metadata or {}),
        relationships=tuple(relationships or ()),
        priority=INGEST_PRIORITY,
    )
    # Identifiers first: a credential in one must not reach a query.
    check_identifiers(identifier_fields(request))
    settings = who.runtime.settings
    mode = chosen_extraction(extraction, kind, settings.extraction_by_kind)
    outcome = await ingest(request, who.runtime.ingest_deps())
    items = len(outcome.chunk_ids) + len(outcome.edges) + len(outcome.warnings)
    # A large document's answer holds thousands of items: built off the event loop.
    answer = await off_loop(items * 16, lambda: _ingested(outcome))
    if mode is ExtractionMode.LLM:
        queued = await request_extraction(
            request.scope, source_urn, outcome.content_hash,
            model=settings.model_extract, queue=who.runtime.queue.jobs,
        )  # fmt: skip
        answer["extractionJobId"] = queued.job_id
    return answer


def _ingested(outcome: IngestOutcome) -> dict[str, Any]:
    return {
        "status": plain(outcome.status),
        "contentHash": outcome.content_hash,
        "chunkIds": list(outcome.chunk_ids),
        "nodes": list(outcome.nodes),
        "edges": plain(outcome.edges),
        "warnings": plain(outcome.warnings),
    }


@domain_errors
async def get_node_tool(
    ctx: ToolContext,
    key: Annotated[str, Field(description="The node's key, 'type:id', e.g. 'task:T-1'.")],
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """The node with this key as the caller sees it; ``node`` is null when none is visible."""
    who = caller(ctx)
    reader = read_scope(who, scope)
    canonical = await canonical_key(who, reader, key, "key")
    found = (await who.runtime.graph.nodes(reader, [canonical])).get(canonical)
    return {"node": plain(found)}


@domain_errors
async def find_nodes_tool(
    ctx: ToolContext,
    query: Annotated[str, Field(description="A name, part of a key or words about it.")],
    types: Annotated[
        list[str] | None, Field(description="Only these node types, e.g. ['service'].")
    ] = None,
    limit: Annotated[int, Field(description="How many nodes at most, 1..100.")] = 20,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """The visible nodes best matching ``query``, best first (as ``findNodes``)."""
    who = caller(ctx)
    reader = read_scope(who, scope)
    request = find_query(query, types, limit)
    if request.exact_key is not None:
        exact = await canonical_key(who, reader, request.exact_key, "query")
        request = dataclasses.replace(request, exact_key=exact)
    found = await find_nodes(who.runtime.finder, who.runtime.graph, reader, request)
    return {"matches": [
        {"key": m.node.key, "type": m.node.type, "label": m.label, "score": m.score,
         "exact": m.exact, "matchedOn": m.matched_on.value, "node": plain(m.node)}
        for m in found
    ]}  # fmt: skip


@domain_errors
async def get_neighbors_tool(
    ctx: ToolContext,
    key: Annotated[str, Field(description="The start node's key, 'type:id'.")],
    depth: Annotated[int, Field(description="How many hops, 1..3.")] = 1,
    direction: Annotated[Direction, Field(description="OUT, IN or BOTH edges.")] = Direction.BOTH,
    edge_types: Annotated[
        list[str] | None, Field(description="Only these relations (omit: all).")
    ] = None,
    limit: Annotated[int, Field(description="At most this many nodes and edges.")] = 100,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """The subgraph within ``depth`` hops; empty when the node is not visible."""
    who = caller(ctx)
    reader = read_scope(who, scope)
    check_depth(depth)
    check_range(limit, 1, MAX_SUBGRAPH_LIMIT, "limit")
    types = edge_type_filter(edge_types)
    start = await canonical_key(who, reader, key, "key")
    found = await neighbors(
        who.runtime.graph, reader, NeighborsQuery(start, depth, direction, types, limit)
    )
    return {"nodes": plain(found.nodes), "edges": plain(found.edges), "truncated": found.truncated}


TOOLS = (
    ToolSpec(
        "search_knowledge",
        search_knowledge_tool,
        "Search the knowledge base (documents, notes, past task outcomes, user knowledge) "
        "for passages about a question. HYBRID mode combines meaning and keywords; filter by "
        "kinds or tags when you know them. Each hit has its text, source and score.",
        read_only=True,
    ),
    ToolSpec(
        "ingest_document",
        ingest_document_tool,
        "Write a document into the knowledge base now and wait until it is searchable: it is "
        "chunked, embedded and its entities and relationships ('a|rel|b' lines, or the "
        "relationships list) go into the graph. Ingesting the same source_urn again replaces "
        "the old version. Never include credentials: content with secrets is refused.",
        read_only=False,
    ),
    ToolSpec(
        "get_node",
        get_node_tool,
        "Look up one entity of the knowledge graph by its key ('type:id', e.g. 'user:alice', "
        "'service:billing'; aliases are resolved): its type and properties, or null.",
        read_only=True,
    ),
    ToolSpec(
        "find_nodes",
        find_nodes_tool,
        "Find entities of the knowledge graph when you do not know their exact key: by a "
        "name, part of a key, a misspelling or words of their description ('billing svc', "
        "'Alice'). Exact keys and names come first, then by similarity; each match has its "
        "key (for get_node and get_neighbors), type, label and score.",
        read_only=True,
    ),
    ToolSpec(
        "get_neighbors",
        get_neighbors_tool,
        "Explore the knowledge graph around an entity: the nodes and relationships within "
        "depth hops of its key, optionally only some relation types or directions. Each edge "
        "has its type, ends and evidence chunk ids.",
        read_only=True,
    ),
)
