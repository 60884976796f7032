"""Task-outcome extraction against the fake Ollama over HTTP, through the real adapter, as a
real Ollama would be called: /api/chat with the answer's schema as ``format`` and
``X-Ollama-Priority: 3``; invalid-then-valid answers, answers that stay invalid, and a 503
storm, each seen through the queued job's status."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kenning.domain.memory.outcome_prompt import ExtractedOutcome
from kenning.domain.models.structured import output_schema
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.router.demo import FakeOllama
from kenning.runtime import Runtime
from kenning.storage.models import OllamaModelClient
from tests.fakes.ollama import FakeFactory
from tests.support.graphql_api import Api
from tests.support.queue_api import agent

pytestmark = pytest.mark.integration

RECORD = """mutation R($input: TaskOutcomeInput!) { recordTaskOutcome(input: $input) {
  __typename ... on TaskOutcomeQueued { ingestion { jobId } } } }"""
STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"""
BY_KIND = """query { chunksByKind(kind: "task_outcome") { content metadata } }"""

ACME = agent("acme")
NOTES = "Moved the flaky invoice retries into the durable queue; changed src/billing/retry.py."
VALID = json.dumps({
    "summary": "Moved invoice retries into the durable queue.", "keyDecisions": [],
    "patternsUsed": ["outbox"], "artifacts": ["src/billing/retry.py"], "lessonsLearned": [],
    "topics": ["billing"],
})  # fmt: skip


@pytest.fixture
async def fake(fake_ollama_factory: FakeFactory, runtime: Runtime) -> AsyncIterator[FakeOllama]:
    """A fake Ollama the runtime's model calls go to over HTTP."""
    ollama = fake_ollama_factory()
    client = OllamaModelClient(ollama.url, timeout=10)
    runtime.models = client
    yield ollama
    await client.aclose()


async def record(api: Api) -> str:
    given = {"taskId": "TASK-17", "category": "EPIC", "action": "CODE",
             "finalResult": "Merged.", "rawContext": NOTES}  # fmt: skip
    result = (await api(RECORD, input=given))["recordTaskOutcome"]
    assert result["__typename"] == "TaskOutcomeQueued"
    job_id: str = result["ingestion"]["jobId"]
    return job_id


async def run_queue(runtime: Runtime) -> list[JobStatus | None]:
    ran = []
    while (claimed := await runtime.queue.work.claim(Lane.BULK, "test/ollama", 60)) is not None:
        ran.append(await run_job(claimed, runtime.queue.work, runtime.job_deps()))
    return ran


async def status(api: Api, job_id: str) -> dict[str, Any]:
    found: dict[str, Any] = (await api(STATUS, id=job_id))["ingestionStatus"]
    return found


def chats(fake: FakeOllama) -> list[Any]:
    return [r for r in fake.records if r.endpoint == "/api/chat"]


async def test_the_extraction_call_is_a_background_chat_with_the_schema_as_format(
    runtime: Runtime, api: Api, fake: FakeOllama
) -> None:
    bodies: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> str:
        bodies.append(body)
        return VALID

    fake.replier = answer
    acme = api.as_(ACME)
    job_id = await record(acme)
    assert chats(fake) == []
    assert await run_queue(runtime) == [JobStatus.INDEXED]
    [chat] = chats(fake)
    assert (chat.priority, chat.model) == ("3", runtime.settings.model_extract)
    [body] = bodies
    assert body["format"] == output_schema(ExtractedOutcome) and body["stream"] is False
    assert NOTES in body["messages"][-1]["content"]
    assert (await status(acme, job_id))["status"] == "INDEXED"
    [chunk] = (await acme(BY_KIND))["chunksByKind"]
    assert "durable queue" in chunk["content"] and "`src/billing/retry.py`" in chunk["content"]
    assert chunk["metadata"]["extractedBy"] == f"llm:{runtime.settings.model_extract}"


async def test_an_invalid_answer_then_a_valid_one_indexes_the_outcome(
    runtime: Runtime, api: Api, fake: FakeOllama
) -> None:
    fake.script(['{"summary": ""}', VALID])
    acme = api.as_(ACME)
    await record(acme)
    assert await run_queue(runtime) == [JobStatus.INDEXED]
    assert len(chats(fake)) == 2


async def test_answers_that_stay_invalid_fail_the_job(
    runtime: Runtime, api: Api, fake: FakeOllama
) -> None:
    fake.replier = lambda body: "no JSON at all"
    acme = api.as_(ACME)
    job_id = await record(acme)
    assert await run_queue(runtime) == [JobStatus.FAILED]
    assert len(chats(fake)) == 1 + runtime.settings.model_max_retries
    failed = await status(acme, job_id)
    assert failed["lastError"].startswith("MODEL_OUTPUT_INVALID: ")
    assert (await acme(BY_KIND))["chunksByKind"] == []


async def test_a_503_storm_makes_the_job_wait_never_fail(
    runtime: Runtime, api: Api, fake: FakeOllama
) -> None:
    fake.script([VALID])
    fake.busy_for(2)
    acme = api.as_(ACME)
    job_id = await record(acme)
    for _ in range(2):
        assert await run_queue(runtime) == [JobStatus.QUEUED]
        waiting = await status(acme, job_id)
        assert waiting["status"] == "QUEUED" and waiting["lastError"].startswith(
            "MODEL_UNAVAILABLE"
        )
        await runtime.queue.jobs.retry(job_id)  # due now, not after the backoff
    assert await run_queue(runtime) == [JobStatus.INDEXED]
    assert (await status(acme, job_id))["status"] == "INDEXED"
