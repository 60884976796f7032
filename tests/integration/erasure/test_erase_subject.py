"""eraseSubject on the real stack: a person written everywhere a client keeps text is gone
from every read path and from every text and JSON column of the database, in DELETE and in
REDACT mode; another client's person of the same name keeps everything; the receipt counts
what went and holds nothing of it."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest

from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from tests.support.erasure_world import (
    KEY,
    Seeded,
    admin,
    agent,
    named,
    read_all,
    scan_database,
    seed,
)
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

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
    receipt = next(r for r in receipts if r["id"] == asked["receipt"]["id"])
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


@pytest.fixture
async def world(api: Api, runtime: Runtime, pool: asyncpg.Pool) -> dict[str, Seeded]:
    async with pool.acquire() as conn:
        await conn.execute("TRUNCATE erasure_receipts, erasure_tombstones")
        await conn.execute("DELETE FROM source_files")
    return {c: await seed(api, runtime, c) for c in ("acme", "globex")}


@pytest.mark.parametrize("mode", ["DELETE", "REDACT"])
async def test_after_erasure_no_read_path_and_no_column_holds_the_person(
    api: Api, pool: asyncpg.Pool, world: dict[str, Seeded], mode: str
) -> None:
    before = await read_all(api, "acme", world["acme"])
    assert named(before) == ["zephyrine", "quillfeather", "zq"]
    assert await scan_database(pool, "acme"), "the scan must see her before the erasure"

    receipt = await erase(api, "acme", mode)

    assert named(await read_all(api, "acme", world["acme"])) == []
    assert await scan_database(pool, "acme") == []
    n = counts(receipt)
    assert n["nodes"] >= 1 and n["aliases"] == 1 and n["edges"] >= 3, n
    assert n["userKnowledge"] == 3 and n["sessionEntries"] == 1 and n["procedures"] == 1, n
    assert n["checkIns"] == 1 and n["extractionCache"] == 1 and n["storedFiles"] >= 1, n
    assert n["sources"] >= 1 and n["historyRows"] >= 1, n
    if mode == "DELETE":
        assert n["chunksDeleted"] >= 3 and n["chunksRedacted"] == 0, n
    else:
        assert n["chunksRedacted"] >= 3, n
    assert receipt["total"] == sum(n.values())
    # Globex's Zephyrine is another person: everything of hers stays.
    assert named(await read_all(api, "globex", world["globex"])) == [
        "zephyrine", "quillfeather", "zq",
    ]  # fmt: skip
    globex = await scan_database(pool, "globex")
    assert "public.chunks.content" in globex and "public.knowledge_versions.content" in globex
    # Only globex's original still holds her name.
    assert await originals_naming(pool) == 1


async def test_redact_keeps_the_rest_of_a_chunk_and_embeds_it_again(
    api: Api, world: dict[str, Seeded]
) -> None:
    embedder = api.runtime.embedder
    embedded = getattr(embedder, "texts", 0)
    receipt = await erase(api, "acme", "REDACT")
    assert getattr(embedder, "texts", 0) - embedded == counts(receipt)["chunksRedacted"]
    chunks = await api.as_(agent("acme"))(
        """{ chunksByKind(kind: "note", limit: 50) { content sourceUrn } }"""
    )
    by_urn = {c["sourceUrn"]: c["content"] for c in chunks["chunksByKind"]}
    assert by_urn["doc:launch"] == (
        "[erased] led the launch review with Bob. She asked for more tests."
    )
    assert by_urn["doc:alias"] == "[erased] signed the contract; [erased] is her short name."
    assert by_urn["doc:tea"] == "Bob likes green tea in the morning."
    assert "notes:zephyrine-quillfeather" not in by_urn
    search = await api.as_(agent("acme"))(
        """{ search(query: "erased launch review", mode: KEYWORD, limit: 5) {
             ... on SearchSuccess { hits { chunk { sourceUrn } } } } }"""
    )
    assert [h["chunk"]["sourceUrn"] for h in search["search"]["hits"]][:1] == ["doc:launch"]


async def test_an_unknown_key_gets_a_receipt_of_zeros(api: Api, world: dict[str, Seeded]) -> None:
    receipt = await erase(api, "acme", "DELETE", key="person:nobody-at-all")
    assert receipt["total"] == 0 and set(counts(receipt).values()) == {0}
    assert json.dumps(receipt).lower().count("nobody") == 0


async def test_erasure_needs_an_admin_key_of_the_client(api: Api, world: dict[str, Seeded]) -> None:
    refused = await api.as_(agent("acme"))(ERASE, key=KEY, mode="DELETE")
    assert refused["eraseSubject"]["code"] == "OUT_OF_SCOPE"
    no_client = await api(ERASE, key=KEY, mode="DELETE")
    assert no_client["eraseSubject"] == {
        "__typename": "ValidationError", "code": "INVALID", "field": "clientId",
        "message": "an erasure acts within one client: give scope.clientId",
    }  # fmt: skip
    bad = await api.as_(admin("acme"))(ERASE, key="no namespace", mode="DELETE")
    assert bad["eraseSubject"]["field"] == "key"
    assert await run_priority_jobs(api.runtime) == []
