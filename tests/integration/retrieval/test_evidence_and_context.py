"""Evidence packs and agent context through GraphQL on the real stack."""

from __future__ import annotations

import pytest

from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST, INGEST_GRAPH, SEED, doc

pytestmark = pytest.mark.integration

PACK = """
query($q: String!, $hops: Int!) {
  evidencePack(query: $q, hops: $hops, limit: 5, scope: {clientId: "acme"}) {
    __typename
    ... on EvidencePack {
      summary seeds relatedNodes
      items { source confidence chunkIds content edge { edgeType from { key } to { key } } }
    }
    ... on ValidationError { field }
  }
}
"""

CONTEXT = """
query($q: String!, $entity: String) {
  agentContext(query: $q, entityKey: $entity, limit: 5, scope: {clientId: "acme"}) {
    __typename
    ... on AgentContext { text entity { key } sections { infoType lines { text chunkIds } } }
    ... on ValidationError { field }
  }
}
"""


async def _seed(api: Api) -> None:
    await api(INGEST, input=doc(SEED))
    await api(
        INGEST,
        input=doc(
            "John owns the auth service.\n\nuser:john|OWNS|service:auth\n",
            urn="doc:owners",
        ),
    )


async def test_evidence_pack_joins_search_hits_and_their_graph(api: Api) -> None:
    await _seed(api)
    result = (await api(PACK, q="login bug in UserService", hops=2))["evidencePack"]
    assert result["__typename"] == "EvidencePack"
    rag = [i for i in result["items"] if i["source"] == "RAG"]
    graph = [i for i in result["items"] if i["source"] == "GRAPH"]
    assert rag and rag[0]["confidence"] == 1.0
    assert "jira:task-123" in result["seeds"]
    triples = {(i["edge"]["from"]["key"], i["edge"]["edgeType"], i["edge"]["to"]["key"])
               for i in graph}  # fmt: skip
    assert ("jira:task-123", "affects", "file:userservice.kt") in triples
    # Two hops from the ticket reach the service John owns.
    assert ("user:john", "owns", "service:auth") in triples
    assert all(i["chunkIds"] for i in graph)
    assert result["summary"] == (
        f"{len(rag)} chunk{'s' * (len(rag) != 1)}, {len(result['relatedNodes'])} related nodes"
    )
    one_hop = (await api(PACK, q="login bug in UserService", hops=1))["evidencePack"]
    one_hop_triples = {i["edge"]["edgeType"] for i in one_hop["items"] if i["edge"]}
    assert "owns" in one_hop_triples or len(one_hop["items"]) <= len(result["items"])


async def test_evidence_pack_rejects_bad_arguments(api: Api) -> None:
    result = (await api(PACK, q="x", hops=9))["evidencePack"]
    assert result == {"__typename": "ValidationError", "field": "hops"}


async def test_agent_context_routes_pieces_and_edges_deterministically(api: Api) -> None:
    await _seed(api)
    await api(
        INGEST_GRAPH,
        input={
            "sourceUrn": "profile:john",
            "scope": {"clientId": "acme"},
            "pieces": [
                {"ref": "p1", "content": "John prefers short answers about login work.",
                 "infoType": "user_profile"},
                {"ref": "p2", "content": "Always run the login tests before merging.",
                 "infoType": "instructions"},
            ],
            "nodes": [
                {"key": "user:john", "properties": {"name": "John Doe", "team": "auth"}},
                {"key": "style:short"},
            ],
            "edges": [
                {"from": "user:john", "edgeType": "PREFERS", "to": "style:short",
                 "evidence": ["p1"]}
            ],
        },
    )  # fmt: skip
    first = (await api(CONTEXT, q="login", entity="User:John"))["agentContext"]
    second = (await api(CONTEXT, q="login", entity="User:John"))["agentContext"]
    assert first["__typename"] == "AgentContext"
    assert first["text"] == second["text"]
    assert first["entity"] == {"key": "user:john"}
    sections = {s["infoType"]: [line["text"] for line in s["lines"]] for s in first["sections"]}
    assert list(sections)[:2] == ["user_profile", "instructions"]
    assert sections["user_profile"][:2] == ["name: John Doe", "team: auth"]
    assert "OWNS → Service:auth" in sections["user_profile"]
    assert "PREFERS → Style:short" in sections["user_profile"]
    assert "Jira:task-123 ASSIGNED_TO → User:john (John Doe)" in sections["context"]
    assert any("login tests" in line for line in sections["instructions"])
    assert first["text"].startswith("## user_profile\n[Metadata]\nname: John Doe")
