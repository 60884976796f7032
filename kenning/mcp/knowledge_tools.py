"""The tool that writes a document into the knowledge base now (``ingest_document``).

It calls the use case the GraphQL ``ingest`` resolver calls (``resolvers/ingestion/ingest.py``),
with the same checks and settings.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.ingest import ingest
from kenning.domain.ingestion.request import IngestOutcome, IngestRequest, KnowledgeType
from kenning.domain.ingestion.rules import check_identifiers, identifier_fields
from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import INGEST_PRIORITY
from kenning.domain.queue.requests import chosen_extraction, request_extraction
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    stored_write_scope,
    time_argument,
)
from kenning.mcp.tool_spec import ToolSpec

Extraction = Annotated[
    ExtractionMode | None,
    Field(
        description="LLM: the extraction model also reads the chunks for entities and "
        "relations in the background (the answer's extractionJobId); default: the "
        "server's setting for the kind, else NONE."
    ),
]
ObservedAt = Annotated[
    str | None,
    Field(description="When the source says this was true (ISO 8601 with a time zone); "
          "default: now. Of two assertions of a relation declared ONE, the later wins."),
]  # fmt: skip
Supersedes = Annotated[
    list[str] | None,
    Field(description="Source URNs this document replaces (e.g. the previous version of "
          "a policy): their relationships it does not restate end."),
]  # fmt: skip


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
    extraction: Extraction = None,
    observed_at: ObservedAt = None,
    supersedes: Supersedes = None,
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
        observed_at=time_argument(observed_at, "observed_at"),
        supersedes=tuple(supersedes or ()),
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


TOOLS = (
    ToolSpec(
        "ingest_document",
        ingest_document_tool,
        "Write a document into the knowledge base now and wait until it is searchable: it is "
        "chunked, embedded and its entities and relationships ('a|rel|b' lines, or the "
        "relationships list) go into the graph. Ingesting the same source_urn again replaces "
        "the old version. Never include credentials: content with secrets is refused.",
        read_only=False,
        idempotent=True,  # the same content again is a SKIPPED_DUPLICATE
    ),
)
