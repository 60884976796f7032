"""eraseSubject on the real stack: a person written everywhere a client keeps text is gone
from every read path and from every text and JSON column of the database, in DELETE and in
REDACT mode; another client's person of the same name keeps everything; the receipt counts
what went and holds nothing of it."""

from __future__ import annotations

import json

import asyncpg
import pytest

from tests.support.erasure_scan import scan_database
from tests.support.erasure_world import (
    ERASE,
    KEY,
    Seeded,
    admin,
    agent,
    counts,
    erase,
    named,
    originals_naming,
    read_all,
    run_priority_jobs,
)
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration


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
        "zephyrine",
        "quillfeather",
        "zq",
    ]
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
        "__typename": "ValidationError",
        "code": "INVALID",
        "field": "clientId",
        "message": "an erasure acts within one client: give scope.clientId",
    }
    bad = await api.as_(admin("acme"))(ERASE, key="no namespace", mode="DELETE")
    assert bad["eraseSubject"]["field"] == "key"
    assert await run_priority_jobs(api.runtime) == []
