"""Session memory's rules without I/O: checks, TTL, cap, order and promotion."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError, TooLargeError, ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.memory.session import (
    MAX_DETAILS_BYTES,
    MAX_ENTRIES,
    SessionDraft,
    SessionSource,
    append_session_entry,
    session_memory,
)
from kenning.domain.priorities import PROMOTION_PRIORITY
from kenning.domain.queue.jobs import Lane, lane_of
from kenning.domain.queue.payload import from_payload
from tests.support.memory_session import FakeSessionStore, RecordingQueue, session_deps

ACME = Scope("acme", "web")
AWS_KEY = "AKIAIOSFODNN7EXAMPLF"


async def append(store: FakeSessionStore, draft: SessionDraft, **deps: object) -> object:
    return await append_session_entry(
        draft,
        ACME,
        "key-1",
        session_deps(store, RecordingQueue(), **deps),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("draft", "field"),
    [
        (SessionDraft("CHAT", "x" * 201), "summary"),
        (SessionDraft("CHAT", "   "), "summary"),
        (SessionDraft("SMALLTALK", "hello"), "source"),
        (SessionDraft("CHAT", "hello", details=[1, 2]), "details"),
        (SessionDraft("CHAT", "hello", details={"x": float("nan")}), "details"),
        (SessionDraft("CHAT", "hello", task_id=""), "taskId"),
        (SessionDraft("CHAT", "hello", task_id="t" * 201), "taskId"),
        (SessionDraft("CHAT", "hello", task_id="a\nb"), "taskId"),
    ],
)
async def test_an_invalid_field_is_a_validation_error_naming_it(
    draft: SessionDraft, field: str
) -> None:
    store = FakeSessionStore()
    with pytest.raises(ValidationError) as raised:
        await append(store, draft)
    assert raised.value.field == field
    assert store.rows == []


async def test_a_summary_of_exactly_200_characters_is_kept_whole() -> None:
    store = FakeSessionStore()
    await append(store, SessionDraft(SessionSource.BACKGROUND, "y" * 200))
    assert [r.summary for r in store.rows] == ["y" * 200]


async def test_details_over_the_size_bound_are_too_large() -> None:
    big = {"text": "z" * MAX_DETAILS_BYTES}
    with pytest.raises(TooLargeError) as raised:
        await append(FakeSessionStore(), SessionDraft("CHAT", "hello", details=big))
    assert raised.value.field == "details"


@pytest.mark.parametrize(
    ("draft", "field"),
    [
        (SessionDraft("CHAT", f"deploy with {AWS_KEY}"), "summary"),
        (SessionDraft("CHAT", "deploy", details={"env": {"key": AWS_KEY}}), "details.env.key"),
        (SessionDraft("CHAT", "deploy", task_id=AWS_KEY), "taskId"),
    ],
)
async def test_credentials_are_refused_under_reject(draft: SessionDraft, field: str) -> None:
    store = FakeSessionStore()
    with pytest.raises(SensitiveContentError) as raised:
        await append(store, draft)
    assert raised.value.field == field
    assert store.rows == []


async def test_credentials_are_redacted_under_redact() -> None:
    store = FakeSessionStore()
    draft = SessionDraft("CHAT", f"used {AWS_KEY}", details={"key": AWS_KEY})
    await append(store, draft, policy=SecretPolicy.REDACT)
    (row,) = store.rows
    assert AWS_KEY not in row.summary and AWS_KEY not in json.dumps(row.details)
    assert row.summary.startswith("used ")


async def test_a_session_needs_a_client() -> None:
    deps = session_deps(FakeSessionStore(), RecordingQueue())
    with pytest.raises(ScopeError):
        await append_session_entry(SessionDraft("CHAT", "hi"), Scope(), "root", deps)
    with pytest.raises(ScopeError):
        await session_memory(Scope(), 10, deps.store)


async def test_newest_first_capped_at_50_and_the_oldest_go() -> None:
    store = FakeSessionStore()
    for n in range(MAX_ENTRIES + 5):
        await append(store, SessionDraft("CHAT", f"entry {n}"))
    read = await session_memory(ACME, MAX_ENTRIES, store)
    assert [e.summary for e in read] == [f"entry {n}" for n in range(54, 4, -1)]
    assert len(store.rows) == MAX_ENTRIES


async def test_expired_entries_are_never_returned_and_are_pruned() -> None:
    store = FakeSessionStore()
    await append(store, SessionDraft("CHAT", "old"), ttl=timedelta(days=7))
    store.tick(timedelta(days=7))
    assert await session_memory(ACME, 10, store) == []
    await append(store, SessionDraft("CHAT", "new"))
    assert [r.summary for r in store.rows] == ["new"]


@pytest.mark.parametrize("limit", [0, MAX_ENTRIES + 1])
async def test_limit_is_1_to_50(limit: int) -> None:
    with pytest.raises(ValidationError) as raised:
        await session_memory(ACME, limit, FakeSessionStore())
    assert raised.value.field == "limit"


async def test_promote_queues_the_entry_in_the_background_lane_at_its_scope() -> None:
    store, queue = FakeSessionStore(), RecordingQueue()
    draft = SessionDraft(
        "ORCHESTRATOR_DECISION", "chose blue-green", {"why": "zero downtime"}, "T-9", True
    )
    done = await append_session_entry(draft, ACME, "key-1", session_deps(store, queue))
    assert done.entry.promoted and done.promotion is not None
    (job,) = queue.jobs
    assert job.priority == PROMOTION_PRIORITY and lane_of(job.priority) is Lane.BULK
    assert job.scope == ACME and job.source_urn == f"session-entry:{done.entry.id}"
    request, _ = from_payload(job.payload, job.scope, job.priority)
    assert request.kind == "session_entry"
    assert "chose blue-green" in request.content and "zero downtime" in request.content
    assert "T-9" in request.content


async def test_without_promote_nothing_is_queued() -> None:
    store, queue = FakeSessionStore(), RecordingQueue()
    done = await append_session_entry(
        SessionDraft("CHAT", "hi"), ACME, "key-1", session_deps(store, queue)
    )
    assert done.promotion is None and not done.entry.promoted and queue.jobs == []
