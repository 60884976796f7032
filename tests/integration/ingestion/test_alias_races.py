"""``registerAlias`` racing ingests of the alias: every edge ends on the canonical vertex."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.aliases import register_alias
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.ports import AliasResolver, WriteUnit
from kenning.domain.ingestion.request import IngestRequest, IngestStatus
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.graph_rows import graph_edges, graph_vertices
from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST, INGEST_GRAPH, REGISTER
from tests.support.router_harness import wait_until

pytestmark = pytest.mark.integration

T = TypeVar("T")
ACME = Scope("acme")
STATEMENT = "org:a|EMPLOYS|person:p"
NODE = """
query { node(key: "org:a", scope: {clientId: "acme"}) {
  key edges(direction: OUT) { edgeType to { key } evidenceCount } } }
"""


def _request(number: int) -> IngestRequest:
    return IngestRequest(
        source_urn=f"doc:{number}", kind="note", content=f"Note {number}.\n{STATEMENT}\n",
        scope=ACME,
    )  # fmt: skip


class _ResolvesThenWaits:
    """Answers from the real registry, then holds the ingest until ``go`` is set: the
    ingest has resolved its keys before the alias exists and writes after it does."""

    def __init__(self, inner: AliasResolver) -> None:
        self.inner = inner
        self.resolved = asyncio.Event()
        self.go = asyncio.Event()

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        found = await self.inner.resolve(client_id, keys)
        self.resolved.set()
        await self.go.wait()
        return found


class _HeldOpen:
    """A knowledge store whose write units stay open, their work done, until ``release``."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.done = asyncio.Event()
        self.release = asyncio.Event()

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return await self.runtime.store.source_hash(scope, source_urn)

    async def write(self, work: Callable[[WriteUnit], Awaitable[T]]) -> T:
        async def held(unit: WriteUnit) -> T:
            result = await work(unit)
            self.done.set()
            await self.release.wait()
            return result

        return await self.runtime.store.write(held)


async def _waiting_on_a_lock(pool: asyncpg.Pool) -> bool:
    waiting = await pool.fetchval(
        """SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
           WHERE d.datname = current_database() AND l.locktype = 'advisory'
             AND NOT l.granted"""
    )
    return bool(waiting)


async def _stranded(pool: asyncpg.Pool, settings: Settings) -> tuple[list[Any], list[Any]]:
    """Vertices still keyed by the alias, and the edges that touch one."""
    vertices = [v for v in await graph_vertices(pool, settings.graph_name) if v[1] == "org:a"]
    edges = [e for e in await graph_edges(pool, settings.graph_name) if "org:a" in e[1:4]]
    return vertices, edges


async def test_ingest_that_resolved_before_the_alias_writes_to_the_canonical(
    runtime: Runtime, api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    resolver = _ResolvesThenWaits(runtime.aliases)
    deps = IngestDeps(store=runtime.store, aliases=resolver, embedder=runtime.embedder)
    task = asyncio.create_task(ingest(_request(1), deps))
    await asyncio.wait_for(resolver.resolved.wait(), 5)
    registered = (await api(REGISTER, alias="org:a", canonical="org:canon"))["registerAlias"]
    assert registered["__typename"] == "RegisterAliasSuccess"
    resolver.go.set()
    outcome = await asyncio.wait_for(task, 10)
    assert outcome.status is IngestStatus.INDEXED
    assert await _stranded(pool, migrated_settings) == ([], [])
    [chunk_id] = outcome.chunk_ids
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert ("acme", "org:canon", "employs", "person:p", (chunk_id,)) in edges
    refs = await pool.fetchval("SELECT graph_refs FROM chunks WHERE id = $1", chunk_id)
    assert "org:a" not in refs and "org:canon" in refs


async def test_ingest_during_an_open_merge_waits_for_it(
    runtime: Runtime, api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    store = _HeldOpen(runtime)
    merge = asyncio.create_task(
        register_alias("acme", "org:a", "org:canon", area="", book=runtime.aliases, store=store)
    )
    await asyncio.wait_for(store.done.wait(), 5)
    written = asyncio.create_task(api(INGEST, input=_doc(1)))
    # The ingest either blocks behind the merge (fixed) or finishes under it (the race).
    waited = False
    for _ in range(100):
        waited = await _waiting_on_a_lock(pool)
        if written.done() or waited:
            break
        await asyncio.sleep(0.05)
    store.release.set()
    await asyncio.wait_for(merge, 10)
    result = (await asyncio.wait_for(written, 10))["ingest"]
    assert result["status"] == "INDEXED"
    assert await _stranded(pool, migrated_settings) == ([], [])
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert ("acme", "org:canon", "employs", "person:p", (result["chunks"][0]["id"],)) in edges
    assert waited, "the ingest should have waited for the merge's lock"


def _doc(number: int) -> dict[str, object]:
    return {
        "sourceUrn": f"doc:{number}",
        "kind": "note",
        "content": f"Note {number}.\n{STATEMENT}\n",
        "scope": {"clientId": "acme"},
    }


async def test_six_concurrent_ingests_and_a_register_alias_agree(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    ingests = [api(INGEST, input=_doc(number)) for number in range(6)]
    register = api(REGISTER, alias="org:a", canonical="org:canon")
    *results, registered = await asyncio.gather(*ingests[:3], *ingests[3:], register)
    assert registered["registerAlias"]["__typename"] == "RegisterAliasSuccess"
    assert all(r["ingest"]["status"] == "INDEXED" for r in results)
    assert await _stranded(pool, migrated_settings) == ([], [])
    chunk_ids = tuple(sorted(r["ingest"]["chunks"][0]["id"] for r in results))
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert [e for e in edges if e[2] == "employs"] == [
        ("acme", "org:canon", "employs", "person:p", chunk_ids)
    ]
    node = (await api(NODE))["node"]
    assert node["key"] == "org:canon"
    assert node["edges"] == [{"edgeType": "employs", "to": {"key": "person:p"}, "evidenceCount": 6}]


async def test_ingest_graph_naming_an_alias_writes_the_canonical(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    await api(INGEST, input=_doc(1))  # org:a|employs|person:p, before any alias
    await api(REGISTER, alias="org:a", canonical="org:canon")
    payload = {
        "sourceUrn": "profile:p",
        "scope": {"clientId": "acme"},
        "pieces": [{"ref": "p1", "content": "P founded A."}],
        "nodes": [{"key": "org:a", "properties": {"name": "A"}}],
        "edges": [{"from": "person:p", "edgeType": "FOUNDED", "to": "org:a", "evidence": ["p1"]}],
    }
    result = (await api(INGEST_GRAPH, input=payload))["ingestGraph"]
    assert result["rejected"] == []
    assert await _stranded(pool, migrated_settings) == ([], [])
    edges = {e[1:4] for e in await graph_edges(pool, migrated_settings.graph_name)}
    assert edges == {("org:canon", "employs", "person:p"), ("person:p", "founded", "org:canon")}
    node = (await api(NODE))["node"]
    assert node["key"] == "org:canon"


async def test_alias_onto_a_key_being_made_an_alias_follows_it(runtime: Runtime, api: Api) -> None:
    store = _HeldOpen(runtime)
    first = asyncio.create_task(
        register_alias("acme", "org:b", "org:c", area="", book=runtime.aliases, store=store)
    )
    await asyncio.wait_for(store.done.wait(), 5)
    # Resolves org:b before org:b → org:c commits, so it names org:b as the target.
    second = asyncio.create_task(api(REGISTER, alias="org:a", canonical="org:b"))
    # Release the first only once the second waits for its lock: the interleaving under test.
    for _ in range(500):
        if await _waiting_on_a_lock(runtime.pool):
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the second registration never waited for the first")
    store.release.set()
    await asyncio.wait_for(first, 10)
    result = (await asyncio.wait_for(second, 10))["registerAlias"]
    assert result["alias"] == {"aliasKey": "org:a", "canonicalKey": "org:c"}
    listed = await api('{ aliases(scope: {clientId: "acme"}) { aliasKey canonicalKey } }')
    assert sorted((a["aliasKey"], a["canonicalKey"]) for a in listed["aliases"]) == [
        ("org:a", "org:c"),
        ("org:b", "org:c"),
    ]


async def test_a_key_repointed_by_a_registration_is_not_left_cached_at_its_old_target(
    runtime: Runtime,
) -> None:
    book, store = runtime.aliases, runtime.store
    await register_alias("acme", "org:x", "org:a", area="", book=book, store=store)

    async def put_then_look(unit: WriteUnit) -> asyncio.Task[dict[str, str]]:
        await book.put(unit, "acme", "org:a", "org:b", "")  # re-points org:x to org:b
        # Another request resolves org:x before this commits: it reads org:x -> org:a and
        # caches it (then its seen-count update waits for the commit).
        looking = asyncio.create_task(book.resolve("acme", {"org:x"}))
        await wait_until(lambda: ("acme", "org:x") in book._cache)  # type: ignore[attr-defined]
        return looking

    looking = await store.write(put_then_look)
    assert await looking == {"org:x": "org:a"}
    book.forget("acme", {"org:a", "org:b"})  # what register_alias forgets after commit
    assert await book.resolve("acme", {"org:x"}) == {"org:x": "org:b"}
