"""Aliases merge nodes; purges remove exactly what one source or connection supported."""

from __future__ import annotations

import asyncpg
import pytest

from kenning.settings import Settings
from tests.support.graph_rows import graph_edges, graph_vertices
from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST, REGISTER, SEED, doc

pytestmark = pytest.mark.integration

PURGE_CONNECTION = """
mutation($id: String!) {
  purgeConnection(scope: {clientId: "acme"}, connectionId: $id) {
    ... on PurgeSuccess { sources chunks evidenceRemoved edgesDeleted verticesDeleted }
  }
}
"""


CONNECT = """
mutation($id: String!) {
  registerConnection(input: {connectionId: $id, authority: "custom", label: $id,
                             scope: {clientId: "acme"}}) { __typename }
}
"""


async def _snapshot(pool: asyncpg.Pool, graph: str, source_urns: list[str]) -> object:
    chunks = await pool.fetch(
        "SELECT id, source_urn, content, embedding::text, graph_refs, content_hash, metadata "
        "FROM chunks WHERE source_urn = ANY($1::text[]) ORDER BY id",
        source_urns,
    )
    sources = await pool.fetch(
        "SELECT source_urn, content_hash, chunk_count FROM sources "
        "WHERE source_urn = ANY($1::text[]) ORDER BY source_urn",
        source_urns,
    )
    return [tuple(r) for r in chunks], [tuple(r) for r in sources]


async def test_alias_after_both_nodes_exist_merges_them(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    graph = migrated_settings.graph_name
    first = await api(INGEST, input=doc(SEED))
    second = await api(
        INGEST,
        input=doc("John Doe reviewed it.\n\nuser:jdoe|REVIEWED|jira:TASK-123\n", urn="doc:review"),
    )
    review_chunk = second["ingest"]["chunks"][0]["id"]
    seed_chunk = first["ingest"]["chunks"][0]["id"]
    result = (await api(REGISTER, alias="User:JDoe", canonical="user:john"))["registerAlias"]
    assert result == {
        "__typename": "RegisterAliasSuccess",
        "mergedScopes": 1,
        "alias": {"aliasKey": "user:jdoe", "canonicalKey": "user:john"},
    }
    keys = [k for _, k in await graph_vertices(pool, graph)]
    assert "user:jdoe" not in keys and keys.count("user:john") == 1
    edges = await graph_edges(pool, graph)
    assert ("acme", "user:john", "reviewed", "jira:task-123", (review_chunk,)) in edges
    assert ("acme", "jira:task-123", "assigned_to", "user:john", (seed_chunk,)) in edges
    refs = await pool.fetchval("SELECT graph_refs FROM chunks WHERE id = $1", review_chunk)
    assert "user:jdoe" not in refs and "user:john" in refs

    # Later ingests resolve the alias before anything is stored.
    third = await api(INGEST, input=doc("user:jdoe|APPROVED|jira:TASK-123\n", urn="doc:approval"))
    assert {"from": "user:john", "edgeType": "approved", "to": "jira:task-123"} in third["ingest"][
        "edges"
    ]
    listed = await api('{ aliases(scope: {clientId: "acme"}) { aliasKey seenCount } }')
    assert listed["aliases"][0]["aliasKey"] == "user:jdoe"
    assert listed["aliases"][0]["seenCount"] >= 1


async def test_alias_that_merges_a_duplicate_edge_unites_its_evidence(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    a = await api(INGEST, input=doc("user:john|OWNS|service:billing\n", urn="doc:a"))
    b = await api(INGEST, input=doc("user:jd|OWNS|service:billing\n", urn="doc:b"))
    await api(REGISTER, alias="user:jd", canonical="user:john")
    ids = tuple(sorted((a["ingest"]["chunks"][0]["id"], b["ingest"]["chunks"][0]["id"])))
    edges = await graph_edges(pool, migrated_settings.graph_name)
    owns = [e for e in edges if e[2] == "owns"]
    assert owns == [("acme", "user:john", "owns", "service:billing", ids)]


async def test_alias_rules(api: Api) -> None:
    self_alias = (await api(REGISTER, alias="user:x", canonical="User:X"))["registerAlias"]
    assert self_alias["__typename"] == "ValidationError" and self_alias["field"] == "alias"
    bad = (await api(REGISTER, alias="nonamespace", canonical="user:x"))["registerAlias"]
    assert bad["__typename"] == "ValidationError" and bad["field"] == "alias"
    # Chains flatten: a → b, then b → c makes a resolve to c.
    await api(REGISTER, alias="user:a", canonical="user:b")
    await api(REGISTER, alias="user:b", canonical="user:c")
    listed = await api('{ aliases(scope: {clientId: "acme"}) { aliasKey canonicalKey } }')
    assert sorted((a["aliasKey"], a["canonicalKey"]) for a in listed["aliases"]) == [
        ("user:a", "user:c"),
        ("user:b", "user:c"),
    ]


async def test_purge_connection_leaves_everything_else_byte_for_byte(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    graph = migrated_settings.graph_name
    for connection in ("drive-1", "drive-2"):  # ingests may only name registered ones
        assert (await api(CONNECT, id=connection))["registerConnection"]["__typename"] == (
            "RegisterConnectionSuccess"
        )
    await api(INGEST, input=doc(SEED, urn="keep:1"))
    await api(INGEST, input=doc("user:alice|OWNS|service:billing\n", urn="keep:2",
                                connectionId="drive-2"))  # fmt: skip
    keep = ["keep:1", "keep:2"]
    before = await _snapshot(pool, graph, keep)
    edges_before = {e for e in await graph_edges(pool, graph)}
    await api(INGEST, input=doc(SEED + "\nMirror.", urn="gone:1", connectionId="drive-1"))
    await api(INGEST, input=doc("user:bob|OWNS|service:ledger\n", urn="gone:2",
                                connectionId="drive-1"))  # fmt: skip
    purged = (await api(PURGE_CONNECTION, id="drive-1"))["purgeConnection"]
    assert purged["sources"] == 2 and purged["chunks"] == 2
    assert purged["edgesDeleted"] == 1  # bob owns ledger: supported only by gone:2
    assert purged["verticesDeleted"] == 2  # user:bob and service:ledger
    assert await _snapshot(pool, graph, keep) == before
    assert {e for e in await graph_edges(pool, graph)} == edges_before
    again = (await api(PURGE_CONNECTION, id="drive-1"))["purgeConnection"]
    assert again == {"sources": 0, "chunks": 0, "evidenceRemoved": 0, "edgesDeleted": 0,
                     "verticesDeleted": 0}  # fmt: skip


async def test_purge_is_scoped_to_its_client(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    await api(INGEST, input=doc(SEED, client="globex"))
    result = await api(
        'mutation { purgeSource(scope: {clientId: "acme"}, sourceUrn: "jira:TASK-123") '
        "{ ... on PurgeSuccess { chunks } } }"
    )
    assert result["purgeSource"]["chunks"] == 0
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE client_id = 'globex'") == 1
