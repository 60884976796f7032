"""User knowledge's rules over fakes: kinds, URNs, validation, replacement, and the Markdown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.request import IngestStatus, KnowledgeType
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.memory.user_knowledge import (
    MAX_CONTENT,
    MAX_PER_CATEGORY,
    USER_KNOWLEDGE_KINDS,
    KnowledgeCategory,
    KnowledgeEntry,
    KnowledgeItem,
    assemble,
    category_kind,
    category_of,
    knowledge_urn,
    store_knowledge,
    user_context,
)
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps

SCOPE = Scope("acme", "web")
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
# A generated-looking AWS key id (not the documented example, which is a placeholder).
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"


def entry(subject: str = "Editor", content: str = "Uses vim", **extra: object) -> KnowledgeEntry:
    values: dict[str, object] = {"category": KnowledgeCategory.PREFERENCE, "scope": SCOPE}
    values.update(extra)
    return KnowledgeEntry(subject=subject, content=content, **values)  # type: ignore[arg-type]


def item(category: KnowledgeCategory, subject: str, content: str) -> KnowledgeItem:
    return KnowledgeItem(category, subject, content, WHEN, SCOPE)


class ListedItems:
    """A ``UserKnowledgeReader`` over a fixed list, recording what it was asked."""

    def __init__(self, items: Sequence[KnowledgeItem]) -> None:
        self.items = list(items)
        self.asked: list[tuple[Scope, int]] = []
        self.users: list[str | None] = []

    async def visible_items(
        self, reader: Scope, per_category: int, user_key: str | None = None
    ) -> list[KnowledgeItem]:
        self.asked.append((reader, per_category))
        self.users.append(user_key)
        return self.items


def test_each_category_is_a_lower_case_kind_and_back() -> None:
    assert category_kind(KnowledgeCategory.TECH_STACK) == "user_knowledge_tech_stack"
    assert len(set(USER_KNOWLEDGE_KINDS)) == 6
    assert all(category_of(category_kind(c)) is c for c in KnowledgeCategory)


def test_the_urn_depends_on_category_and_normalized_subject_only() -> None:
    preference = KnowledgeCategory.PREFERENCE
    same = knowledge_urn(preference, "  Code   Editor ")
    assert same == knowledge_urn(preference, "code editor")
    assert same != knowledge_urn(KnowledgeCategory.TEAM, "code editor")
    assert same != knowledge_urn(preference, "code editors")
    assert same.startswith("user-knowledge:preference:")
    assert "editor" not in same  # the subject's text never becomes an identifier


@pytest.mark.parametrize(
    ("changed", "field"),
    [
        ({"subject": "  "}, "subject"),
        ({"subject": "x" * 201}, "subject"),
        ({"subject": "two\nlines"}, "subject"),
        ({"content": " \n "}, "content"),
        ({"scope": Scope()}, "scope"),
    ],
)
async def test_invalid_entries_name_their_field_and_store_nothing(
    changed: dict[str, Any], field: str
) -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    with pytest.raises(ValidationError) as caught:
        await store_knowledge(replace(entry(), **changed), deps(store, embedder), 1)
    assert caught.value.field == field
    assert store.writes == 0 and embedder.batches == []


async def test_content_over_the_limit_is_too_large() -> None:
    with pytest.raises(TooLargeError) as caught:
        await store_knowledge(
            entry(content="a" * (MAX_CONTENT + 1)), deps(FakeStore(), FakeEmbedder()), 1
        )
    assert caught.value.field == "content"


@pytest.mark.parametrize(
    ("subject", "content", "field"),
    [(f"key {CREDENTIAL}", "fine", "subject"), ("Cloud", f"uses {CREDENTIAL}", "content")],
)
async def test_credentials_are_refused_before_anything_is_embedded(
    subject: str, content: str, field: str
) -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    with pytest.raises(SensitiveContentError) as caught:
        await store_knowledge(entry(subject, content), deps(store, embedder), 1)
    assert caught.value.field in (field, None)
    assert store.writes == 0 and embedder.batches == []


async def test_a_stored_entry_is_one_document_of_its_kind_at_interactive_priority() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    stored = await store_knowledge(
        entry(" Editor ", category=KnowledgeCategory.TECH_STACK), deps(store, embedder), 1
    )
    assert stored.kind == "user_knowledge_tech_stack"
    assert stored.outcome.status is IngestStatus.INDEXED
    [chunk] = store.chunks
    assert (chunk.kind, chunk.source_urn, chunk.scope) == (stored.kind, stored.source_urn, SCOPE)
    assert chunk.content == "Uses vim"
    assert chunk.metadata == {"subject": "Editor", "category": "TECH_STACK"}
    assert chunk.knowledge_type == KnowledgeType.FACT.value
    assert [priority for _, priority in embedder.calls] == [1]


async def test_storing_the_same_subject_again_replaces_it_and_same_content_is_skipped() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    first = await store_knowledge(entry("Editor", "Uses vim"), deps(store, embedder), 1)
    again = await store_knowledge(entry("Editor ", "Uses vim"), deps(store, embedder), 1)
    assert again.outcome.status is IngestStatus.SKIPPED_DUPLICATE
    changed = await store_knowledge(entry("EDITOR", "Uses emacs"), deps(store, embedder), 1)
    assert first.source_urn == again.source_urn == changed.source_urn
    assert changed.outcome.replaced.chunks == 1
    assert list(store.sources) == [first.source_urn]
    assert store.chunks[-1].metadata["subject"] == "EDITOR"  # the latest spelling is shown


async def test_user_context_groups_in_category_order_and_sorts_by_subject() -> None:
    reader = ListedItems(
        [
            item(KnowledgeCategory.GENERAL, "Timezone", "CET"),
            item(KnowledgeCategory.PREFERENCE, "tabs", "Spaces, four"),
            item(KnowledgeCategory.PREFERENCE, "Editor", "Uses vim\nwith plugins"),
        ]
    )
    found = await user_context(SCOPE, reader, 7)
    assert reader.asked == [(SCOPE, 7)]
    assert [group.category for group in found.categories] == list(KnowledgeCategory)
    preference = found.categories[0]
    assert [i.subject for i in preference.items] == ["Editor", "tabs"]
    assert found.markdown == (
        "## Preferences\n\n"
        "- **Editor**: Uses vim\n  with plugins\n"
        "- **tabs**: Spaces, four\n\n"
        "## General\n\n"
        "- **Timezone**: CET\n"
    )


def test_the_markdown_is_the_same_whatever_order_the_items_come_in() -> None:
    items = [
        item(KnowledgeCategory.TEAM, "b", "2"),
        item(KnowledgeCategory.TEAM, "a", "1"),
        item(KnowledgeCategory.DOMAIN, "c", "3"),
    ]
    assert assemble(items) == assemble(list(reversed(items)))


async def test_nothing_known_is_six_empty_categories_and_no_text() -> None:
    found = await user_context(SCOPE, ListedItems([]))
    assert [len(group.items) for group in found.categories] == [0] * 6
    assert found.markdown == ""


@pytest.mark.parametrize("per_category", [0, MAX_PER_CATEGORY + 1])
async def test_a_limit_out_of_range_is_refused_before_reading(per_category: int) -> None:
    reader = ListedItems([])
    with pytest.raises(ValidationError) as caught:
        await user_context(SCOPE, reader, per_category)
    assert caught.value.field == "limitPerCategory" and reader.asked == []
