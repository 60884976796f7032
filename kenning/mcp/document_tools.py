"""The ``request_ingestion`` tool: queue many documents durably and answer at once, one
result per document in order, as GraphQL's ``requestIngestions`` does (the use case
``kenning.domain.queue.ingestion_request.queue_ingestion``, at the same default priority,
secret policy, extraction choice and tombstone check).

Documents are independent: one refused document (a credential, a bad key) is an error in
its own result and the others are queued.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError
from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.request import IngestRequest, KnowledgeType
from kenning.domain.priorities import QUEUED_PRIORITY
from kenning.domain.queue.ingestion_request import QueueAsk, queue_ingestion
from kenning.domain.queue.listing import check_request_count
from kenning.mcp.auth import Caller
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    stored_write_scope,
    time_argument,
)
from kenning.mcp.tool_spec import ToolSpec


class DocumentArg(BaseModel):
    """One document to queue, and what makes two requests for it the same work."""

    source_urn: Annotated[str, Field(description="Where it comes from, e.g. 'wiki:runbook'.")]
    kind: Annotated[str, Field(description="What it is, e.g. 'wiki_page'.")]
    content: Annotated[str, Field(description="The text (Markdown), relationships inline.")]
    content_version: Annotated[
        str, Field(description="An eTag, revision or content hash: the same version is done once.")
    ]
    source_kind: Annotated[str, Field(description="The system it comes from, e.g. 'wiki'.")]
    source_id: Annotated[str | None, Field(description="Its id there (default: source_urn).")] = (
        None
    )
    main_node_key: Annotated[
        str | None, Field(description="The entity it describes, e.g. 'service:billing'.")
    ] = None
    knowledge_type: KnowledgeType | None = None
    info_type: Annotated[str | None, Field(description="Routes it in get_context.")] = None
    tags: list[str] = Field(default_factory=list)
    metadata: Annotated[dict[str, Any], Field(description="A JSON object.")] = Field(
        default_factory=dict
    )
    relationships: Annotated[list[str], Field(description="Edges as 'from|relation|to'.")] = Field(
        default_factory=list
    )
    priority: Annotated[
        int | None, Field(description="0 (highest) to 9; default 3 (the bulk lane).")
    ] = None
    observed_at: Annotated[
        str | None, Field(description="When the source says this was true (ISO 8601).")
    ] = None
    extraction: Annotated[
        ExtractionMode | None, Field(description="LLM: a model also reads it for entities.")
    ] = None


def _request(document: DocumentArg, writer: Scope) -> IngestRequest:
    return IngestRequest(
        source_urn=document.source_urn,
        kind=document.kind,
        content=document.content,
        scope=writer,
        main_node_key=document.main_node_key,
        knowledge_type=document.knowledge_type,
        info_type=document.info_type,
        tags=tuple(document.tags),
        metadata=dict(document.metadata),
        source_kind=document.source_kind,
        relationships=tuple(document.relationships),
        priority=QUEUED_PRIORITY if document.priority is None else document.priority,
        observed_at=time_argument(document.observed_at, "observed_at"),
    )


async def _queue_one(who: Caller, document: DocumentArg, writer: Scope) -> dict[str, Any]:
    try:
        ask = QueueAsk(
            _request(document, writer),
            document.source_kind,
            document.content_version,
            document.source_id,
            extraction=document.extraction,
        )
        queued = await queue_ingestion(ask, who.runtime.queue_ports())
    except KenningError as error:
        found = {"code": error.code.value, "message": error.message, "field": error.field}
        return {"error": found}
    return {"jobId": queued.job_id, "status": queued.status.value, "position": queued.position}


@domain_errors
async def request_ingestion_tool(
    ctx: ToolContext,
    documents: Annotated[list[DocumentArg], Field(description="1 to 1,000 documents.")],
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Queue each document (deduplicated by identity); one result per document, in order."""
    who = caller(ctx)
    check_request_count(len(documents), "documents")
    writer = await stored_write_scope(who, scope)
    return {"results": [await _queue_one(who, document, writer) for document in documents]}


TOOLS = (
    ToolSpec(
        "request_ingestion",
        request_ingestion_tool,
        "Queue documents to be indexed in the background and answer at once (use "
        "ingest_document instead when you must search them right away). Each result is a "
        "job (jobId, status QUEUED, DUPLICATE while the same version is in flight, SKIPPED "
        "when it is already indexed, position in its lane) or an error for that document "
        "alone; follow jobs with job_status.",
        read_only=False,
        idempotent=True,
    ),
)
