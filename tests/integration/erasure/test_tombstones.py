"""After an erasure, later writes of the client naming the person (by key, name or alias)
come in redacted, or are refused with ErasedSubject under KENNING_ERASURE_TOMBSTONE=reject,
on every write path: ingest, requestIngestion (and its job), ingestGraph. Another client's
writes of the same name are untouched."""

from __future__ import annotations

import dataclasses
from typing import Any

import asyncpg
import pytest

from kenning.domain.erasure.model import TombstoneMode
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from tests.support.erasure_scan import scan_database
from tests.support.erasure_world import (
    ALIAS,
    GRAPH,
    INGEST,
    KEY,
    NAME,
    Seeded,
    agent,
    erase,
)
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

REQUEST = """mutation($input: IngestInput!) {
  requestIngestion(input: $input, identity: {sourceKind: "mail", sourceId: "m-1",
                                             contentVersion: "1"}) {
    __typename ... on IngestionHandle { jobId } ... on Error { code message field } } }"""
NODE = """query($key: String!) { node(key: $key) { key properties edges { fromKey toKey } } }"""
CHUNKS = """{ chunksByKind(kind: "mail", limit: 50) { sourceUrn content tags metadata } }"""

RESYNC = {
    "sourceUrn": "mail:m-1",
    "kind": "mail",
    "content": f"{NAME} (ZQ) is back: see {KEY}.",
    "mainNodeKey": KEY,
    "relationships": [f"{KEY}|works_at|org:acme-corp", "person:bob|likes|drink:tea"],
    "metadata": {"from": NAME.upper(), "to": "Bob"},
    "tags": ["zephyrine quillfeather", "inbox"],
}


@pytest.fixture
async def erased(api: Api, world: dict[str, Seeded]) -> None:
    await erase(api, "acme", "DELETE")


def reject(runtime: Runtime) -> None:
    runtime.tombstones = dataclasses.replace(runtime.tombstones, mode=TombstoneMode.REJECT)


async def run_bulk_jobs(runtime: Runtime) -> list[JobStatus | None]:
    ran = []
    while (claimed := await runtime.queue.work.claim(Lane.BULK, "test/resync", 60)) is not None:
        ran.append(await run_job(claimed, runtime.queue.work, runtime.job_deps()))
    return ran


async def mail(api: Api, client: str) -> dict[str, Any]:
    chunks = (await api.as_(agent(client))(CHUNKS))["chunksByKind"]
    assert len(chunks) == 1, chunks
    return chunks[0]  # type: ignore[no-any-return]


async def test_a_resync_comes_in_redacted(api: Api, pool: asyncpg.Pool, erased: None) -> None:
    done = (await api.as_(agent("acme"))(INGEST, input=RESYNC))["ingest"]
    assert done["__typename"] == "IngestSuccess", done
    stored = await mail(api, "acme")
    assert stored["content"] == "[erased] ([erased]) is back: see [erased]."
    assert stored["tags"] == ["inbox"] and stored["metadata"]["from"] == "[erased]"
    assert (await api.as_(agent("acme"))(NODE, key=KEY))["node"] is None
    assert (await api.as_(agent("acme"))(NODE, key=ALIAS))["node"] is None
    bob = (await api.as_(agent("acme"))(NODE, key="person:bob"))["node"]
    assert {e["toKey"] for e in bob["edges"]} == {"drink:tea"}
    assert await scan_database(pool, "acme") == []


async def test_a_queued_resync_is_redacted_before_it_is_stored(
    api: Api, runtime: Runtime, pool: asyncpg.Pool, erased: None
) -> None:
    handle = (await api.as_(agent("acme"))(REQUEST, input=RESYNC))["requestIngestion"]
    assert handle["__typename"] == "IngestionHandle", handle
    assert await scan_database(pool, "acme") == [], "the queued payload must not hold her"
    assert await run_bulk_jobs(runtime) == [JobStatus.INDEXED]
    assert (await mail(api, "acme"))["content"] == "[erased] ([erased]) is back: see [erased]."
    assert await scan_database(pool, "acme") == []


async def test_structured_writes_lose_her_nodes_and_edges(
    api: Api, pool: asyncpg.Pool, erased: None
) -> None:
    done = await api.as_(agent("acme"))(
        GRAPH,
        input={
            "sourceUrn": "graph:again",
            "pieces": [{"ref": "p1", "content": f"{NAME} mentors Bob again."}],
            "nodes": [
                {"key": KEY, "properties": {"name": NAME}},
                {"key": "person:bob", "properties": {"mentor": f"zq ({NAME})"}},
            ],
            "edges": [{"from": KEY, "edgeType": "mentors", "to": "person:bob", "evidence": ["p1"]}],
        },
    )
    assert done["ingestGraph"]["__typename"] == "IngestGraphSuccess", done
    bob = (await api.as_(agent("acme"))(NODE, key="person:bob"))["node"]
    assert bob["properties"]["mentor"] == "[erased] ([erased])" and bob["edges"] == []
    assert await scan_database(pool, "acme") == []


async def test_an_identifier_naming_her_is_refused_in_either_mode(
    api: Api, pool: asyncpg.Pool, erased: None
) -> None:
    refused = (
        await api.as_(agent("acme"))(
            INGEST, input={**RESYNC, "sourceUrn": "notes:zephyrine-quillfeather"}
        )
    )["ingest"]
    assert refused == {
        "__typename": "ErasedSubject",
        "code": "ERASED_SUBJECT",
        "field": "sourceUrn",
        "message": "sourceUrn names an erased subject",
    }
    assert await scan_database(pool, "acme") == []


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("content", {"mainNodeKey": None, "relationships": [], "tags": [], "metadata": None}),
        ("mainNodeKey", {"content": "Back.", "metadata": None}),
        ("relationships[0]", {"content": "Back.", "mainNodeKey": None, "metadata": None}),
        ("metadata", {"content": "Back.", "mainNodeKey": None, "relationships": [], "tags": []}),
    ],
)
async def test_reject_mode_refuses_every_write_naming_her(
    api: Api, runtime: Runtime, pool: asyncpg.Pool, erased: None, field: str, change: dict[str, Any]
) -> None:
    reject(runtime)
    writer = api.as_(agent("acme"))
    for mutation, name in ((INGEST, "ingest"), (REQUEST, "requestIngestion")):
        refused = (await writer(mutation, input={**RESYNC, **change}))[name]
        assert refused["__typename"] == "ErasedSubject", refused
        assert (refused["code"], refused["field"]) == ("ERASED_SUBJECT", field)
        assert "zephyrine" not in refused["message"].lower()
    graph = await writer(
        GRAPH,
        input={
            "sourceUrn": "graph:again",
            "pieces": [{"ref": "p1", "content": f"Hi {ALIAS}"}],
        },
    )
    assert graph["ingestGraph"]["field"] == "pieces[0]"
    assert await run_bulk_jobs(runtime) == []
    assert await scan_database(pool, "acme") == []


async def test_another_client_writes_the_same_name_as_it_is(api: Api, erased: None) -> None:
    done = (await api.as_(agent("globex"))(INGEST, input=RESYNC))["ingest"]
    assert done["__typename"] == "IngestSuccess", done
    assert (await mail(api, "globex"))["content"] == RESYNC["content"]


SESSION = """mutation($summary: String!, $userKey: String) {
  appendSessionEntry(source: CHAT, summary: $summary, details: {with: "Zephyrine Quillfeather"},
                     userKey: $userKey) {
    __typename ... on Error { code message field } } }"""
PROCEDURE = """mutation($trigger: String!, $description: String!) {
  saveProcedure(input: {triggerPattern: $trigger, description: $description, source: LEARNED,
                        steps: [{agent: "hr", action: "email", parameters: {to: "ZQ"}}]}) {
    __typename ... on Error { code message field } } }"""
KNOW = """mutation($subject: String!, $content: String!, $userKey: String) {
  storeKnowledge(subject: $subject, content: $content, category: PERSONAL, userKey: $userKey) {
    __typename ... on Error { code message field } } }"""
MEMORY = """{ sessionMemory { summary details } procedures(triggerPattern: "onboarding", limit: 5) {
  procedure { triggerPattern description steps { parameters } } }
  userContext { categories { items { subject content } } } }"""


async def test_memory_writes_come_in_redacted(api: Api, pool: asyncpg.Pool, erased: None) -> None:
    writer = api.as_(agent("acme"))
    done = await writer(SESSION, summary=f"Called {NAME} back", userKey=None)
    assert done["appendSessionEntry"]["__typename"] == "AppendSessionEntrySuccess", done
    saved = await writer(PROCEDURE, trigger="onboarding", description=f"Ask {NAME} first")
    assert saved["saveProcedure"]["__typename"] == "Procedure", saved
    stored = await writer(KNOW, subject="Contact", content=f"{NAME} is the contact")
    assert stored["storeKnowledge"]["__typename"] == "StoreKnowledgeSuccess", stored
    memory = await writer(MEMORY)
    assert {"summary": "Called [erased] back", "details": {"with": "[erased]"}} in memory[
        "sessionMemory"
    ]
    [match] = memory["procedures"]
    assert match["procedure"]["description"] == "Ask [erased] first"
    assert match["procedure"]["steps"][0]["parameters"] == {"to": "[erased]"}
    items = [i for c in memory["userContext"]["categories"] for i in c["items"]]
    assert {"subject": "Contact", "content": "[erased] is the contact"} in items
    assert await scan_database(pool, "acme") == []


async def test_memory_identifiers_naming_her_are_refused(
    api: Api, pool: asyncpg.Pool, erased: None
) -> None:
    writer = api.as_(agent("acme"))
    refused = [
        (await writer(SESSION, summary="Hi", userKey=KEY))["appendSessionEntry"],
        (await writer(PROCEDURE, trigger="onboard ZQ", description="x"))["saveProcedure"],
        (await writer(KNOW, subject=f"{NAME} birthday", content="May"))["storeKnowledge"],
        (await writer(KNOW, subject="Birthday", content="May", userKey=ALIAS))["storeKnowledge"],
    ]
    assert [(r["__typename"], r["field"]) for r in refused] == [
        ("ErasedSubject", "userKey"),
        ("ErasedSubject", "triggerPattern"),
        ("ErasedSubject", "subject"),
        ("ErasedSubject", "userKey"),
    ]
    assert await scan_database(pool, "acme") == []


async def test_reject_mode_refuses_memory_writes_naming_her(
    api: Api, runtime: Runtime, pool: asyncpg.Pool, erased: None
) -> None:
    reject(runtime)
    writer = api.as_(agent("acme"))
    session = (await writer(SESSION, summary=f"Called {NAME}", userKey=None))["appendSessionEntry"]
    assert (session["__typename"], session["field"]) == ("ErasedSubject", "summary")
    known = (await writer(KNOW, subject="Contact", content=f"{NAME}"))["storeKnowledge"]
    assert (known["__typename"], known["field"]) == ("ErasedSubject", "content")
    assert await scan_database(pool, "acme") == []
