"""The write path through GraphQL on the real PostgreSQL with AGE and pgvector."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ports import WriteUnit
from kenning.domain.ingestion.purge import remove_stored_source
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord, SourceRecord
from kenning.settings import Settings
from kenning.storage.ingestion.knowledge_store import PgKnowledgeStore
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graph_rows import graph_edges, graph_vertices
from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST, SEED, doc

pytestmark = pytest.mark.integration


async def test_seed_example_gives_evidence_bearing_edges(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    result = (await api(INGEST, input=doc(SEED)))["ingest"]
    assert result["__typename"] == "IngestSuccess"
    assert result["status"] == "INDEXED"
    assert result["warnings"] == []
    [chunk] = result["chunks"]
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert ("acme", "jira:task-123", "affects", "file:userservice.kt", (chunk["id"],)) in edges
    assert ("acme", "jira:task-123", "assigned_to", "user:john", (chunk["id"],)) in edges
    assert ("acme", "jira:task-123", "affects", "method:userservice.login", (chunk["id"],)) in edges
    stored = await pool.fetchval("SELECT content FROM chunks WHERE id = $1", chunk["id"])
    assert "The issue affects UserService.kt" in stored


async def test_unchanged_content_is_skipped_without_embedding(
    api: Api, embedder: CountingEmbedder
) -> None:
    first = (await api(INGEST, input=doc(SEED)))["ingest"]
    calls = embedder.calls
    second = (await api(INGEST, input=doc(SEED)))["ingest"]
    assert second["status"] == "SKIPPED_DUPLICATE"
    assert second["contentHash"] == first["contentHash"]
    assert embedder.calls == calls


async def test_reingest_replaces_chunks_evidence_edges_and_orphans(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    await api(INGEST, input=doc(SEED))
    changed = SEED.replace('  "TASK-123|AFFECTS|method:UserService.login"\n', "").replace(
        '"TASK-123|AFFECTS|file:UserService.kt",', '"TASK-123|AFFECTS|file:UserService.kt"'
    )
    result = (await api(INGEST, input=doc(changed)))["ingest"]
    assert result["status"] == "INDEXED"
    [chunk] = result["chunks"]
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert {(e[1], e[2], e[3]) for e in edges} == {
        ("jira:task-123", "affects", "file:userservice.kt"),
        ("jira:task-123", "assigned_to", "user:john"),
    }
    assert all(e[4] == (chunk["id"],) for e in edges)
    keys = [k for _, k in await graph_vertices(pool, migrated_settings.graph_name)]
    assert "method:userservice.login" not in keys
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 1


async def test_evidence_from_two_sources_is_united_and_survives_one_purge(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    a = (await api(INGEST, input=doc(SEED, urn="doc:a")))["ingest"]["chunks"][0]["id"]
    b = (await api(INGEST, input=doc(SEED + "\nAlso noted.", urn="doc:b")))["ingest"]
    b_id = b["chunks"][0]["id"]
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert ("acme", "jira:task-123", "assigned_to", "user:john", tuple(sorted((a, b_id)))) in edges
    purged = await api(
        'mutation { purgeSource(scope: {clientId: "acme"}, sourceUrn: "doc:b") '
        "{ ... on PurgeSuccess { sources chunks evidenceRemoved edgesDeleted verticesDeleted } } }"
    )
    assert purged["purgeSource"] == {
        "sources": 1,
        "chunks": 1,
        "evidenceRemoved": 3,
        "edgesDeleted": 0,
        "verticesDeleted": 0,
    }
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert ("acme", "jira:task-123", "assigned_to", "user:john", (a,)) in edges


async def test_eight_concurrent_ingests_make_one_vertex_per_key_and_unite_evidence(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    results = await asyncio.gather(
        *(api(INGEST, input=doc(SEED + f"\nRun {i}.", urn=f"doc:{i}")) for i in range(8))
    )
    chunk_ids = sorted(r["ingest"]["chunks"][0]["id"] for r in results)
    vertices = await graph_vertices(pool, migrated_settings.graph_name)
    assert len(vertices) == len(set(vertices)) == 4
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert len(edges) == 3
    assert all(list(e[4]) == chunk_ids for e in edges)


async def test_clients_never_share_vertices_or_edges(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    await api(INGEST, input=doc(SEED, client="acme"))
    await api(INGEST, input=doc(SEED, client="globex"))
    vertices = await graph_vertices(pool, migrated_settings.graph_name)
    assert [v for v in vertices if v[0] == "acme"] == [(c, k) for c, k in vertices if c == "acme"]
    assert len(vertices) == 8
    edges = await graph_edges(pool, migrated_settings.graph_name)
    acme_chunks = {e[4] for e in edges if e[0] == "acme"}
    globex_chunks = {e[4] for e in edges if e[0] == "globex"}
    assert acme_chunks.isdisjoint(globex_chunks)
    # Every edge joins two vertices of its own client.
    rows = await pool.fetch(
        f"SELECT * FROM cypher('{migrated_settings.graph_name}', $$ MATCH (a)-[r]->(b) "
        "RETURN a.client = r.client AND b.client = r.client $$) AS (ok agtype)"
    )
    assert rows and all(str(r["ok"]) == "true" for r in rows)


async def test_secrets_are_rejected_and_nothing_is_stored(
    api: Api, pool: asyncpg.Pool, embedder: CountingEmbedder
) -> None:
    leaked = SEED + "\nTemporary token: ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "\n"
    result = (await api(INGEST, input=doc(leaked)))["ingest"]
    assert result["__typename"] == "SensitiveContentError"
    assert result["findings"] == [{"kind": "github_token", "line": 11}]
    assert "ghp_" not in result["message"]
    assert embedder.calls == 0
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 0
    assert await pool.fetchval("SELECT count(*) FROM sources") == 0


async def test_redact_policy_stores_the_redacted_text(api: Api, pool: asyncpg.Pool) -> None:
    leaked = SEED + "\npassword = 'hunter2-Secret!'\n"
    result = (await api(INGEST, input=doc(leaked, secretPolicy="REDACT")))["ingest"]
    assert result["status"] == "INDEXED"
    stored = "".join(r["content"] for r in await pool.fetch("SELECT content FROM chunks"))
    assert "hunter2" not in stored
    assert "[REDACTED:password]" in stored


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"content": "   \n\t"}, "content"),
        ({"kind": ""}, "kind"),
        ({"mainNodeKey": "no-namespace"}, "mainNodeKey"),
        ({"sourceUrn": ""}, "sourceUrn"),
        ({"metadata": [1, 2]}, "metadata"),
    ],
)
async def test_bad_input_is_a_typed_error_naming_the_field(
    api: Api, pool: asyncpg.Pool, change: dict[str, object], field: str
) -> None:
    result = (await api(INGEST, input={**doc(SEED), **change}))["ingest"]
    assert result["__typename"] == "ValidationError"
    assert result["field"] == field
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 0


async def test_malformed_relationship_is_a_warning_not_a_failure(api: Api) -> None:
    result = (
        await api(
            INGEST, input=doc(SEED, relationships=["user:john|WROTE", "user:john|WROTE|doc:x"])
        )
    )["ingest"]
    assert result["status"] == "INDEXED"
    assert len(result["warnings"]) == 1
    assert {"from": "user:john", "edgeType": "wrote", "to": "doc:x"} in result["edges"]


async def test_orphan_cleanup_waits_for_a_writer_mentioning_the_node(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    """A writer holds the node; a purge that would orphan it must wait, then keep it."""
    scope = Scope("acme")
    await api(INGEST, input=doc("user:kim|OWNS|service:old\n", urn="doc:old"))
    store = PgKnowledgeStore(pool, migrated_settings.graph_name)
    nodes_written = asyncio.Event()
    release = asyncio.Event()

    async def writer(unit: WriteUnit) -> None:
        await unit.upsert_nodes(scope, [NodeRecord("user:kim", "user"),
                                        NodeRecord("service:new", "service")])  # fmt: skip
        nodes_written.set()
        await release.wait()
        await unit.write_chunks([])
        await unit.upsert_edges(scope, [EdgeRecord("user:kim", "owns", "service:new", ("c1",))])
        await unit.record_source(
            SourceRecord(scope, "doc:new", "note", "h", None, None, ("c1",),
                         ("user:kim", "service:new"))
        )  # fmt: skip

    writing = asyncio.create_task(store.write(writer))
    await asyncio.wait_for(nodes_written.wait(), 10)
    purging = asyncio.create_task(remove_stored_source(scope, "doc:old", store))
    try:
        await asyncio.sleep(0.3)
        waited = not purging.done()
    finally:
        release.set()  # never leave the writer hanging, even when the check fails
    await asyncio.wait_for(writing, 10)
    counts = await asyncio.wait_for(purging, 10)
    assert waited, "the purge must wait for the writer's lock on user:kim"
    # service:old and the document's main node went; user:kim stayed for the new edge.
    assert counts.vertices_deleted == 2
    vertices = await graph_vertices(pool, migrated_settings.graph_name)
    assert vertices == [("acme", "service:new"), ("acme", "user:kim")]
    edges = await graph_edges(pool, migrated_settings.graph_name)
    assert ("acme", "user:kim", "owns", "service:new", ("c1",)) in edges
