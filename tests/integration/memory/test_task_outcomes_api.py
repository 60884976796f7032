"""recordTaskOutcome on the real stack: queued in the background lane and indexed by a
worker as one document with the task's file edges; recorded again, replaced; not
significant, nothing stored; another client sees none of it."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.queue_api import agent

pytestmark = pytest.mark.integration

RECORD = """mutation R($input: TaskOutcomeInput!) { recordTaskOutcome(input: $input) {
  __typename
  ... on TaskOutcomeQueued { taskId sourceUrn ingestion { jobId status } }
  ... on TaskOutcomeNotSignificant { taskId reason message }
  ... on Error { code field } } }"""
BY_KIND = """query { chunksByKind(kind: "task_outcome") {
  id sourceUrn content tags graphRefs knowledgeType metadata } }"""
SEARCH = """query S($q: String!) { search(query: $q, mode: KEYWORD) {
  ... on SearchSuccess { hits { sourceUrn kind } } } }"""
TASK = """query T($key: String!) { node(key: $key) {
  key edges(direction: OUT) { edgeType toKey evidence { id sourceUrn } } } }"""

ACME = agent("acme")


def outcome(**changes: Any) -> dict[str, Any]:
    return {
        "taskId": "TASK-17",
        "category": "SINGLE_TASK",
        "action": "CODE",
        "finalResult": "Merged in PR 88.",
        "summary": "Moved the flaky invoice retries into the durable queue.",
        "keyDecisions": ["Retry in the queue, not in the client"],
        "patternsUsed": ["outbox"],
        "artifacts": ["src/billing/retry.py", "docs/billing.md"],
        "lessonsLearned": ["Idempotency keys per invoice"],
        "topics": ["billing", "queue"],
        **changes,
    }


async def record(api: Api, **changes: Any) -> dict[str, Any]:
    result: dict[str, Any] = (await api(RECORD, input=outcome(**changes)))["recordTaskOutcome"]
    return result


async def run_queue(runtime: Runtime) -> list[JobStatus | None]:
    """Run every due background job once, as a worker of the bulk lane would."""
    ran = []
    while (claimed := await runtime.queue.work.claim(Lane.BULK, "test/outcomes", 60)) is not None:
        ran.append(await run_job(claimed, runtime.queue.work, runtime.job_deps()))
    return ran


async def file_edges(api: Api) -> list[tuple[str, str, set[str]]]:
    node = (await api(TASK, key="task:TASK-17"))["node"]
    assert node is not None and node["key"] == "task:task-17"
    return [
        (e["edgeType"], e["toKey"], {c["id"] for c in e["evidence"]})
        for e in node["edges"]
        if e["toKey"].startswith("file:")
    ]


async def test_a_significant_outcome_is_queued_then_indexed_with_its_file_edges(
    runtime: Runtime, api: Api, pool: asyncpg.Pool
) -> None:
    acme = api.as_(ACME)
    queued = await record(acme)
    assert queued["__typename"] == "TaskOutcomeQueued"
    assert queued["sourceUrn"] == "task-outcome:TASK-17"
    assert queued["ingestion"]["status"] == "QUEUED"
    job = await pool.fetchrow(
        "SELECT lane, priority, client_id FROM ingestion_jobs WHERE id = $1",
        queued["ingestion"]["jobId"],
    )
    assert job is not None
    assert dict(job) == {"lane": "BULK", "priority": 4, "client_id": "acme"}
    # The caller did not wait for the indexing: nothing is stored until a worker runs.
    assert (await acme(BY_KIND))["chunksByKind"] == []

    assert await run_queue(runtime) == [JobStatus.INDEXED]
    chunks = (await acme(BY_KIND))["chunksByKind"]
    assert {c["sourceUrn"] for c in chunks} == {"task-outcome:TASK-17"}
    text = "".join(c["content"] for c in chunks)
    for section in ("## Summary", "## Key Decisions", "## Patterns", "## Artifacts", "## Lessons"):
        assert section in text
    assert "durable queue" in text and "`docs/billing.md`" in text
    assert all(c["tags"] == ["billing", "queue"] for c in chunks)
    assert all("task:task-17" in c["graphRefs"] for c in chunks)
    assert all(c["knowledgeType"] == "EPISODIC" for c in chunks)
    assert chunks[0]["metadata"]["category"] == "SINGLE_TASK"
    hits = (await acme(SEARCH, q="flaky invoice retries"))["search"]["hits"]
    assert hits and hits[0]["sourceUrn"] == "task-outcome:TASK-17"
    assert hits[0]["kind"] == "task_outcome"
    document = {c["id"] for c in chunks}
    assert sorted(await file_edges(acme)) == [
        ("produced", "file:docs/billing.md", document),
        ("produced", "file:src/billing/retry.py", document),
    ]


async def test_recording_again_replaces_the_document_and_its_edges(
    runtime: Runtime, api: Api
) -> None:
    acme = api.as_(ACME)
    await record(acme)
    await run_queue(runtime)
    again = await record(
        acme, summary="Retries now back off per invoice.", artifacts=["src/billing/backoff.py"]
    )
    assert again["ingestion"]["status"] == "QUEUED"
    assert await run_queue(runtime) == [JobStatus.INDEXED]
    chunks = (await acme(BY_KIND))["chunksByKind"]
    text = "".join(c["content"] for c in chunks)
    assert "back off per invoice" in text and "durable queue" not in text
    assert {c["sourceUrn"] for c in chunks} == {"task-outcome:TASK-17"}
    assert await file_edges(acme) == [
        ("produced", "file:src/billing/backoff.py", {c["id"] for c in chunks})
    ]
    # The same outcome once more: that version is indexed already, nothing is queued.
    same = await record(
        acme, summary="Retries now back off per invoice.", artifacts=["src/billing/backoff.py"]
    )
    assert same["ingestion"]["status"] == "SKIPPED"
    assert await run_queue(runtime) == []


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"category": "ADVICE"}, "ADVICE"),
        ({"action": "RESPOND", "hasStepResults": False}, "RESPOND_WITHOUT_STEP_RESULTS"),
        ({"error": "the build failed"}, "ERROR_PRESENT"),
        ({"finalResult": ""}, "EMPTY_FINAL_RESULT"),
    ],
)
async def test_a_not_significant_outcome_says_why_and_stores_nothing(
    runtime: Runtime, api: Api, pool: asyncpg.Pool, changes: dict[str, Any], reason: str
) -> None:
    acme = api.as_(Principal("acme-p", Scope("acme", "billing", "finance"), Role.AGENT))
    result = await record(acme, **changes)
    assert result["__typename"] == "TaskOutcomeNotSignificant"
    assert result["reason"] == reason and result["taskId"] == "TASK-17" and result["message"]
    assert await run_queue(runtime) == []
    for table in ("ingestion_jobs", "chunks", "sources", "project_groups"):
        assert await pool.fetchval(f"SELECT count(*) FROM {table}") == 0, table


async def test_invalid_input_and_credentials_come_back_naming_the_field(
    api: Api, pool: asyncpg.Pool
) -> None:
    acme = api.as_(ACME)
    bad = await record(acme, artifacts=["a.py", " "])
    assert bad == {"__typename": "ValidationError", "code": "INVALID", "field": "artifacts[1]"}
    # Checked before significance: an invalid ADVICE outcome is still invalid.
    empty = await record(acme, category="ADVICE", summary="")
    assert (empty["__typename"], empty["field"]) == ("ValidationError", "summary")
    leaky = await record(acme, lessonsLearned=["ok", "the key is AKIAIOSFODNN7EXAMPLF"])
    assert leaky["__typename"] == "SensitiveContentError"
    assert leaky["field"] == "lessonsLearned[1]"
    assert await pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0


async def test_a_read_only_key_is_refused_even_for_an_outcome_that_is_not_kept(
    api: Api,
) -> None:
    ui = api.as_(agent("acme", Role.UI))
    for changes in ({}, {"category": "ADVICE"}):
        refused = await record(ui, **changes)
        assert (refused["__typename"], refused["code"]) == ("ScopeError", "OUT_OF_SCOPE")


async def test_another_client_sees_nothing_of_an_outcome(runtime: Runtime, api: Api) -> None:
    acme = api.as_(ACME)
    await record(acme)
    await run_queue(runtime)
    assert (await acme(BY_KIND))["chunksByKind"]
    other_keys = [
        agent("globex"),  # client-wide
        Principal("globex-p", Scope("globex", "billing"), Role.AGENT),
        agent("globex", Role.ADMIN),
    ]
    for key in other_keys:
        other = api.as_(key)
        assert (await other(BY_KIND))["chunksByKind"] == [], key
        assert (await other(SEARCH, q="flaky invoice retries"))["search"]["hits"] == [], key
        assert (await other(TASK, key="task:TASK-17"))["node"] is None, key
        assert (await other(TASK, key="file:docs/billing.md"))["node"] is None, key
