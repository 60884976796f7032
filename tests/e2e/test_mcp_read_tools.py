"""The MCP read tools over real HTTP: after an agent writes a document (a small graph) and a
fact about its user, get_chunks, evidence_pack, find_path and user_context answer it; bad
arguments are refused naming the field; another client's agent reads nothing of it."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, mcp_session, refusal
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class ReadKeys:
    agent_a: str
    agent_b: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> ReadKeys:
    a, b = f"mcp-read-a-{uuid.uuid4().hex[:6]}", f"mcp-read-b-{uuid.uuid4().hex[:6]}"
    return ReadKeys(
        asyncio.run(create_key(migrated_settings, Scope(a, "web"), Role.AGENT)),
        asyncio.run(create_key(migrated_settings, Scope(b, "web"), Role.AGENT)),
    )


@pytest.fixture(scope="module")
async def written(server: Server, keys: ReadKeys) -> dict[str, Any]:
    """What client A's agent wrote: a runbook with a two-edge path, and a user's fact."""
    async with mcp_session(server.url, keys.agent_a) as session:
        document = await call(
            session,
            "ingest_document",
            source_urn="doc:wombat-runbook",
            kind="runbook",
            content="The wombat service keeps its ledger in the marmot database.\n"
            "service:wombat|depends_on|db:marmot\n"
            "db:marmot|hosted_on|host:capybara\n",
        )
        fact = await call(
            session,
            "store_knowledge",
            subject="shell",
            content="Uses the fish shell everywhere.",
            category="TECH_STACK",
            user_key="user:alice",
        )
    assert document["status"] == "INDEXED" and fact["status"] == "INDEXED"
    return document


async def test_the_reads_answer_what_the_agent_wrote(
    server: Server, keys: ReadKeys, written: dict[str, Any]
) -> None:
    [chunk_id] = written["chunkIds"]
    async with mcp_session(server.url, keys.agent_a) as session:
        chunks = (await call(session, "get_chunks", ids=[chunk_id, "no-such-chunk"]))["chunks"]
        pack = await call(session, "evidence_pack", query="wombat ledger marmot database")
        path = (
            await call(session, "find_path", from_key="service:wombat", to_key="host:capybara")
        )["path"]
        none = (
            await call(
                session,
                "find_path",
                from_key="service:wombat",
                to_key="host:capybara",
                direction="IN",
            )
        )["path"]
        profile = await call(session, "user_context", user_key="user:alice")
    assert [c and c["sourceUrn"] for c in chunks] == ["doc:wombat-runbook", None]
    assert "marmot database" in chunks[0]["content"]
    assert "doc:wombat-runbook" in {item["sourceUrn"] for item in pack["items"]}
    assert "service:wombat" in pack["seeds"]
    assert "host:capybara" in pack["relatedNodes"]  # two hops from the seed
    assert path is not None and path["length"] == 2
    assert [n["key"] for n in path["nodes"]] == ["service:wombat", "db:marmot", "host:capybara"]
    assert none is None  # no path against the edges' direction
    [stack] = [c for c in profile["categories"] if c["category"] == "TECH_STACK"]
    assert [i["content"] for i in stack["items"]] == ["Uses the fish shell everywhere."]
    assert "fish shell" in profile["markdown"]


async def test_bad_arguments_are_refused_naming_the_field(server: Server, keys: ReadKeys) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        ids = await session.call_tool("get_chunks", {"ids": [f"c{i}" for i in range(1001)]})
        hops = await session.call_tool("evidence_pack", {"query": "wombat", "hops": 9})
        depth = await session.call_tool(
            "find_path", {"from_key": "service:wombat", "to_key": "db:marmot", "max_depth": 7}
        )
        key = await session.call_tool("find_path", {"from_key": "::", "to_key": "db:marmot"})
        per_category = await session.call_tool("user_context", {"limit_per_category": 0})
    assert refusal(ids).startswith("TOO_LARGE") and refusal(ids).endswith("(field: ids)")
    assert refusal(hops).startswith("INVALID") and refusal(hops).endswith("(field: hops)")
    assert refusal(depth).startswith("INVALID") and refusal(depth).endswith("(field: maxDepth)")
    assert refusal(key).startswith("INVALID") and refusal(key).endswith("(field: from_key)")
    assert refusal(per_category).startswith("INVALID")


async def test_another_client_reads_nothing_of_it(
    server: Server, keys: ReadKeys, written: dict[str, Any]
) -> None:
    async with mcp_session(server.url, keys.agent_b) as other:
        chunks = (await call(other, "get_chunks", ids=written["chunkIds"]))["chunks"]
        pack = await call(other, "evidence_pack", query="wombat ledger marmot database")
        path = (await call(other, "find_path", from_key="service:wombat", to_key="host:capybara"))[
            "path"
        ]
        profile = await call(other, "user_context", user_key="user:alice")
    assert chunks == [None]
    assert all("wombat" not in str(item) for item in pack["items"])
    # Global-scope data other tests left is every client's to read: none of A's nodes is.
    assert not set(pack["seeds"]) & set(written["nodes"]), pack["seeds"]
    assert path is None
    assert all(c["items"] == [] for c in profile["categories"])
    assert "fish" not in profile["markdown"]


async def test_search_filters_over_mcp_narrow_and_name_a_bad_time(
    server: Server, keys: ReadKeys, written: dict[str, Any]
) -> None:
    narrow = {"entity_keys": ["service:wombat"], "created_after": "2000-01-01T00:00:00Z"}
    later = {"created_after": "2999-01-01T00:00:00Z"}
    async with mcp_session(server.url, keys.agent_a) as session:
        kept = await call(session, "search_knowledge", query="ledger", filters=narrow)
        none = await call(session, "search_knowledge", query="ledger", filters=later)
        bad = await session.call_tool(
            "search_knowledge", {"query": "ledger", "filters": {"observed_before": "yesterday"}}
        )
    assert [h["chunk"]["id"] for h in kept["hits"]] == written["chunkIds"]
    assert none["hits"] == []
    assert refusal(bad).startswith("INVALID: filters.observed_before must be an ISO 8601 time")
