"""structureKnowledge through GraphQL on the real stack, the model being the fake Ollama
(scripted) behind the real HTTP adapter: free text becomes pieces and evidence-bearing
edges, dry runs and invalid answers store only their check-in, an unavailable model and
credentials store nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.extraction.structure_prompt import EXAMPLE_ANSWER
from kenning.router.demo import FakeOllama
from kenning.runtime import Runtime
from kenning.storage.models import OllamaModelClient
from tests.fakes.ollama import FakeFactory
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
TEXT = "Alice Chen leads payments. Billing belongs to payments and calls the ledger API."
VALID = json.dumps(EXAMPLE_ANSWER)
# A generated-looking AWS key id (the documented example is a placeholder and passes).
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"

STRUCTURE = """mutation S($input: StructureKnowledgeInput!) {
  structureKnowledge(input: $input) {
    __typename
    ... on StructureKnowledgeSuccess {
      sourceUrn knowledge
      checkIn { id status model promptVersion attempts { number error } }
      loaded { status nodes chunks { id } edges { from edgeType to } rejected { item } } }
    ... on ModelOutputInvalid { model checkInId attempts { number error } }
    ... on ModelUnavailable { retryable }
    ... on Error { code message field } } }"""
CHECK_INS = """query C($first: Int!, $after: String) {
  checkIns(first: $first, after: $after) {
    __typename
    ... on CheckInPage { endCursor hasNextPage nodes {
      id status caller sourceUrn inputText inputHash hints output model promptVersion
      durationMs attempts { number error durationMs } scope { clientId projectId groupId } } }
    ... on Error { code field } } }"""
NODE = """query N($key: String!) { node(key: $key) {
  edges(limit: 20) { edgeType from { key } to { key } evidence(limit: 5) { id content } } } }"""


@pytest.fixture
async def fake(fake_ollama_factory: FakeFactory, runtime: Runtime) -> AsyncIterator[FakeOllama]:
    """A fake Ollama the runtime's model calls go to over HTTP, as they would to a real one."""
    ollama = fake_ollama_factory()
    client = OllamaModelClient(ollama.url, timeout=10)
    runtime.models = client
    yield ollama
    await client.aclose()


async def structure(api: Api, **given: Any) -> dict[str, Any]:
    found: dict[str, Any] = (await api(STRUCTURE, input={"text": TEXT, **given}))[
        "structureKnowledge"
    ]
    return found


async def check_ins(api: Api, first: int = 20) -> list[dict[str, Any]]:
    page = (await api(CHECK_INS, first=first))["checkIns"]
    assert page["__typename"] == "CheckInPage", page
    nodes: list[dict[str, Any]] = page["nodes"]
    return nodes


async def stored_chunks(runtime: Runtime) -> int:
    count: int = await runtime.pool.fetchval("SELECT count(*) FROM chunks")
    return count


async def test_text_becomes_pieces_and_edges_citing_their_chunks(
    api: Api, runtime: Runtime, fake: FakeOllama
) -> None:
    acme = api.as_(ACME)
    fake.script([VALID])
    done = await structure(acme, hints="the payments team")
    assert done["__typename"] == "StructureKnowledgeSuccess", done
    check_in = done["checkIn"]
    assert (check_in["status"], check_in["model"], check_in["promptVersion"]) == (
        "LOADED", "qwen2.5:7b", "structure-v2",
    )  # fmt: skip
    assert check_in["attempts"] == [{"number": 1, "error": None}]
    assert done["knowledge"] == EXAMPLE_ANSWER
    loaded = done["loaded"]
    assert loaded["status"] == "INDEXED" and loaded["rejected"] == [] and len(loaded["chunks"]) == 3
    assert {(e["from"], e["edgeType"], e["to"]) for e in loaded["edges"]} == {
        ("person:alice-chen", "leads", "team:payments"),
        ("service:billing", "belongs_to", "team:payments"),
        ("service:billing", "calls", "api:ledger"),
    }
    # P1 went out: an agent waits on this call.
    assert fake.count("/api/chat", "qwen2.5:7b", outcome="ok", priority="1") == 1
    node = (await acme(NODE, key="service:billing"))["node"]
    pieces = {p["piece_id"]: p["content"] for p in EXAMPLE_ANSWER["pieces"]}  # type: ignore[index]
    evidence = {(e["edgeType"], e["to"]["key"]): [c["content"] for c in e["evidence"]]
                for e in node["edges"]}  # fmt: skip
    assert evidence == {("belongs_to", "team:payments"): [pieces["p2"]],
                        ("calls", "api:ledger"): [pieces["p2"]]}  # fmt: skip
    [record] = await check_ins(acme)
    assert record["id"] == check_in["id"] and record["status"] == "LOADED"
    assert (record["caller"], record["sourceUrn"], record["inputText"], record["hints"]) == (
        "acme-web", done["sourceUrn"], TEXT, "the payments team",
    )  # fmt: skip
    assert record["scope"] == {"clientId": "acme", "projectId": "web", "groupId": ""}
    assert record["output"] == EXAMPLE_ANSWER and record["promptVersion"] == "structure-v2"
    assert record["durationMs"] >= record["attempts"][0]["durationMs"] > 0


async def test_a_dry_run_stores_nothing_but_its_check_in(
    api: Api, runtime: Runtime, fake: FakeOllama
) -> None:
    acme = api.as_(ACME)
    fake.script([VALID])
    done = await structure(acme, dryRun=True)
    assert (done["checkIn"]["status"], done["loaded"]) == ("DRY_RUN", None)
    assert done["knowledge"] == EXAMPLE_ANSWER
    assert await stored_chunks(runtime) == 0
    assert (await acme(NODE, key="service:billing"))["node"] is None
    [record] = await check_ins(acme)
    assert (record["status"], record["sourceUrn"], record["output"]) == (
        "DRY_RUN", None, EXAMPLE_ANSWER,
    )  # fmt: skip


async def test_an_invalid_then_valid_answer_records_two_attempts(
    api: Api, fake: FakeOllama
) -> None:
    wrong = json.loads(VALID)
    wrong["pieces"][0]["knowledge_type"] = "RUMOUR"
    fake.script([json.dumps(wrong), VALID])
    done = await structure(api.as_(ACME))
    assert done["checkIn"]["status"] == "LOADED"
    first, second = done["checkIn"]["attempts"]
    assert first["number"] == 1 and "pieces.0.knowledge_type" in first["error"]
    assert second == {"number": 2, "error": None}
    [record] = await check_ins(api.as_(ACME))
    assert [a["number"] for a in record["attempts"]] == [1, 2]
    assert fake.count("/api/chat", outcome="ok") == 2


async def test_an_answer_that_stays_invalid_is_a_typed_error_and_loads_nothing(
    api: Api, runtime: Runtime, fake: FakeOllama
) -> None:
    fake.replier = lambda body: '{"pieces": []}'
    failed = await structure(api.as_(ACME))
    assert failed["__typename"] == "ModelOutputInvalid" and failed["code"] == "MODEL_OUTPUT_INVALID"
    retries = runtime.settings.model_max_retries
    assert [a["number"] for a in failed["attempts"]] == list(range(1, retries + 2))
    assert all("pieces" in a["error"] for a in failed["attempts"])
    assert await stored_chunks(runtime) == 0
    [record] = await check_ins(api.as_(ACME))
    assert (record["id"], record["status"], record["output"]) == (
        failed["checkInId"], "INVALID", None,
    )  # fmt: skip


async def test_an_unavailable_model_is_retryable_and_leaves_nothing(
    api: Api, runtime: Runtime, fake: FakeOllama
) -> None:
    fake.busy_for(5)
    failed = await structure(api.as_(ACME))
    assert failed["__typename"] == "ModelUnavailable", failed
    assert (failed["code"], failed["retryable"]) == ("MODEL_UNAVAILABLE", True)
    assert await check_ins(api.as_(ACME)) == [] and await stored_chunks(runtime) == 0


@pytest.mark.parametrize("where", ["text", "hints"])
async def test_a_credential_is_refused_before_the_model_is_called(
    api: Api, runtime: Runtime, fake: FakeOllama, where: str
) -> None:
    fake.script([VALID])
    refused = await structure(api.as_(ACME), **{where: f"the deploy key is {CREDENTIAL}"})
    assert refused["__typename"] == "SensitiveContentError"
    assert (refused["code"], refused["field"]) == ("SENSITIVE_CONTENT", where)
    assert fake.count("/api/chat") == 0
    assert await check_ins(api.as_(ACME)) == [] and await stored_chunks(runtime) == 0


async def test_bad_input_through_variables_names_its_field(api: Api, fake: FakeOllama) -> None:
    empty = await structure(api.as_(ACME), text="  ")
    assert (empty["__typename"], empty["field"]) == ("ValidationError", "text")
    urn = await structure(api.as_(ACME), sourceUrn="bad\nurn")
    assert (urn["__typename"], urn["field"]) == ("ValidationError", "sourceUrn")
    reader = Principal("acme-ui", Scope("acme"), Role.UI)
    refused = await structure(api.as_(reader))
    assert refused["__typename"] == "ScopeError"
    assert fake.count("/api/chat") == 0
