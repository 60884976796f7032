"""A document written now, as GraphQL's ``ingest`` and MCP's ``ingest_document`` ask for it:
the scope settled for the caller, the identifiers checked first (a credential in one never
reaches a query), then the connection, the extraction chosen, the document stored
(``kenning.domain.ingestion.ingest``) and, with LLM extraction, its graph extraction queued.

Example::

    done = await ingest_document(caller, DocumentIngest("doc:a", "note", "text"), ports)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.request import IngestOutcome, IngestRequest, KnowledgeType
from kenning.domain.ingestion.rules import (
    check_identifiers,
    check_write_connection,
    identifier_fields,
)
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.models.health import ModelReadiness, accepted_by
from kenning.domain.priorities import INGEST_PRIORITY
from kenning.domain.queue.ports import JobQueue
from kenning.domain.queue.requests import chosen_extraction, request_extraction


@dataclass(frozen=True, slots=True)
class DocumentIngest:
    """One document as a caller asks for it: ``IngestRequest``'s fields at ``scope`` (None:
    the key's own), with the extraction and secret policy it asks for (None: the server's)."""

    source_urn: str
    kind: str
    content: str
    scope: Scope | None = None
    main_node_key: str | None = None
    knowledge_type: KnowledgeType | None = None
    info_type: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, object] = field(default_factory=dict)
    source_kind: str | None = None
    connection_id: str | None = None
    external_id: str | None = None
    revision: str | None = None
    relationships: tuple[str, ...] = ()
    priority: int = INGEST_PRIORITY
    observed_at: datetime | None = None
    supersedes: tuple[str, ...] = ()
    extraction: ExtractionMode | None = None
    secret_policy: SecretPolicy | None = None

    def at(self, scope: Scope) -> IngestRequest:
        """The document as the write path takes it, at the settled ``scope``."""
        given = {f.name: getattr(self, f.name) for f in dataclasses.fields(IngestRequest)}
        return IngestRequest(**{**given, "scope": scope})


@dataclass(frozen=True, slots=True)
class DocumentPorts:
    """What a document ingest runs with: the write path's ports, the connections, the job
    queue and the server's extraction settings (per kind, and the extraction model)."""

    ingest: IngestDeps
    connections: ConnectionRegistry
    jobs: JobQueue
    extraction_by_kind: Mapping[str, ExtractionMode]
    extract_model: str
    models: ModelReadiness


@dataclass(frozen=True, slots=True)
class IngestedDocument:
    """The stored document, and its extraction job when the model reads it (LLM)."""

    outcome: IngestOutcome
    extraction_job_id: str | None = None


async def ingest_document(
    caller: CallerScope, asked: DocumentIngest, ports: DocumentPorts
) -> IngestedDocument:
    """Store ``asked`` now at the caller's write scope; queue its graph extraction (LLM)."""
    request = asked.at(await caller.stored_writing(asked.scope))
    # Identifiers first: a credential in connectionId must not reach a query.
    check_identifiers(identifier_fields(request))
    await check_write_connection(
        request.scope, request.connection_id, request.source_kind, ports.connections
    )
    mode = chosen_extraction(asked.extraction, request.kind, ports.extraction_by_kind)
    if mode is ExtractionMode.LLM:
        await accepted_by(ports.models, "extract")
    deps = ports.ingest
    if asked.secret_policy is not None:
        deps = dataclasses.replace(deps, secret_policy=asked.secret_policy)
    outcome = await ingest(request, deps)
    if mode is not ExtractionMode.LLM:
        return IngestedDocument(outcome)
    # The chunks and written references are stored; the model's graph follows in the
    # background lane (the same job again when the content is unchanged).
    queued = await request_extraction(
        request.scope,
        request.source_urn,
        outcome.content_hash,
        model=ports.extract_model,
        queue=ports.jobs,
    )
    return IngestedDocument(outcome, queued.job_id)
