"""User knowledge that keeps its past: every stored version, ``forget``, and the history.

``store_with_history`` stores an entry (``user_knowledge.store_knowledge``), then settles the
item's versions: under the item's lock the store reads what the item's chunks hold now, and
when that differs from the current version it supersedes it with the next one. A version is
therefore always what was indexed (redactions included), and two racing stores of one subject
end with the chunk's content as the current version. Replacing a version records an
``UPDATE`` in the change log.

``forget_knowledge`` purges the item's source (its chunks, so it leaves ``userContext``,
``agentContext`` and search at once, and the evidence they were), marks the current version
deleted (the history keeps it) and records a ``FORGET``. ``knowledge_history`` reads the
versions a page at a time, newest first, as the reader sees the item's scopes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ports import PurgedJobs
from kenning.domain.ingestion.purge import purge_source
from kenning.domain.ingestion.reasons import check_reason
from kenning.domain.memory.changes import Change, ChangeAction, ChangeLog, ItemKind
from kenning.domain.memory.owners import Owner
from kenning.domain.memory.pages import DEFAULT_PAGE, Page, before_of, check_first, page_of
from kenning.domain.memory.user_knowledge import (
    MAX_SUBJECT,
    KnowledgeCategory,
    KnowledgeEntry,
    StoredKnowledge,
    item_key,
    knowledge_urn,
    store_knowledge,
)

CURSOR: Final = "knowledge-history"


@dataclass(frozen=True, slots=True)
class KnowledgeItemRef:
    """One item: where it is stored, its source, category and user (None: shared)."""

    scope: Scope
    source_urn: str
    category: KnowledgeCategory
    user_key: str | None


@dataclass(frozen=True, slots=True)
class KnowledgeVersion:
    """One stored version of an item."""

    seq: int
    item: KnowledgeItemRef
    version: int
    subject: str
    content: str
    agent_id: str | None
    created_by: str
    created_at: datetime
    superseded_at: datetime | None
    deleted_at: datetime | None


@dataclass(frozen=True, slots=True)
class Settled:
    """What settling an item's versions did: the version replaced and the one added (both
    None when the item's content was already its current version)."""

    replaced: KnowledgeVersion | None = None
    added: KnowledgeVersion | None = None


class KnowledgeVersionStore(Protocol):
    """Where the versions live (``kenning.storage.memory.knowledge_versions``)."""

    async def settle(self, item: KnowledgeItemRef, created_by: str) -> Settled:
        """Under the item's lock, add what its chunks hold as the next version when it
        differs from the current one (or that one is deleted); nothing when no chunk."""
        ...

    async def forget(self, item: KnowledgeItemRef) -> KnowledgeVersion | None:
        """Mark the current version deleted; None when there is no undeleted one."""
        ...

    async def history(
        self, reader: Scope, source_urn: str, first: int, before: int | None
    ) -> list[KnowledgeVersion]:
        """Up to ``first`` versions of the source at every scope ``reader`` sees, older
        than ``before`` (newest when None), newest first."""
        ...


@dataclass(frozen=True, slots=True)
class KnowledgeDeps:
    """The ports storing, forgetting and reading versions run with."""

    ingest: IngestDeps
    versions: KnowledgeVersionStore
    changes: ChangeLog
    jobs: PurgedJobs


def item_ref(
    scope: Scope, category: KnowledgeCategory, subject: str, owner: Owner
) -> KnowledgeItemRef:
    """The item (category, subject) of ``owner``'s user at ``scope``."""
    urn = knowledge_urn(category, subject, owner.user_key)
    return KnowledgeItemRef(scope, urn, category, owner.user_key)


def version_json(version: KnowledgeVersion) -> dict[str, object]:
    """A version as the change log shows it."""
    return {
        "version": version.version,
        "subject": version.subject,
        "content": version.content,
        "agentId": version.agent_id,
    }


def version_change(
    old: KnowledgeVersion, new: KnowledgeVersion | None, by: str, reason: str | None
) -> Change:
    """The change from ``old`` to ``new`` (None: forgotten) of one item."""
    item = old.item
    return Change(
        kind=ItemKind.KNOWLEDGE,
        item_id=item.source_urn,
        item_key=item_key(item.category, old.subject),
        action=ChangeAction.UPDATE if new is not None else ChangeAction.FORGET,
        scope=item.scope,
        changed_by=by,
        old=version_json(old),
        new=None if new is None else version_json(new),
        reason=reason,
        user_key=item.user_key,
    )


async def store_with_history(
    entry: KnowledgeEntry, deps: KnowledgeDeps, priority: int, by: str, reason: str | None = None
) -> StoredKnowledge:
    """Store ``entry`` and keep the version it replaced (``UPDATE`` in the change log)."""
    why = check_reason(reason)
    stored = await store_knowledge(entry, deps.ingest, priority)
    ref = item_ref(entry.scope, entry.category, entry.subject, entry.owner)
    settled = await deps.versions.settle(ref, by)
    old, new = settled.replaced, settled.added
    # A store after a forget starts the item afresh: nothing it replaces was in force.
    if old is not None and new is not None and old.deleted_at is None:
        await deps.changes.record(version_change(old, new, by, why))
    return stored


def check_subject(subject: str) -> str:
    """The subject naming an item: one line of 1..200 characters."""
    if not subject.strip() or len(subject) > MAX_SUBJECT or any(ord(c) < 32 for c in subject):
        raise ValidationError(
            f"subject must be one line of 1..{MAX_SUBJECT} characters", field="subject"
        )
    return subject


async def forget_knowledge(
    target: Scope,
    category: KnowledgeCategory,
    subject: str,
    owner: Owner,
    deps: KnowledgeDeps,
    by: str,
    reason: str | None = None,
) -> KnowledgeVersion:
    """Purge the item at ``target`` and mark its current version deleted; ``NotFoundError``
    (on ``subject``) when it holds nothing there."""
    why = check_reason(reason)
    ref = item_ref(target, category, check_subject(subject), owner)
    # First the history holds what is about to go, even an item no store has versioned.
    await deps.versions.settle(ref, by)
    await purge_source(target, ref.source_urn, deps.ingest.store, deps.jobs)
    forgotten = await deps.versions.forget(ref)
    if forgotten is None:
        raise NotFoundError(f"no {category.value} item {subject.strip()!r} here", field="subject")
    await deps.changes.record(version_change(forgotten, None, by, why))
    return forgotten


async def knowledge_history(
    reader: Scope,
    category: KnowledgeCategory,
    subject: str,
    owner: Owner,
    store: KnowledgeVersionStore,
    *,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
) -> Page[KnowledgeVersion]:
    """One page of the item's versions ``reader`` may see, newest first, forgotten ones
    included."""
    check_first(first)
    before = before_of(CURSOR, after)
    ref = item_ref(reader, category, check_subject(subject), owner)
    found = await store.history(reader, ref.source_urn, first + 1, before)
    return page_of(CURSOR, found, first, lambda v: v.seq)
