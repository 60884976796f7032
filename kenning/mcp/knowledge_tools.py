"""The tool that writes a document into the knowledge base now (``ingest_document``).

It calls the use case the GraphQL ``ingest`` resolver calls (``resolvers/ingestion/ingest.py``):
``kenning.domain.sources.document_ingest.ingest_document``, with the same checks, secret
policy and extraction choice.
"""

from __future__ import annotations

from typing import Any

from kenning.domain.ingestion.request import IngestOutcome, KnowledgeType
from kenning.domain.off_loop import off_loop
from kenning.domain.sources.document_ingest import (
    DocumentIngest,
    IngestedDocument,
    ingest_document,
)
from kenning.mcp.calls import (
    NarrowScope,
    ScopeArg,
    ToolContext,
    caller,
    domain_errors,
    plain,
    time_argument,
    to_scope,
)
from kenning.mcp.ingest_arguments import (
    Content,
    Extraction,
    InfoType,
    Kind,
    MainNodeKey,
    Metadata,
    ObservedAt,
    Relationships,
    SourceUrn,
    Supersedes,
    Tags,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def ingest_document_tool(
    ctx: ToolContext,
    source_urn: SourceUrn,
    kind: Kind,
    content: Content,
    main_node_key: MainNodeKey = None,
    knowledge_type: KnowledgeType | None = None,
    info_type: InfoType = None,
    tags: Tags = None,
    metadata: Metadata = None,
    relationships: Relationships = None,
    scope: NarrowScope = None,
    extraction: Extraction = None,
    observed_at: ObservedAt = None,
    supersedes: Supersedes = None,
) -> dict[str, Any]:
    """Index one document now, at the agents' interactive priority, as ``ingest`` does."""
    who = caller(ctx)
    # The arguments are named as DocumentIngest's fields (the context aside).
    asked = _document(**{name: v for name, v in locals().items() if name not in ("ctx", "who")})
    done = await ingest_document(who.scoped, asked, who.runtime.document_ports())
    return await _answer(done)


def _document(
    scope: ScopeArg | None,
    observed_at: str | None,
    metadata: dict[str, Any] | None,
    **given: Any,
) -> DocumentIngest:
    """The domain request for the tool's arguments: lists as tuples, the time parsed."""
    lists = {name: tuple(given.pop(name) or ()) for name in ("tags", "relationships", "supersedes")}
    return DocumentIngest(
        **{**given, **lists},
        scope=to_scope(scope),
        metadata=dict(metadata or {}),
        observed_at=time_argument(observed_at, "observed_at"),
    )


async def _answer(done: IngestedDocument) -> dict[str, Any]:
    """The stored document as JSON, with its extraction job when one was queued."""
    outcome = done.outcome
    items = len(outcome.chunk_ids) + len(outcome.edges) + len(outcome.warnings)
    # A large document's answer holds thousands of items: built off the event loop.
    answer = await off_loop(items * 16, lambda: _ingested(outcome))
    if done.extraction_job_id is not None:
        answer["extractionJobId"] = done.extraction_job_id
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
