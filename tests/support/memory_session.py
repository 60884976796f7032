"""Session memory's test doubles (an in-memory ``SessionStore`` with a settable clock, a queue
that records what was enqueued) and its GraphQL documents."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.memory.session import NewSessionEntry, SessionDeps, SessionEntry, SessionKey
from kenning.domain.queue.jobs import EnqueueResult, HandleStatus
from kenning.domain.queue.ports import JobQueue, NewJob


class FakeSessionStore:
    """Entries in a list, with the same TTL, cap and order rules as ``PgSessionStore``."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
        self.rows: list[SessionEntry] = []
        self._ids = itertools.count(1)

    def tick(self, delta: timedelta = timedelta(seconds=1)) -> None:
        self.now += delta

    async def append(self, entry: NewSessionEntry, ttl: timedelta, keep: int) -> SessionEntry:
        self.tick()
        stored = SessionEntry(
            id=f"e{next(self._ids)}",
            client_id=entry.client_id,
            project_id=entry.project_id,
            group_id=entry.group_id,
            source=entry.source,
            summary=entry.summary,
            details=dict(entry.details),
            task_id=entry.task_id,
            promoted=entry.promoted,
            created_by=entry.created_by,
            created_at=self.now,
            expires_at=self.now + ttl,
            user_key=entry.owner.user_key,
            agent_id=entry.owner.agent_id,
        )
        self.rows.append(stored)
        mine = [
            r
            for r in self.rows
            if (r.client_id, r.project_id, r.group_id)
            == (entry.client_id, entry.project_id, entry.group_id)
        ]
        live = sorted((r for r in mine if r.expires_at > self.now), key=lambda r: r.created_at)
        dropped = {r.id for r in mine} - {r.id for r in live[-keep:]}
        self.rows = [r for r in self.rows if r.id not in dropped]
        return replace(stored)

    async def recent(
        self, session: SessionKey, limit: int, user_key: str | None = None
    ) -> list[SessionEntry]:
        key = (session.client_id, session.project_id, session.group_id)
        mine = [
            r
            for r in self.rows
            if (r.client_id, r.project_id, r.group_id) == key
            and r.expires_at > self.now
            and r.user_key in (None, user_key)
        ]
        return sorted(mine, key=lambda r: r.created_at, reverse=True)[:limit]

    async def prune_expired(self) -> int:
        before = len(self.rows)
        self.rows = [r for r in self.rows if r.expires_at > self.now]
        return before - len(self.rows)


class RecordingQueue:
    """Answers ``enqueue`` as a fresh QUEUED job and keeps each job it was given."""

    def __init__(self) -> None:
        self.jobs: list[NewJob] = []

    async def enqueue(self, job: NewJob) -> EnqueueResult:
        self.jobs.append(job)
        return EnqueueResult(f"job-{len(self.jobs)}", HandleStatus.QUEUED, len(self.jobs))


def session_deps(
    store: FakeSessionStore,
    queue: RecordingQueue,
    policy: SecretPolicy = SecretPolicy.REJECT,
    ttl: timedelta = timedelta(days=7),
) -> SessionDeps:
    """Deps over the fakes. A promotion names no connection, so the registry is never asked
    and the queue is only enqueued to: the casts stand for ports the use case does not call."""
    return SessionDeps(
        store=store,
        queue=cast(JobQueue, queue),
        connections=cast(ConnectionRegistry, None),
        policy=policy,
        ttl=ttl,
    )


APPEND = """mutation A($source: SessionSource!, $summary: String!, $details: JSON,
    $taskId: String, $promote: Boolean! = false, $scope: ScopeInput) {
  appendSessionEntry(source: $source, summary: $summary, details: $details, taskId: $taskId,
                     promote: $promote, scope: $scope) {
    __typename
    ... on AppendSessionEntrySuccess {
      entry { id source summary details taskId promoted createdBy createdAt expiresAt }
      promotion { jobId status } }
    ... on ValidationError { code field message }
    ... on SensitiveContentError { code field }
    ... on ScopeError { code field } } }"""
READ = """query S($limit: Int! = 50, $scope: ScopeInput) {
  sessionMemory(limit: $limit, scope: $scope) { id source summary details taskId promoted
    createdBy createdAt expiresAt } }"""


def entry_vars(summary: str, **extra: Any) -> dict[str, Any]:
    """Variables of ``APPEND``: a CHAT entry with ``summary`` unless told otherwise."""
    return {"source": "CHAT", "summary": summary, **extra}
