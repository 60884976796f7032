"""What is known about the user: facts stored per category, prefetched without embedding.

``store_knowledge`` writes one document of kind ``user_knowledge_<category>`` through the
synchronous ingest (so it is searchable like any knowledge and readable at once); its source
URN comes from the category, the normalized subject and the user it belongs to (none for a
shared item), so storing the same subject again replaces the content instead of adding a
second item; ``knowledge_versions`` keeps what was replaced. ``user_context`` reads every
category's items in one call to a ``UserKnowledgeReader`` (no embedding, no search) and
formats them as Markdown: a ``##`` header per category that has items, in
``KnowledgeCategory`` order, items by subject. When the reader sees the same subject at two
scopes (say client-wide and in its project), the narrower one wins, as a project's rule
overrides its client's. A read for one user sees that user's items and the shared ones
(``owners``); a read for no user the shared ones only.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.request import IngestOutcome, IngestRequest, KnowledgeType
from kenning.domain.ingestion.rules import check_identifiers
from kenning.domain.memory.owners import SHARED, Owner


class KnowledgeCategory(StrEnum):
    """What a piece of user knowledge is about; the order is the Markdown's."""

    PREFERENCE = "PREFERENCE"
    DOMAIN = "DOMAIN"
    TEAM = "TEAM"
    TECH_STACK = "TECH_STACK"
    PERSONAL = "PERSONAL"
    GENERAL = "GENERAL"


KIND_PREFIX: Final = "user_knowledge_"
SOURCE_KIND: Final = "user_knowledge"
# agentContext routes pieces by info type: user knowledge belongs to the user's profile.
INFO_TYPE: Final = "user_profile"
MAX_SUBJECT: Final = 200
MAX_CONTENT: Final = 4000
DEFAULT_PER_CATEGORY: Final = 100
MAX_PER_CATEGORY: Final = 500
_TITLES: Final = {
    KnowledgeCategory.PREFERENCE: "Preferences",
    KnowledgeCategory.DOMAIN: "Domain",
    KnowledgeCategory.TEAM: "Team",
    KnowledgeCategory.TECH_STACK: "Tech stack",
    KnowledgeCategory.PERSONAL: "Personal",
    KnowledgeCategory.GENERAL: "General",
}


def category_kind(category: KnowledgeCategory) -> str:
    """The chunk kind of a category. Example: ``TECH_STACK`` -> ``user_knowledge_tech_stack``."""
    return KIND_PREFIX + category.value.lower()


USER_KNOWLEDGE_KINDS: Final = tuple(category_kind(c) for c in KnowledgeCategory)
_CATEGORY_OF_KIND: Final = {category_kind(c): c for c in KnowledgeCategory}


def category_of(kind: str) -> KnowledgeCategory:
    """The category a ``user_knowledge_*`` kind stands for."""
    return _CATEGORY_OF_KIND[kind]


def normalized_subject(subject: str) -> str:
    """The subject as it identifies an item: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", subject).casefold().split())


def knowledge_urn(category: KnowledgeCategory, subject: str, user_key: str | None = None) -> str:
    """The source URN of (category, subject) for ``user_key`` (None: shared); a digest, so
    neither the subject nor the user becomes an identifier. Example:
    ``user-knowledge:preference:3f2a...``; one user's item has ``user-knowledge:preference:u:``
    before its digest, and two users' items of one subject never share a URN."""
    named = normalized_subject(subject)
    if user_key is None:
        digest = hashlib.sha256(named.encode()).hexdigest()[:32]
        return f"user-knowledge:{category.value.lower()}:{digest}"
    # The unit separator keeps ("a", "b c") and ("a b", "c") apart; neither part holds one.
    digest = hashlib.sha256(f"{user_key}\x1f{named}".encode()).hexdigest()[:32]
    return f"user-knowledge:{category.value.lower()}:u:{digest}"


def item_key(category: KnowledgeCategory, subject: str) -> str:
    """How the change log names an item: ``PREFERENCE:code editor`` (normalized subject)."""
    return f"{category.value}:{normalized_subject(subject)}"


@dataclass(frozen=True, slots=True)
class KnowledgeEntry:
    """One thing an agent learned about the user, to store at ``scope``."""

    subject: str
    content: str
    category: KnowledgeCategory
    scope: Scope
    owner: Owner = SHARED


@dataclass(frozen=True, slots=True)
class KnowledgeItem:
    """A stored item as the user context shows it."""

    category: KnowledgeCategory
    subject: str
    content: str
    updated_at: datetime
    scope: Scope
    user_key: str | None = None  # None: shared
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class CategoryItems:
    """One category's items, by subject."""

    category: KnowledgeCategory
    items: tuple[KnowledgeItem, ...]


@dataclass(frozen=True, slots=True)
class UserContext:
    """Every category (empty ones too, in order) and the one Markdown text."""

    categories: tuple[CategoryItems, ...]
    markdown: str


@dataclass(frozen=True, slots=True)
class StoredKnowledge:
    """Where an entry went and what the ingest did with it."""

    source_urn: str
    kind: str
    outcome: IngestOutcome


class UserKnowledgeReader(Protocol):
    """Reads user knowledge without embedding anything."""

    async def visible_items(
        self, reader: Scope, per_category: int, user_key: str | None = None
    ) -> list[KnowledgeItem]:
        """Per category, the ``per_category`` most recently updated items ``reader`` may
        see, shared or ``user_key``'s, one per subject and user (the narrowest scope's), in
        any order."""
        ...


def validate_entry(entry: KnowledgeEntry) -> None:
    """Raise ``ValidationError`` naming the field that cannot be stored."""
    if not entry.scope.client_id:
        raise ValidationError("user knowledge belongs to a client: name one", field="scope")
    if not entry.subject.strip():
        raise ValidationError("subject must not be empty", field="subject")
    if len(entry.subject) > MAX_SUBJECT or any(ord(c) < 32 for c in entry.subject):
        raise ValidationError(
            f"subject must be one line of at most {MAX_SUBJECT} characters", field="subject"
        )
    if not entry.content.strip():
        raise ValidationError("content must not be empty", field="content")
    if len(entry.content) > MAX_CONTENT:
        raise TooLargeError(f"content must be at most {MAX_CONTENT} characters", field="content")


def knowledge_request(entry: KnowledgeEntry, priority: int) -> IngestRequest:
    """The ingest request storing ``entry`` (checked with ``validate_entry`` first)."""
    is_preference = entry.category is KnowledgeCategory.PREFERENCE
    metadata: dict[str, object] = {
        "subject": entry.subject.strip(),
        "category": entry.category.value,
    }
    if entry.owner.user_key is not None:
        metadata["userKey"] = entry.owner.user_key
    if entry.owner.agent_id is not None:
        metadata["agentId"] = entry.owner.agent_id
    return IngestRequest(
        source_urn=knowledge_urn(entry.category, entry.subject, entry.owner.user_key),
        kind=category_kind(entry.category),
        content=entry.content,
        scope=entry.scope,
        knowledge_type=KnowledgeType.PREFERENCE if is_preference else KnowledgeType.FACT,
        info_type=INFO_TYPE,
        metadata=metadata,
        source_kind=SOURCE_KIND,
        priority=priority,
    )


async def store_knowledge(
    entry: KnowledgeEntry, deps: IngestDeps, priority: int
) -> StoredKnowledge:
    """Store (or replace) the entry's document now; credentials are refused as in ingest."""
    validate_entry(entry)
    # The subject names the item: refused with a credential whatever the policy, as a URN is.
    check_identifiers([("subject", entry.subject)])
    if deps.tombstones is not None:
        # The subject and user name the item, as a URN does: refused when they name an
        # erased subject, whatever the mode.
        await deps.tombstones.guarded_fields(
            entry.scope.client_id,
            {"subject": entry.subject, "userKey": entry.owner.user_key or ""},
            identifiers=("subject", "userKey"),
        )
    request = knowledge_request(entry, priority)
    outcome = await ingest(request, deps)
    return StoredKnowledge(request.source_urn, request.kind, outcome)


def check_per_category(per_category: int) -> None:
    """Raise ``ValidationError`` unless 1 <= per_category <= ``MAX_PER_CATEGORY``."""
    if not 1 <= per_category <= MAX_PER_CATEGORY:
        raise ValidationError(
            f"limitPerCategory must be between 1 and {MAX_PER_CATEGORY}", field="limitPerCategory"
        )


async def user_context(
    reader: Scope,
    store: UserKnowledgeReader,
    per_category: int = DEFAULT_PER_CATEGORY,
    user_key: str | None = None,
) -> UserContext:
    """Every category's items ``reader`` may see for ``user_key`` (its own and the shared
    ones; None: the shared ones), and their Markdown; embeds nothing."""
    check_per_category(per_category)
    return assemble(await store.visible_items(reader, per_category, user_key))


def own_first(items: Sequence[KnowledgeItem]) -> list[KnowledgeItem]:
    """The items with each shared one dropped where the user has one of the same category
    and subject: the user's own is narrower, as a project's rule is than its client's."""
    owned = {(i.category, normalized_subject(i.subject)) for i in items if i.user_key}
    return [
        i for i in items if i.user_key or (i.category, normalized_subject(i.subject)) not in owned
    ]


def assemble(items: Sequence[KnowledgeItem]) -> UserContext:
    """Items grouped by category in ``KnowledgeCategory`` order, by subject inside each;
    a user's own item replaces the shared one of its subject."""
    ordered = sorted(own_first(items), key=lambda i: (normalized_subject(i.subject), i.subject))
    categories = tuple(
        CategoryItems(category, tuple(i for i in ordered if i.category is category))
        for category in KnowledgeCategory
    )
    return UserContext(categories, markdown(categories))


def markdown(categories: Sequence[CategoryItems]) -> str:
    """A ``## <category>`` header per category with items, one bullet per item; "" if none."""
    blocks = [
        "\n".join([f"## {_TITLES[group.category]}", "", *map(_bullet, group.items)])
        for group in categories
        if group.items
    ]
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _bullet(item: KnowledgeItem) -> str:
    # Continuation lines are indented so a multi-line content stays inside its bullet.
    lines = item.content.strip().splitlines() or [""]
    rest = "".join(f"\n  {line}" if line.strip() else "\n" for line in lines[1:])
    return f"- **{item.subject}**: {lines[0]}{rest}"
