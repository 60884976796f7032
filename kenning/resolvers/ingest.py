"""Resolver of the `ingest` mutation."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping

import strawberry

from kenning.domain.connections import ConnectionRevokedError, check_connection
from kenning.domain.errors import ScopeError, ValidationError
from kenning.domain.ingest import ingest
from kenning.domain.ingestion import IngestOutcome, IngestRequest
from kenning.domain.secrets import SecretPolicy
from kenning.domain.sensitive import SensitiveContentError
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_member
from kenning.resolvers.scope import write_scope
from kenning.schema.ingest import (
    EdgeTriple,
    IngestedChunk,
    IngestInput,
    IngestResult,
    IngestSuccess,
    IngestWarning,
)

logger = logging.getLogger("kenning.ingestion")


def to_request(info: Info, data: IngestInput) -> IngestRequest:
    """The domain request for a GraphQL input (scope decided by ``write_scope``)."""
    metadata: object = data.metadata if data.metadata is not None else {}
    if not isinstance(metadata, Mapping):
        raise ValidationError("metadata must be a JSON object", field="metadata")
    return IngestRequest(
        source_urn=data.source_urn,
        kind=data.kind,
        content=data.content,
        scope=write_scope(info, data.scope),
        main_node_key=data.main_node_key,
        knowledge_type=data.knowledge_type,
        info_type=data.info_type,
        tags=tuple(data.tags),
        metadata=dict(metadata),
        source_kind=data.source_kind,
        connection_id=data.connection_id,
        external_id=data.external_id,
        revision=data.revision,
        relationships=tuple(data.relationships),
        priority=data.priority,
    )


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
        warnings=[
            IngestWarning(source=w.source, line=w.line, excerpt=w.excerpt, reason=w.reason)
            for w in outcome.warnings
        ],
    )


async def resolve_ingest(info: Info, input: IngestInput) -> IngestResult:
    """Index one document now; expected failures come back as union members."""
    runtime = info.context.runtime
    deps = runtime.ingest_deps()
    if input.secret_policy is not None:
        deps = dataclasses.replace(deps, secret_policy=SecretPolicy(input.secret_policy.value))
    try:
        request = to_request(info, input)
        await check_connection(request, runtime.queue.connections)
        outcome = await ingest(request, deps)
    except ConnectionRevokedError as error:
        return error_member(error)
    except (ValidationError, SensitiveContentError, ScopeError) as error:
        logger.info(
            "ingestion.rejected",
            extra={"source_urn": input.source_urn, "code": error.code.value, "field": error.field},
        )
        return error_member(error)
    except Exception as error:
        logger.warning(
            "ingestion.failed",
            extra={"source_urn": input.source_urn, "error": type(error).__name__},
        )
        raise
    return to_success(outcome)
