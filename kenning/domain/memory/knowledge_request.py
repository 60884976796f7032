"""User knowledge's requests, as GraphQL and MCP make them: store a fact
(``storeKnowledge``, ``store_knowledge``), read the user's context (``userContext``,
``user_context``), forget a fact (``forgetKnowledge``, ``forget_knowledge``) and read an
item's versions (``knowledgeHistory``, ``get_history`` of kind ``knowledge``). Each settles
the caller's scope first, then runs the rules of ``user_knowledge`` and
``knowledge_versions``."""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.request import IngestStatus
from kenning.domain.memory.knowledge_versions import (
    KnowledgeDeps,
    KnowledgeVersion,
    KnowledgeVersionStore,
    forget_knowledge,
    knowledge_history,
    store_with_history,
)
from kenning.domain.memory.owners import owner_of, user_key_of
from kenning.domain.memory.pages import DEFAULT_PAGE, Page
from kenning.domain.memory.user_knowledge import (
    DEFAULT_PER_CATEGORY,
    KnowledgeCategory,
    KnowledgeEntry,
    UserContext,
    UserKnowledgeReader,
    user_context,
)
from kenning.domain.priorities import INGEST_PRIORITY


@dataclass(frozen=True, slots=True)
class StoreRequest:
    """A fact about the user to store; ``scope`` None is the key's own."""

    subject: str
    content: str
    category: KnowledgeCategory
    scope: Scope | None = None
    user_key: str | None = None
    agent_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class KnowledgeStored:
    """Where a fact went, what the ingest did with it, and whose it is (None: shared)."""

    source_urn: str
    kind: str
    category: KnowledgeCategory
    subject: str
    status: IngestStatus
    content_hash: str
    user_key: str | None


@dataclass(frozen=True, slots=True)
class ContextRead:
    """The user's context: the newest ``per_category`` items of each category."""

    scope: Scope | None = None
    per_category: int = DEFAULT_PER_CATEGORY
    user_key: str | None = None


@dataclass(frozen=True, slots=True)
class ItemRequest:
    """One item (category, subject, whose) to forget or read the versions of."""

    category: KnowledgeCategory
    subject: str
    user_key: str | None = None
    scope: Scope | None = None
    reason: str | None = None  # why it is forgotten
    first: int = DEFAULT_PAGE  # the page of its versions
    after: str | None = None


async def store_for(
    caller: CallerScope, request: StoreRequest, deps: KnowledgeDeps
) -> KnowledgeStored:
    """Store what is known about the user now (an agent waits on it: interactive priority);
    the version it replaces stays in the history."""
    owner = owner_of(request.user_key, request.agent_id)
    entry = KnowledgeEntry(
        subject=request.subject,
        content=request.content,
        category=request.category,
        scope=await caller.stored_writing(request.scope),
        owner=owner,
    )
    stored = await store_with_history(
        entry, deps, INGEST_PRIORITY, caller.principal.key_id, request.reason
    )
    return KnowledgeStored(
        source_urn=stored.source_urn,
        kind=stored.kind,
        category=request.category,
        subject=request.subject.strip(),
        status=stored.outcome.status,
        content_hash=stored.outcome.content_hash,
        user_key=owner.user_key,
    )


async def context_of_user(
    caller: CallerScope, request: ContextRead, store: UserKnowledgeReader
) -> UserContext:
    """Every category's items the caller may see for the user, and their Markdown."""
    reader = caller.reading(request.scope)
    return await user_context(reader, store, request.per_category, user_key_of(request.user_key))


async def forget_for(
    caller: CallerScope, request: ItemRequest, deps: KnowledgeDeps
) -> KnowledgeVersion:
    """Forget an item at once everywhere it is read; its history stays."""
    owner = owner_of(request.user_key, None)
    return await forget_knowledge(
        await caller.stored_writing(request.scope),
        request.category,
        request.subject,
        owner,
        deps,
        caller.principal.key_id,
        request.reason,
    )


async def history_for(
    caller: CallerScope, request: ItemRequest, store: KnowledgeVersionStore
) -> Page[KnowledgeVersion]:
    """One page of an item's versions the caller may see, newest first, forgotten ones
    included."""
    return await knowledge_history(
        caller.reading(request.scope),
        request.category,
        request.subject,
        owner_of(request.user_key, None),
        store,
        first=request.first,
        after=request.after,
    )
