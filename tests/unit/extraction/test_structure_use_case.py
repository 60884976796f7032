"""structure_knowledge on fakes: one validated model call at P1, the load through the
knowledge-file path, a check-in for every answered call, and secrets before any model call."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.extraction.check_ins import (
    CheckIn,
    CheckInPage,
    CheckInStatus,
    NewCheckIn,
    text_hash,
)
from kenning.domain.extraction.structure import (
    MAX_TEXT,
    StructureOutputInvalid,
    StructurePorts,
    StructureRequest,
    structure_knowledge,
)
from kenning.domain.extraction.structure_output import StructuredKnowledge
from kenning.domain.extraction.structure_prompt import EXAMPLE_ANSWER, SYSTEM
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.models.ports import ModelCallError, ModelPriority, Role
from kenning.domain.models.structured import output_schema
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeAliases, FakeStore
from tests.fakes.model_client import FakeModelClient

ACME = Scope("acme", "web")
TEXT = "Alice Chen leads payments. Billing calls the ledger API."
VALID = json.dumps(EXAMPLE_ANSWER)
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"


class CheckIns:
    """The check-in store, in memory (the port has no other fake yet)."""

    def __init__(self) -> None:
        self.added: list[NewCheckIn] = []

    async def add(self, check_in: NewCheckIn) -> CheckIn:
        self.added.append(check_in)
        return CheckIn(check_in, datetime.now(UTC))

    async def page(self, reader: Scope, first: int, after: str | None) -> CheckInPage:
        raise AssertionError("not read here")


class Setup:
    def __init__(
        self, replies: list[str | ModelCallError], *, policy: SecretPolicy = SecretPolicy.REJECT,
        keep_text: bool = True,
    ) -> None:  # fmt: skip
        self.model = FakeModelClient(replies)
        self.store, self.embedder, self.check_ins = FakeStore(), FakeEmbedder(), CheckIns()
        ingest = IngestDeps(self.store, FakeAliases(), self.embedder, secret_policy=policy)
        self.ports = StructurePorts(
            self.model, self.check_ins, ingest, model="qwen2.5:7b", max_retries=2,
            keep_text=keep_text,
        )  # fmt: skip

    async def run(self, text: str = TEXT, **given: Any) -> Any:
        request = StructureRequest(text, ACME, "key-1", **given)
        return await structure_knowledge(request, self.ports)

    @property
    def check_in(self) -> NewCheckIn:
        [only] = self.check_ins.added
        return only


async def test_text_is_structured_at_p1_loaded_with_evidence_and_checked_in() -> None:
    setup = Setup([VALID])
    outcome = await setup.run(hints="the payments team")
    [request] = setup.model.requests
    assert (request.model, request.priority) == ("qwen2.5:7b", ModelPriority.INTERACTIVE)
    assert request.schema == output_schema(StructuredKnowledge)
    assert [m.role for m in request.messages] == [Role.SYSTEM, Role.USER]
    assert request.messages[0].content == SYSTEM
    assert (
        "the payments team" in request.messages[1].content and TEXT in request.messages[1].content
    )
    urn = f"structured:{text_hash(TEXT)[:16]}"
    assert outcome.source_urn == urn and outcome.knowledge == EXAMPLE_ANSWER
    assert outcome.loaded is not None and outcome.loaded.rejected == ()
    chunks = {c.content: c.id for c in setup.store.chunks}
    assert len(chunks) == 3 and {c.source_urn for c in setup.store.chunks} == {urn}
    piece = {p["piece_id"]: chunks[p["content"]] for p in EXAMPLE_ANSWER["pieces"]}  # type: ignore[index]
    edges = setup.store.edges
    assert {(e.from_key, e.edge_type, e.to_key, e.evidence_chunk_ids) for e in edges} == {
        ("person:alice-chen", "leads", "team:payments", (piece["p1"],)),
        ("service:billing", "belongs_to", "team:payments", (piece["p2"],)),
        ("service:billing", "calls", "api:ledger", (piece["p2"],)),
    }  # fmt: skip
    assert all(priority == 1 for _, priority in setup.embedder.calls)
    record = setup.check_in
    assert (record.status, record.source_urn, record.caller, record.scope) == (
        CheckInStatus.LOADED, urn, "key-1", ACME,
    )  # fmt: skip
    assert (record.input_text, record.input_hash, record.hints) == (
        TEXT, text_hash(TEXT), "the payments team",
    )  # fmt: skip
    assert (record.model, record.prompt_version, record.output) == (
        "qwen2.5:7b", "structure-v2", EXAMPLE_ANSWER,
    )  # fmt: skip
    assert [(a.number, a.error) for a in record.attempts] == [(1, None)]
    assert record.duration_ms >= record.attempts[0].duration_ms
    assert outcome.check_in.id == record.id


async def test_a_dry_run_loads_nothing_and_records_the_output() -> None:
    setup = Setup([VALID])
    outcome = await setup.run(dry_run=True, source_urn="notes:alice")
    assert outcome.loaded is None and outcome.source_urn == "notes:alice"
    assert setup.store.writes == 0 and setup.embedder.calls == []
    assert (setup.check_in.status, setup.check_in.source_urn) == (CheckInStatus.DRY_RUN, None)
    assert setup.check_in.output == EXAMPLE_ANSWER


async def test_an_invalid_answer_is_retried_with_its_error_and_both_attempts_recorded() -> None:
    wrong = json.loads(VALID)
    wrong["graph"]["edges"][0]["properties"]["piece_id"] = "p7"
    setup = Setup([json.dumps(wrong), VALID])
    await setup.run()
    assert setup.model.calls == 2
    assert "is 'p7'" in setup.model.requests[1].messages[-1].content
    attempts = setup.check_in.attempts
    assert [a.number for a in attempts] == [1, 2]
    assert attempts[0].error is not None and "is 'p7'" in attempts[0].error
    assert attempts[1].error is None and setup.check_in.status is CheckInStatus.LOADED


async def test_an_answer_that_stays_invalid_is_a_typed_error_with_an_invalid_check_in() -> None:
    setup = Setup(['{"pieces": []}'])
    with pytest.raises(StructureOutputInvalid) as raised:
        await setup.run()
    assert setup.model.calls == 3  # 1 + max_retries
    record = setup.check_in
    assert raised.value.check_in_id == record.id and len(raised.value.attempts) == 3
    assert (record.status, record.output, record.source_urn) == (CheckInStatus.INVALID, None, None)
    assert [a.number for a in record.attempts] == [1, 2, 3]
    assert all(a.error for a in record.attempts)
    assert setup.store.writes == 0 and setup.store.chunks == []


async def test_an_unavailable_model_leaves_nothing_and_keeps_its_retry_semantics() -> None:
    setup = Setup([ModelCallError("ollama busy (503)", transient=True, retry_after=2.0)])
    with pytest.raises(ModelCallError) as raised:
        await setup.run()
    assert raised.value.transient and raised.value.retry_after == 2.0
    assert setup.check_ins.added == [] and setup.store.writes == 0


@pytest.mark.parametrize("where", ["text", "hints"])
async def test_a_credential_refuses_the_request_before_any_model_call(where: str) -> None:
    setup = Setup([VALID])
    secret = f"aws key {CREDENTIAL}"
    given = {"text": secret} if where == "text" else {"hints": secret}
    with pytest.raises(SensitiveContentError) as raised:
        await setup.run(**given)
    assert raised.value.field == where
    assert setup.model.calls == 0 and setup.check_ins.added == [] and setup.store.writes == 0


async def test_under_the_redact_policy_the_model_and_check_in_see_the_redacted_text() -> None:
    setup = Setup([VALID], policy=SecretPolicy.REDACT)
    await setup.run(f"Deploy key {CREDENTIAL} is for billing.", hints=f"key {CREDENTIAL}")
    sent = setup.model.requests[0].messages[1].content
    assert CREDENTIAL not in sent and "billing" in sent
    record = setup.check_in
    assert record.input_text is not None and CREDENTIAL not in record.input_text
    assert record.input_text in sent and record.input_hash == text_hash(record.input_text)
    assert record.hints is not None and CREDENTIAL not in record.hints


async def test_without_keep_text_only_the_hash_is_recorded() -> None:
    setup = Setup([VALID], keep_text=False)
    await setup.run()
    assert (setup.check_in.input_text, setup.check_in.input_hash) == (None, text_hash(TEXT))


@pytest.mark.parametrize(
    ("given", "error", "field"),
    [
        ({"text": "  "}, ValidationError, "text"),
        ({"text": "x" * (MAX_TEXT + 1)}, TooLargeError, "text"),
        ({"hints": "h" * 4001}, TooLargeError, "hints"),
        ({"source_urn": "bad\nurn"}, ValidationError, "sourceUrn"),
        ({"source_urn": f"doc:{CREDENTIAL}"}, SensitiveContentError, "sourceUrn"),
    ],
    ids=["empty", "too-long", "long-hints", "urn", "urn-secret"],
)
async def test_bad_input_names_its_field_and_calls_no_model(
    given: dict[str, Any], error: type[Exception], field: str
) -> None:
    setup = Setup([VALID])
    with pytest.raises(error) as raised:
        await setup.run(**given)
    assert getattr(raised.value, "field", None) == field
    assert setup.model.calls == 0 and setup.check_ins.added == []


async def test_an_answer_the_load_refuses_stores_nothing_and_an_invalid_check_in() -> None:
    leaky = json.loads(VALID)
    leaky["pieces"][0]["content"] = f"Alice's key is {CREDENTIAL}."
    setup = Setup([json.dumps(leaky)])
    with pytest.raises(SensitiveContentError) as raised:
        await setup.run()
    assert raised.value.field == "pieces[0].content"
    assert setup.store.writes == 0 and setup.store.chunks == []
    assert (setup.check_in.status, setup.check_in.source_urn) == (CheckInStatus.INVALID, None)
    assert CREDENTIAL not in json.dumps(setup.check_in.output)  # the audit keeps none
    assert "[REDACTED:" in setup.check_in.output["pieces"][0]["content"]  # type: ignore[index]


@pytest.mark.parametrize("policy", [SecretPolicy.REJECT, SecretPolicy.REDACT])
async def test_a_credential_the_model_made_up_is_never_stored_in_the_check_in(
    policy: SecretPolicy,
) -> None:
    leaky = json.loads(VALID)
    leaky["graph"]["nodes"][0]["properties"] = {"deployKey": f"Uses {CREDENTIAL}."}
    leaky["pieces"][1]["content"] = f"Billing deploys with {CREDENTIAL}."
    for dry_run in (True, False):
        setup = Setup([json.dumps(leaky)], policy=policy)
        try:
            await setup.run(dry_run=dry_run)
        except SensitiveContentError:
            assert policy is SecretPolicy.REJECT and not dry_run
        assert CREDENTIAL not in json.dumps(setup.check_in.output), (policy, dry_run)
        assert CREDENTIAL not in json.dumps([c.content for c in setup.store.chunks])
