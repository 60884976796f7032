"""A person in every corner of a client's knowledge, and the read paths that could show them
(the erasure tests' world; ``erasure_scan`` scans every text and JSON column for her).

``seed`` writes Zephyrine Quillfeather (``person:zephyrine-quillfeather``, alias
``person:zq``) through the public API into documents, a source named after her, a node with
her name, edges to and from her, user knowledge about and of her (one item forgotten, so the
change log holds her), a session entry, a procedure, and, through their stores, a check-in,
an extraction-cache entry and a stored original. Bob's tea document never names her.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import asyncpg

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.extraction.check_ins import CheckInStatus, NewCheckIn
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from tests.support.graphql_api import Api

NAME = "Zephyrine Quillfeather"
KEY = "person:zephyrine-quillfeather"
ALIAS = "person:zq"
# What must be nowhere after the erasure: the name's words (each is rare enough) and the
# alias's id as a word.
NEEDLES = ("zephyrine", "quillfeather")
ALIAS_WORD = re.compile(r"(?<![a-z0-9])zq(?![a-z0-9])")


def admin(client: str) -> Principal:
    return Principal(key_id=f"{client}-admin", scope=Scope(client), role=Role.ADMIN)


def agent(client: str) -> Principal:
    return Principal(key_id=f"{client}-agent", scope=Scope(client), role=Role.AGENT)


INGEST = """mutation($input: IngestInput!) { ingest(input: $input) {
  __typename ... on IngestSuccess { status } ... on Error { code message field } } }"""
GRAPH = """mutation($input: IngestGraphInput!) { ingestGraph(input: $input) {
  __typename ... on Error { code message field } } }"""
ALIAS_DOC = """mutation($alias: String!, $canonical: String!) {
  registerAlias(alias: $alias, canonical: $canonical) {
    __typename ... on Error { code message field } } }"""
KNOW = """mutation($subject: String!, $content: String!, $userKey: String) {
  storeKnowledge(subject: $subject, content: $content, category: PERSONAL, userKey: $userKey) {
    __typename ... on Error { code message field } } }"""
FORGET = """mutation($subject: String!) {
  forgetKnowledge(category: PERSONAL, subject: $subject, reason: "moved on") {
    __typename ... on Error { code message field } } }"""
SESSION = """mutation($summary: String!) {
  appendSessionEntry(source: CHAT, summary: $summary, details: {with: "Zephyrine Quillfeather"}) {
    __typename ... on Error { code message field } } }"""
PROCEDURE = """mutation($description: String!) {
  saveProcedure(input: {triggerPattern: "onboard a designer", description: $description,
                        source: USER_DEFINED, steps: [{agent: "hr", action: "email",
                        parameters: {to: "Zephyrine Quillfeather"}}]}) {
    __typename ... on Procedure { id } ... on Error { code message field } } }"""


@dataclass(frozen=True, slots=True)
class Seeded:
    """Ids the read paths need."""

    file_id: str
    procedure_id: str


async def _ok(api: Api, field: str, query: str, **variables: Any) -> dict[str, Any]:
    data = await api(query, **variables)
    assert "code" not in data[field], data
    return data[field]  # type: ignore[no-any-return]


async def seed(api: Api, runtime: Runtime, client: str) -> Seeded:
    """Write the person into ``client`` (through its agent and admin keys)."""
    writer, boss = api.as_(agent(client)), api.as_(admin(client))
    docs = [
        (
            "doc:launch",
            f"{NAME} led the launch review with Bob. She asked for more tests.",
            KEY,
            [f"{KEY}|works_at|org:acme-corp", f"person:bob|knows|{KEY}"],
        ),
        ("doc:tea", "Bob likes green tea in the morning.", "person:bob", []),
        ("notes:zephyrine-quillfeather", "Private notes: prefers async standups.", None, []),
        ("doc:alias", "ZQ signed the contract; zq is her short name.", None, []),
    ]
    for urn, content, main, rels in docs:
        done = await _ok(
            writer,
            "ingest",
            INGEST,
            input={
                "sourceUrn": urn,
                "kind": "note",
                "content": content,
                "mainNodeKey": main,
                "relationships": rels,
                "metadata": {"author": NAME} if urn == "doc:launch" else None,
            },
        )
        assert done["__typename"] == "IngestSuccess", done
    await _ok(
        writer,
        "ingestGraph",
        GRAPH,
        input={
            "sourceUrn": "graph:people",
            "pieces": [{"ref": "p1", "content": f"{NAME} mentors Bob on design."}],
            "nodes": [
                {"key": KEY, "properties": {"name": NAME, "team": "design"}},
                {"key": "person:bob", "properties": {"name": "Bob", "mentor": NAME}},
            ],
            "edges": [{"from": KEY, "edgeType": "mentors", "to": "person:bob", "evidence": ["p1"]}],
        },
    )
    await _ok(boss, "registerAlias", ALIAS_DOC, alias=ALIAS, canonical=KEY)
    await _ok(writer, "storeKnowledge", KNOW, subject="Manager", content=f"{NAME} manages Bob")
    await _ok(writer, "storeKnowledge", KNOW, subject="Tea", content="Bob drinks tea")
    await _ok(writer, "storeKnowledge", KNOW, subject="Birthday", content="12 May", userKey=KEY)
    await _ok(writer, "storeKnowledge", KNOW, subject="Mentor", content=f"{NAME} mentors")
    await _ok(writer, "forgetKnowledge", FORGET, subject="Mentor")
    await _ok(writer, "appendSessionEntry", SESSION, summary=f"Talked with {NAME}")
    procedure = await _ok(
        writer, "saveProcedure", PROCEDURE, description=f"Ask {NAME} for the design kit."
    )
    scope = Scope(client)
    await runtime.check_ins.add(
        NewCheckIn(
            id=f"{client}-check-in",
            scope=scope,
            caller=f"{client}-agent",
            status=CheckInStatus.LOADED,
            input_text=f"{NAME} joined design.",
            input_hash="0" * 64,
            hints=None,
            output={"nodes": [{"key": KEY, "name": NAME}]},
            model="m",
            prompt_version="1",
            attempts=(),
            duration_ms=1.0,
        )
    )
    async with runtime.pool.acquire() as conn:
        await conn.execute(
            """INSERT INTO extraction_cache (client_id, content_hash, model, prompt_version, result)
               VALUES ($1, $2, 'm', '1', $3::jsonb)""",
            client,
            f"{client}-hash",
            json.dumps({"nodes": [NAME]}),
        )
    stored = await runtime.file_work.files.save(
        scope, "doc:launch", "launch.txt", "text/plain", f"{NAME} led the launch.".encode()
    )
    return Seeded(stored.id, procedure["id"])


READS = """query($key: String!, $alias: String!, $file: ID!, $procedure: ID!) {
  search(query: "Zephyrine Quillfeather launch", mode: HYBRID, limit: 20) {
    ... on SearchSuccess { hits { chunk { content metadata tags graphRefs sourceUrn } } } }
  keyword: search(query: "Zephyrine Quillfeather", mode: KEYWORD, limit: 20) {
    ... on SearchSuccess { hits { chunk { content sourceUrn } } } }
  node(key: $key) { key properties chunks { content } edges { fromKey toKey } }
  aliased: node(key: $alias) { key properties }
  bob: node(key: "person:bob") { key properties chunks { content metadata }
    edges { fromKey toKey evidence { content } } }
  neighbors(key: "person:bob", depth: 2) { nodes { key properties } edges { fromKey toKey } }
  findNodes(query: "Zephyrine Quillfeather", limit: 20) {
    ... on FoundNodes { matches { key label } } }
  agentContext(query: "Zephyrine Quillfeather design", entityKeys: ["person:bob"]) {
    ... on AgentContext { text } }
  userContext { markdown categories { items { subject content } } }
  userOwn: userContext(userKey: $key) { markdown }
  sessionMemory(limit: 50) { summary details }
  procedures(query: "design kit Zephyrine", limit: 10) {
    procedure { description steps { parameters } } }
  procedureHistory(id: $procedure) { nodes { description steps { parameters } } }
  knowledgeHistory(category: PERSONAL, subject: "Manager") { nodes { content } }
  forgotten: knowledgeHistory(category: PERSONAL, subject: "Mentor") { nodes { content } }
  changes(first: 50) { nodes { itemId itemKey old new reason userKey } }
  checkIns(first: 50) { ... on CheckInPage { nodes { inputText output sourceUrn } } }
  storedFile(id: $file) { filename sourceUrn kept notKeptReason }
  edgeHistory(from: "person:bob", edgeType: "knows") { to endedBy }
  chunksByKind(kind: "note", limit: 50) { content metadata }
  aliases { aliasKey canonicalKey }
}"""


async def read_all(api: Api, client: str, seeded: Seeded) -> str:
    """Every read path's answer to the client's admin, as lower-case JSON."""
    result = await api.as_(admin(client)).execute(
        READS, key=KEY, alias=ALIAS, file=seeded.file_id, procedure=seeded.procedure_id
    )
    # A procedure erased whole has no history left to read (NOT_FOUND, naming only its id).
    errors = result.errors or []
    assert all((e.extensions or {}).get("code") == "NOT_FOUND" for e in errors), errors
    return json.dumps({"data": result.data, "errors": [e.message for e in errors]}).lower()


def named(text: str) -> list[str]:
    """The needles ``text`` (lower case) holds."""
    found = [n for n in NEEDLES if n in text]
    return found + (["zq"] if ALIAS_WORD.search(text) else [])


ERASE = """mutation($key: String!, $mode: ErasureMode!) {
  eraseSubject(key: $key, mode: $mode) {
    __typename
    ... on ErasureRequested { receipt { id status } job { jobId status } }
    ... on Error { code message field } } }"""
RECEIPTS = """{ erasureReceipts { id mode status requestedBy requestedAt finishedAt jobId total
  counts { kind count } } }"""


async def run_priority_jobs(runtime: Runtime) -> list[JobStatus | None]:
    """Run every due job of the priority lane once, as a worker would."""
    ran = []
    while (claimed := await runtime.queue.work.claim(Lane.PRIORITY, "test/erase", 60)) is not None:
        ran.append(await run_job(claimed, runtime.queue.work, runtime.job_deps()))
    return ran


async def erase(api: Api, client: str, mode: str, key: str = KEY) -> dict[str, Any]:
    """Ask for the erasure as the client's admin, run its job; the receipt."""
    asked = (await api.as_(admin(client))(ERASE, key=key, mode=mode))["eraseSubject"]
    assert asked["__typename"] == "ErasureRequested", asked
    assert asked["receipt"]["status"] == "PENDING"
    assert await run_priority_jobs(api.runtime) == [JobStatus.INDEXED]
    receipts = (await api.as_(admin(client))(RECEIPTS))["erasureReceipts"]
    receipt: dict[str, Any] = next(r for r in receipts if r["id"] == asked["receipt"]["id"])
    assert receipt["status"] == "DONE" and receipt["jobId"] == asked["job"]["jobId"]
    assert receipt["requestedBy"] == f"{client}-admin" and receipt["finishedAt"]
    return receipt


def counts(receipt: dict[str, Any]) -> dict[str, int]:
    return {c["kind"]: c["count"] for c in receipt["counts"]}


async def originals_naming(pool: asyncpg.Pool) -> int:
    """Large objects (stored originals' bytes) that hold the name."""
    return int(
        await pool.fetchval(
            "SELECT count(*) FROM pg_largeobject WHERE encode(data, 'escape') ILIKE '%zephyrine%'"
        )
    )
