"""What the source listing and unit purge tests ask through GraphQL: ``sources`` pages,
``purgeCrawl``/``purgeRepository``, and connections to name."""

from __future__ import annotations

from typing import Any

from tests.support.graphql_api import Api

SOURCES = """query L($filter: SourceFilterInput, $first: Int!, $after: String,
                    $scope: ScopeInput) {
  sources(filter: $filter, first: $first, after: $after, scope: $scope) {
    nodes { sourceUrn kind sourceKind connectionId chunkCount observedAt indexedAt
            scope { clientId projectId groupId } storedFile { id filename } }
    endCursor hasNextPage } }"""
PURGE_CRAWL = """mutation P($id: ID!) { purgeCrawl(jobId: $id) { __typename
  ... on PurgeSuccess { sources chunks jobsCancelled } ... on Error { code field message } } }"""
PURGE_REPOSITORY = """mutation P($name: String!, $branch: String!) {
  purgeRepository(name: $name, branch: $branch) { __typename
  ... on PurgeSuccess { sources chunks jobsCancelled } ... on Error { code field message } } }"""
REGISTER = """mutation R($input: RegisterConnectionInput!) { registerConnection(input: $input) {
  __typename ... on Error { code message } } }"""
REVOKE = """mutation V($id: String!) { revokeConnection(connectionId: $id, reason: "test") {
  __typename ... on RevokeConnectionSuccess { purged { sources } } } }"""
INGEST = """mutation I($input: IngestInput!) { ingest(input: $input) { __typename } }"""


async def every_source(api: Api, first: int = 200, **filter: Any) -> list[dict[str, Any]]:
    """Every source ``api``'s key sees through ``filter``, page after page."""
    found: list[dict[str, Any]] = []
    after = None
    while True:
        page = (await api(SOURCES, filter=filter or None, first=first, after=after))["sources"]
        found += page["nodes"]
        if not page["hasNextPage"]:
            return found
        after = page["endCursor"]


async def urns(api: Api, **filter: Any) -> list[str]:
    """The URNs of ``every_source``."""
    return [s["sourceUrn"] for s in await every_source(api, **filter)]


async def register(api: Api, connection_id: str, *kinds: str) -> None:
    """Register ``connection_id`` at the key's scope, allowing ``kinds`` (none: any)."""
    input = {
        "connectionId": connection_id,
        "authority": "custom",
        "label": connection_id,
        "allowedSourceKinds": list(kinds),
    }
    done = await api(REGISTER, input=input)
    assert done["registerConnection"]["__typename"] == "RegisterConnectionSuccess", done


async def ingest(api: Api, urn: str, content: str, kind: str = "note", **extra: Any) -> None:
    """Ingest one document now."""
    done = await api(INGEST, input={"sourceUrn": urn, "kind": kind, "content": content, **extra})
    assert done["ingest"]["__typename"] == "IngestSuccess", done


async def purged(api: Api, query: str, **variables: Any) -> dict[str, Any]:
    """The result of a purge mutation."""
    data = await api(query, **variables)
    result: dict[str, Any] = next(iter(data.values()))
    return result
