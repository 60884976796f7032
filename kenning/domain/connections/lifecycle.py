"""Use cases of the connection lifecycle: register (and index a summary), sync cursors,
revoke (cancel queued work, purge what the connection produced)."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from kenning.domain.access.principal import Principal
from kenning.domain.errors import NotFoundError
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.ingestion.purge import purge_connection
from kenning.domain.ingestion.request import IngestRequest, PurgeCounts
from kenning.domain.ingestion.rules import check_identifiers
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy
from kenning.domain.ingestion.source_connections import (
    SUMMARY_KIND,
    ConnectionRegistry,
    ConnectionRevokedError,
    ConnectionSpec,
    ConnectionStatus,
    SourceConnection,
    SyncCursor,
    check_cursor,
    summary_document,
)
from kenning.domain.priorities import SUMMARY_PRIORITY
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity
from kenning.domain.queue.ports import JobQueue
from kenning.domain.queue.requests import request_ingestion

logger = logging.getLogger("kenning.ingestion")


@dataclass(frozen=True, slots=True)
class Registered:
    """A stored connection and the handle of its queued summary document."""

    connection: SourceConnection
    summary: EnqueueResult


@dataclass(frozen=True, slots=True)
class Revoked:
    """A revoked connection, how many queued jobs were cancelled, and what was purged."""

    connection: SourceConnection
    cancelled_jobs: int
    purged: PurgeCounts


def summary_urn(connection_id: str) -> str:
    """Where a connection's summary document is indexed."""
    return f"kenning:connection:{connection_id}"


async def register_connection(
    spec: ConnectionSpec, registry: ConnectionRegistry, queue: JobQueue
) -> Registered:
    """Store the connection and queue its summary (the secret check refuses credentials)."""
    content = summary_document(spec)
    # Nothing is stored when the label, root or owner hold a credential, nor when an
    # identifier does (the id is part of every URN of the connection).
    apply_policy(content, SecretPolicy.REJECT)
    check_identifiers(
        [
            ("connectionId", spec.connection_id),
            ("authority", spec.authority),
            *(
                (f"allowedSourceKinds[{i}]", kind)
                for i, kind in enumerate(spec.allowed_source_kinds)
            ),
        ]
    )
    existing = await registry.get(spec.scope.client_id, spec.connection_id)
    if existing is not None and existing.status is ConnectionStatus.REVOKED:
        raise ConnectionRevokedError(spec.connection_id)
    connection = await registry.register(spec)
    if connection.status is ConnectionStatus.REVOKED:  # revoked between the two calls
        raise ConnectionRevokedError(spec.connection_id)
    request = IngestRequest(
        source_urn=summary_urn(spec.connection_id),
        kind=SUMMARY_KIND,
        content=content,
        scope=spec.scope,
        source_kind=SUMMARY_KIND,
        connection_id=spec.connection_id,
        priority=SUMMARY_PRIORITY,
        metadata={"authority": spec.authority},
    )
    version = hashlib.sha256(content.encode()).hexdigest()[:32]
    summary = await request_ingestion(
        request,
        IngestionIdentity(SUMMARY_KIND, spec.connection_id, version),
        policy=SecretPolicy.REJECT,
        override=SecretPolicy.REJECT,
        queue=queue,
        connections=registry,
    )
    logger.info(
        "ingestion.connection.established",
        extra={
            "connection_id": spec.connection_id,
            "authority": spec.authority,
            "scope": spec.scope.describe(),
            "summary_job_id": summary.job_id,
        },
    )
    return Registered(connection, summary)


async def _owned(
    client_id: str, connection_id: str, caller: Principal, registry: ConnectionRegistry
) -> SourceConnection:
    found = await registry.get(client_id, connection_id)
    if found is None or not caller.scope.owns(found.spec.scope):
        raise NotFoundError(f"no connection {connection_id!r}", field="connectionId")
    caller.modifying(found.spec.scope)
    return found


async def update_sync_cursor(
    client_id: str,
    connection_id: str,
    name: str,
    value: str,
    caller: Principal,
    registry: ConnectionRegistry,
) -> SyncCursor:
    """Store where a connector stopped; refused once the connection is revoked."""
    check_cursor(name, value)
    found = await _owned(client_id, connection_id, caller, registry)
    if found.status is ConnectionStatus.REVOKED:
        raise ConnectionRevokedError(connection_id)
    cursor = await registry.set_cursor(client_id, connection_id, name, value)
    if cursor is None:
        raise ConnectionRevokedError(connection_id)
    return cursor


async def revoke_connection(
    client_id: str,
    connection_id: str,
    reason: str,
    caller: Principal,
    *,
    registry: ConnectionRegistry,
    queue: JobQueue,
    store: KnowledgeStore,
) -> Revoked:
    """Mark REVOKED first (so no running job can commit after the purge), cancel the queued
    jobs, then purge every source the connection produced, in every scope it wrote to.
    Revoking again repeats the purge, which finishes an interrupted one."""
    started = time.perf_counter()
    await _owned(client_id, connection_id, caller, registry)
    connection = await registry.revoke(client_id, connection_id, reason)
    cancelled = await queue.cancel_connection(client_id, connection_id)
    purged = PurgeCounts()
    for scope in await registry.source_scopes(client_id, connection_id):
        purged = purged + await purge_connection(scope, connection_id, store, queue)
    logger.info(
        "ingestion.connection.purged",
        extra={
            "connection_id": connection_id,
            "client_id": client_id,
            "reason": reason,
            "cancelled_jobs": cancelled,
            "sources": purged.sources,
            "chunks": purged.chunks,
            "evidence_removed": purged.evidence_removed,
            "edges_deleted": purged.edges_deleted,
            "vertices_deleted": purged.vertices_deleted,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return Revoked(connection, cancelled, purged)
