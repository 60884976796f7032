"""recordTaskOutcome with rawContext on the real stack, the model a scripted FakeModelClient
injected as ``Runtime.models``: queued at once, extracted and indexed by a worker's job into
exactly what the structured outcome stores; invalid answers fail the job and a busy model
makes it wait, the caller unaffected; insignificant or credential-holding notes never reach
the model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, cast

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.memory.task_outcomes import TaskAction, TaskCategory
from kenning.domain.models.ports import ModelCallError, ModelPriority
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.mcp.auth import CALLER, Caller
from kenning.mcp.calls import ToolContext
from kenning.mcp.memory_tools import record_task_outcome_tool
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.fakes.model_client import FakeModelClient
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.queue_api import agent

pytestmark = pytest.mark.integration

RECORD = """mutation R($input: TaskOutcomeInput!) { recordTaskOutcome(input: $input) {
  __typename
  ... on TaskOutcomeQueued { taskId sourceUrn ingestion { jobId status } }
  ... on TaskOutcomeNotSignificant { taskId reason }
  ... on Error { code field message } } }"""
BY_KIND = """query { chunksByKind(kind: "task_outcome") {
  sourceUrn content tags graphRefs knowledgeType metadata } }"""
TASK = """query T($key: String!) { node(key: $key) {
  edges(direction: OUT) { edgeType toKey evidence { sourceUrn } } } }"""
STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) { status lastError attempts } }"""

ACME, GLOBEX = agent("acme"), agent("globex")
NOTES = (
    "Worked on TASK-17. The invoice retries were flaky, so I moved them into the durable "
    "queue (outbox) and changed src/billing/retry.py and docs/billing.md. Lesson: "
    "idempotency keys per invoice."
)
FIELDS: dict[str, Any] = {
    "summary": "Moved the flaky invoice retries into the durable queue.",
    "keyDecisions": ["Retry in the queue, not in the client"],
    "patternsUsed": ["outbox"],
    "artifacts": ["src/billing/retry.py", "docs/billing.md"],
    "lessonsLearned": ["Idempotency keys per invoice"],
    "topics": ["billing", "queue"],
}
ANSWER = json.dumps(FIELDS)


@pytest.fixture
def model() -> FakeModelClient:
    return FakeModelClient(replier=lambda _: ANSWER)


@pytest.fixture
async def runtime(
    pool: asyncpg.Pool,
    migrated_settings: Settings,
    embedder: CountingEmbedder,
    model: FakeModelClient,
    clean: None,
) -> AsyncIterator[Runtime]:
    redis = aioredis.from_url(migrated_settings.redis_url)
    yield Runtime(
        settings=migrated_settings, pool=pool, redis=redis, embedder=embedder, models=model
    )
    await redis.aclose()


def given(**changes: Any) -> dict[str, Any]:
    signals = {"taskId": "TASK-17", "category": "SINGLE_TASK", "action": "CODE",
               "finalResult": "Merged in PR 88.", "rawContext": NOTES}  # fmt: skip
    return {k: v for k, v in {**signals, **changes}.items() if v is not None}


async def record(api: Api, **changes: Any) -> dict[str, Any]:
    result: dict[str, Any] = (await api(RECORD, input=given(**changes)))["recordTaskOutcome"]
    return result


async def run_queue(runtime: Runtime) -> list[JobStatus | None]:
    """Run every due background job once, as a worker of the bulk lane would."""
    ran = []
    while (claimed := await runtime.queue.work.claim(Lane.BULK, "test/extract", 60)) is not None:
        ran.append(await run_job(claimed, runtime.queue.work, runtime.job_deps()))
    return ran


async def stored(api: Api) -> tuple[list[dict[str, Any]], list[tuple[str, str, set[str]]]]:
    """The outcome's chunks and the task's file edges, as its client reads them."""
    chunks = (await api(BY_KIND))["chunksByKind"]
    node = (await api(TASK, key="task:TASK-17"))["node"]
    out = node["edges"] if node else []
    edges = [(e["edgeType"], e["toKey"], {c["sourceUrn"] for c in e["evidence"]})
             for e in out if e["toKey"].startswith("file:")]  # fmt: skip
    return chunks, sorted(edges)


async def test_raw_context_is_queued_then_stored_exactly_as_the_structured_outcome(
    runtime: Runtime, api: Api, pool: asyncpg.Pool, model: FakeModelClient
) -> None:
    acme = api.as_(ACME)
    queued = await record(acme)
    assert queued["__typename"] == "TaskOutcomeQueued"
    assert (queued["sourceUrn"], queued["ingestion"]["status"]) == (
        "task-outcome:TASK-17",
        "QUEUED",
    )
    job_id = queued["ingestion"]["jobId"]
    job = await pool.fetchrow(
        "SELECT lane, priority, payload FROM ingestion_jobs WHERE id = $1", job_id
    )
    assert job is not None and (job["lane"], job["priority"]) == ("BULK", 4)
    assert json.loads(job["payload"])["task"] == "task_outcome"
    # The caller did not wait: no model call and nothing stored until a worker runs.
    assert model.calls == 0 and (await acme(BY_KIND))["chunksByKind"] == []

    assert await run_queue(runtime) == [JobStatus.INDEXED]
    [call] = model.requests
    assert call.priority is ModelPriority.BACKGROUND
    assert call.model == runtime.settings.model_extract and NOTES in call.messages[-1].content
    assert (await acme(STATUS, id=job_id))["ingestionStatus"]["status"] == "INDEXED"

    # The same outcome given structured, by another client: the same document and graph.
    globex = api.as_(GLOBEX)
    assert (await record(globex, rawContext=None, **FIELDS))["__typename"] == "TaskOutcomeQueued"
    assert await run_queue(runtime) == [JobStatus.INDEXED]
    assert model.calls == 1
    (extracted, raw_edges), (structured, edges) = await stored(acme), await stored(globex)
    assert extracted and len(extracted) == len(structured)
    provenance = {"extractedBy": "llm:qwen2.5:7b", "promptVersion": "task-outcome-v1"}
    for mine, theirs in zip(extracted, structured, strict=True):
        assert mine["metadata"] == {**theirs["metadata"], **provenance}
        assert {**mine, "metadata": None} == {**theirs, "metadata": None}
    assert "durable queue" in "".join(c["content"] for c in extracted)
    assert (
        raw_edges
        == edges
        == [
            ("produced", "file:docs/billing.md", {"task-outcome:TASK-17"}),
            ("produced", "file:src/billing/retry.py", {"task-outcome:TASK-17"}),
        ]
    )


async def test_answers_that_stay_invalid_fail_the_job_and_store_nothing(
    runtime: Runtime, api: Api, model: FakeModelClient
) -> None:
    model.replier = lambda _: json.dumps({**FIELDS, "artifacts": ["f" * 501]})
    acme = api.as_(ACME)
    queued = await record(acme)
    # The caller is answered as for any significant outcome: queued.
    assert queued["__typename"] == "TaskOutcomeQueued"
    assert await run_queue(runtime) == [JobStatus.FAILED]
    retries = runtime.settings.model_max_retries
    assert model.calls == 1 + retries
    status = (await acme(STATUS, id=queued["ingestion"]["jobId"]))["ingestionStatus"]
    assert status["status"] == "FAILED"
    assert status["lastError"].startswith("MODEL_OUTPUT_INVALID: ")
    assert "artifacts[0]" in status["lastError"]
    assert await stored(acme) == ([], [])


async def test_a_busy_model_makes_the_job_wait_then_it_is_indexed(
    runtime: Runtime, api: Api, model: FakeModelClient
) -> None:
    model.replies = [ModelCallError("ollama busy (503)", transient=True)]
    acme = api.as_(ACME)
    job_id = (await record(acme))["ingestion"]["jobId"]
    assert await run_queue(runtime) == [JobStatus.QUEUED]
    status = (await acme(STATUS, id=job_id))["ingestionStatus"]
    assert status["status"] == "QUEUED" and "busy" in status["lastError"]
    await runtime.queue.jobs.retry(job_id)  # due now, not after the backoff
    assert await run_queue(runtime) == [JobStatus.INDEXED]
    assert model.calls == 2 and len((await stored(acme))[1]) == 2


@pytest.mark.parametrize(
    "changes",
    [{"category": "ADVICE"}, {"error": "the build failed"}, {"action": "RESPOND"},
     {"finalResult": ""}],
)  # fmt: skip
async def test_an_insignificant_task_stores_nothing_and_calls_no_model(
    runtime: Runtime, api: Api, pool: asyncpg.Pool, model: FakeModelClient, changes: dict[str, Any]
) -> None:
    acme = api.as_(Principal("acme-p", Scope("acme", "billing", "finance"), Role.AGENT))
    result = await record(acme, **changes)
    assert result["__typename"] == "TaskOutcomeNotSignificant"
    assert await run_queue(runtime) == [] and model.calls == 0
    for table in ("ingestion_jobs", "chunks", "project_groups"):
        assert await pool.fetchval(f"SELECT count(*) FROM {table}") == 0, table


async def test_credentials_in_the_notes_are_refused_before_the_model_sees_them(
    runtime: Runtime, api: Api, pool: asyncpg.Pool, model: FakeModelClient
) -> None:
    acme = api.as_(Principal("acme-p", Scope("acme", "billing", "finance"), Role.AGENT))
    leaky = await record(acme, rawContext=f"{NOTES}\nexport AWS_KEY=AKIAIOSFODNN7EXAMPLF")
    assert (leaky["__typename"], leaky["field"]) == ("SensitiveContentError", "rawContext")
    assert await run_queue(runtime) == [] and model.calls == 0
    for table in ("ingestion_jobs", "project_groups"):
        assert await pool.fetchval(f"SELECT count(*) FROM {table}") == 0, table


async def test_both_forms_or_neither_come_back_naming_the_field(
    api: Api, pool: asyncpg.Pool
) -> None:
    acme = api.as_(ACME)
    both = await record(acme, topics=["billing"])
    assert (both["__typename"], both["field"]) == ("ValidationError", "rawContext")
    assert "topics" in both["message"]
    neither = await record(acme, rawContext=None)
    assert (neither["__typename"], neither["field"]) == ("ValidationError", "summary")
    too_long = await record(acme, rawContext="n" * 32_001)
    assert (too_long["code"], too_long["field"]) == ("TOO_LARGE", "rawContext")
    assert await pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0


async def test_recording_again_replaces_and_the_same_notes_queue_nothing(
    runtime: Runtime, api: Api, model: FakeModelClient
) -> None:
    acme = api.as_(ACME)
    await record(acme)
    await run_queue(runtime)
    same = await record(acme)
    assert same["ingestion"]["status"] == "SKIPPED" and await run_queue(runtime) == []
    assert model.calls == 1
    # Structured this time: it replaces the extracted record, document and edges.
    again = await record(
        acme, rawContext=None, **{**FIELDS, "artifacts": ["src/billing/backoff.py"]}
    )
    assert again["ingestion"]["status"] == "QUEUED"
    assert await run_queue(runtime) == [JobStatus.INDEXED]
    chunks, edges = await stored(acme)
    assert edges == [("produced", "file:src/billing/backoff.py", {"task-outcome:TASK-17"})]
    assert all("extractedBy" not in c["metadata"] for c in chunks)


async def test_the_mcp_tool_takes_raw_context_like_graphql(
    runtime: Runtime, api: Api, model: FakeModelClient
) -> None:
    # The tool as the MCP SDK calls it: arguments validated, the caller in the request.
    SINGLE, CODE = TaskCategory.SINGLE_TASK, TaskAction.CODE
    request = SimpleNamespace(scope={CALLER: Caller(runtime, ACME)})
    ctx = cast(ToolContext, SimpleNamespace(request_context=SimpleNamespace(request=request)))
    kept = await record_task_outcome_tool(
        ctx, "TASK-17", SINGLE, CODE, raw_context=NOTES, final_result="Merged"
    )
    assert kept["significant"] is True and kept["sourceUrn"] == "task-outcome:TASK-17"
    assert await run_queue(runtime) == [JobStatus.INDEXED] and model.calls == 1
    assert len((await stored(api.as_(ACME)))[1]) == 2
    with pytest.raises(Exception, match=r"INVALID.*rawContext") as both:
        await record_task_outcome_tool(
            ctx, "TASK-18", SINGLE, CODE, summary="s", raw_context=NOTES, final_result="ok"
        )
    assert type(both.value).__name__ == "ToolError"
