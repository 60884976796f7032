"""Session memory: a short, bounded log of what happened in an agent session, per client and
project, newest first and visible at once (no queue).

Entries expire after the server's TTL (``KENNING_SESSION_TTL_DAYS``) and each client and
project keeps at most ``MAX_ENTRIES`` (appending more drops the oldest, atomically). An entry
appended with ``promote`` is also queued for the knowledge base in the background lane.
An entry may belong to one user (``owners``): a read for that user sees it beside the shared
ones, a read for anyone else never does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError, TooLargeError, ValidationError
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.ingestion.request import IngestRequest, KnowledgeType
from kenning.domain.ingestion.rules import check_identifiers, clean_content, clean_metadata
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.memory.owners import SHARED, Owner
from kenning.domain.priorities import PROMOTION_PRIORITY
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity
from kenning.domain.queue.ports import JobQueue
from kenning.domain.queue.requests import request_ingestion

MAX_SUMMARY: Final = 200
MAX_DETAILS_BYTES: Final = 16_384
MAX_TASK_ID: Final = 200
# Per client and project; appending the 51st drops the oldest.
MAX_ENTRIES: Final = 50
PROMOTED_KIND: Final = "session_entry"


class SessionSource(StrEnum):
    """Where a session entry came from."""

    CHAT = "CHAT"
    BACKGROUND = "BACKGROUND"
    ORCHESTRATOR_DECISION = "ORCHESTRATOR_DECISION"


@dataclass(frozen=True, slots=True)
class SessionDraft:
    """What a caller appends, before it is checked."""

    source: SessionSource | str
    summary: str
    details: object = None
    task_id: str | None = None
    promote: bool = False
    owner: Owner = SHARED


@dataclass(frozen=True, slots=True)
class NewSessionEntry:
    """A checked entry, ready to store in its client's and project's session."""

    client_id: str
    project_id: str
    source: SessionSource
    summary: str
    details: Mapping[str, object]
    task_id: str | None
    promoted: bool
    created_by: str
    group_id: str = ""  # a group scope's own session (see SessionKey)
    owner: Owner = SHARED


@dataclass(frozen=True, slots=True)
class SessionEntry:
    """A stored session entry."""

    id: str
    client_id: str
    project_id: str
    source: SessionSource
    summary: str
    details: Mapping[str, object]
    task_id: str | None
    promoted: bool
    created_by: str
    created_at: datetime
    expires_at: datetime
    group_id: str = ""
    user_key: str | None = None  # None: everyone's of the session
    agent_id: str | None = None


class SessionStore(Protocol):
    """Where session entries live (PostgreSQL, so a Redis or server restart loses none)."""

    async def append(self, entry: NewSessionEntry, ttl: timedelta, keep: int) -> SessionEntry:
        """Store ``entry`` for ``ttl``, keeping its session's ``keep`` newest (races too)."""
        ...

    async def recent(
        self, session: SessionKey, limit: int, user_key: str | None = None
    ) -> list[SessionEntry]:
        """The newest unexpired entries of one session, newest first: the shared ones and
        ``user_key``'s."""
        ...

    async def prune_expired(self) -> int:
        """Delete expired entries of every session; how many went."""
        ...


@dataclass(frozen=True, slots=True)
class SessionDeps:
    """The ports and policies an append runs with."""

    store: SessionStore
    queue: JobQueue
    connections: ConnectionRegistry
    policy: SecretPolicy
    ttl: timedelta = field(default=timedelta(days=7))
    # The client's erased subjects (kenning.domain.erasure.tombstone); None: none checked.
    guard: WriteGuard | None = None


@dataclass(frozen=True, slots=True)
class Appended:
    """A stored entry, and the queued ingestion of it when it was promoted."""

    entry: SessionEntry
    promotion: EnqueueResult | None


@dataclass(frozen=True, slots=True)
class SessionKey:
    """Which session: a project's, a group's (a group scope with no project) or the
    client's. A group's session is its own, as its chunks are: another group of the client
    never reads it."""

    client_id: str
    project_id: str
    group_id: str


def session_key(scope: Scope) -> SessionKey:
    """The session a scope reads or writes; a session needs a client."""
    if not scope.client_id:
        raise ScopeError("session memory belongs to a client: name one in scope", field="scope")
    group = "" if scope.project_id else scope.group_id
    return SessionKey(scope.client_id, scope.project_id, group)


def checked_source(source: SessionSource | str) -> SessionSource:
    """The source as the enum; anything else is a ValidationError naming ``source``."""
    try:
        return SessionSource(source)
    except ValueError:
        names = ", ".join(SessionSource)
        raise ValidationError(f"source must be one of {names}", field="source") from None


def checked_summary(summary: str, policy: SecretPolicy) -> str:
    """The summary under the secret policy: 1..200 characters, before and after redaction."""
    if not summary.strip():
        raise ValidationError("summary is empty", field="summary")
    if len(summary) > MAX_SUMMARY:
        raise ValidationError(f"summary exceeds {MAX_SUMMARY} characters", field="summary")
    cleaned = clean_content(summary, policy, field="summary")
    if len(cleaned) > MAX_SUMMARY:
        raise ValidationError(
            f"summary exceeds {MAX_SUMMARY} characters once its credentials are redacted",
            field="summary",
        )
    return cleaned


def checked_details(details: object, policy: SecretPolicy) -> dict[str, object]:
    """The details as a JSON object of at most ``MAX_DETAILS_BYTES``, under the policy."""
    if details is None:
        return {}
    if not isinstance(details, Mapping):
        raise ValidationError("details must be a JSON object", field="details")
    try:
        encoded = json.dumps(details, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValidationError("details must be JSON", field="details") from error
    if len(encoded.encode()) > MAX_DETAILS_BYTES:
        raise TooLargeError(f"details exceed {MAX_DETAILS_BYTES} bytes", field="details")
    return clean_metadata(details, policy, field="details")


def checked_task_id(task_id: str | None) -> str | None:
    """The task id: None, or 1..200 printable characters holding no credential."""
    if task_id is None:
        return None
    if not task_id.strip() or len(task_id) > MAX_TASK_ID or any(ord(c) < 32 for c in task_id):
        raise ValidationError(
            f"taskId must be 1..{MAX_TASK_ID} printable characters", field="taskId"
        )
    check_identifiers([("taskId", task_id)])
    return task_id


def new_entry(
    draft: SessionDraft, writer: Scope, key_id: str, policy: SecretPolicy
) -> NewSessionEntry:
    """The draft checked field by field (the first bad one named) for ``writer``'s session."""
    session = session_key(writer)
    return NewSessionEntry(
        client_id=session.client_id,
        project_id=session.project_id,
        group_id=session.group_id,
        source=checked_source(draft.source),
        summary=checked_summary(draft.summary, policy),
        details=checked_details(draft.details, policy),
        task_id=checked_task_id(draft.task_id),
        promoted=draft.promote,
        created_by=key_id,
        owner=draft.owner,
    )


def promotion_document(entry: SessionEntry) -> str:
    """The Markdown a promoted entry is indexed as."""
    lines = [f"# Session entry: {entry.summary}", "", f"- Source: {entry.source.value}"]
    if entry.task_id is not None:
        lines.append(f"- Task: {entry.task_id}")
    lines.append(f"- Recorded: {entry.created_at.isoformat()}")
    if entry.details:
        details = json.dumps(entry.details, indent=2, sort_keys=True, ensure_ascii=False)
        lines += ["", "## Details", "", "```json", details, "```"]
    return "\n".join(lines) + "\n"


def promotion_request(entry: SessionEntry, writer: Scope) -> IngestRequest:
    """The ingestion a promoted entry becomes, at the scope it was written at."""
    metadata: dict[str, object] = {"sessionEntryId": entry.id, "source": entry.source.value}
    if entry.task_id is not None:
        metadata["taskId"] = entry.task_id
    return IngestRequest(
        source_urn=f"session-entry:{entry.id}",
        kind=PROMOTED_KIND,
        content=promotion_document(entry),
        scope=writer,
        knowledge_type=KnowledgeType.EPISODIC,
        info_type="session",
        tags=("session", entry.source.value.lower()),
        metadata=metadata,
        source_kind=PROMOTED_KIND,
        priority=PROMOTION_PRIORITY,
    )


async def append_session_entry(
    draft: SessionDraft, writer: Scope, key_id: str, deps: SessionDeps
) -> Appended:
    """Store a checked entry in ``writer``'s session now; queue its ingestion if promoted."""
    if deps.guard is not None:
        kept = await deps.guard.guarded_fields(
            writer.client_id,
            {
                "summary": draft.summary,
                "details": draft.details,
                "userKey": draft.owner.user_key or "",
            },
            identifiers=("userKey",),
        )
        draft = replace(draft, summary=str(kept["summary"]), details=kept["details"])
    checked = new_entry(draft, writer, key_id, deps.policy)
    entry = await deps.store.append(checked, deps.ttl, MAX_ENTRIES)
    await deps.store.prune_expired()
    if not checked.promoted:
        return Appended(entry, None)
    promotion = await request_ingestion(
        promotion_request(entry, writer),
        IngestionIdentity(PROMOTED_KIND, entry.id, "v1"),
        policy=deps.policy,
        override=None,
        queue=deps.queue,
        connections=deps.connections,
    )
    return Appended(entry, promotion)


async def session_memory(
    reader: Scope, limit: int, store: SessionStore, user_key: str | None = None
) -> list[SessionEntry]:
    """The newest ``limit`` (1..50) unexpired entries of ``reader``'s session for
    ``user_key`` (theirs and the shared ones; None: the shared ones), newest first."""
    if not 1 <= limit <= MAX_ENTRIES:
        raise ValidationError(f"limit must be 1..{MAX_ENTRIES}", field="limit")
    return await store.recent(session_key(reader), limit, user_key)
