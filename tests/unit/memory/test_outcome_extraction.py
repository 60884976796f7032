"""Task outcomes from raw context, recorded: exactly one of the two forms, the significance
filter before anything else, the secret check before anything is queued, and the one job
queued in the background lane with the structured outcome's identity. Every test that
records runs what was queued through the preparer, so "no model call" is counted."""

from __future__ import annotations

from typing import Any, cast

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.memory.outcome_extraction import (
    MAX_RAW_CONTEXT,
    TASK_OUTCOME_TASK,
    RawTaskOutcome,
    outcome_form,
    record_outcome,
    task_outcome_preparer,
)
from kenning.domain.memory.task_outcomes import (
    NotSignificantReason,
    OutcomeNotSignificant,
    OutcomeQueued,
    TaskAction,
    TaskCategory,
    TaskOutcome,
)
from kenning.domain.models.health import ModelRole, ModelWatch
from kenning.domain.models.ports import ModelCallError
from kenning.domain.queue.jobs import EnqueueResult, HandleStatus, Lane, lane_of
from kenning.domain.queue.ports import JobQueue, NewJob
from tests.fakes.model_client import FakeModelClient

AWS_KEY = "AKIAIOSFODNN7EXAMPLF"
EXTRACT = ModelRole("extract", "qwen2.5:7b", "KENNING_MODEL_EXTRACT")
NOTES = "Moved the flaky invoice retries into the durable queue; touched src/billing/retry.py."
ANSWER = (
    '{"summary": "Moved invoice retries into the queue.", "keyDecisions": [], '
    '"patternsUsed": [], "artifacts": ["src/billing/retry.py"], "lessonsLearned": [], '
    '"topics": ["billing"]}'
)
SIGNALS: dict[str, Any] = {
    "task_id": "TASK-17",
    "category": TaskCategory.SINGLE_TASK,
    "action": TaskAction.CODE,
    "final_result": "Merged in PR 88.",
}


class RecordingQueue:
    """Only what ``record_outcome`` calls of the ``JobQueue`` port: ``enqueue``, kept."""

    def __init__(self) -> None:
        self.jobs: list[NewJob] = []

    async def enqueue(self, job: NewJob) -> EnqueueResult:
        self.jobs.append(job)
        return EnqueueResult(f"job-{len(self.jobs)}", HandleStatus.QUEUED, 1)


class Recorder:
    """Records outcomes and runs every queued job's preparer against a fake model."""

    def __init__(self, policy: SecretPolicy = SecretPolicy.REJECT) -> None:
        self.policy = policy
        self.queue = RecordingQueue()
        self.model = FakeModelClient(replier=lambda _: ANSWER)
        self.watch = ModelWatch(self.model, (EXTRACT,))
        self.settled = 0

    async def settle(self) -> Scope:
        self.settled += 1
        return Scope("acme", "billing")

    async def record(self, **given: Any) -> OutcomeQueued | OutcomeNotSignificant:
        outcome = outcome_form(**{**SIGNALS, "raw_context": NOTES, **given})
        return await record_outcome(
            outcome,
            self.settle,
            policy=self.policy,
            queue=cast(JobQueue, self.queue),
            connections=cast(ConnectionRegistry, None),
            models=self.watch,
        )

    async def run_jobs(self) -> None:
        prepare = task_outcome_preparer(
            self.model, model="qwen2.5:7b", max_retries=3, policy=self.policy
        )
        for job in self.queue.jobs:
            await prepare(job.payload, job.scope, job.priority)


def test_raw_context_alone_is_the_raw_form() -> None:
    raw = outcome_form(**SIGNALS, raw_context=f"  {NOTES}\n", has_step_results=True)
    assert raw == RawTaskOutcome(
        "TASK-17", TaskCategory.SINGLE_TASK, TaskAction.CODE, NOTES, True, None, "Merged in PR 88."
    )
    head = raw.head
    assert (head.task_id, head.summary, head.has_step_results) == ("TASK-17", "", True)


def test_a_summary_alone_is_the_structured_form() -> None:
    outcome = outcome_form(**SIGNALS, summary="Done.", topics=["billing"])
    assert isinstance(outcome, TaskOutcome)
    assert (outcome.summary, outcome.topics) == ("Done.", ("billing",))


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"summary": "Done."}, "summary"),
        ({"summary": ""}, "summary"),
        ({"key_decisions": ["queue"]}, "keyDecisions"),
        ({"patterns_used": ["outbox"]}, "patternsUsed"),
        ({"artifacts": ["a.py"]}, "artifacts"),
        ({"lessons_learned": ["keys"]}, "lessonsLearned"),
        ({"topics": ["billing"]}, "topics"),
    ],
)
def test_raw_context_with_any_structured_field_is_refused_naming_raw_context(
    given: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        outcome_form(**SIGNALS, raw_context=NOTES, **given)
    assert raised.value.field == "rawContext"
    assert named in raised.value.message


def test_neither_form_is_refused_naming_summary() -> None:
    cases: list[dict[str, Any]] = [{}, {"key_decisions": ["queue"]}]
    for given in cases:
        with pytest.raises(ValidationError) as raised:
            outcome_form(**SIGNALS, **given)
        assert raised.value.field == "summary"
        assert "rawContext" in raised.value.message


@pytest.mark.parametrize(
    ("given", "field", "error"),
    [
        ({"raw_context": " \n "}, "rawContext", ValidationError),
        ({"raw_context": "n" * (MAX_RAW_CONTEXT + 1)}, "rawContext", TooLargeError),
        ({"task_id": "a\nb"}, "taskId", ValidationError),
        ({"task_id": " "}, "taskId", ValidationError),
    ],
)
async def test_an_invalid_raw_outcome_is_named_and_nothing_is_queued(
    given: dict[str, Any], field: str, error: type[ValidationError]
) -> None:
    recorder = Recorder()
    # Checked before significance: an invalid ADVICE outcome is still invalid.
    with pytest.raises(error) as raised:
        await recorder.record(category=TaskCategory.ADVICE, **given)
    assert type(raised.value) is error and raised.value.field == field
    assert recorder.queue.jobs == [] and recorder.settled == 0


async def test_raw_context_at_its_limit_is_accepted() -> None:
    recorder = Recorder()
    done = await recorder.record(raw_context="n" * MAX_RAW_CONTEXT)
    assert isinstance(done, OutcomeQueued)


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ({"category": TaskCategory.ADVICE}, NotSignificantReason.ADVICE),
        ({"action": TaskAction.RESPOND}, NotSignificantReason.RESPOND_WITHOUT_STEP_RESULTS),
        ({"error": "the build failed"}, NotSignificantReason.ERROR_PRESENT),
        ({"final_result": " "}, NotSignificantReason.EMPTY_FINAL_RESULT),
        # Significance runs before the secret check: nothing of the text is even read.
        ({"error": "failed", "raw_context": f"key {AWS_KEY}"}, NotSignificantReason.ERROR_PRESENT),
    ],
)
async def test_an_insignificant_task_queues_nothing_and_calls_no_model(
    given: dict[str, Any], reason: NotSignificantReason
) -> None:
    recorder = Recorder()
    done = await recorder.record(**given)
    assert done == OutcomeNotSignificant("TASK-17", reason)
    await recorder.run_jobs()
    assert recorder.queue.jobs == [] and recorder.settled == 0
    assert recorder.model.calls == 0


async def test_a_significant_task_queues_one_extraction_job_in_the_background_lane() -> None:
    recorder = Recorder()
    done = await recorder.record(has_step_results=True)
    assert isinstance(done, OutcomeQueued)
    assert (done.task_id, done.source_urn, done.ingestion.job_id) == (
        "TASK-17",
        "task-outcome:TASK-17",
        "job-1",
    )
    [job] = recorder.queue.jobs
    assert job.scope == Scope("acme", "billing") and recorder.settled == 1
    assert job.priority == 4 and lane_of(job.priority) is Lane.BULK
    assert (job.source_urn, job.connection_id) == ("task-outcome:TASK-17", None)
    assert (job.identity.source_kind, job.identity.source_id) == ("task_outcome", "TASK-17")
    assert job.payload == {
        "v": 1,
        "task": TASK_OUTCOME_TASK,
        "taskId": "TASK-17",
        "category": "SINGLE_TASK",
        "action": "CODE",
        "hasStepResults": True,
        "rawContext": NOTES,
    }
    assert TASK_OUTCOME_TASK == "task_outcome"
    # The model runs in the worker, not while the caller waits.
    assert recorder.model.calls == 0
    await recorder.run_jobs()
    assert recorder.model.calls == 1


async def test_the_identity_replaces_the_task_and_repeats_for_the_same_notes() -> None:
    recorder = Recorder()
    for notes in (NOTES, NOTES, "Other notes."):
        await recorder.record(raw_context=notes)
    first, same, other = (job.identity for job in recorder.queue.jobs)
    assert first.key == same.key
    assert other.key != first.key and other.source_key == first.source_key
    structured = Recorder()
    await structured.record(raw_context=None, summary="Done.")
    # A structured record of the same task replaces a raw one, and the other way round.
    assert structured.queue.jobs[0].identity.source_key == first.source_key


async def test_a_credential_in_the_notes_is_refused_before_anything_is_queued() -> None:
    recorder = Recorder()
    with pytest.raises(SensitiveContentError) as raised:
        await recorder.record(raw_context=f"{NOTES}\nthe key is {AWS_KEY}")
    assert raised.value.field == "rawContext"
    await recorder.run_jobs()
    assert recorder.queue.jobs == [] and recorder.settled == 0
    assert recorder.model.calls == 0


async def test_redact_queues_the_notes_without_the_credential() -> None:
    recorder = Recorder(SecretPolicy.REDACT)
    await recorder.record(raw_context=f"{NOTES}\nthe key is {AWS_KEY}")
    [job] = recorder.queue.jobs
    text = str(job.payload["rawContext"])
    assert text.startswith(NOTES) and AWS_KEY not in text
    await recorder.run_jobs()
    # What the model reads is what was queued.
    [request] = recorder.model.requests
    assert AWS_KEY not in request.messages[-1].content
    assert NOTES in request.messages[-1].content


async def test_a_credential_in_the_task_id_is_refused_even_when_redacting() -> None:
    recorder = Recorder(SecretPolicy.REDACT)
    with pytest.raises(SensitiveContentError) as raised:
        await recorder.record(task_id=f"deploy-{AWS_KEY}")
    assert raised.value.field == "taskId"
    assert recorder.queue.jobs == []


async def test_a_backend_without_the_model_refuses_at_once_naming_the_pull() -> None:
    recorder = Recorder()
    recorder.model.models = frozenset({"llama3.2:1b"})
    with pytest.raises(ModelCallError) as refused:
        await recorder.record(has_step_results=True)
    assert not refused.value.transient
    assert "`ollama pull qwen2.5:7b`" in refused.value.message, refused.value.message
    assert recorder.queue.jobs == [] and recorder.settled == 0
    # An outcome that needs no model is still answered.
    done = await recorder.record(has_step_results=False, error=None, final_result=None)
    assert isinstance(done, OutcomeNotSignificant)


async def test_an_unreachable_backend_is_no_reason_to_refuse_the_work_waits() -> None:
    recorder = Recorder()
    recorder.model.models = ModelCallError("ollama at http://x unreachable", transient=True)
    assert isinstance(await recorder.record(has_step_results=True), OutcomeQueued)
