"""What the client commands (``ingest``, ``ingest-repo``, ``crawl``) share to talk to a
running server: one GraphQL call, and the job statuses a followed job ends in."""

from __future__ import annotations

from typing import Any

import httpx

FINISHED = frozenset({"INDEXED", "SKIPPED_DUPLICATE", "FAILED", "CANCELLED"})


async def graphql(client: httpx.AsyncClient, query: str, **variables: Any) -> dict[str, Any]:
    """The data of one GraphQL call; ``RuntimeError`` with the errors when there are any."""
    answer = await client.post("/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = answer.json()
    if answer.status_code != 200 or body.get("errors"):
        raise RuntimeError(str(body.get("errors") or answer.text))
    data: dict[str, Any] = body["data"]
    return data
