"""Writing test graphs through the real `ingestGraph` mutation."""

from __future__ import annotations

from collections.abc import Sequence

from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api

INGEST_GRAPH = """
mutation($input: IngestGraphInput!) {
  ingestGraph(input: $input) {
    __typename
    ... on IngestGraphSuccess { status rejected { item index reason } }
    ... on ValidationError { field message }
  }
}
"""

Triple = tuple[str, str, str]


def scope_input(scope: Scope) -> dict[str, str]:
    """A ``ScopeInput`` value."""
    return {"clientId": scope.client_id, "projectId": scope.project_id, "groupId": scope.group_id}


async def write_graph(
    api: Api,
    scope: Scope,
    edges: Sequence[Triple],
    *,
    nodes: dict[str, dict[str, object]] | None = None,
    urn: str = "graph:test",
    pieces_per_edge: int = 1,
) -> None:
    """Store ``edges`` (each with its own evidence pieces) and ``nodes`` at ``scope``."""
    properties = dict(nodes or {})
    for a, _, b in edges:
        properties.setdefault(a, {})
        properties.setdefault(b, {})
    pieces = [
        {"ref": f"e{i}p{j}", "content": f"Evidence {j} that {a} {t} {b}."}
        for i, (a, t, b) in enumerate(edges)
        for j in range(pieces_per_edge)
    ]
    payload = {
        "sourceUrn": urn,
        "scope": scope_input(scope),
        "pieces": pieces,
        "nodes": [{"key": k, "properties": p or None} for k, p in properties.items()],
        "edges": [
            {
                "from": a,
                "edgeType": t,
                "to": b,
                "evidence": [f"e{i}p{j}" for j in range(pieces_per_edge)],
            }
            for i, (a, t, b) in enumerate(edges)
        ],
    }
    result = (await api(INGEST_GRAPH, input=payload))["ingestGraph"]
    assert result["__typename"] == "IngestGraphSuccess", result
    assert result["rejected"] == [], result["rejected"]
