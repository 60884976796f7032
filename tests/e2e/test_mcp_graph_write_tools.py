"""The MCP structured write tools over real HTTP: ingest_graph stores pieces, nodes and
evidence-bearing edges (a bad edge rejected on its own), load_knowledge a knowledge file
(the same file again a SKIPPED_DUPLICATE; the design's format too), ingest_git_commits
commits as a graph; bad input is refused naming the field, and another client's agent finds
none of it."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.design_knowledge import DESIGN_EXAMPLE
from tests.support.mcp_session import call, mcp_session, refusal
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e

NODES = [{"key": "service:okapi", "properties": {"tier": 1}}, {"key": "lib:lynx"}]
PIECES = [{"ref": "p1", "content": "The okapi service signs tokens with the lynx library."}]
EDGES = [
    {"from_key": "service:okapi", "edge_type": "uses", "to_key": "lib:lynx", "evidence": ["p1"]},
    {"from_key": "service:okapi", "edge_type": "uses", "to_key": "lib:ghost", "evidence": ["p9"]},
]
FILE = {
    "pieces": [{"id": "k1", "content": "Tapir owns the okapi service.", "knowledgeType": "FACT"}],
    "graph": {
        "nodes": [{"id": "user:tapir", "type": "user"}, {"id": "service:okapi"}],
        "edges": [
            {
                "source": "user:tapir",
                "relation": "owns",
                "target": "service:okapi",
                "evidence": ["k1"],
            }
        ],
    },
}
COMMIT = {
    "hash": "a" * 40,
    "message": "Rotate the okapi signing key",
    "author": "tapir",
    "date": "2026-11-02T10:00:00Z",
    "branch": "main",
    "files": [{"path": "okapi/keys.py", "change_type": "M"}],
    "diff": "--- a/okapi/keys.py\n+++ b/okapi/keys.py\n@@ -1 +1 @@\n-OLD = 1\n+NEW = 2\n",
}


@dataclass(frozen=True)
class WriteKeys:
    agent_a: str
    agent_b: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> WriteKeys:
    a, b = f"mcp-gw-a-{uuid.uuid4().hex[:6]}", f"mcp-gw-b-{uuid.uuid4().hex[:6]}"
    return WriteKeys(
        asyncio.run(create_key(migrated_settings, Scope(a, "web"), Role.AGENT)),
        asyncio.run(create_key(migrated_settings, Scope(b, "web"), Role.AGENT)),
    )


async def test_structured_writes_store_their_graph(server: Server, keys: WriteKeys) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        graph = await call(
            session,
            "ingest_graph",
            source_urn="design:okapi",
            pieces=PIECES,
            nodes=NODES,
            edges=EDGES,
            metadata={"okapi": {"type": "service"}},
        )
        loaded = await call(session, "load_knowledge", source_urn="kb:okapi", knowledge=FILE)
        again = await call(session, "load_knowledge", source_urn="kb:okapi", knowledge=FILE)
        design = await call(
            session, "load_knowledge", source_urn="kb:alice", knowledge=DESIGN_EXAMPLE
        )
        commits = await call(
            session, "ingest_git_commits", repository="github:zoo/okapi", commits=[COMMIT]
        )
        node = await call(session, "get_node", key="service:okapi")
    assert graph["status"] == "INDEXED" and len(graph["chunkIds"]) == 1
    assert [e["toKey"] for e in graph["edges"]] == ["lib:lynx"]
    [rejected] = graph["rejected"]
    assert (rejected["item"], rejected["index"]) == ("EDGE", 1)
    assert loaded["status"] == "INDEXED" and "user:tapir" in loaded["nodes"]
    assert again["status"] == "SKIPPED_DUPLICATE"
    assert (design["status"], design["rejected"]) == ("INDEXED", [])
    assert design["nodes"] == ["technique:les", "user:alice"]
    [commit] = commits["commits"]
    assert (commit["hash"], commit["status"], commit["rejected"]) == ("a" * 40, "INDEXED", [])
    assert commit["edges"] > 0
    assert ("service:okapi", "uses", "lib:lynx") in triples(node)
    assert ("user:tapir", "owns", "service:okapi") in triples(node)


def triples(node: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["fromKey"], e["edgeType"], e["toKey"]) for e in node["edges"]}


async def test_bad_input_is_refused_naming_the_field(server: Server, keys: WriteKeys) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        section = await session.call_tool(
            "load_knowledge", {"source_urn": "kb:bad", "knowledge": {"chapters": []}}
        )
        date = await session.call_tool(
            "ingest_git_commits",
            {"repository": "github:zoo/okapi", "commits": [{**COMMIT, "date": "yesterday"}]},
        )
        scope = await session.call_tool(
            "ingest_graph",
            {"source_urn": "design:x", "pieces": PIECES, "scope": {"client_id": "someone"}},
        )
    assert refusal(section).startswith("INVALID") and "json.chapters" in refusal(section)
    assert refusal(date).startswith("INVALID") and refusal(date).endswith("commits[0].date)")
    assert refusal(scope).startswith("OUT_OF_SCOPE")


async def test_another_client_finds_none_of_it(server: Server, keys: WriteKeys) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        await call(
            session,
            "ingest_graph",
            source_urn="design:okapi-private",
            pieces=PIECES,
            nodes=NODES,
            edges=EDGES[:1],
        )
        own = await call(session, "get_node", key="lib:lynx")
    assert own["node"] is not None, "client A finds its node: the check below can fail"
    async with mcp_session(server.url, keys.agent_b) as other:
        node = await call(other, "get_node", key="lib:lynx")
        hits = (await call(other, "search_knowledge", query="okapi signs tokens lynx"))["hits"]
    assert node == {"node": None, "edges": []}
    assert all("okapi" not in h["chunk"]["content"] for h in hits)
