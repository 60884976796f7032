"""``bench.mcp``'s agent-context and ingest rows: ``get_context`` against ``agentContext``
and ``ingest_document`` against ``ingest``, each MCP tool over HTTP beside the same GraphQL
operation, interleaved one call at a time."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from mcp.client import ClientSession

Call = Callable[[str], Awaitable[object]]

CONTEXT = """query($q: String!) { agentContext(query: $q) { ... on AgentContext {
  entity { key } sections { infoType omitted text lines { text chunkIds score } } text } } }"""
# The fields ingest_document answers (its chunk ids as chunks' ids).
INGEST = """mutation($urn: String!, $content: String!) {
  ingest(input: {sourceUrn: $urn, kind: "note", content: $content}) {
    ... on IngestSuccess { status contentHash chunks { id } nodes edges { from edgeType to }
    warnings { source line excerpt reason key normalizedKey } } } }"""
PURGE = """mutation($urn: String!) { purgeSource(sourceUrn: $urn) {
  ... on PurgeSuccess { sources } } }"""
URN_PREFIX = "bench-mcp:"


async def _graphql(client: httpx.AsyncClient, query: str, **variables: Any) -> Any:
    answer = await client.post("/graphql", json={"query": query, "variables": variables})
    answer.raise_for_status()
    body = answer.json()
    assert "errors" not in body, body
    return body["data"]


async def _tool(session: ClientSession, name: str, **arguments: Any) -> Any:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, result
    return result.structured_content


def context_paths(client: httpx.AsyncClient, session: ClientSession) -> dict[str, Call]:
    """The agent context of a query, whose text each path answers."""

    async def graphql(text: str) -> object:
        return (await _graphql(client, CONTEXT, q=text))["agentContext"]["text"]

    async def mcp_http(text: str) -> object:
        return (await _tool(session, "get_context", query=text))["text"]

    return {"graphql": graphql, "mcp_http": mcp_http}


class IngestPaths:
    """A note of its own per call (a URN each path numbers), answering its status; every
    URN written is kept for ``purge``."""

    def __init__(self, client: httpx.AsyncClient, session: ClientSession) -> None:
        self._client, self._session = client, session
        self._numbers = itertools.count()
        self.urns: list[str] = []

    def _urn(self, path: str) -> str:
        urn = f"{URN_PREFIX}{path}:{next(self._numbers)}"
        self.urns.append(urn)
        return urn

    def paths(self) -> dict[str, Call]:
        async def graphql(text: str) -> object:
            done = await _graphql(self._client, INGEST, urn=self._urn("graphql"), content=text)
            return done["ingest"]["status"]

        async def mcp_http(text: str) -> object:
            urn = self._urn("mcp")
            done = await _tool(
                self._session, "ingest_document", source_urn=urn, kind="note", content=text
            )
            return done["status"]

        return {"graphql": graphql, "mcp_http": mcp_http}

    async def purge(self) -> int:
        """Purge every note written; the number of sources removed."""
        removed = 0
        for urn in self.urns:
            removed += (await _graphql(self._client, PURGE, urn=urn))["purgeSource"]["sources"]
        return removed
