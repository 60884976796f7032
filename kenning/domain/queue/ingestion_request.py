"""A ``requestIngestion`` as GraphQL (``requestIngestion(s)``, ``resolvers/queue/jobs.py``)
and MCP (``request_ingestion``, ``mcp/document_tools.py``) both make it: the secret policy
(the request's override, else the server's), the extraction (the request's, else its kind's
setting), the job's identity and the queue, chosen once here for every face
(``requests.request_ingestion`` checks and queues).

The request arrives with its write scope already decided: GraphQL decides it per item,
``request_ingestion`` once for the whole batch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.models.health import ModelReadiness, accepted_by
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity
from kenning.domain.queue.ports import JobQueue
from kenning.domain.queue.requests import chosen_extraction, request_ingestion


@dataclass(frozen=True, slots=True)
class QueuePorts:
    """The queue, the connections and tombstones checked, and the server's defaults."""

    queue: JobQueue
    connections: ConnectionRegistry
    tombstones: WriteGuard | None
    secret_policy: SecretPolicy
    extraction_by_kind: Mapping[str, ExtractionMode]
    models: ModelReadiness


@dataclass(frozen=True, slots=True)
class QueueAsk:
    """One document to queue and what makes two requests for it the same work (``source_id``
    defaults to the source URN)."""

    request: IngestRequest
    source_kind: str
    content_version: str
    source_id: str | None = None
    secret_policy: SecretPolicy | None = None
    extraction: ExtractionMode | None = None


async def queue_ingestion(ask: QueueAsk, ports: QueuePorts) -> EnqueueResult:
    """Queue ``ask`` (deduplicated by identity) under the server's defaults."""
    request = ask.request
    extraction = chosen_extraction(ask.extraction, request.kind, ports.extraction_by_kind)
    if extraction is ExtractionMode.LLM:
        await accepted_by(ports.models, "extract")
    identity = IngestionIdentity(
        ask.source_kind, ask.source_id or request.source_urn, ask.content_version
    )
    return await request_ingestion(
        request,
        identity,
        policy=ask.secret_policy or ports.secret_policy,
        override=ask.secret_policy,
        queue=ports.queue,
        connections=ports.connections,
        extraction=extraction,
        tombstones=ports.tombstones,
    )
