"""Resolver of the `ingest` mutation: the input in, ``ingest_document``
(``kenning.domain.sources.document_ingest``, as MCP's ``ingest_document`` calls it), the
result out; a refused or failed ingest is logged here without its content."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import strawberry

from kenning.domain.errors import ScopeError, ValidationError
from kenning.domain.ingestion.extraction_warnings import ExtractionWarning
from kenning.domain.ingestion.request import IngestOutcome, IngestRequest
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import INGEST_PRIORITY
from kenning.domain.sources.document_ingest import DocumentIngest, ingest_document
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, stored_write_scope, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.extraction.model_errors import model_error_members
from kenning.schema.ingestion.ingest import (
    EdgeTriple,
    IngestedChunk,
    IngestInput,
    IngestResult,
    IngestSuccess,
    IngestWarning,
)

logger = logging.getLogger("kenning.ingestion")


def to_document(data: IngestInput, default_priority: int) -> DocumentIngest:
    """The domain request for a GraphQL input (its scope still the caller's to settle)."""
    policy = data.secret_policy
    return DocumentIngest(
        source_urn=data.source_urn,
        kind=data.kind,
        content=data.content,
        scope=to_scope(data.scope),
        main_node_key=data.main_node_key,
        knowledge_type=data.knowledge_type,
        info_type=data.info_type,
        tags=tuple(data.tags),
        metadata=_metadata(data.metadata),
        source_kind=data.source_kind,
        connection_id=data.connection_id,
        external_id=data.external_id,
        revision=data.revision,
        relationships=tuple(data.relationships),
        priority=default_priority if data.priority is None else data.priority,
        observed_at=data.observed_at,
        supersedes=tuple(data.supersedes or ()),
        extraction=data.extraction,
        secret_policy=SecretPolicy(policy.value) if policy is not None else None,
    )


async def to_request(info: Info, data: IngestInput, default_priority: int) -> IngestRequest:
    """The write path's request for a GraphQL input, at the scope ``stored_write_scope``
    settles (``ingestAsync`` queues it)."""
    asked = to_document(data, default_priority)
    return asked.at(await stored_write_scope(info, data.scope))


def to_success(outcome: IngestOutcome) -> IngestSuccess:
    """The GraphQL form of a successful ingest."""
    return IngestSuccess(
        status=outcome.status,
        content_hash=outcome.content_hash,
        chunks=[
            IngestedChunk(id=strawberry.ID(chunk_id), ordinal=i)
            for i, chunk_id in enumerate(outcome.chunk_ids)
        ],
        nodes=list(outcome.nodes),
        edges=[
            EdgeTriple(from_key=e.from_key, edge_type=e.edge_type, to_key=e.to_key)
            for e in outcome.edges
        ],
        warnings=to_warnings(outcome.warnings),
    )


def to_warnings(warnings: Sequence[ExtractionWarning]) -> list[IngestWarning]:
    """The GraphQL form of an ingest's warnings."""
    return [
        IngestWarning(
            source=w.source,
            line=w.line,
            excerpt=w.excerpt,
            reason=w.reason,
            key=w.key,
            normalized_key=w.normalized_key,
        )
        for w in warnings
    ]


@model_error_members
@error_members
async def resolve_ingest(info: Info, input: IngestInput) -> IngestResult:
    """Index one document now; expected failures come back as union members."""
    ports = info.context.runtime.document_ports()
    with _logged_failure(input):
        asked = to_document(input, INGEST_PRIORITY)
        done = await ingest_document(caller(info), asked, ports)
    outcome = done.outcome
    # A 2 MB document's result holds thousands of chunks, edges and warnings.
    items = len(outcome.chunk_ids) + len(outcome.edges) + len(outcome.warnings)
    success = await off_loop(items * 16, lambda: to_success(outcome))
    if done.extraction_job_id is not None:
        success.extraction_job_id = strawberry.ID(done.extraction_job_id)
    return success


@contextmanager
def _logged_failure(data: IngestInput) -> Iterator[None]:
    """Log a refused or failed ingest, then let the error go on to ``error_members``."""
    try:
        yield
    except ConnectionRevokedError:
        # The connection's state refused it, not the input or the server: nothing to log.
        raise
    except (ValidationError, SensitiveContentError, ScopeError) as error:
        # Field names and sizes only: the refused input may hold the very credential.
        logger.info(
            "ingestion.rejected",
            extra={"code": error.code.value, "field": error.field, **_sizes(data)},
        )
        raise
    except Exception as error:
        logger.warning("ingestion.failed", extra={"error": type(error).__name__, **_sizes(data)})
        raise


def _metadata(value: object) -> dict[str, object]:
    metadata = value if value is not None else {}
    if not isinstance(metadata, Mapping):
        raise ValidationError("metadata must be a JSON object", field="metadata")
    return dict(metadata)


def _sizes(data: IngestInput) -> dict[str, int]:
    return {"source_urn_chars": len(data.source_urn), "content_chars": len(data.content)}
