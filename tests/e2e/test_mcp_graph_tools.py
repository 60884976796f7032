"""The MCP graph tools over real HTTP: an agent of a client that declared ``database`` ONE
writes two observed facts, reads the node now (the older edge in its history) and as of a
past time, retracts the current edge; another client's agent retracts nothing of it."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, mcp_session
from tests.support.server_process import Server, create_key, graphql

pytestmark = pytest.mark.e2e

DEFINE_ONE = (
    """mutation { defineRelation(edgeType: "database", cardinality: ONE) { __typename } }"""
)


@dataclass(frozen=True)
class GraphKeys:
    owner_a: str  # client-wide agent key of client A (defines relations for the client)
    agent_b: str  # an agent of client B


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> GraphKeys:
    a, b = f"mcp-graph-a-{uuid.uuid4().hex[:6]}", f"mcp-graph-b-{uuid.uuid4().hex[:6]}"
    return GraphKeys(
        asyncio.run(create_key(migrated_settings, Scope(a), Role.AGENT)),
        asyncio.run(create_key(migrated_settings, Scope(b, "web"), Role.AGENT)),
    )


async def test_an_agent_reads_the_graph_now_and_as_of_and_retracts_over_mcp(
    server: Server, keys: GraphKeys
) -> None:
    assert graphql(server, keys.owner_a, DEFINE_ONE)["defineRelation"] == {
        "__typename": "DefineRelationSuccess"
    }
    async with mcp_session(server.url, keys.owner_a) as session:
        for urn, target, at in (
            ("doc:db-2024", "db:mysql", "2024-01-01T00:00:00Z"),
            ("doc:db-2025", "db:postgres", "2025-06-01T00:00:00Z"),
        ):
            written = await call(
                session,
                "ingest_document",
                source_urn=urn,
                kind="note",
                content=f"service:ledger|database|{target}",
                observed_at=at,
            )
            assert written["status"] == "INDEXED", written  # fmt: skip
        now = await call(session, "get_node", key="service:ledger", include_history=True)
        assert [(e["toKey"], e["validity"]["validTo"]) for e in now["edges"]] == [
            ("db:postgres", None)
        ]
        [ended] = now["history"]
        assert (ended["toKey"], ended["validity"]["endedReason"]) == ("db:mysql", "SUPERSEDED")
        then = await call(session, "get_neighbors", key="service:ledger",
                          as_of="2024-06-01T00:00:00Z")  # fmt: skip
        assert [e["toKey"] for e in then["edges"]] == ["db:mysql"]
        retracted = await call(session, "retract_edge", from_key="service:ledger",
                               edge_type="database", to_key="db:postgres")  # fmt: skip
        assert retracted == {"retracted": True}
        assert (await call(session, "get_node", key="service:ledger"))["edges"] == []
    async with mcp_session(server.url, keys.agent_b) as other:
        refused = await call(other, "retract_edge", from_key="service:ledger",
                             edge_type="database", to_key="db:mysql")  # fmt: skip
        assert refused == {"retracted": False}  # another client's edge: nothing there
