"""The MCP tools of a node's past over real HTTP: an agent corrects a node with
``update_node`` and reads its property versions, then an edge's timeline, with
``get_history``; an agent of another client finds no such node and no history."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, error_text, mcp_session
from tests.support.server_process import Server, create_key, graphql

pytestmark = pytest.mark.e2e

METADATA = """mutation($metadata: JSON!) {
  ingestGraph(input: {sourceUrn: "kb:ledger", metadata: $metadata,
                      observedAt: "2025-01-15T00:00:00Z"}) { __typename } }"""


@dataclass(frozen=True)
class HistoryKeys:
    agent_a: str  # client-wide agent key of client A
    agent_b: str  # an agent of client B


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> HistoryKeys:
    a, b = f"mcp-past-a-{uuid.uuid4().hex[:6]}", f"mcp-past-b-{uuid.uuid4().hex[:6]}"
    return HistoryKeys(
        asyncio.run(create_key(migrated_settings, Scope(a), Role.AGENT)),
        asyncio.run(create_key(migrated_settings, Scope(b), Role.AGENT)),
    )


async def test_an_agent_corrects_a_node_and_reads_its_past_over_mcp(
    server: Server, keys: HistoryKeys
) -> None:
    metadata = {"service:ledger": {"type": "service", "properties": {"owner": "team:ledger"}}}
    written = graphql(server, keys.agent_a, METADATA, metadata=metadata)
    assert written["ingestGraph"] == {"__typename": "IngestGraphSuccess"}
    async with mcp_session(server.url, keys.agent_a) as session:
        updated = await call(
            session,
            "update_node",
            key="service:ledger",
            set={"owner": "team:payments"},
            reason="Payments own the ledger now",
        )
        assert updated["node"]["properties"] == {"owner": "team:payments"}
        assert updated["changed"] == [
            {"name": "owner", "old": "team:ledger", "new": "team:payments", "removed": False}
        ]
        past = await call(session, "get_history", kind="node", key="Service::Ledger")
        assert [
            (v["value"], v["source"], v["changedBy"] is not None, v["endedAt"] is None)
            for v in past["versions"]
        ] == [("team:payments", None, True, True), ("team:ledger", "kb:ledger", False, False)]
        assert past["versions"][1]["observedAt"].startswith("2025-01-15T00:00:00")
        await call(
            session,
            "ingest_document",
            source_urn="doc:ledger-db",
            kind="note",
            content="service:ledger|database|db:postgres",
        )
        ends = {"from_key": "service:ledger", "edge_type": "database", "to_key": "db:postgres"}
        retracted = await call(session, "retract_edge", **ends, reason="Moved")
        assert retracted == {"retracted": True}
        timeline = await call(session, "get_history", kind="edge", key="service:ledger|database")
        [interval] = timeline["intervals"]
        assert (interval["toKey"], interval["endedReason"]) == ("db:postgres", "RETRACTED")
        bad = await session.call_tool("get_history", {"kind": "edge", "key": "service:ledger"})
        assert bad.is_error and "INVALID" in error_text(bad) and "key" in error_text(bad)
        refused = await session.call_tool(
            "update_node", {"key": "service:ledger", "set": {"type": "x"}}
        )
        assert refused.is_error and "(field: set)" in error_text(refused)
    async with mcp_session(server.url, keys.agent_b) as other:
        missing = await other.call_tool("update_node", {"key": "service:ledger", "set": {"a": 1}})
        assert missing.is_error and "NOT_FOUND" in error_text(missing)
        assert (await call(other, "get_history", kind="node", key="service:ledger")) == {
            "kind": "node",
            "versions": [],
            "endCursor": None,
            "hasNextPage": False,
        }
